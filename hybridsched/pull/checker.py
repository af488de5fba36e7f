"""Independent checker of ``pull`` schedules: validity and every metric, from the tasks alone.

**The pull model** (the paper's sections 2.2 and 4, Algorithm 3; simulated by
:mod:`hybridsched.heuristics.pull.simulation`). Hosts pull work: "when it (re-)joins the system,
or after
completing a task". The scheduler keeps one queued replica of every work
unit that has arrived and has no correct result yet (XtremWeb replication: a
sent task is replaced by a lower-priority replica), so a pull is served
whenever some unit is incomplete; and an idle host pulls again when units
arrive. A unit is done at its first correct result; the run ends when the
last unit is done. Read as a rule on schedules: *an available host is never
idle while a unit waits*. Which unit a pulling host gets is the policy's
choice, and the queue's fewest-replicas-first order the simulator's: neither
is a rule of the model, so neither is checked (a clairvoyant schedule may
choose otherwise).

**Rules** (times within :data:`TIME_TOL`):

- times are finite, at least 0 and at most
  :data:`~hybridsched.io.limits.MAX_PULL_SECONDS` (where the absolute
  tolerance is still above their rounding); delay factors are finite; tasks
  name the instance's units and hosts;
- a task starts no earlier than its unit's arrival, and lies inside the
  availability window of its host that its start lies in (as the simulator
  decides: the host pulled in that window), or the next one when it starts
  within the tolerance before it; a ``lost`` task ends exactly when that
  window ends (its host left), before the task could finish;
- a host runs one task at a time;
- every work unit has a correct result; no replica starts after its unit's
  first correct result; no task ends after the end of the run (the last
  unit's completion), and a ``cancelled`` task ends exactly then;
- an available host is never idle while a unit waits: inside each window
  (up to the end of the run), the host's idle spans (before its first task,
  between tasks, after its last) overlap no span ``[arrival, completion)``
  of a unit by more than the tolerance;
- **results replay the instance's draws** (:mod:`.behaviour`): the ``k``-th
  task of a host, in start order, has the delay factor of the host's ``k``-th
  draw (to a relative 1e-12) and, if it ran to its end (``correct``,
  ``wrong``, ``never``), the draw's outcome; a ``lost`` or ``cancelled``
  task was cut short, whatever its draw. A task that ran to its end lasts
  ``ECT x delay`` (``ECT = noi / cpu``; the delay of a never-returned
  result is 1); a cut-short one no longer;
- every claim of the solution is recomputed and compared
  (:func:`~hybridsched.family.wrong_claims`): the stated ``objective``
  (the makespan), ``makespan``, ``cost``, ``efficiency`` and counts
  (``completed``, ``tasks_<outcome>``, ``tasks_delayed``, the
  per-DCI metrics below); and its event log, record by record
  (:mod:`.event_log`).

Metrics (the paper's section 3.3):

``makespan``    last unit completion (its first correct result) minus the
                first schedule (:meth:`Instance.first_schedule`);
``cost``        ``ECT x price`` of every result returned by its ECT (correct
                or wrong: the host kept its SLA); late, never-returned, lost
                and cancelled tasks are not charged;
``efficiency``  E: instructions of the work units over the instructions of
                all scheduled tasks;
``efficiency_<dci>``  Eq. 2: instructions of the tasks that completed a unit
                over the instructions executed on the DCI (a lost or
                cancelled task counts the part it ran); absent for a DCI
                that ran nothing;
``instructions_<dci>``, ``completed_<dci>``: executed instructions and
                completed units per DCI (Fig. 11); counts of tasks by outcome.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hybridsched.family import Evaluation, wrong_claims
from hybridsched.io.limits import MAX_PULL_SECONDS
from hybridsched.pull.behaviour import replay
from hybridsched.pull.event_log import log_problems
from hybridsched.pull.instance import Instance
from hybridsched.pull.solution import (
    CANCELLED,
    CORRECT,
    LOST,
    NEVER,
    OUTCOMES,
    WRONG,
    Solution,
)

#: Absolute tolerance on times (seconds), and relative tolerance on durations.
TIME_TOL = 1e-6
DURATION_RTOL = 1e-9
#: Relative tolerance of a delay factor against its draw (a file keeps every digit).
DELAY_RTOL = 1e-12
#: Most violations listed per rule.
MAX_LISTED = 50


def _task(instance: Instance, solution: Solution, k: int) -> str:
    return (f"task {k} (unit {instance.unit_ids[solution.unit[k]]!r} on host "
            f"{instance.host_ids[solution.host[k]]!r})")


def _structure(instance: Instance, solution: Solution) -> list[str]:
    """Units, hosts, outcomes and numbers every other rule can compute with."""
    s = solution
    if s.n_tasks and (s.unit.min() < 0 or s.unit.max() >= instance.n_units
                      or s.host.min() < 0 or s.host.max() >= instance.n_hosts
                      or s.outcome.min() < 0 or s.outcome.max() >= len(OUTCOMES)):
        return ["the schedule does not match the instance's units and hosts"]
    problems = []
    for name, values in (("start", s.start), ("end", s.end)):
        for k in np.flatnonzero(~((values >= 0) & (values <= MAX_PULL_SECONDS)))[:MAX_LISTED]:
            problems.append(f"{_task(instance, s, k)} has {name} {float(values[k])!r}, not "
                            f"a time in [0, {MAX_PULL_SECONDS:.0e}]")
    for k in np.flatnonzero(~np.isfinite(s.delay))[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} has delay factor {float(s.delay[k])!r}")
    return problems


def _assign_windows(instance: Instance, solution: Solution
                    ) -> tuple[np.ndarray, list[str]]:
    """Each task's window (a row of :meth:`Instance.window_table`; -1: none), and problems.

    Problems: tasks outside their host's windows, and lost tasks not ending with one.
    """
    problems = []
    _, first, last, offset = instance.window_table()
    window = np.full(solution.n_tasks, -1)
    order = np.argsort(solution.host, kind="stable")
    hosts = solution.host[order]
    for h in np.unique(hosts):
        tasks = order[hosts == h]
        spans = np.stack((first, last), axis=1)[offset[h]:offset[h + 1]]
        if not len(spans):  # a host that is never available
            spans = np.array([[np.inf, np.inf]])
        start = solution.start[tasks]
        # A task's window is the one its start lies in; failing that, the next one if it
        # starts within the tolerance (a join computed a rounding early). Looking up
        # start + TIME_TOL directly would pick the wrong one of two windows closer than it.
        k = np.searchsorted(spans[:, 0], start, side="right") - 1
        exact = (k >= 0) & (start < spans[np.maximum(k, 0), 1])
        following = np.minimum(k + 1, len(spans) - 1)
        near = (k + 1 < len(spans)) & (spans[following, 0] <= start + TIME_TOL)
        k = np.where(exact, k, following)
        inside = exact | near
        ends = np.where(inside, spans[np.maximum(k, 0), 1], -np.inf)
        outside = ~inside | (solution.end[tasks] > ends + TIME_TOL)
        window[tasks[~outside]] = offset[h] + k[~outside]
        early_loss = ((solution.outcome[tasks] == LOST) & ~outside
                      & (np.abs(solution.end[tasks] - ends) > TIME_TOL))
        for t in tasks[outside]:
            problems.append(f"{_task(instance, solution, t)} runs [{solution.start[t]:g}, "
                            f"{solution.end[t]:g}] outside the host's availability windows")
        for t in tasks[early_loss]:
            problems.append(f"{_task(instance, solution, t)} is lost but does not end when "
                            "its host leaves")
    return window, problems


def _draw_problems(instance: Instance, solution: Solution) -> list[str]:
    """Delay factors and outcomes against the replayed draws; durations against both."""
    s = solution
    problems = []
    rank = np.zeros(s.n_tasks, dtype=np.int64)  # k: the task is its host's k-th draw
    delay = np.ones(s.n_tasks)
    outcome = np.zeros(s.n_tasks, dtype=np.int64)
    order = np.lexsort((np.arange(s.n_tasks), s.end, s.start, s.host))
    hosts, first, count = np.unique(s.host[order], return_index=True, return_counts=True)
    for h, at, n in zip(hosts, first, count, strict=True):
        tasks = order[at:at + n]
        delay[tasks], outcome[tasks] = replay(instance, int(h), int(n))
        rank[tasks] = np.arange(n)
    off = np.abs(s.delay - delay) > DELAY_RTOL * delay
    for k in np.flatnonzero(off)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} has delay factor {float(s.delay[k])!r}, but "
                        f"its host's draw {rank[k]} gives {float(delay[k])!r}")
    ran = np.isin(s.outcome, (CORRECT, WRONG, NEVER))
    for k in np.flatnonzero(ran & (s.outcome != outcome))[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} is {OUTCOMES[s.outcome[k]]}, but its host's "
                        f"draw {rank[k]} makes it {OUTCOMES[outcome[k]]}")
    full = instance.noi[s.unit] / instance.cpu[s.host] * delay
    duration = s.end - s.start
    tol = TIME_TOL + DURATION_RTOL * full
    for k in np.flatnonzero(ran & (np.abs(duration - full) > tol))[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} ({OUTCOMES[s.outcome[k]]}) lasts "
                        f"{duration[k]:g} s, not its {full[k]:g} s")
    for k in np.flatnonzero(~ran & (duration > full + tol))[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} ({OUTCOMES[s.outcome[k]]}) lasts "
                        f"{duration[k]:g} s, longer than its {full[k]:g} s")
    return problems


def _run_problems(instance: Instance, solution: Solution, completion: np.ndarray,
                  end: float) -> list[str]:
    """Replicas after their unit's completion, tasks after the run, cancellations."""
    s = solution
    problems = []
    late = s.start > completion[s.unit] + TIME_TOL
    for k in np.flatnonzero(late)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} starts at {s.start[k]:g}, after its unit "
                        f"completed at {completion[s.unit[k]]:g}")
    for k in np.flatnonzero(s.end > end + TIME_TOL)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} ends at {s.end[k]:g}, after the run ended "
                        f"with the last unit's completion at {end:g}")
    cancelled = (s.outcome == CANCELLED) & (np.abs(s.end - end) > TIME_TOL)
    for k in np.flatnonzero(cancelled)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} is cancelled at {s.end[k]:g}, not when "
                        f"the last unit completes ({end:g})")
    return problems


