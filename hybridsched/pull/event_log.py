"""Cross-check of a ``pull`` schedule's event log with its tasks and its instance.

The log (:mod:`hybridsched.heuristics.pull.simulation`) is a second account of the run; a solution
file
that carries one claims every record of it. Rules (times within
:data:`TIME_TOL` of the *real* ones, :mod:`hybridsched.pull.timeline`; ``end``
is the real end of the run, the last unit's real completion):

- every record has a known kind and names known units and hosts; times are
  finite, at least 0, and in log order never decrease;
- ``SCH`` records are the tasks' real starts (unit, host, time), one each;
  ``RET`` records the returns of the ``correct``, ``wrong`` and ``never``
  tasks (unit, host, real end, result ``correct``, ``wrong`` or ``none``);
  ``LOST`` records the real ends of the ``lost`` tasks (their windows' ends).
  Cancelled tasks leave no record;
- the ``replica`` of a ``SCH`` record is the number of its unit's tasks in
  flight once it is sent, counted along the log (``SCH`` adds one,
  ``RET`` and ``LOST`` take one away);
- ``WKUA``: one record per unit, at its arrival, for every unit that
  arrives before ``end``;
- ``HJ`` and ``HLE`` of a host are its windows' starts and (finite) ends, in
  order, from its first window on: every one before ``end``, none after it
  (one at ``end`` itself may be there or not: the run stops at the event
  that completes the last unit, whatever else is due at that instant).

Without a complete schedule (``end`` unknown), the records present are
checked, not that none is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hybridsched.pull.instance import Instance
from hybridsched.pull.schema import EVENT_FIELDS, RESULTS
from hybridsched.pull.solution import CORRECT, LOST, NEVER, OUTCOMES, WRONG, Solution
from hybridsched.pull.timeline import TIME_TOL  # the checker's

__all__ = ["KINDS", "MAX_LISTED", "RESULT_CODES", "TIME_TOL", "log_problems"]
#: Most problems listed per rule.
MAX_LISTED = 20
KINDS = tuple(EVENT_FIELDS)
RESULT_CODES = {name: code for code, name in enumerate(RESULTS.values())}


class _Log:
    """The records as arrays (``-1``: no such field)."""

    def __init__(self, n: int) -> None:
        self.kind = np.full(n, -1)
        self.time = np.zeros(n)
        self.unit = np.full(n, -1)
        self.host = np.full(n, -1)
        self.replica = np.full(n, -1)
        self.result = np.full(n, -1)


def _parse(instance: Instance, events: tuple[dict[str, Any], ...]
           ) -> tuple[_Log, list[str]]:
    """The log as arrays, or the first malformed records."""
    units = {u: k for k, u in enumerate(instance.unit_ids)}
    hosts = {h: k for k, h in enumerate(instance.host_ids)}
    log, problems = _Log(len(events)), []
    for k, record in enumerate(events):
        kind = record.get("event") if isinstance(record, dict) else None
        if kind not in EVENT_FIELDS:
            problems.append(f"event {k} has an unknown kind {kind!r}")
            continue
        log.kind[k] = KINDS.index(kind)
        time = record.get("time")
        log.time[k] = time if isinstance(time, int | float) else np.nan
        if set(record) - {"time", "event"} != set(EVENT_FIELDS[kind]):
            problems.append(f"event {k} ({kind}) has fields {sorted(record)}, not time, event, "
                            f"{', '.join(EVENT_FIELDS[kind])}")
            continue
        if "unit" in record:
            log.unit[k] = units.get(record["unit"], -1)
        if "host" in record:
            log.host[k] = hosts.get(record["host"], -1)
        if ("unit" in record and log.unit[k] < 0) or ("host" in record and log.host[k] < 0):
            problems.append(f"event {k} ({kind}) names an unknown unit or host")
        if kind == "SCH":
            replica = record["replica"]
            log.replica[k] = replica if isinstance(replica, int) else 0
        if kind == "RET":
            log.result[k] = RESULT_CODES.get(record["result"], -1)
            if log.result[k] < 0:
                problems.append(f"event {k} (RET) has an unknown result {record['result']!r}")
        if len(problems) >= MAX_LISTED:
            break
    return log, problems


def log_problems(instance: Instance, solution: Solution, end: float | None,
                 starts: np.ndarray | None = None, ends: np.ndarray | None = None
                 ) -> list[str]:
    """Every disagreement of ``solution.events`` with the tasks and the instance.

    ``starts`` and ``ends``: the tasks' real times (default: the stated ones).
    """
    if solution.events is None:
        return []
    log, problems = _parse(instance, solution.events)
    if problems:
        return [f"event log: {p}" for p in problems]
    bad = ~np.isfinite(log.time) | (log.time < 0)
    for k in np.flatnonzero(bad)[:MAX_LISTED]:
        problems.append(f"event {k} ({KINDS[log.kind[k]]}) has time {log.time[k]!r}")
    if bad.any():
        return [f"event log: {p}" for p in problems]
    for k in np.flatnonzero(log.time[1:] < log.time[:-1])[:MAX_LISTED]:
        problems.append(f"event {k + 1} ({KINDS[log.kind[k + 1]]} at {log.time[k + 1]:g}) "
                        f"comes after event {k} at {log.time[k]:g}")
    problems += _replicas(instance, log)
    problems += _tasks(instance, solution, log,
                       solution.start if starts is None else starts,
                       solution.end if ends is None else ends)
    problems += _arrivals(instance, log, end)
    problems += _windows(instance, log, end)
    return [f"event log: {p}" for p in problems]


def _replicas(instance: Instance, log: _Log) -> list[str]:
    """SCH replicas against the tasks of the unit in flight, counted along the log."""
    step = np.select([log.kind == KINDS.index("SCH"),
                      np.isin(log.kind, (KINDS.index("RET"), KINDS.index("LOST")))], [1, -1], 0)
    rows = np.flatnonzero(step)
    rows = rows[np.argsort(log.unit[rows], kind="stable")]
    unit, change = log.unit[rows], step[rows]
    total = np.cumsum(change)
    first = np.searchsorted(unit, unit, side="left")  # each unit's first row
    in_flight = total - np.where(first > 0, total[np.maximum(first - 1, 0)], 0)
    wrong = (change > 0) & (log.replica[rows] != in_flight)
    return [f"event {k} (SCH of unit {instance.unit_ids[log.unit[k]]!r} at {log.time[k]:g}) "
            f"says replica {log.replica[k]}, but {n} task(s) of the unit are in flight then"
            for k, n in zip(rows[wrong][:MAX_LISTED], in_flight[wrong][:MAX_LISTED],
                            strict=True)]


def _tasks(instance: Instance, solution: Solution, log: _Log, starts: np.ndarray,
           ends: np.ndarray) -> list[str]:
    """SCH, RET and LOST records against the tasks' (real) starts and ends."""
    s, n_hosts = solution, instance.n_hosts

    def name(key: int) -> str:
        return (f"unit {instance.unit_ids[key // n_hosts]!r} on host "
                f"{instance.host_ids[key % n_hosts]!r}")

    problems = []
    pair = s.unit * n_hosts + s.host
    logged = log.unit * n_hosts + log.host
    returned = np.isin(s.outcome, (CORRECT, WRONG, NEVER))
    result = np.array([RESULT_CODES[RESULTS[o]] for o in ("correct", "wrong", "never")])
    code = np.zeros(s.n_tasks, dtype=np.int64)
    code[returned] = result[s.outcome[returned]]
    ret = log.kind == KINDS.index("RET")
    sch, lost = log.kind == KINDS.index("SCH"), log.kind == KINDS.index("LOST")
    results = tuple(RESULTS.values())
    problems += _match("SCH", "task starts", pair, starts, logged[sch], log.time[sch], name)
    problems += _match("RET", "returned results", pair[returned] * 3 + code[returned],
                       ends[returned], logged[ret] * 3 + log.result[ret], log.time[ret],
                       lambda key: f"{name(key // 3)} ({results[key % 3]})")
    problems += _match("LOST", f"{OUTCOMES[LOST]} tasks", pair[s.outcome == LOST],
                       ends[s.outcome == LOST], logged[lost], log.time[lost], name)
    return problems


