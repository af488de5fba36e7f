"""What a ``gang`` event log must say about its schedule.

Online methods attach the simulation's event log to their schedules, and
solution files carry it. A log is a claim like any other value of the file,
so when one is present the checker compares it with the schedule (times within
the checker's ``TIME_TOL``):

- records are in time order;
- ``arrival``: exactly one per job, at the job's arrival;
- ``start``: exactly one per started job and none for the others, at its
  start, on the VMs of its tasks, with ``end`` its slowest task's end;
- ``end``: exactly one per started job, at that end;
- ``drop``: exactly one per job that did not run and none for the others,
  not before its arrival.

A truncated log, a shifted time or a record of a job the schedule does not
run breaks one of these rules. Whether each record is well formed is the
file reader's question (:class:`hybridsched.gang.schema.EventDoc`).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution


def _off(a: float, b: float, tol: float) -> bool:
    return not abs(a - b) <= tol


def log_problems(instance: Instance, solution: Solution, finish: np.ndarray, tol: float,
                 limit: int = 50) -> list[str]:
    """Every way the log disagrees with the schedule (empty without a log).

    ``finish`` is the checker's end of each job (NaN for jobs that did not
    run) and ``tol`` its time tolerance.
    """
    if not solution.events:
        return []
    problems: list[str] = []
    jobs = {jid: j for j, jid in enumerate(instance.job_ids)}
    started = ~np.isnan(solution.start)
    counts: dict[str, Counter[int]] = {kind: Counter() for kind in ("arrival", "start", "end",
                                                                   "drop")}
    previous = -math.inf
    for k, record in enumerate(solution.events):
        where, kind, when = f"event {k}", record.get("event"), float(record.get("time", 0.0))
        j = jobs.get(record.get("job"))
        if j is None or kind not in counts:
            problems.append(f"{where}: {kind} of unknown job {record.get('job')!r}")
            continue
        if when < previous - tol:
            problems.append(f"{where}: at {when:g}, before the record above it ({previous:g})")
        previous = max(previous, when)
        counts[kind][j] += 1
        jid = instance.job_ids[j]
        problems += _record_problems(instance, solution, finish, tol, where, kind, when, j,
                                     jid, record, started)
    for kind, expected in (("arrival", np.ones(instance.n_jobs, dtype=bool)),
                           ("start", started), ("end", started), ("drop", ~started)):
        found = np.zeros(instance.n_jobs, dtype=np.int64)
        for j, times in counts[kind].items():
            found[j] = times
        for j in np.flatnonzero(found != expected)[:limit + 1]:
            problems.append(f"the log has {found[j]} {kind} records of job "
                            f"{instance.job_ids[j]!r}, the schedule "
                            f"{'one' if expected[j] else 'none'}")
    if len(problems) > limit:
        problems = problems[:limit] + [f"... and {len(problems) - limit} more"]
    return problems


def _record_problems(instance: Instance, solution: Solution, finish: np.ndarray, tol: float,
                     where: str, kind: str, when: float, j: int, jid: str,
                     record: dict[str, Any], started: np.ndarray) -> list[str]:
    """What one record of job ``j`` says that the schedule does not."""
    arrival = float(instance.arrival[j])
    if kind == "arrival":
        return ([f"{where}: job {jid!r} arrives at {arrival:g}, not {when:g}"]
                if _off(when, arrival, tol) else [])
    if kind == "drop":
        return ([f"{where}: job {jid!r} dropped at {when:g}, before its arrival {arrival:g}"]
                if when < arrival - tol else [])
    if not started[j]:
        return [f"{where}: {kind} of job {jid!r}, which the schedule does not run"]
    if kind == "end":
        return ([f"{where}: job {jid!r} ends at {when:g}, its tasks at {finish[j]:g}"]
                if _off(when, float(finish[j]), tol) else [])
    problems = []
    if _off(when, float(solution.start[j]), tol):
        problems.append(f"{where}: job {jid!r} starts at {when:g}, the schedule at "
                        f"{solution.start[j]:g}")
    vms = sorted(instance.vm_ids[v] for v in solution.task_vm[solution.task_job == j])
    if sorted(record.get("vms", [])) != vms:
        problems.append(f"{where}: job {jid!r} starts on {record.get('vms')}, the schedule on "
                        f"{vms}")
    if _off(float(record.get("end", math.nan)), float(finish[j]), tol):
        problems.append(f"{where}: job {jid!r} is logged to end at {record.get('end')!r}, its "
                        f"tasks at {finish[j]:g}")
    return problems