def _idle_problems(instance: Instance, solution: Solution, window: np.ndarray,
                   completion: np.ndarray, end: float) -> list[str]:
    """Available hosts idle while a unit waits (arrived, not completed)."""
    s = solution
    if not instance.n_units:
        return []
    # The spans in which some unit waits, merged: [begin, until), sorted and disjoint.
    order = np.argsort(instance.arrival, kind="stable")
    arrival, done = instance.arrival[order], completion[order]
    reach = np.maximum.accumulate(done)
    new = np.concatenate(([True], arrival[1:] > reach[:-1]))
    begin = arrival[new]
    until = reach[np.concatenate((np.flatnonzero(new)[1:] - 1, [len(arrival) - 1]))]
    # Idle spans of every host inside its windows, up to the end of the run.
    host, first, last, _ = instance.window_table()
    last = np.minimum(last, end)
    placed = np.flatnonzero(window >= 0)
    placed = placed[np.lexsort((s.end[placed], s.start[placed], window[placed]))]
    w = window[placed]
    previous = np.concatenate(([-1], w[:-1]))
    gap_from = np.where(previous == w, np.concatenate(([0.0], s.end[placed][:-1])), first[w])
    gap_to = s.start[placed]
    tail = first.copy()
    np.maximum.at(tail, w, s.end[placed])
    idle_host = np.concatenate((host[w], host))
    idle_from = np.concatenate((gap_from, tail))
    idle_to = np.concatenate((gap_to, last))
    x, y = idle_from + TIME_TOL, idle_to - TIME_TOL
    keep = y > x
    idle_host, x, y = idle_host[keep], x[keep], y[keep]
    # A waiting span overlaps (x, y): the first one ending after x begins before y.
    i = np.searchsorted(until, x, side="right")
    busy = i < len(until)
    waits = busy & (begin[np.minimum(i, len(until) - 1)] < y)
    problems = []
    for h, a, b in zip(idle_host[waits][:MAX_LISTED], x[waits][:MAX_LISTED],
                       y[waits][:MAX_LISTED], strict=True):
        u = np.flatnonzero((instance.arrival < b) & (completion > a))[0]
        problems.append(f"host {instance.host_ids[h]!r} is available and idle from "
                        f"{a - TIME_TOL:g} to {b + TIME_TOL:g} while work unit "
                        f"{instance.unit_ids[u]!r} waits (arrived at "
                        f"{instance.arrival[u]:g}, completed at {completion[u]:g})")
    return problems


