"""What a ``gang`` event log must say about its schedule.

Online methods attach the simulation's event log to their schedules, and
solution files carry it. A log is a claim like any other value of the file,
so when one is present the checker compares it with the schedule's *real*
times (:mod:`hybridsched.gang.checker`: a stated start within ``TIME_TOL`` of
the job's earliest start is rounded to it), within the checker's ``TIME_TOL``
plus the binary64 rounding of the times compared (:func:`close`):

- records are in time order;
- ``arrival``: exactly one per job, at the job's arrival;
- ``start``: exactly one per started job and none for the others, at its
  real start, on the VMs of its tasks, with ``end`` its slowest task's real end;
- ``end``: exactly one per started job not killed, at that end;
- ``kill``: exactly one per job killed at its deadline (marked ``"killed"``:
  :mod:`hybridsched.gang.checker`), at its end (the deadline);
- ``drop``: exactly one per job that did not run and none for the others,
  not before its arrival.

A log written from stated times agrees: a real start differs from the stated
one by at most ``TIME_TOL``, and so does the real end from the stated start
plus the task time. A truncated log, a shifted time or a record of a job the
schedule does not run breaks one of these rules. Whether each record is well
formed is the file reader's question (:class:`hybridsched.gang.schema.EventDoc`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution

#: Binary64's machine epsilon.
_EPS = float(np.finfo(float).eps)


def close(a: float, b: float, tol: float) -> bool:
    """``|a - b| <= tol`` up to the rounding of two binary64 times near ``a`` and ``b``."""
    return abs(a - b) <= tol + 4 * _EPS * max(1.0, abs(a), abs(b))


def _off(a: float, b: float, tol: float) -> bool:
    return not close(a, b, tol)


def log_problems(instance: Instance, solution: Solution, start: np.ndarray,
                 finish: np.ndarray, tol: float, limit: int = 50) -> list[str]:
    """Every way the log disagrees with the schedule (empty without a log).

    ``start`` and ``finish`` are the checker's real start and end of each job
    (NaN for jobs that did not run) and ``tol`` its time tolerance.
    """
    if not solution.events:
        return []
    jobs = {jid: j for j, jid in enumerate(instance.job_ids)}
    started = ~np.isnan(solution.start)
    killed = np.zeros(instance.n_jobs, dtype=bool)
    killed[[j for j, what in solution.missed.items() if what == "killed"]] = True
    vms = _vms_of(instance, solution)
    if _agrees(instance, solution.events, jobs, started, killed, start, finish, vms, tol):
        return []
    problems: list[str] = []
    # Plain Python values, read once: a log has a few records per job.
    facts = _Facts(instance.arrival.tolist(), start.tolist(), finish.tolist(),
                   started.tolist(), vms)
    counts = {kind: [0] * instance.n_jobs for kind in _KINDS}
    previous = -math.inf
    for k, record in enumerate(solution.events):
        kind, when = record.get("event"), float(record.get("time", 0.0))
        j = jobs.get(record.get("job"))
        tally = counts.get(kind)  # type: ignore[arg-type]
        if j is None or tally is None:
            problems.append(f"event {k}: {kind} of unknown job {record.get('job')!r}")
            continue
        if when < previous and _off(when, previous, tol):
            problems.append(f"event {k}: at {when:g}, before the record above it "
                            f"({previous:g})")
        if when > previous:
            previous = when
        tally[j] += 1
        found = _record_problems(facts, tol, kind, when, j, record)
        if found:
            jid = instance.job_ids[j]
            problems += [f"event {k}: {text.format(jid=repr(jid))}" for text in found]
    for kind, expected in (("arrival", np.ones(instance.n_jobs, dtype=bool)),
                           ("start", started), ("end", started & ~killed),
                           ("drop", ~started), ("kill", killed)):
        found_counts = np.array(counts[kind], dtype=np.int64)
        for j in np.flatnonzero(found_counts != expected)[:limit + 1]:
            problems.append(f"the log has {found_counts[j]} {kind} records of job "
                            f"{instance.job_ids[j]!r}, the schedule "
                            f"{'one' if expected[j] else 'none'}")
    if len(problems) > limit:
        problems = problems[:limit] + [f"... and {len(problems) - limit} more"]
    return problems


#: The kinds of records, as :func:`_agrees` numbers them.
_KINDS = {"arrival": 0, "start": 1, "end": 2, "drop": 3, "kill": 4}


def _close_all(a: np.ndarray, b: np.ndarray, tol: float) -> bool:
    """:func:`close` of every pair, with the same float operations."""
    scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    return bool(np.all(np.abs(a - b) <= tol + 4 * _EPS * scale))


def _agrees(instance: Instance, events: tuple[dict[str, Any], ...], jobs: dict[str, int],
            started: np.ndarray, killed: np.ndarray, start: np.ndarray,
            finish: np.ndarray, vms: dict[int, list[str]], tol: float) -> bool:
    """Whether the log breaks none of the rules, tested on whole arrays.

    The same tests as :func:`log_problems`' loop, record by record, with
    the same float operations: ``True`` only when every one passes. On
    anything it does not expect (a time that is not finite, an unknown job
    or kind, any disagreement) it answers ``False`` and the loop, which
    names each problem, decides.
    """
    try:
        times = np.array([float(record.get("time", 0.0)) for record in events])
        kinds = np.array([_KINDS.get(record.get("event"), -1) for record in events])
        found = [jobs.get(record.get("job"), -1) for record in events]
    except (TypeError, ValueError):
        return False
    who = np.array(found, dtype=np.int64)
    if (who < 0).any() or (kinds < 0).any() or not np.isfinite(times).all():
        return False
    # Time order: no record before the latest time above it (beyond close()).
    previous = np.maximum.accumulate(np.concatenate(([-np.inf], times[:-1])))
    late = times < previous
    if late.any() and not _close_all(times[late], previous[late], tol):
        return False
    n = instance.n_jobs
    for kind, expected in ((0, np.ones(n, dtype=bool)), (1, started), (2, started & ~killed),
                           (3, ~started), (4, killed)):
        if not np.array_equal(np.bincount(who[kinds == kind], minlength=n), expected):
            return False
    arrival = instance.arrival
    at = who[kinds == 0]
    if not _close_all(times[kinds == 0], arrival[at], tol):
        return False
    at, when = who[kinds == 3], times[kinds == 3]
    early = when < arrival[at]
    if early.any() and not _close_all(when[early], arrival[at][early], tol):
        return False
    closing = (kinds == 2) | (kinds == 4)
    if not _close_all(times[closing], finish[who[closing]], tol):
        return False
    # Start records: one per started job (the counts above), each at the real start,
    # on the job's VMs, logged to end when its tasks do.
    rows = np.flatnonzero(kinds == 1).tolist()
    at = who[rows]
    if not _close_all(times[rows], start[at], tol):
        return False
    try:
        ends = np.array([float(events[k].get("end", math.nan)) for k in rows])
        if any(sorted(events[k].get("vms", [])) != vms.get(j, [])
               for k, j in zip(rows, at.tolist(), strict=True)):
            return False
    except (TypeError, ValueError):
        return False
    return _close_all(ends, finish[at], tol)


@dataclass(frozen=True)
class _Facts:
    """What the schedule says of each job (real starts and ends), as Python values."""

    arrival: list[float]
    start: list[float]
    finish: list[float]
    started: list[bool]
    vms: dict[int, list[str]]


def _vms_of(instance: Instance, solution: Solution) -> dict[int, list[str]]:
    """The sorted VM ids of each started job's tasks (one pass over the tasks)."""
    vms: dict[int, list[str]] = {}
    vm_ids = instance.vm_ids
    for j, v in zip(solution.task_job.tolist(), solution.task_vm.tolist(), strict=True):
        vms.setdefault(j, []).append(vm_ids[v])
    for names in vms.values():
        names.sort()
    return vms


