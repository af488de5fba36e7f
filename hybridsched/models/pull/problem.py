"""The clairvoyant offline ``pull`` problem: data shared by its MILP and CP-SAT models.

**The problem.** Everything an online pull policy discovers is known in
advance: availability windows, arrivals, and every result a host will
produce. The draws are indexed per host and per task rank
(:mod:`hybridsched.pull.behaviour`): the ``k``-th task host ``h`` starts
gets row ``k`` of the host's stream, whatever unit it runs. So a host's
``k``-th task has a known delay factor and a known outcome (correct, wrong,
never returned) *independent of the policy*; only its duration depends on
the unit chosen (``noi / cpu x delay``). Nothing of the realised behaviour
is left to chance once the plan is fixed, so no restriction is needed: the
offline problem is "choose, for every task a host starts, the unit it runs",
under the checker's rules (:mod:`hybridsched.pull.checker`):

- a host runs one task at a time, each inside the window its start lies in;
  one that would end after that window ends is ``lost`` when the host leaves
  (a task that does not fit still consumes its draw);
- a task starts no earlier than its unit's arrival and no later than its
  unit's first correct result (replicas of incomplete units only);
- a host is never idle while a unit waits (arrived, not completed): it
  starts its next task when it becomes ready (previous task over, or window
  start) unless nothing waits then, and then at the next arrival;
- the run ends at the last unit's first correct result ``T``; tasks still
  running are cancelled. Objective: the makespan ``T - first schedule``
  (the first schedule is fixed by the instance).

The models (:mod:`.milp`, :mod:`.cpsat`) give each host ``K``
*positions* (position ``k`` is the task that takes draw ``k``). ``K`` is
enough for every schedule whose run ends by the horizon ``H`` (the best
online schedule's end): tasks last at least ``min noi / cpu`` and each
window holds one task that may be cut, so a window ``[s, e)`` holds at most
``floor((min(e, H) - s) / p_min) + 1`` starts. The model keeps ``T <= H``;
an optimum it proves is thus the optimum among all schedules (a schedule
ending later than ``H`` is worse than the online one anyway).

**Times and their grid.** Both models work on the same integer grid, so
they solve the same problem: times are multiplied by ``factor`` (the
smallest power of ten making every window bound, arrival and task duration
an integer, :func:`~hybridsched.models.solvers.cpsat.decimal_scale`). Delay factors
are random doubles, so a delayed task's duration usually has no short
decimal form: then ``factor`` is ``10**7`` and durations are rounded to the
nearest grid point (at most 5e-8 s off, well inside the checker's 1e-6 s
:data:`~hybridsched.pull.checker.TIME_TOL`, so the schedule written with
grid times is the one the checker replays). ``optimal`` then means optimal
for the grid problem; ``Scaling.exact`` tells which case applies, and the
result's message says so. Schedules are written from grid times and checked
by the family's checker like any other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hybridsched.models.solvers.cpsat import Scaling, decimal_scale
from hybridsched.pull.behaviour import replay
from hybridsched.pull.instance import Instance
from hybridsched.pull.solution import (
    CANCELLED,
    CORRECT,
    LOST,
    NEVER,
    WRONG,
    Solution,
    from_records,
)

#: The largest instances the offline models take (units, hosts, positions in all).
MAX_UNITS = 8
MAX_HOSTS = 4
MAX_POSITIONS = 60
#: Grid factor when the durations have no short decimal form (module docstring).
FINE_FACTOR = 10**7


@dataclass(frozen=True)
class HostData:
    """One host's windows (grid, ``[start, end)``) and its positions' draws and durations."""

    windows: tuple[tuple[int, int], ...]
    delay: np.ndarray
    outcome: np.ndarray
    duration: tuple[tuple[int, ...], ...]  # [position][unit], grid units

    @property
    def positions(self) -> int:
        """Tasks the host may start by the horizon (``K``)."""
        return len(self.duration)


@dataclass(frozen=True)
class Offline:
    """The offline problem on the grid (module docstring)."""

    instance: Instance
    scaling: Scaling
    arrival: tuple[int, ...]
    horizon: int
    hosts: tuple[HostData, ...]

    @property
    def latest(self) -> int:
        """A time no task ends after: the horizon plus the longest duration."""
        longest = max((d for host in self.hosts for row in host.duration for d in row), default=0)
        return self.horizon + longest + 1


class TooLarge(Exception):  # noqa: N818 (a signal to fall back, not an error)
    """The instance is beyond :data:`MAX_UNITS`, :data:`MAX_HOSTS` or :data:`MAX_POSITIONS`."""


def _positions(instance: Instance, h: int, first: float, horizon: float) -> int:
    """Most tasks host ``h`` can start in ``[first, horizon]`` (module docstring)."""
    shortest = float(instance.noi.min()) / float(instance.cpu[h])
    count = 0
    for a, b in instance.windows[h]:
        begin, end = max(a, first), min(b, horizon)
        if begin <= horizon and b > first:
            count += int(math.floor(max(end - begin, 0.0) / shortest * (1 + 1e-9))) + 1
    return count


def prepare(instance: Instance, horizon_end: float) -> Offline:
    """The grid data for runs ending by ``horizon_end`` (absolute time, seconds).

    Raises
    ------
    TooLarge
        Beyond the sizes the models take (the message says which).
    """
    n, m = instance.n_units, instance.n_hosts
    if n > MAX_UNITS or m > MAX_HOSTS:
        raise TooLarge(f"{n} units and {m} hosts (the offline model takes at most "
                       f"{MAX_UNITS} units and {MAX_HOSTS} hosts)")
    first = float(instance.arrival.min())
    counts = [_positions(instance, h, first, horizon_end) for h in range(m)]
    if sum(counts) > MAX_POSITIONS:
        raise TooLarge(f"{sum(counts)} task positions by the online schedule's end "
                       f"(the offline model takes at most {MAX_POSITIONS})")
    draws = [replay(instance, h, counts[h]) for h in range(m)]
    real = [np.outer(delay, instance.noi / instance.cpu[h]) for h, (delay, _) in
            enumerate(draws)]
    windows = [[(a, b) for a, b in instance.windows[h] if a <= horizon_end and b > first]
               for h in range(m)]
    values = [v for spans in windows for span in spans for v in span if math.isfinite(v)]
    values += [*instance.arrival, horizon_end, *(d for table in real for d in table.ravel())]
    scaling = decimal_scale(values)
    if not scaling.exact:
        scaling = Scaling(FINE_FACTOR, False)
    factor = scaling.factor

    def grid(value: float) -> int:
        return int(round(value * factor))

    horizon = grid(horizon_end) + sum(counts) + 1  # rounding drift of a grid schedule
    longest = max((grid(d) for table in real for d in table.ravel()), default=0)
    hosts = []
    for h in range(m):
        spans = tuple((grid(a), grid(b) if math.isfinite(b) else horizon + longest + 1)
                      for a, b in windows[h])
        duration = tuple(tuple(max(1, grid(d)) for d in row) for row in real[h])
        hosts.append(HostData(spans, draws[h][0], draws[h][1], duration))
    return Offline(instance, scaling, tuple(grid(a) for a in instance.arrival), horizon,
                   tuple(hosts))


@dataclass(frozen=True)
class Task:
    """A planned task: host ``host``'s position ``position`` runs ``unit`` from ``start``."""

    host: int
    position: int
    unit: int
    start: int  # grid