def _match(kind: str, what: str, keys: np.ndarray, times: np.ndarray, logged: np.ndarray,
           logged_times: np.ndarray, name: Callable[[int], str]) -> list[str]:
    """The records of one kind against the schedule's (key, time) pairs, one to one."""
    if len(keys) != len(logged):
        return [f"{len(logged)} {kind} records for {len(keys)} {what} of the schedule"]
    a, b = np.lexsort((times, keys)), np.lexsort((logged_times, logged))
    differ = (keys[a] != logged[b]) | (np.abs(times[a] - logged_times[b]) > TIME_TOL)
    problems = []
    for i in np.flatnonzero(differ)[:MAX_LISTED]:
        problems.append(f"{kind} of {name(int(logged[b[i]]))} at {logged_times[b[i]]:g} "
                        f"where the schedule has {name(int(keys[a[i]]))} at {times[a[i]]:g}")
        if len(problems) == 1 and keys[a[i]] != logged[b[i]]:
            break  # a missing record shifts every later pair: one line says it
    return problems


def _arrivals(instance: Instance, log: _Log, end: float | None) -> list[str]:
    """One WKUA per unit, at its arrival; every unit arriving before the end is there."""
    rows = np.flatnonzero(log.kind == KINDS.index("WKUA"))
    unit = log.unit[rows]
    problems = []
    count = np.bincount(unit, minlength=instance.n_units)
    for u in np.flatnonzero(count > 1)[:MAX_LISTED]:
        problems.append(f"{count[u]} WKUA records of unit {instance.unit_ids[u]!r}")
    off = np.abs(log.time[rows] - instance.arrival[unit]) > TIME_TOL
    for k in rows[off][:MAX_LISTED]:
        problems.append(f"WKUA of unit {instance.unit_ids[log.unit[k]]!r} at {log.time[k]:g}, "
                        f"not at its arrival {instance.arrival[log.unit[k]]:g}")
    if end is not None:
        missing = (count == 0) & (instance.arrival < end - TIME_TOL)
        for u in np.flatnonzero(missing)[:MAX_LISTED]:
            problems.append(f"no WKUA record of unit {instance.unit_ids[u]!r} (arrives at "
                            f"{instance.arrival[u]:g}, before the end of the run {end:g})")
    return problems


