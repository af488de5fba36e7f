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

**Real times: the family's one definition of feasibility.** No stated time
is trusted beyond the order it gives: every time a rule uses is *real*,
recomputed from the instance in binary64 (:mod:`.timeline`; the exact
models' schedules are written the same way, :mod:`hybridsched.models.pull`):

- per host, tasks run one at a time in the order of their stated starts
  (the order of the host's draws, below), each in the availability window
  its stated start lies in (or the next one when it starts within
  ``TIME_TOL`` before it, or when its host is busy until ``TIME_TOL``
  before the window ends and the next one has begun by then);
- a task's *ready time* is the latest of its window's start, its unit's
  arrival and the real end of the host's previous task. Its **real start**
  is the ready time when the stated start lies within ``TIME_TOL`` of it
  (rounding: it starts right then). A stated start earlier by more is a
  violation (before its window, before its unit arrives, or while the
  previous task runs); later by more is kept, and the never-idle rule judges
  the span: it always refuses it (below), since a pull host starts work the
  moment it is ready;
- its **real end**: real start + ``ECT x delay`` (``ECT = noi / cpu``; the
  delay factor of its draw, 1 for a never-returned result) for a task that
  ran to its end (``correct``, ``wrong``, ``never``); its window's end for a
  ``lost`` task (its host left); the run's real end ``T`` for a
  ``cancelled`` one;
- a unit's **real completion** is the real end of its first correct
  result, ``T`` the last one; the makespan (``T`` minus the first schedule)
  and every metric below come from real times;
- stated ends are claims: each must lie within ``TIME_TOL + DURATION_RTOL
  x ECT x delay`` of its real end. A wrong claim is a violation; it never
  moves a real time (nor shortens a run).

**Where the tolerance survives: once per comparison, never along a chain.**
:data:`TIME_TOL` = 1e-6 s is granted once in each comparison of a real time
with a data value (a window's end, an arrival) or with another host's real
time (a unit's completion); :data:`DURATION_RTOL` = 1e-9 (relative to
``ECT x delay``) only in the claims of stated ends. Since each real start is
a ready time, not a stated start, ``n`` tasks back to back on one host last
exactly the sum of their ``n`` durations, whatever ``n``. The comparisons:

- a task really starts more than ``TIME_TOL`` before its window's end (a
  host about to leave pulls nothing); one that ran to its end really ends by
  the window's end + ``TIME_TOL``; a ``lost`` task (its window finite) would
  really have ended later than the window's end + ``TIME_TOL``: one
  threshold, so no task may be said lost or not at will, and no tie at a
  window's end is decided by a rounding;
- no replica starts after its unit's completion: real start <= real
  completion + ``TIME_TOL``;
- no task ends after the run: one that ran to its end really ends by ``T +
  TIME_TOL``, a lost one's window ends by ``T + TIME_TOL``; a ``cancelled``
  task was still running at ``T`` (real start + ``ECT x delay > T -
  TIME_TOL``, its window ending at ``T - TIME_TOL`` or later) and no task
  follows it on its host;
- an available host is never idle while a unit waits: inside each window (up
  to ``T``) the host's idle spans (before its first task, between tasks,
  after its last), each shrunk by ``TIME_TOL`` at both ends, meet no span
  ``[arrival, real completion)`` of a unit; and a kept start is refused
  (its unit had arrived by the ready time: it waited there, the host idle,
  or it had completed, and the task is a replica after its completion).

**The slack left is binary64's rounding.** Each real time is a data value
plus a sum of durations along one host, computed in binary64: after ``k``
tasks it lies within ``k x 2^-53`` (:data:`~.timeline.ROUNDING`) of the exact
sum, relative (under 1.2e-10 for the 10^6 tasks a schedule may hold). So an
accepted schedule's makespan is the exact makespan of its choices to that
rounding, whatever its stated times; and since every comparison above
carries ``TIME_TOL``, a rounding decides one only when the exact times lie
``TIME_TOL`` apart to within it (the exact models admit either outcome
there, :mod:`hybridsched.models.pull.problem`).

**Other rules:**

- times are finite, at least 0 and at most
  :data:`~hybridsched.io.limits.MAX_PULL_SECONDS` (where the absolute
  tolerance is still above their rounding); delay factors are finite; tasks
  name the instance's units and hosts;
- every work unit has a correct result;
- **results replay the instance's draws** (:mod:`.behaviour`): the ``k``-th
  task of a host, in run order, has the delay factor of the host's ``k``-th
  draw (to a relative :data:`DELAY_RTOL` = 1e-12) and, if it ran to its end
  (``correct``, ``wrong``, ``never``), the draw's outcome; a ``lost`` or
  ``cancelled`` task was cut short, whatever its draw;
- every claim of the solution is recomputed and compared
  (:func:`~hybridsched.family.wrong_claims`): the stated ``objective``
  (the makespan), ``makespan``, ``cost``, ``efficiency`` and counts
  (``completed``, ``tasks_<outcome>``, ``tasks_delayed``, the
  per-DCI metrics below); and its event log, record by record, against the
  real times (:mod:`.event_log`).

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
from hybridsched.pull.timeline import TIME_TOL, Timeline, timeline

__all__ = ["DELAY_RTOL", "DURATION_RTOL", "MAX_LISTED", "TIME_TOL", "check", "completing_tasks",
           "evaluate"]

#: Relative tolerance of a stated end against the real one, on top of ``TIME_TOL``
#: (relative to the task's ``ECT x delay``).
DURATION_RTOL = 1e-9
#: Relative tolerance of a delay factor against its draw (a file keeps every digit).
DELAY_RTOL = 1e-12
#: Most violations listed per rule.
MAX_LISTED = 50


def _task(instance: Instance, solution: Solution, k: int) -> str:
    return (f"task {k} (unit {instance.unit_ids[solution.unit[k]]!r} on host "
            f"{instance.host_ids[solution.host[k]]!r})")


def _listed(mask: np.ndarray) -> list[int]:
    return np.flatnonzero(mask)[:MAX_LISTED].tolist()


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


def _start_problems(instance: Instance, solution: Solution, real: Timeline) -> list[str]:
    """Stated starts before their ready time; tasks outside their windows; lost tasks."""
    s = solution
    problems = []
    begin, stop = real.window_start(), real.window_end()
    placed = real.window >= 0
    previous_end = np.where(real.previous >= 0, real.end[np.maximum(real.previous, 0)],
                            -np.inf)
    ran = np.isin(s.outcome, (CORRECT, WRONG, NEVER))
    lost = s.outcome == LOST
    with np.errstate(invalid="ignore"):
        outside = (~placed | (s.start < begin - TIME_TOL) | (real.start >= stop - TIME_TOL)
                   | (ran & (real.natural > stop + TIME_TOL)) | (s.end > stop + TIME_TOL))
    for k in _listed(outside):
        problems.append(f"{_task(instance, s, k)} runs [{s.start[k]:g}, {s.end[k]:g}] outside "
                        "the host's availability windows")
    arrival = instance.arrival[s.unit]
    for k in _listed(s.start < arrival - TIME_TOL):
        problems.append(f"{_task(instance, s, k)} starts at {s.start[k]:g}, before its unit "
                        f"arrives ({arrival[k]:g})")
    for k in _listed(s.start < previous_end - TIME_TOL):
        a = int(real.previous[k])
        problems.append(f"host {instance.host_ids[s.host[k]]!r} runs task {a} until "
                        f"{real.end[a]:g} and task {k} from {s.start[k]:g}")
    for k in _listed(placed & lost & np.isinf(stop)):
        problems.append(f"{_task(instance, s, k)} is lost but its host never leaves")
    with np.errstate(invalid="ignore"):
        unfinished = placed & lost & np.isfinite(stop) & (real.natural <= stop + TIME_TOL)
    for k in _listed(unfinished):
        problems.append(f"{_task(instance, s, k)} is lost, but it would end at "
                        f"{real.natural[k]:g}, before its host leaves at {stop[k]:g}")
    return problems


def _draw_problems(instance: Instance, solution: Solution, real: Timeline) -> list[str]:
    """Delay factors and outcomes against the replayed draws."""
    s = solution
    problems = []
    off = np.abs(s.delay - real.delay) > DELAY_RTOL * real.delay
    for k in _listed(off):
        problems.append(f"{_task(instance, s, k)} has delay factor {float(s.delay[k])!r}, but "
                        f"its host's draw {real.rank[k]} gives {float(real.delay[k])!r}")
    ran = np.isin(s.outcome, (CORRECT, WRONG, NEVER))
    for k in _listed(ran & (s.outcome != real.outcome)):
        problems.append(f"{_task(instance, s, k)} is {OUTCOMES[s.outcome[k]]}, but its host's "
                        f"draw {real.rank[k]} makes it {OUTCOMES[real.outcome[k]]}")
    return problems


def _end_claims(instance: Instance, solution: Solution, real: Timeline) -> list[str]:
    """Stated ends against the real ones (stated starts: :func:`_start_problems`)."""
    s = solution
    problems = []
    ran = np.isin(s.outcome, (CORRECT, WRONG, NEVER))
    off = np.abs(s.end - real.end) > TIME_TOL + DURATION_RTOL * real.full
    for k in _listed(off & ran):
        problems.append(f"{_task(instance, s, k)} ({OUTCOMES[s.outcome[k]]}) lasts "
                        f"{s.end[k] - s.start[k]:g} s, not its {real.end[k] - real.start[k]:g} "
                        f"s (it really ends at {real.end[k]:g})")
    for k in _listed(off & (s.outcome == LOST)):
        problems.append(f"{_task(instance, s, k)} is lost but does not end when its host "
                        f"leaves ({real.end[k]:g})")
    if real.run_end is not None:
        for k in _listed(off & (s.outcome == CANCELLED)):
            problems.append(f"{_task(instance, s, k)} is cancelled at {s.end[k]:g}, not when "
                            f"the last unit completes ({real.run_end:g})")
    return problems


def _run_problems(instance: Instance, solution: Solution, real: Timeline) -> list[str]:
    """Replicas after their unit's completion, tasks after the run, cancellations."""
    s = solution
    problems = []
    end, completion = real.run_end, real.completion
    late = real.start > completion[s.unit] + TIME_TOL
    for k in _listed(late):
        problems.append(f"{_task(instance, s, k)} starts at {real.start[k]:g}, after its unit "
                        f"completed at {completion[s.unit[k]]:g}")
    ran = np.isin(s.outcome, (CORRECT, WRONG, NEVER))
    stop = real.window_end()
    with np.errstate(invalid="ignore"):
        after = np.where(ran, real.natural, np.where(s.outcome == LOST, stop, -np.inf))
        after = after > end + TIME_TOL
    for k in _listed(after):
        problems.append(f"{_task(instance, s, k)} ends at "
                        f"{(real.natural if ran[k] else stop)[k]:g}, after the run ended with "
                        f"the last unit's completion at {end:g}")
    cancelled = s.outcome == CANCELLED
    for k in _listed(cancelled & (real.natural <= end - TIME_TOL)):
        problems.append(f"{_task(instance, s, k)} is cancelled, but it would end at "
                        f"{real.natural[k]:g}, before the run ends at {end:g}")
    with np.errstate(invalid="ignore"):
        gone = cancelled & (stop < end - TIME_TOL)
    for k in _listed(gone):
        problems.append(f"{_task(instance, s, k)} is cancelled at the end of the run ({end:g}), "
                        f"but its host left at {stop[k]:g}")
    follows = (real.previous >= 0) & (s.outcome[np.maximum(real.previous, 0)] == CANCELLED)
    for k in _listed(follows):
        problems.append(f"{_task(instance, s, k)} follows task {real.previous[k]} on its host, "
                        "which is cancelled (it runs until the end of the run)")
    return problems


def _idle_problems(instance: Instance, solution: Solution, real: Timeline) -> list[str]:
    """Available hosts idle while a unit waits (arrived, not completed)."""
    s = solution
    completion, end = real.completion, real.run_end
    if not instance.n_units:
        return []
    # The spans in which some unit waits, merged: [begin, until), sorted and disjoint.
    order = np.argsort(instance.arrival, kind="stable")
    arrival, done = instance.arrival[order], completion[order]
    reach = np.maximum.accumulate(done)
    new = np.concatenate(([True], arrival[1:] > reach[:-1]))
    begin = arrival[new]
    until = reach[np.concatenate((np.flatnonzero(new)[1:] - 1, [len(arrival) - 1]))]
    # Idle spans of every host inside its windows, up to the end of the run (real times).
    host, first, last, _ = real.table
    last = np.minimum(last, end)
    window = real.window
    placed = np.flatnonzero(window >= 0)
    placed = placed[np.lexsort((real.end[placed], real.start[placed], window[placed]))]
    w = window[placed]
    previous = np.concatenate(([-1], w[:-1]))
    gap_from = np.where(previous == w, np.concatenate(([0.0], real.end[placed][:-1])),
                        first[w])
    gap_to = real.start[placed]
    tail = first.copy()
    np.maximum.at(tail, w, real.end[placed])
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
    # A kept start: the host was ready earlier, and its unit waited then (had it completed,
    # the task would be a replica after its completion: :func:`_run_problems`). Spans the
    # rule above reported already are not repeated.
    reported = {(int(h), float(b)) for h, b in zip(idle_host[waits], y[waits], strict=True)}
    kept = real.kept & (completion[s.unit] > real.ready)
    for k in _listed(kept):
        if (int(s.host[k]), float(real.start[k] - TIME_TOL)) in reported:
            continue
        u = s.unit[k]
        problems.append(f"host {instance.host_ids[s.host[k]]!r} is available and idle from "
                        f"{real.ready[k]:g} to {real.start[k]:g} while work unit "
                        f"{instance.unit_ids[u]!r} waits (arrived at "
                        f"{instance.arrival[u]:g}, completed at {completion[u]:g})")
    return problems[:MAX_LISTED]


def check(instance: Instance, solution: Solution) -> list[str]:
    """Every violation of the family's rules, and every wrong claim (empty: valid)."""
    s = solution
    problems = _structure(instance, s)
    if problems:
        return problems
    real = timeline(instance, s)
    problems += _start_problems(instance, s, real)
    problems += _draw_problems(instance, s, real)
    missing = np.flatnonzero(np.isinf(real.completion))
    for u in missing[:MAX_LISTED]:
        problems.append(f"work unit {instance.unit_ids[u]!r} has no correct result")
    if missing.size > MAX_LISTED:
        problems.append(f"... and {missing.size - MAX_LISTED} more units without a result")
    if real.run_end is not None:
        problems += _run_problems(instance, s, real)
        problems += _idle_problems(instance, s, real)
    problems += _end_claims(instance, s, real)
    problems += log_problems(instance, s, real.run_end, real.start, real.end)
    metrics = _evaluate(instance, s, real).metrics
    claims = [("objective", s.reported.get("objective"), metrics["makespan"])]
    for key, stated in s.reported.items():
        if key != "objective" and key in metrics:
            claims.append((key, stated, metrics[key]))
        elif key != "objective":
            problems.append(f"reported {key} {stated!r}, which the schedule does not have "
                            "(no task ran on that DCI)")
    return problems + wrong_claims(claims)


def completing_tasks(instance: Instance, solution: Solution,
                     real: Timeline | None = None) -> np.ndarray:
    """Index of the task that completed each unit (its first correct result; -1: none).

    First by real end (:mod:`.timeline`; ``real``: the timeline, if computed already).
    """
    s = solution
    end = (real or timeline(instance, s)).end
    first = np.full(instance.n_units, -1)
    ok = np.flatnonzero(s.outcome == CORRECT)
    order = ok[np.lexsort((ok, end[ok]))][::-1]  # latest first, so the earliest wins
    first[s.unit[order]] = order
    return first


def evaluate(instance: Instance, solution: Solution) -> Evaluation:
    """Recompute the makespan (the objective), cost, E and the per-DCI efficiencies.

    From real times (the module docstring), never from the stated ones.
    """
    return _evaluate(instance, solution, timeline(instance, solution))


def _evaluate(instance: Instance, solution: Solution, real: Timeline) -> Evaluation:
    s = solution
    completion = real.completion
    if instance.n_units == 0:
        makespan = 0.0
    elif real.run_end is None:
        makespan = math.inf
    else:
        makespan = real.run_end - instance.first_schedule()
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
    with np.errstate(invalid="ignore", divide="ignore"):
        part = np.clip((real.end - real.start)[cut] / real.full[cut], 0.0, 1.0)
    ran[cut] *= np.nan_to_num(part, nan=0.0)
    completing = completing_tasks(instance, s, real)
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