def _record_problems(facts: _Facts, tol: float, kind: str, when: float, j: int,
                     record: dict[str, Any]) -> list[str]:
    """What one record of job ``j`` says that the schedule does not (``{jid}``: its id)."""
    arrival = facts.arrival[j]
    if kind == "arrival":
        return ([f"job {{jid}} arrives at {arrival:g}, not {when:g}"]
                if _off(when, arrival, tol) else [])
    if kind == "drop":
        return ([f"job {{jid}} dropped at {when:g}, before its arrival {arrival:g}"]
                if when < arrival and _off(when, arrival, tol) else [])
    if not facts.started[j]:
        return [f"{kind} of job {{jid}}, which the schedule does not run"]
    finish = facts.finish[j]
    if kind in ("end", "kill"):
        return ([f"job {{jid}} ends at {when:g}, its tasks at {finish:g}"]
                if _off(when, finish, tol) else [])
    problems = []
    start = facts.start[j]
    if _off(when, start, tol):
        problems.append(f"job {{jid}} starts at {when:g}, the schedule at {start:g}")
    vms = facts.vms.get(j, [])
    if sorted(record.get("vms", [])) != vms:
        problems.append(f"job {{jid}} starts on {_braces(str(record.get('vms')))}, the "
                        f"schedule on {_braces(str(vms))}")
    if _off(float(record.get("end", math.nan)), finish, tol):
        problems.append(f"job {{jid}} is logged to end at {_braces(repr(record.get('end')))}, its "
                        f"tasks at {finish:g}")
    return problems


def _braces(text: str) -> str:
    """``text`` safe inside a ``str.format`` template."""
    return text.replace("{", "{{").replace("}", "}}")