def check(instance: Instance, solution: Solution) -> list[str]:
    """Every violation of the family's rules, and every wrong claim (empty: valid)."""
    s = solution
    problems = _structure(instance, s)
    if problems:
        return problems
    early = s.start < instance.arrival[s.unit] - TIME_TOL
    for k in np.flatnonzero(early)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} starts at {s.start[k]:g}, before its unit "
                        f"arrives ({instance.arrival[s.unit[k]]:g})")
    for k in np.flatnonzero(s.end < s.start)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} ends before it starts")
    window, outside = _assign_windows(instance, s)
    problems += outside[:MAX_LISTED]
    order = np.lexsort((s.start, s.host))
    clash = (s.host[order][1:] == s.host[order][:-1]) & (
        s.end[order][:-1] > s.start[order][1:] + TIME_TOL)
    for k in np.flatnonzero(clash)[:MAX_LISTED]:
        a, b = order[k], order[k + 1]
        problems.append(f"host {instance.host_ids[s.host[a]]!r} runs task {a} until "
                        f"{s.end[a]:g} and task {b} from {s.start[b]:g}")
    problems += _draw_problems(instance, s)
    completion = s.completion(instance.n_units)
    missing = np.flatnonzero(np.isinf(completion))
    for u in missing[:MAX_LISTED]:
        problems.append(f"work unit {instance.unit_ids[u]!r} has no correct result")
    if missing.size > MAX_LISTED:
        problems.append(f"... and {missing.size - MAX_LISTED} more units without a result")
    end = None
    if not missing.size:
        end = float(completion.max()) if instance.n_units else 0.0
        problems += _run_problems(instance, s, completion, end)
        problems += _idle_problems(instance, s, window, completion, end)
    problems += log_problems(instance, s, end)
    metrics = evaluate(instance, s).metrics
    claims = [("objective", s.reported.get("objective"), metrics["makespan"])]
    for key, stated in s.reported.items():
        if key != "objective" and key in metrics:
            claims.append((key, stated, metrics[key]))
        elif key != "objective":
            problems.append(f"reported {key} {stated!r}, which the schedule does not have "
                            "(no task ran on that DCI)")
    return problems + wrong_claims(claims)


