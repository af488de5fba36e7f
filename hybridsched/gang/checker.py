"""Independent checker of ``gang`` schedules: validity and every metric.

Rules: every job is started once or dropped; a started job runs on exactly
``parallelism`` distinct VMs that each meet its memory, bandwidth and disk
demands, all its tasks start together, not before its arrival; a VM runs one
task at a time; a started job ends (its slowest task) by its deadline.

*Real times: the family's one definition of feasibility* (the exact models,
their read-backs and the simulation follow it). A stated start is trusted
for the order it gives, never beyond it:

1. The started jobs are taken in the order of their stated starts (ties:
   job order).
2. A job's *earliest* start ``L`` is the latest of its arrival and the real
   end of the task before it on each of its VMs.
3. Its *real* start is ``L`` when its stated start ``s`` lies within
   ``TIME_TOL = 1e-9`` time units of ``L`` (``|s - L| <= 1e-9``: rounding,
   it starts right then, all its tasks together: it is a gang); ``s`` when
   ``s > L + 1e-9`` (it waited); ``s < L - 1e-9`` is a violation (a start
   before the arrival, or on a VM still busy).
4. The real end of each task is its real start plus ``instructions /
   speed``; the job's real end (its slowest task) must be at most ``due +
   1e-9`` (``due = arrival + deadline``).

*Missed deadlines* (only a deadline-oblivious policy starts a job that
cannot finish in time; :attr:`Solution.missed
<hybridsched.gang.solution.Solution.missed>`): a job marked ``"late"`` ran
to completion after its deadline, so rule 4 does not apply to it; a job
marked ``"killed"`` was stopped at its deadline ``due``: its real start must
come before ``due``, and each of its tasks really ends at ``min(real start
+ instructions / speed, due)``, which is when its VM is free again. Either
way the job holds its VMs until then and counts as unfinished (its
instructions are not in SIN, its times not in AWT or AVE); the mark is the
method's statement that the job did not finish, so it is taken as stated.

So ``TIME_TOL`` is granted once, at the deadline, never along a VM: ``n``
jobs that arrive together and share one deadline fit on one VM iff their
task times add up to at most ``deadline + 1e-9``, whatever ``n``, and
rounded stated starts neither help nor hurt a schedule. The earliest real
start of a job is its arrival (:func:`could_finish`, the family's bound).

*Arithmetic*: binary64, with these expressions (``s - L``, ``start +
instructions / speed``, ``(arrival + deadline) + 1e-9``). The only slack
left is binary64 rounding: a real end after ``k`` tasks back to back is
within ``k`` roundings (``k x 2^-53 x`` the largest time) of the exact
sum, 1.1e-13 for a thousand tasks ending by time 1; in exact arithmetic
every rule of an accepted schedule holds within :func:`rounding_slack`.

Metrics (the paper's), all from real times: ``unfinished`` (UFJ, the jobs
not run or marked missed), ``awt`` (average waiting time of the finished jobs, real start
minus arrival), ``ave`` (their average arrival-to-end time), ``sin``
(instructions of the finished jobs: parallelism x instructions), and
``utilisation`` (busy VM time, missed jobs' tasks included, over the VMs
times the span from the first arrival to the last real end). The objective is UFJ.

Claims: a solution file's stated ``objective`` and each stated metric above
are compared with the recomputed values (one rule for every family:
:func:`hybridsched.family.wrong_claims`), and its event log with the
real times (:mod:`hybridsched.gang.event_log`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hybridsched.family import Evaluation, wrong_claims
from hybridsched.gang.event_log import log_problems
from hybridsched.gang.instance import Instance
from hybridsched.gang.schema import CLAIMS
from hybridsched.gang.solution import Solution

#: Absolute tolerance on times: a stated start within it of the earliest start is rounded
#: to it; a job may end this much after its deadline (once, see the module docstring).
TIME_TOL = 1e-9
#: Binary64's machine epsilon (2^-52).
EPS = float(np.finfo(float).eps)
#: Most violations listed.
MAX_LISTED = 50


def largest_time(instance: Instance) -> float:
    """The largest magnitude among arrivals, deadlines plus ``TIME_TOL`` and task times (>= 1)."""
    parts = [np.abs(instance.arrival), np.abs(instance.due) + TIME_TOL,
             instance.task_time().ravel()]
    return max([1.0] + [float(p.max()) for p in parts if p.size])


def rounding_slack(instance: Instance, links: int = 0) -> float:
    """How far a rule of an accepted schedule may miss in exact arithmetic.

    ``(links + 16) x EPS x H``, ``H`` the :func:`largest_time`: with the
    binary64 values of the data and the checker's real starts, one rule
    (``links = 0``: an arrival, a task after the one before it on a VM, a
    deadline) holds within a few roundings of ``H`` (the decimal data read
    as doubles, ``instructions / speed``, one sum); the exact earliest start
    of a job at the end of a chain of ``links`` tasks back to back is at
    most ``links`` roundings later than its real start. ``EPS = 2^-52`` is
    twice the unit roundoff: a factor 2 to spare.
    """
    return (links + 16) * EPS * largest_time(instance)


def could_finish(instance: Instance) -> np.ndarray:
    """``ok[j, v]``: VM ``v`` meets job ``j``'s demands and can end a task by the deadline.

    The earliest real start is the arrival and the latest real end ``due +
    TIME_TOL``, computed as :func:`check` computes them (real ends only grow
    with the start, rounding included); no accepted schedule runs a task of
    ``j`` on ``v`` where this is false.
    """
    ends = instance.arrival[:, None] + instance.instructions[:, None] / instance.speed[None, :]
    return instance.fits() & (ends <= instance.due[:, None] + TIME_TOL)


@dataclass(frozen=True)
class Timeline:
    """The real times of a schedule (module docstring), job by job.

    Attributes
    ----------
    start:
        Real start of each job (NaN for the jobs that did not run).
    finish:
        Real end of each job's slowest task (NaN for the jobs that did not run).
    order:
        The started jobs in the order of their stated starts (the rules' order).
    early:
        The jobs stated to start more than ``TIME_TOL`` before their arrival.
    busy:
        ``(vm, job before, its real end, job)``: ``job`` is stated to start more
        than ``TIME_TOL`` before the real end of the task before it on ``vm``.
    """

    start: np.ndarray
    finish: np.ndarray
    order: np.ndarray
    early: list[int]
    busy: list[tuple[int, int, float, int]]


def timeline(instance: Instance, solution: Solution) -> Timeline:
    """The real times of ``solution`` (tasks on existing VMs), by the module docstring's rules.

    A job stated too early (a violation) is placed at its earliest start, so
    that the jobs after it are judged as if it had been stated right.
    """
    n = instance.n_jobs
    stated = solution.start
    started = np.flatnonzero(~np.isnan(stated))
    order = started[np.argsort(stated[started], kind="stable")]
    task_job, task_vm = solution.task_job, solution.task_vm
    by_job = np.argsort(task_job, kind="stable")
    first = np.searchsorted(task_job[by_job], np.arange(n + 1)).tolist()
    vm_of = task_vm[by_job].tolist()
    length = (instance.instructions[task_job] / instance.speed[task_vm])[by_job].tolist()
    arrival, stated_l = instance.arrival.tolist(), stated.tolist()
    # A killed job's tasks stop at its deadline (module docstring, *Missed deadlines*).
    kill_at = {j: float(instance.due[j]) for j, what in solution.missed.items()
               if what == "killed" and 0 <= j < n}
    free = [-math.inf] * instance.n_vms  # real end of the last task on each VM
    last = [-1] * instance.n_vms
    start = [math.nan] * n
    finish = [math.nan] * n
    early: list[int] = []
    busy: list[tuple[int, int, float, int]] = []
    for j in order.tolist():
        s, lo, hi = stated_l[j], first[j], first[j + 1]
        earliest = arrival[j]
        for k in range(lo, hi):
            if free[vm_of[k]] > earliest:
                earliest = free[vm_of[k]]
        if s - earliest > TIME_TOL:
            real = s  # it waited
        else:
            real = earliest  # rounding (or a violation, judged here)
            if s - earliest < -TIME_TOL:
                if s - arrival[j] < -TIME_TOL:
                    early.append(j)
                busy += [(vm_of[k], last[vm_of[k]], free[vm_of[k]], j) for k in range(lo, hi)
                         if s - free[vm_of[k]] < -TIME_TOL]
        start[j] = real
        end = -math.inf
        stop = kill_at.get(j, math.inf)
        for k in range(lo, hi):
            v = vm_of[k]
            free[v] = min(real + length[k], stop)
            last[v] = j
            if free[v] > end:
                end = free[v]
        if hi > lo:
            finish[j] = end
    return Timeline(np.array(start), np.array(finish), order, early, busy)


def finish_times(instance: Instance, solution: Solution) -> np.ndarray:
    """Real end of each job's slowest task (NaN for jobs that did not run)."""
    return timeline(instance, solution).finish


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
    for j, what in solution.missed.items():
        if not 0 <= j < instance.n_jobs or not started[j] or what not in ("killed", "late"):
            problems.append(f"job {ids[j] if 0 <= j < instance.n_jobs else j!r} is marked "
                            f"{what!r} (missed its deadline) but is not a started job marked "
                            "killed or late")
    # Tasks by job, then VM: a VM twice in a row is a VM given two tasks of the job.
    by_job = np.lexsort((solution.task_vm, solution.task_job))
    job, vm = solution.task_job[by_job], solution.task_vm[by_job]
    counts = np.bincount(job, minlength=instance.n_jobs)
    twice = np.bincount(job[1:][(job[1:] == job[:-1]) & (vm[1:] == vm[:-1])],
                        minlength=instance.n_jobs)
    for j in np.flatnonzero(started & ((counts != instance.parallelism) | (twice > 0))):
        problems.append(f"job {ids[j]!r} runs {counts[j] - twice[j]} distinct VMs for "
                        f"{instance.parallelism[j]} tasks")
    unfit = started[job] & ~((instance.vm_memory[vm] >= instance.memory[job])
                             & (instance.vm_bandwidth[vm] >= instance.bandwidth[job])
                             & (instance.vm_disk[vm] >= instance.disk[job]))  # as fits()
    for j, v in zip(job[unfit].tolist(), vm[unfit].tolist(), strict=True):
        problems.append(f"job {ids[j]!r}: VM {vm_ids[v]!r} does not meet its memory, "
                        "bandwidth or disk demand")
    if len(problems) > MAX_LISTED:
        return problems[:MAX_LISTED] + [f"... and {len(problems) - MAX_LISTED} more"]
    line = timeline(instance, solution)
    for j in line.early[:MAX_LISTED]:
        problems.append(f"job {ids[j]!r} starts at {solution.start[j]:g}, before its "
                        f"arrival {instance.arrival[j]:g}")
    for v, before, end, j in line.busy[:MAX_LISTED]:
        problems.append(f"VM {vm_ids[v]!r} runs job {ids[before]!r} until {end:.15g} and job "
                        f"{ids[j]!r} from {solution.start[j]:.15g} "
                        f"({end - solution.start[j]:.3g} earlier)")
    missed = _missed_mask(instance, solution)
    late = started & ~missed & (line.finish > instance.due + TIME_TOL)
    for j in np.flatnonzero(late)[:MAX_LISTED]:
        problems.append(f"job {ids[j]!r} ends at {line.finish[j]:.15g}, after its deadline "
                        f"{instance.due[j]:.15g}")
    killed = [j for j, what in solution.missed.items() if what == "killed"]
    for j in [j for j in killed if not line.start[j] < instance.due[j]][:MAX_LISTED]:
        problems.append(f"job {ids[j]!r} is killed at its deadline {instance.due[j]:.15g} "
                        f"but starts at {line.start[j]:.15g}, not before it")
    if problems:
        return problems
    problems += log_problems(instance, solution, line.start, line.finish, TIME_TOL, MAX_LISTED)
    metrics = _evaluate(instance, solution, line).metrics
    stated = solution.reported
    return problems + wrong_claims(
        [("objective (unfinished jobs)", stated.get("objective"), metrics["unfinished"])]
        + [(name, stated.get(name), metrics[name]) for name in CLAIMS])


def evaluate(instance: Instance, solution: Solution) -> Evaluation:
    """Recompute UFJ (the objective), AWT, AVE, SIN and utilisation, from real times."""
    return _evaluate(instance, solution, timeline(instance, solution))


def _missed_mask(instance: Instance, solution: Solution) -> np.ndarray:
    """``missed[j]``: job ``j`` is marked as having missed its deadline (killed or late)."""
    mask = np.zeros(instance.n_jobs, dtype=bool)
    marked = [j for j in solution.missed if 0 <= j < instance.n_jobs]
    mask[marked] = True
    return mask


def _busy(instance: Instance, solution: Solution, line: Timeline) -> float:
    """Busy VM time: every task's run, a killed job's tasks up to its deadline."""
    if not solution.task_job.size:
        return 0.0
    length = instance.instructions[solution.task_job] / instance.speed[solution.task_vm]
    killed = [j for j, what in solution.missed.items() if what == "killed"]
    if killed:
        cut = np.isin(solution.task_job, killed)
        room = instance.due[solution.task_job] - line.start[solution.task_job]
        length = np.where(cut, np.clip(np.minimum(length, room), 0.0, None), length)
    return float(np.sum(length))


def _evaluate(instance: Instance, solution: Solution, line: Timeline) -> Evaluation:
    started = ~np.isnan(solution.start)
    finish = line.finish
    ran = np.flatnonzero(started)
    done = np.flatnonzero(started & ~_missed_mask(instance, solution))
    busy = _busy(instance, solution, line)
    span = (float(np.nanmax(finish)) - float(instance.arrival.min())
            if ran.size and not np.isnan(finish[ran]).all() else 0.0)
    metrics: dict[str, Any] = {
        "unfinished": int(instance.n_jobs - done.size),
        "finished": int(done.size),
        "awt": float(np.mean(line.start[done] - instance.arrival[done])) if done.size
        else 0.0,
        "ave": float(np.mean(finish[done] - instance.arrival[done])) if done.size else 0.0,
        "sin": float(np.sum(instance.parallelism[done] * instance.instructions[done])),
        "utilisation": busy / (instance.n_vms * span) if span > 0 else 0.0,
    }
    return Evaluation(objective=float(metrics["unfinished"]), metrics=metrics)


def rank(instance: Instance, solution: Solution) -> tuple[float, float]:
    """Sort key of schedules, best first: fewest unfinished jobs, then most instructions."""
    started = ~np.isnan(solution.start) & ~_missed_mask(instance, solution)
    sin = float(np.sum(instance.parallelism[started] * instance.instructions[started]))
    return float(instance.n_jobs - int(started.sum())), -sin
