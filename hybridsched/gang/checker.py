"""Independent checker of ``gang`` schedules: validity and every metric.

Rules: every job is started once or dropped; a started job runs on exactly
``parallelism`` distinct VMs that each meet its memory, bandwidth and disk
demands, all its tasks start together, not before its arrival; a VM runs one
task at a time; a started job ends (its slowest task) by its deadline.

Metrics (the paper's): ``unfinished`` (UFJ, the jobs not run), ``awt``
(average waiting time of the finished jobs), ``ave`` (their average
arrival-to-end time), ``sin`` (instructions of the finished jobs:
parallelism x instructions), and ``utilisation`` (busy VM time over the VMs
times the span from the first arrival to the last end). The objective is UFJ.

Claims: a solution file's stated ``objective`` and each stated metric above
are compared with the recomputed values (one rule for every family:
:func:`hybridsched.family.wrong_claims`), and its event log with the
schedule (:mod:`hybridsched.gang.event_log`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hybridsched.family import Evaluation, wrong_claims
from hybridsched.gang.event_log import log_problems
from hybridsched.gang.instance import Instance
from hybridsched.gang.schema import CLAIMS
from hybridsched.gang.solution import Solution

#: Absolute tolerance on times (deadlines, VM overlaps).
TIME_TOL = 1e-9
#: Most violations listed.
MAX_LISTED = 50


def could_finish(instance: Instance) -> np.ndarray:
    """``ok[j, v]``: VM ``v`` meets job ``j``'s demands and can end a task by the deadline.

    The earliest start :func:`check` accepts is ``arrival - TIME_TOL`` and the
    latest end ``due + TIME_TOL``, computed as there; no accepted schedule
    runs a task of ``j`` on ``v`` where this is false.
    """
    earliest = instance.arrival - TIME_TOL
    ends = earliest[:, None] + instance.instructions[:, None] / instance.speed[None, :]
    return instance.fits() & (ends <= instance.due[:, None] + TIME_TOL)


def finish_times(instance: Instance, solution: Solution) -> np.ndarray:
    """End of each job's slowest task (NaN for jobs that did not run)."""
    finish = np.full(instance.n_jobs, np.nan)
    if solution.task_job.size:
        ends = (solution.start[solution.task_job]
                + instance.instructions[solution.task_job] / instance.speed[solution.task_vm])
        np.fmax.at(finish, solution.task_job, ends)
    return finish


def check(instance: Instance, solution: Solution) -> list[str]:
    """Every violation of the family's rules (empty: valid)."""
    problems: list[str] = []
    ids, vm_ids = instance.job_ids, instance.vm_ids
    if len(solution.start) != instance.n_jobs:
        return ["the schedule does not match the instance's jobs"]
    started = ~np.isnan(solution.start)
    for j in np.flatnonzero(~started):
        if int(j) not in solution.dropped:
            problems.append(f"job {ids[j]!r} is neither started nor dropped")
    for j in solution.dropped:
        if started[j]:
            problems.append(f"job {ids[j]!r} is both started and dropped")
    counts = np.bincount(solution.task_job, minlength=instance.n_jobs)
    fits = instance.fits()
    for j in np.flatnonzero(started):
        vms = solution.task_vm[solution.task_job == j]
        if solution.start[j] < instance.arrival[j] - TIME_TOL:
            problems.append(f"job {ids[j]!r} starts at {solution.start[j]:g}, before its "
                            f"arrival {instance.arrival[j]:g}")
        if counts[j] != instance.parallelism[j] or len(set(vms.tolist())) != len(vms):
            problems.append(f"job {ids[j]!r} runs {len(set(vms.tolist()))} distinct VMs for "
                            f"{instance.parallelism[j]} tasks")
        for v in vms[~fits[j, vms]]:
            problems.append(f"job {ids[j]!r}: VM {vm_ids[v]!r} does not meet its memory, "
                            "bandwidth or disk demand")
    if len(problems) > MAX_LISTED:
        return problems[:MAX_LISTED] + [f"... and {len(problems) - MAX_LISTED} more"]
    # One task at a time per VM: sort the tasks of each VM by start.
    if solution.task_job.size:
        begin = solution.start[solution.task_job]
        end = begin + instance.instructions[solution.task_job] / instance.speed[solution.task_vm]
        order = np.lexsort((begin, solution.task_vm))
        vm, begin, end, job = (solution.task_vm[order], begin[order], end[order],
                               solution.task_job[order])
        clash = (vm[1:] == vm[:-1]) & (end[:-1] > begin[1:] + TIME_TOL)
        for k in np.flatnonzero(clash)[:MAX_LISTED]:
            problems.append(f"VM {vm_ids[vm[k]]!r} runs job {ids[job[k]]!r} until "
                            f"{end[k]:g} and job {ids[job[k + 1]]!r} from {begin[k + 1]:g}")
    finish = finish_times(instance, solution)
    late = started & (finish > instance.due + TIME_TOL)
    for j in np.flatnonzero(late)[:MAX_LISTED]:
        problems.append(f"job {ids[j]!r} ends at {finish[j]:g}, after its deadline "
                        f"{instance.due[j]:g}")
    if problems:
        return problems
    problems += log_problems(instance, solution, finish, TIME_TOL, MAX_LISTED)
    metrics = evaluate(instance, solution).metrics
    stated = solution.reported
    return problems + wrong_claims(
        [("objective (unfinished jobs)", stated.get("objective"), metrics["unfinished"])]
        + [(name, stated.get(name), metrics[name]) for name in CLAIMS])


def evaluate(instance: Instance, solution: Solution) -> Evaluation:
    """Recompute UFJ (the objective), AWT, AVE, SIN and utilisation."""
    started = ~np.isnan(solution.start)
    finish = finish_times(instance, solution)
    done = np.flatnonzero(started)
    busy = float(np.sum(instance.instructions[solution.task_job]
                        / instance.speed[solution.task_vm])) if solution.task_job.size else 0.0
    span = (float(np.nanmax(finish)) - float(instance.arrival.min())) if done.size else 0.0
    metrics: dict[str, Any] = {
        "unfinished": int(instance.n_jobs - done.size),
        "finished": int(done.size),
        "awt": float(np.mean(solution.start[done] - instance.arrival[done])) if done.size
        else 0.0,
        "ave": float(np.mean(finish[done] - instance.arrival[done])) if done.size else 0.0,
        "sin": float(np.sum(instance.parallelism[done] * instance.instructions[done])),
        "utilisation": busy / (instance.n_vms * span) if span > 0 else 0.0,
    }
    return Evaluation(objective=float(metrics["unfinished"]), metrics=metrics)


def rank(instance: Instance, solution: Solution) -> tuple[float, float]:
    """Sort key of schedules, best first: fewest unfinished jobs, then most instructions."""
    metrics = evaluate(instance, solution).metrics
    return float(metrics["unfinished"]), -float(metrics["sin"])