def completing_tasks(instance: Instance, solution: Solution) -> np.ndarray:
    """Index of the task that completed each unit (its first correct result; -1: none)."""
    s = solution
    first = np.full(instance.n_units, -1)
    ok = np.flatnonzero(s.outcome == CORRECT)
    order = ok[np.lexsort((ok, s.end[ok]))][::-1]  # latest first, so the earliest wins
    first[s.unit[order]] = order
    return first


def evaluate(instance: Instance, solution: Solution) -> Evaluation:
    """Recompute the makespan (the objective), cost, E and the per-DCI efficiencies."""
    s = solution
    completion = s.completion(instance.n_units)
    if instance.n_units == 0:
        makespan = 0.0
    elif np.isinf(completion).any():
        makespan = math.inf
    else:
        makespan = float(completion.max()) - instance.first_schedule()
    ect = instance.noi[s.unit] / instance.cpu[s.host]
    in_time = np.isin(s.outcome, (CORRECT, WRONG)) & (s.delay <= 1.0)
    cost = float(np.sum((ect * instance.price[s.host])[in_time]))
    # Exactly rounded sums (fsum): useful <= scheduled holds in floating point too, so
    # the efficiencies never exceed 1 by a rounding (a schedule file refuses them).
    scheduled = math.fsum(instance.noi[s.unit])
    done = completion < np.inf
    useful = math.fsum(instance.noi[done])
    ran = instance.noi[s.unit].astype(float)
    cut = np.isin(s.outcome, (LOST, CANCELLED))
    ran[cut] *= np.minimum(1.0, (s.end - s.start)[cut] / (ect * s.delay)[cut])
    completing = completing_tasks(instance, s)
    completing = completing[completing >= 0]
    metrics: dict[str, Any] = {
        "makespan": makespan, "cost": cost,
        "efficiency": useful / scheduled if scheduled > 0 else 1.0,
        "completed": int(done.sum()), "tasks": s.n_tasks,
    }
    for code, name in enumerate(OUTCOMES):
        metrics[f"tasks_{name}"] = int(np.sum(s.outcome == code))
    metrics["tasks_delayed"] = int(np.sum(s.delay > 1))
    dci = np.array(instance.dci)
    task_dci = dci[s.host] if s.n_tasks else np.array([], dtype=str)
    for name in instance.dcis:
        on = task_dci == name
        executed = math.fsum(ran[on])
        util = math.fsum(instance.noi[s.unit[completing]][task_dci[completing] == name])
        if executed > 0:
            metrics[f"efficiency_{name}"] = util / executed
        metrics[f"instructions_{name}"] = executed
        metrics[f"completed_{name}"] = int(np.sum(task_dci[completing] == name))
    return Evaluation(objective=makespan, metrics=metrics)
