"""Independent checker of ``pull`` schedules: validity and every metric, from the task records.

Rules (times within :data:`TIME_TOL`):

- a task starts no earlier than its unit's arrival, and lies inside the
  availability window of its host that its start lies in (as the simulator
  decides: the host pulled in that window), or the next one when it starts
  within the tolerance before it; a ``lost`` task ends exactly when that
  window ends (its host left), before the task could finish. Times never
  exceed :data:`~hybridsched.io.limits.MAX_PULL_SECONDS`, where the absolute
  tolerance is still above their rounding;
- a host runs one task at a time;
- a returned task (``correct``, ``wrong``) lasts its ECT (``noi / cpu``)
  times its delay factor, in ``[1, max_delay]``; a ``never`` task lasts its
  ECT; a ``cancelled`` task ends when the last unit completes, before it
  could finish;
- only hosts with an error probability return ``wrong`` results;
- every work unit has a correct result.

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

from hybridsched.families import Evaluation, wrong_claims
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
#: Most violations listed.
MAX_LISTED = 50


def _task(instance: Instance, solution: Solution, k: int) -> str:
    return (f"task {k} (unit {instance.unit_ids[solution.unit[k]]!r} on host "
            f"{instance.host_ids[solution.host[k]]!r})")


def _window_problems(instance: Instance, solution: Solution) -> list[str]:
    """Tasks outside their host's windows, and lost tasks not ending with one."""
    problems = []
    order = np.argsort(solution.host, kind="stable")
    hosts = solution.host[order]
    for h in np.unique(hosts):
        tasks = order[hosts == h]
        spans = np.array(instance.windows[h], dtype=float).reshape(-1, 2)
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
        early_loss = ((solution.outcome[tasks] == LOST) & ~outside
                      & (np.abs(solution.end[tasks] - ends) > TIME_TOL))
        for t in tasks[outside]:
            problems.append(f"{_task(instance, solution, t)} runs [{solution.start[t]:g}, "
                            f"{solution.end[t]:g}] outside the host's availability windows")
        for t in tasks[early_loss]:
            problems.append(f"{_task(instance, solution, t)} is lost but does not end when "
                            "its host leaves")
    return problems


def check(instance: Instance, solution: Solution) -> list[str]:
    """Every violation of the family's rules (empty: valid)."""
    problems: list[str] = []
    s = solution
    if s.n_tasks and (s.unit.min() < 0 or s.unit.max() >= instance.n_units
                      or s.host.min() < 0 or s.host.max() >= instance.n_hosts
                      or s.outcome.min() < 0 or s.outcome.max() >= len(OUTCOMES)):
        return ["the schedule does not match the instance's units and hosts"]
    early = s.start < instance.arrival[s.unit] - TIME_TOL
    for k in np.flatnonzero(early)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} starts at {s.start[k]:g}, before its unit "
                        f"arrives ({instance.arrival[s.unit[k]]:g})")
    for k in np.flatnonzero(s.end < s.start)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} ends before it starts")
    problems += _window_problems(instance, s)[:MAX_LISTED]
    order = np.lexsort((s.start, s.host))
    clash = (s.host[order][1:] == s.host[order][:-1]) & (
        s.end[order][:-1] > s.start[order][1:] + TIME_TOL)
    for k in np.flatnonzero(clash)[:MAX_LISTED]:
        a, b = order[k], order[k + 1]
        problems.append(f"host {instance.host_ids[s.host[a]]!r} runs task {a} until "
                        f"{s.end[a]:g} and task {b} from {s.start[b]:g}")
    ect = instance.noi[s.unit] / instance.cpu[s.host]
    duration = s.end - s.start
    max_delay = instance.behaviour.max_delay
    bad_delay = (s.delay < 1) | (s.delay > max_delay + 1e-12)
    for k in np.flatnonzero(bad_delay)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} has delay factor {s.delay[k]:g}, outside "
                        f"[1, {max_delay:g}]")
    full = np.where(s.outcome == NEVER, ect, ect * s.delay)
    tol = TIME_TOL + DURATION_RTOL * full
    returned = np.isin(s.outcome, (CORRECT, WRONG, NEVER))
    wrong_length = returned & (np.abs(duration - full) > tol)
    cut_short = np.isin(s.outcome, (LOST, CANCELLED)) & (duration > full + tol)
    for k in np.flatnonzero(wrong_length)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} ({OUTCOMES[s.outcome[k]]}) lasts "
                        f"{duration[k]:g} s, not its {full[k]:g} s")
    for k in np.flatnonzero(cut_short)[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} ({OUTCOMES[s.outcome[k]]}) lasts "
                        f"{duration[k]:g} s, longer than its {full[k]:g} s")
    for k in np.flatnonzero((s.outcome == WRONG) & (instance.error[s.host] == 0))[:MAX_LISTED]:
        problems.append(f"{_task(instance, s, k)} is wrong, but its host never errs")
    completion = s.completion(instance.n_units)
    missing = np.flatnonzero(np.isinf(completion))
    for u in missing[:MAX_LISTED]:
        problems.append(f"work unit {instance.unit_ids[u]!r} has no correct result")
    if missing.size > MAX_LISTED:
        problems.append(f"... and {missing.size - MAX_LISTED} more units without a result")
    if not missing.size and instance.n_units:
        last = float(completion.max())
        for k in np.flatnonzero((s.outcome == CANCELLED)
                                & (np.abs(s.end - last) > TIME_TOL))[:MAX_LISTED]:
            problems.append(f"{_task(instance, s, k)} is cancelled at {s.end[k]:g}, not when "
                            f"the last unit completes ({last:g})")
    if not problems:
        metrics = evaluate(instance, s).metrics
        problems += wrong_claims((key, s.reported.get(key), metrics[key])
                                 for key in ("makespan", "cost", "efficiency"))
    return problems


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