def _windows(instance: Instance, log: _Log, end: float | None) -> list[str]:
    """HJ and HLE records of each host against its windows' starts and ends."""
    host, start, stop, offset = instance.window_table()
    problems = []
    for kind, times in (("HJ", start), ("HLE", stop)):
        rows = np.flatnonzero(log.kind == KINDS.index(kind))
        rows = rows[np.argsort(log.host[rows], kind="stable")]
        count = np.bincount(log.host[rows], minlength=instance.n_hosts)
        due = np.isfinite(times)
        if end is None:
            least, most = np.zeros(instance.n_hosts, dtype=np.int64), np.bincount(
                host[due], minlength=instance.n_hosts)
        else:
            least = np.bincount(host[times < end - TIME_TOL], minlength=instance.n_hosts)
            most = np.bincount(host[due & (times <= end + TIME_TOL)],
                               minlength=instance.n_hosts)
        wrong = (count < least) | (count > most)
        for h in np.flatnonzero(wrong)[:MAX_LISTED]:
            problems.append(f"{count[h]} {kind} records of host {instance.host_ids[h]!r}, "
                            f"where its windows give {least[h]}"
                            + (f" to {most[h]}" if most[h] > least[h] else ""))
        if wrong.any():
            continue
        # The k-th record of a host is its k-th window's start (HJ) or end (HLE).
        first = np.searchsorted(log.host[rows], log.host[rows], side="left")
        expected = times[offset[log.host[rows]] + np.arange(len(rows)) - first]
        off = np.abs(log.time[rows] - expected) > TIME_TOL
        for k, t in zip(rows[off][:MAX_LISTED], expected[off][:MAX_LISTED], strict=True):
            problems.append(f"{kind} of host {instance.host_ids[log.host[k]]!r} at "
                            f"{log.time[k]:g}, where its window "
                            f"{'starts' if kind == 'HJ' else 'ends'} at {t:g}")
    return problems