def plan_of(offline: Offline, solution: Solution) -> list[Task]:
    """The positions a (checked) schedule uses, on the grid: a hint for the models."""
    factor = offline.scaling.factor
    tasks = []
    for h in range(offline.instance.n_hosts):
        mine = np.flatnonzero(solution.host == h)
        mine = mine[np.lexsort((solution.end[mine], solution.start[mine]))]
        for k, t in enumerate(mine[:offline.hosts[h].positions]):
            tasks.append(Task(h, k, int(solution.unit[t]),
                              int(round(float(solution.start[t]) * factor))))
    return tasks


def schedule(offline: Offline, plan: list[Task]) -> Solution:
    """The schedule (with its event log) that a plan realises, timed on the grid.

    Each task ends after its grid duration, or is lost when its window ends
    first; the run ends at the last unit's first correct result; tasks
    starting at or after it are dropped, those running then are cancelled.
    """
    instance = offline.instance
    factor = offline.scaling.factor
    rows = []  # host, unit, start, end (grid), delay, outcome
    for task in sorted(plan, key=lambda t: (t.host, t.position)):
        host = offline.hosts[task.host]
        span = next((w for w in host.windows if w[0] <= task.start < w[1]), None)
        natural = task.start + host.duration[task.position][task.unit]
        lost = span is not None and natural > span[1]
        end = span[1] if lost else natural
        outcome = LOST if lost else int(host.outcome[task.position])
        rows.append([task.host, task.unit, task.start, end,
                     float(host.delay[task.position]), outcome])
    done = [min((r[3] for r in rows if r[1] == u and r[5] == CORRECT), default=math.inf)
            for u in range(instance.n_units)]
    finish = max(done, default=0)
    records = []
    for h, u, start, end, delay, outcome in rows:
        if start >= finish and instance.n_units:
            continue
        if end > finish:
            end, outcome = finish, CANCELLED
        records.append((u, h, start / factor, end / factor, delay, outcome))
    return from_records(records, _log(instance, records, finish / factor))


_ORDER = {"HLE": 0, "LOST": 1, "RET": 2, "HJ": 3, "WKUA": 4, "SCH": 5}
_RESULT = {CORRECT: "correct", WRONG: "wrong", NEVER: "none"}


def _log(instance: Instance, records: list[tuple[int, int, float, float, float, int]],
         end: float) -> tuple[dict, ...]:
    """The event log of a schedule (:mod:`hybridsched.pull.event_log`'s rules)."""
    units, hosts = instance.unit_ids, instance.host_ids
    events = [{"time": float(a), "event": "WKUA", "unit": units[u]}
              for u, a in enumerate(instance.arrival) if a < end]
    for h, spans in enumerate(instance.windows):
        for a, b in spans:
            if a < end:
                events.append({"time": float(a), "event": "HJ", "host": hosts[h]})
            if b < end:
                events.append({"time": float(b), "event": "HLE", "host": hosts[h]})
    for u, h, start, stop, _delay, outcome in records:
        events.append({"time": start, "event": "SCH", "unit": units[u], "host": hosts[h]})
        if outcome in _RESULT:
            events.append({"time": stop, "event": "RET", "unit": units[u], "host": hosts[h],
                           "result": _RESULT[outcome]})
        elif outcome == LOST:
            events.append({"time": stop, "event": "LOST", "unit": units[u], "host": hosts[h]})
    events.sort(key=lambda e: (e["time"], _ORDER[e["event"]]))
    flight = [0] * instance.n_units
    index = {u: k for k, u in enumerate(units)}
    for event in events:  # a replica is the number of its unit's tasks in flight once sent
        if event["event"] == "SCH":
            flight[index[event["unit"]]] += 1
            event["replica"] = flight[index[event["unit"]]]
        elif event["event"] in ("RET", "LOST"):
            flight[index[event["unit"]]] -= 1
    return tuple({k: e[k] for k in ("time", "event", "unit", "host", "replica", "result")
                  if k in e} for e in events)
