"""What a ``malleable`` event log must say about its schedule.

Online methods attach the simulation's event log to their schedules, and
solution files carry it. A log is a claim like any other value of the file,
so when one is present the checker compares it with the pieces:

- records are in time order, each with a finite ``time >= 0`` and a known
  ``event``;
- ``arrival``: exactly one per job, at the job's arrival;
- ``start``: exactly the pieces, one record per piece (``job``, ``resource``,
  ``time`` = start, ``end``, ``cpu``, ``count``);
- ``end``: for every job that ran and only for those, on its resource; the
  last one at the end of the job's last piece;
- ``decision``, ``wait``, ``reschedule``: only for known jobs, never before
  their arrival; a job's first ``decision`` comes no later than its first
  piece.

A truncated log, a shifted time or a record for a piece that is not in the
schedule breaks one of these rules.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from hybridsched.malleable.instance import Instance
from hybridsched.malleable.schema import EVENTS
from hybridsched.malleable.solution import Solution


def _time(record: Any) -> float | None:
    value = record.get("time") if isinstance(record, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def log_problems(instance: Instance, solution: Solution, limit: int = 50) -> list[str]:
    """Every way the solution's event log disagrees with its pieces (empty without a log).

    The per-record loop reads plain Python lists, not numpy scalars (a log of
    10,000 jobs has some 40,000 records).
    """
    events = solution.events
    if not events:
        return []
    problems: list[str] = []
    jobs = {jid: j for j, jid in enumerate(instance.job_ids)}
    rids = [r.id for r in instance.resources]
    arrival: list[int] = instance.arrival.tolist()
    resource: list[int] = solution.resource.tolist()
    previous = -math.inf
    arrivals: Counter[str] = Counter()
    starts: Counter[tuple[Any, ...]] = Counter()
    last_end: dict[int, float] = {}
    first_decision: dict[int, float] = {}
    for k, record in enumerate(events):
        where = f"event {k}"
        value = record.get("time") if type(record) is dict else None
        if type(value) is int:  # the common cases first; others as _time reads them
            when: float | None = float(value)
        elif type(value) is float and math.isfinite(value):
            when = value
        else:
            when = _time(record)
        kind = record.get("event") if isinstance(record, dict) else None
        if when is None or when < 0 or kind not in EVENTS:
            problems.append(f"{where}: not a record with a time >= 0 and a known event")
            continue
        if when < previous:
            problems.append(f"{where}: at {when:g}, before the record above it ({previous:g})")
        previous = when
        j = jobs.get(record.get("job"))
        if j is None:
            problems.append(f"{where}: {kind} of unknown job {record.get('job')!r}")
            continue
        jid = instance.job_ids[j]
        if when < arrival[j]:
            problems.append(f"{where}: {kind} of job {jid!r} at {when:g}, before its arrival "
                            f"{arrival[j]}")
        if kind == "arrival":
            arrivals[jid] += 1
            if when != arrival[j]:
                problems.append(f"{where}: job {jid!r} arrives at {arrival[j]}, not {when:g}")
        elif kind == "start":
            starts[(j, record.get("resource"), when, record.get("end"), record.get("cpu"),
                    record.get("count"))] += 1
        elif kind == "end":
            if resource[j] < 0 or record.get("resource") != rids[resource[j]]:
                problems.append(f"{where}: job {jid!r} ends on {record.get('resource')!r}, "
                                "where it did not run")
            last_end[j] = max(last_end.get(j, -math.inf), when)
        elif kind == "decision":
            first_decision.setdefault(j, when)
    for jid in instance.job_ids:
        if arrivals[jid] != 1:
            problems.append(f"the log records {arrivals[jid]} arrivals of job {jid!r}")
    pieces: Counter[tuple[Any, ...]] = Counter()
    for j, s, e, c, n in zip(solution.job.tolist(), solution.start.tolist(),
                             solution.end.tolist(), solution.cpu.tolist(),
                             solution.count.tolist(), strict=True):
        r = resource[j]
        pieces[(j, rids[r] if r >= 0 else None, float(s), e, c, n)] += 1
    missing, extra = pieces - starts, starts - pieces
    for (j, r, s, e, c, n), times in missing.items():
        problems.append(f"the log has no start of job {instance.job_ids[j]!r} on {r!r} from "
                        f"{s:g} to {e} (processors {c}+{n})" + (f", {times} times" if times > 1
                                                                else ""))
    for (j, r, s, e, c, n), times in extra.items():
        problems.append(f"the log starts job {instance.job_ids[j]!r} on {r!r} from {s:g} to "
                        f"{e!r} (processors {c!r}+{n!r}), a piece the schedule does not have"
                        + (f", {times} times" if times > 1 else ""))
    ends: list[int] = solution.job_end(instance.n_jobs).tolist()
    for j, end in enumerate(ends):
        if end >= 0 and j not in last_end:
            problems.append(f"the log never ends job {instance.job_ids[j]!r}")
    for j, when in last_end.items():
        if when != ends[j]:
            problems.append(f"the log ends job {instance.job_ids[j]!r} last at {when:g}, its "
                            f"work ends at {ends[j]}")
    first = np.full(instance.n_jobs, np.inf)
    if solution.n_pieces:
        np.minimum.at(first, solution.job, solution.start.astype(float))
    first_start: list[float] = first.tolist()
    for j, when in first_decision.items():
        if when > first_start[j]:
            problems.append(f"job {instance.job_ids[j]!r} runs from {first_start[j]:g}, before "
                            f"its first decision at {when:g}")
    if len(problems) > limit:
        problems = problems[:limit] + [f"... and {len(problems) - limit} more"]
    return problems
