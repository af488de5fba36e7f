"""What a ``malleable`` event log must say about its schedule.

Online methods attach the simulation's event log to their schedules, and
solution files carry it. A log is a claim like any other value of the file,
so when one is present the checker compares every record with the pieces
and the instance. What the simulation writes
(:mod:`hybridsched.heuristics.malleable.simulation`): a job's ``arrival``,
then at once a ``decision`` naming the resource it chooses, or a ``wait``
(every VM busy and no cluster may take it) until a VM frees up, when it is
decided again; a cluster whose new job takes a queued job's place records
``reschedule`` of that job, naming itself, and the job is decided again at
once; the chosen resource then records the job's ``start`` (one per piece)
and one ``end``. Hence the rules:

- records are in time order, each with a finite ``time >= 0``, a known
  ``event``, a known job and exactly its kind's fields
  (:data:`~hybridsched.malleable.schema.EVENT_FIELDS`; files with other
  records are refused when read), a ``resource`` naming a resource of the
  instance;
- ``arrival``: exactly one per job, at the job's arrival, before the job's
  other records;
- per job, in log order: every ``decision`` and ``wait`` comes while the job
  is undecided (after its arrival, a ``wait`` or a ``reschedule``), at the
  minute that record asks for (the arrival's or the reschedule's minute, the
  wait's ``until``), and the log does not end while the job is undecided; a
  ``wait``'s ``until`` is after its time;
- a ``reschedule`` gives up a decided job that has not started: it names the
  resource of the job's decision before it, a cluster, at the minute of the
  latest decision naming that cluster (the one that takes its place). So
  every decision of a job but the last is followed, before the next one, by
  a reschedule naming its resource;
- a job that ran has a decision, and its last decision names the resource
  its pieces run on;
- ``start``: exactly the pieces, one record per piece (``job``, ``resource``,
  ``time`` = start, ``end``, ``cpu``, ``count``), all of a job's at one
  minute, after its last decision;
- ``end``: exactly one per job that ran, after its starts, on its resource,
  at the end of its last piece;
- a decision's ``good`` is ``end <= deadline and cost <= budget`` with its
  own ``end`` and ``cost`` (a cluster declines rather than reschedule as
  much work as the job brings, so the size rule of ``IsGood`` always holds);
- a decision naming a cluster has ``option`` 0, costs the job's minutes
  there times the cluster's processors times its price (0 on a dedicated
  cluster) and ends no earlier than its time plus those minutes;
- the last decision of a job that ran on a cloud is at the minute its
  pieces start, and its ``end`` is the job's end.

A truncated log, a shifted time, a decision naming another resource or a
record for a piece that is not in the schedule breaks one of these rules.
Not checked (they depend on the state of the other leaves): a cloud
decision's ``cost`` and ``option``, and where a cluster decision's ``end``
lies beyond its lower bound (later insertions and migrations move it).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from hybridsched.family import CLAIM_ATOL, CLAIM_RTOL
from hybridsched.malleable.instance import Instance, ResourceType
from hybridsched.malleable.schema import EVENT_FIELDS, EVENTS
from hybridsched.malleable.solution import Solution
from hybridsched.malleable.speedup import minutes_needed_array, rate

#: The keys of each kind of record.
_KEYS = {kind: frozenset(("time", "event", "job", *fields))
         for kind, fields in EVENT_FIELDS.items()}
#: The Python types each optional field may have (``bool`` is not an ``int`` here).
_TYPES: dict[str, tuple[type, ...]] = {
    "resource": (str,), "end": (int,), "cpu": (int,), "count": (int,), "option": (int,),
    "good": (bool,), "cost": (int, float), "until": (int,)}

# A job's state in the log, record by record.
_NEW, _UNDECIDED, _DECIDED, _STARTED, _ENDED = range(5)


def _time(record: Any) -> float | None:
    value = record.get("time") if isinstance(record, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _malformed(record: dict[str, Any], kind: str) -> bool:
    """Whether the record lacks a field of its kind, has another, or one of a wrong type."""
    if record.keys() != _KEYS[kind]:
        return True
    for name in EVENT_FIELDS[kind]:
        value = record[name]
        if type(value) not in _TYPES[name] or (type(value) is float and not math.isfinite(value)):
            return True
    return False


def log_problems(instance: Instance, solution: Solution, limit: int = 50) -> list[str]:
    """Every way the solution's event log disagrees with its pieces (empty without a log).

    See the module docstring for the rules. The per-record loop reads plain
    Python lists, not numpy scalars (a log of 10,000 jobs has some 40,000
    records).
    """
    events = solution.events
    if not events:
        return []
    problems: list[str] = []
    n = instance.n_jobs
    jobs = {jid: j for j, jid in enumerate(instance.job_ids)}
    rids = [r.id for r in instance.resources]
    rindex = {rid: i for i, rid in enumerate(rids)}
    cloud = [r.is_cloud for r in instance.resources]
    arrival: list[int] = instance.arrival.tolist()
    deadline: list[int] = instance.deadline.tolist()
    budget: list[float] = instance.budget.tolist()
    resource: list[int] = solution.resource.tolist()
    previous = -math.inf
    arrivals: Counter[str] = Counter()
    starts: Counter[tuple[Any, ...]] = Counter()
    state = [_NEW] * n
    decided = [-1] * n  # resource of the job's latest decision
    decided_at = [-1] * n  # the event index of that decision
    due: list[float | None] = [None] * n  # the minute the job must be decided (again) at
    due_from = [-1] * n  # the event index of the record that asks for it
    first_start: list[float | None] = [None] * n
    end_at: list[float | None] = [None] * n
    decision_on = [-math.inf] * len(rids)  # minute of the latest decision naming a resource
    on_cluster: list[tuple[int, int, int]] = []  # (event, job, resource) of cluster decisions

    def stands(j: int) -> str:
        """Why a job cannot be decided, give up or wait now (its state in words)."""
        s = state[j]
        if s == _NEW:
            return "before its arrival record"
        if s == _DECIDED:
            return (f"while its decision (event {decided_at[j]}) on {rids[decided[j]]!r} "
                    "stands (no reschedule gave it up)")
        if s == _UNDECIDED:
            return f"while it is undecided (since event {due_from[j]})"
        return "after its start" if s == _STARTED else "after its end"

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
        if _malformed(record, kind):
            problems.append(f"{where}: {kind} of job {jid!r} with fields "
                            f"{sorted(map(str, record))}, not the simulation's "
                            f"{sorted(_KEYS[kind])} (and their types)")
            continue
        if when < arrival[j]:
            problems.append(f"{where}: {kind} of job {jid!r} at {when:g}, before its arrival "
                            f"{arrival[j]}")
        r = -1
        if "resource" in record:
            r = rindex.get(record["resource"], -1)
            if r < 0:
                problems.append(f"{where}: {kind} of job {jid!r} on unknown resource "
                                f"{record['resource']!r}")
                continue
        s = state[j]
        if kind == "arrival":
            arrivals[jid] += 1
            if when != arrival[j]:
                problems.append(f"{where}: job {jid!r} arrives at {arrival[j]}, not {when:g}")
            if s == _NEW:
                state[j], due[j], due_from[j] = _UNDECIDED, when, k
        elif kind == "decision" or kind == "wait":
            if s != _UNDECIDED:
                problems.append(f"{where}: {kind} of job {jid!r} {stands(j)}")
            elif due[j] is not None and when != due[j]:
                asks = due_from[j]
                problems.append(f"{where}: {kind} of job {jid!r} at {when:g}, not at "
                                f"{due[j]:g} as event {asks} ({events[asks]['event']}) asks")
            if kind == "wait":
                until = record["until"]
                if until <= when:
                    problems.append(f"{where}: job {jid!r} waits until {until}, not after "
                                    f"{when:g}")
                state[j], due[j], due_from[j] = _UNDECIDED, until, k
                continue
            state[j], decided[j], decided_at[j], due[j] = _DECIDED, r, k, None
            decision_on[r] = when
            end, cost, good = record["end"], record["cost"], record["good"]
            if good != (end <= deadline[j] and cost <= budget[j]):
                problems.append(f"{where}: decision of job {jid!r} says good={good}, but it "
                                f"ends at {end} (deadline {deadline[j]}) and costs {cost:g} "
                                f"(budget {budget[j]:g})")
            if not cloud[r]:
                on_cluster.append((k, j, r))
        elif kind == "reschedule":
            if s != _DECIDED:
                problems.append(f"{where}: {rids[r]!r} gives job {jid!r} up {stands(j)}")
            elif r != decided[j]:
                problems.append(f"{where}: {rids[r]!r} gives job {jid!r} up, but its decision "
                                f"(event {decided_at[j]}) names {rids[decided[j]]!r}")
            if cloud[r]:
                problems.append(f"{where}: cloud {rids[r]!r} gives job {jid!r} up (only "
                                "clusters reschedule)")
            elif decision_on[r] != when:
                problems.append(f"{where}: {rids[r]!r} gives job {jid!r} up at {when:g}, not "
                                "at the minute of a decision naming it")
            state[j], due[j], due_from[j] = _UNDECIDED, when, k
        elif kind == "start":
            if s != _DECIDED and s != _STARTED:
                problems.append(f"{where}: start of job {jid!r} "
                                + ("before any decision" if s == _NEW else stands(j)))
            first = first_start[j]
            if first is None:
                first_start[j] = when
            elif when != first:
                problems.append(f"{where}: job {jid!r} starts again at {when:g} (its first "
                                f"start: {first:g})")
            state[j] = _STARTED
            starts[(j, record["resource"], when, record["end"], record["cpu"],
                    record["count"])] += 1
        else:  # end
            if s != _STARTED:
                problems.append(f"{where}: end of job {jid!r} "
                                + ("before its start" if s < _STARTED else "after its end"))
            state[j] = _ENDED
            if resource[j] < 0 or r != resource[j]:
                problems.append(f"{where}: job {jid!r} ends on {record['resource']!r}, "
                                "where it did not run")
            end_at[j] = when
    for jid in instance.job_ids:
        if arrivals[jid] != 1:
            problems.append(f"the log records {arrivals[jid]} arrivals of job {jid!r}")
    pieces: Counter[tuple[Any, ...]] = Counter()
    for j, s, e, c, n_ in zip(solution.job.tolist(), solution.start.tolist(),
                              solution.end.tolist(), solution.cpu.tolist(),
                              solution.count.tolist(), strict=True):
        r = resource[j]
        pieces[(j, rids[r] if r >= 0 else None, float(s), e, c, n_)] += 1
    missing, extra = pieces - starts, starts - pieces
    for (j, r, s, e, c, n_), times in missing.items():
        problems.append(f"the log has no start of job {instance.job_ids[j]!r} on {r!r} from "
                        f"{s:g} to {e} (processors {c}+{n_})" + (f", {times} times" if times > 1
                                                                 else ""))
    for (j, r, s, e, c, n_), times in extra.items():
        problems.append(f"the log starts job {instance.job_ids[j]!r} on {r!r} from {s:g} to "
                        f"{e!r} (processors {c!r}+{n_!r}), a piece the schedule does not have"
                        + (f", {times} times" if times > 1 else ""))
    problems += _cluster_decisions(instance, events, on_cluster)
    ends: list[int] = solution.job_end(n).tolist()
    first = np.full(n, np.inf)
    if solution.n_pieces:
        np.minimum.at(first, solution.job, solution.start.astype(float))
    first_piece: list[float] = first.tolist()
    for j, jid in enumerate(instance.job_ids):
        if state[j] == _UNDECIDED:
            problems.append(f"the log never decides job {jid!r} after event {due_from[j]} "
                            f"({events[due_from[j]]['event']})")
        if ends[j] < 0:  # the job did not run
            continue
        r, d = resource[j], decided_at[j]
        if d < 0:
            problems.append(f"job {jid!r} runs on {rids[r]!r}, but the log never decides it")
        elif decided[j] != r:
            problems.append(f"job {jid!r} runs on {rids[r]!r}, but its last decision "
                            f"(event {d}) names {rids[decided[j]]!r}")
        elif cloud[r]:
            if events[d]["time"] != first_piece[j]:
                problems.append(f"job {jid!r} starts on cloud {rids[r]!r} at "
                                f"{first_piece[j]:g}, not at its decision (event {d}) at "
                                f"{events[d]['time']:g}")
            if events[d]["end"] != ends[j]:
                problems.append(f"job {jid!r} ends at {ends[j]} on cloud {rids[r]!r}, not at "
                                f"the end {events[d]['end']} its decision (event {d}) states")
        if end_at[j] is None:
            problems.append(f"the log never ends job {jid!r}")
        elif end_at[j] != ends[j]:
            problems.append(f"the log ends job {jid!r} at {end_at[j]:g}, its work ends at "
                            f"{ends[j]}")
    if len(problems) > limit:
        problems = problems[:limit] + [f"... and {len(problems) - limit} more"]
    return problems


def _cluster_decisions(instance: Instance, events: tuple[dict[str, Any], ...],
                       on_cluster: list[tuple[int, int, int]]) -> list[str]:
    """The decisions naming a cluster whose option, cost or end its offer cannot have.

    A cluster offers one schedule (option 0) on all its processors: the job
    runs the minutes it needs there (:func:`~hybridsched.malleable.speedup.minutes_needed`,
    computed for all these decisions at once), from its time or later, and
    costs ``price * cpus * minutes`` on an allocated cluster, nothing on a
    dedicated one (as the cluster's scheduler computes it).
    """
    if not on_cluster:
        return []
    ks, js, rs = (list(column) for column in zip(*on_cluster, strict=True))
    res = instance.resources
    cpus = np.array([res[r].cpus for r in rs])
    performance = np.array([res[r].performance for r in rs], dtype=float)
    minutes: list[int] = minutes_needed_array(
        instance.size[js], rate(cpus, performance, instance.serial_fraction[js])).tolist()
    problems = []
    for k, j, r, m in zip(ks, js, rs, minutes, strict=True):
        record, cluster = events[k], res[r]
        jid = instance.job_ids[j]
        if record["option"] != 0:
            problems.append(f"event {k}: decision of job {jid!r} on cluster {cluster.id!r} "
                            f"with option {record['option']} (a cluster offers option 0 only)")
        if record["end"] < record["time"] + m:
            problems.append(f"event {k}: decision of job {jid!r} on {cluster.id!r} ends at "
                            f"{record['end']}, before its minute {record['time']:g} plus the "
                            f"{m} minutes the job needs there")
        paid = cluster.type is ResourceType.ALLOCATED
        cost = cluster.price * cluster.cpus * float(m) if paid else 0.0
        if not math.isclose(record["cost"], cost, rel_tol=CLAIM_RTOL, abs_tol=CLAIM_ATOL):
            problems.append(f"event {k}: decision of job {jid!r} on {cluster.id!r} costs "
                            f"{record['cost']!r}, not {cost!r} ("
                            + (f"{cluster.price:g} x {cluster.cpus} processors x {m} minutes)"
                               if paid else "a dedicated cluster is free)"))
    return problems
