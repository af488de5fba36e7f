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

- a host runs one task at a time, each inside the window its start lies in
  and starting more than the checker's ``TIME_TOL`` before that window
  ends; one that would end after that window ends (plus ``TIME_TOL``) is
  ``lost`` when the host leaves (a task that does not fit still consumes its
  draw);
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
nearest grid point (at most half a step, 5e-8 s, off).

**A relaxation of the checker's set** (:mod:`hybridsched.pull.checker`, whose
rule recomputes real times and grants ``TIME_TOL`` once per comparison).
Take any schedule the checker accepts and time the same choices (units,
windows, lost or not) on the grid, each task at its ready time: every time
drifts from ``factor`` times its real time by at most what the grid rounded
along its host (:class:`Margins`: the data's rounding, plus the rounding of
each position's duration summed along the host, plus binary64's rounding of
the real times when the numbers involved do not add up exactly in
binary64). Each comparison of the rule is written on the grid with its
``TIME_TOL`` (``TIME_TOL x factor`` steps: 10 at ``10**7``, less than one
below ``10**6``) widened by the drift of the two times it compares, in the
direction that admits more: so every accepted schedule is a grid solution,
and the grid optimum, less the drift of the run's end, is a valid lower
bound on every accepted schedule's makespan. When nothing is rounded (the
usual integer and half-integer data) the drift is zero and, below
``10**6``, the grid problem *is* the checker's. One widening is written
apart: a start right at the previous task's natural end, which only drifts
by that end's rounding, may come that much closer to its window's end than
one at a data value (a window's start, an arrival, a lost task's end); the
models prefer, among plans ending together, those that do not use it (the
real times rarely bear it out). A grid plan is written back with real times
(:func:`schedule`, the checker's arithmetic) and checked; ``optimal`` is
claimed only when that checked schedule meets the bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

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
from hybridsched.pull.timeline import TIME_TOL

#: The largest instances the offline models take (units, hosts, positions in all).
MAX_UNITS = 8
MAX_HOSTS = 4
MAX_POSITIONS = 60
#: Grid factor when the durations have no short decimal form (module docstring).
FINE_FACTOR = 10**7
#: ``TIME_TOL`` as the exact decimal the rule states.
EXACT_TOL = Fraction(1, 10**6)
assert float(EXACT_TOL) == TIME_TOL
#: Unit roundoff of binary64.
_U = 2.0**-53


@dataclass(frozen=True)
class HostData:
    """One host's windows (grid, ``[start, end)``) and its positions' draws and durations."""

    windows: tuple[tuple[int, int], ...]
    delay: np.ndarray
    outcome: np.ndarray
    duration: tuple[tuple[int, ...], ...]  # [position][unit], grid units
    #: The same windows in seconds, as the instance has them.
    spans: tuple[tuple[float, float], ...] = ()

    @property
    def positions(self) -> int:
        """Tasks the host may start by the horizon (``K``)."""
        return len(self.duration)


@dataclass(frozen=True)
class Margins:
    """Grid steps that make the grid problem a relaxation of the checker's rule.

    ``drift[h][k]`` bounds, in grid steps, how far a time of host ``h`` up to
    its position ``k`` (its start, its end) lies from ``factor`` times the
    real one, for the same choices: the rounding of the data (``data``: the
    worst window bound or arrival) plus the rounding of every duration of
    positions ``0..k`` (the worst over units), plus binary64's rounding of
    the checker's real times along the host (nothing while every number
    involved, data and durations, is a multiple of a power of two small
    enough that all their sums are exact: integer and half-integer data).
    Each method gives the slack of one comparison of the rule.
    """

    tol: float  # TIME_TOL x factor (exact for factor = 10^k)
    data: float
    drift: tuple[tuple[float, ...], ...]
    rounding: float  # the largest binary64 rounding of any real time (steps)

    @property
    def top(self) -> float:
        """The largest drift of any time (a unit's completion, the run's end)."""
        return max((d[-1] for d in self.drift if d), default=0.0) + self.data

    def local(self, h: int, k: int) -> float:
        """Drift of a comparison of position ``(h, k)``'s times with a data value."""
        return self.drift[h][k] + 2 * self.data

    def cross(self, h: int, k: int) -> float:
        """Drift of a comparison of position ``(h, k)``'s times with a unit's completion."""
        return self.drift[h][k] + self.top + self.data

    def guard(self) -> float:
        """A hair of a step: ties at ``x + TIME_TOL`` go both ways (its binary64 rounding)."""
        return 1e-6 + self.rounding

    def up(self, drift: float) -> int:
        """Steps ``s``: ``a <= b + TIME_TOL`` for real times admits ``a <= b + s`` on the grid."""
        return math.floor(self.tol + drift + self.guard())

    def up2(self, drift: float) -> int:
        """Steps for ``a <= b + 2 TIME_TOL`` (an idle span the rule ignores)."""
        return math.floor(2 * self.tol + drift + self.guard())

    def down(self, drift: float) -> int:
        """Steps ``s``: ``a > b + TIME_TOL`` for real times admits ``a >= b + s + 1``."""
        return math.floor(self.tol - drift - self.guard())

    def before(self, drift: float) -> int:
        """Steps ``s``: ``a < b - TIME_TOL`` for real times admits ``a <= b + s`` on the grid."""
        return math.ceil(drift + self.guard() - self.tol) - 1


@dataclass(frozen=True)
class Offline:
    """The offline problem on the grid (module docstring)."""

    instance: Instance
    scaling: Scaling
    arrival: tuple[int, ...]
    horizon: int
    hosts: tuple[HostData, ...]
    margins: Margins
    #: Units whose one run may last under ``2 TIME_TOL`` (the idle rule may exempt them).
    brief: tuple[bool, ...]

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
        hosts.append(HostData(spans, draws[h][0], draws[h][1], duration,
                              tuple((float(a), float(b)) for a, b in windows[h])))
    data = [v for spans in windows for span in spans for v in span if math.isfinite(v)]
    data += [float(a) for a in instance.arrival]
    margins = _margins(factor, data, real, hosts, (horizon + longest + 1) / factor)
    brief = tuple(bool(instance.noi[u] / instance.cpu.max() <= 2 * TIME_TOL)
                  for u in range(n))
    return Offline(instance, scaling, tuple(grid(a) for a in instance.arrival), horizon,
                   tuple(hosts), margins, brief)


def _off_grid(value: float, factor: int, rounded: int) -> float:
    """``|rounded - factor x value|`` exactly (grid steps)."""
    return float(abs(Fraction(rounded) - Fraction(value) * factor))


def _margins(factor: int, data: list[float], real: list[np.ndarray], hosts: list[HostData],
             latest: float) -> Margins:
    """The :class:`Margins` of a prepared problem (``latest``: no real time exceeds it)."""
    off = max((_off_grid(v, factor, int(round(v * factor))) for v in data), default=0.0)

    def twos(v: float) -> int:  # v is a multiple of 2^-twos(v)
        return Fraction(v).denominator.bit_length() - 1

    # Binary64 adds numbers exactly when all are multiples of 2^-j with every sum below
    # 2^53 x 2^-j; otherwise each real time is off by at most a rounding per task.
    dyadic = max((twos(v) for v in data), default=0)
    drift, worst = [], 0.0
    for table, host in zip(real, hosts, strict=True):
        total, j, row = 0.0, dyadic, []
        for k, durations in enumerate(table):
            total += max((_off_grid(float(d), factor, g) for d, g in
                          zip(durations, host.duration[k], strict=True)), default=0.0)
            j = max(j, max((twos(float(d)) for d in durations), default=0))
            rounding = 0.0 if latest * 2.0**j < 2.0**52 else (
                factor * 4 * _U * (k + 2) * max(latest, 1.0))
            worst = max(worst, rounding)
            row.append(total + rounding)
        drift.append(tuple(row))
    return Margins(float(EXACT_TOL * factor), off, tuple(drift), worst)


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
    """The schedule (with its event log) that a plan realises, in real times.

    The plan's choices (each position's unit, and its window: the one its
    grid start lies in) are timed as the checker times them
    (:mod:`hybridsched.pull.timeline`, binary64): each task starts at its
    ready time (the latest of its window's start, its unit's arrival and the
    host's previous real end; the next window when its host is still busy
    ``TIME_TOL`` before the window ends), runs ``noi / cpu x delay``, and is lost when its window
    ends before that (plus ``TIME_TOL``). The run ends at the last unit's first
    correct result; tasks starting at or after it are dropped, those running
    then are cancelled. A plan that the real times do not bear out gives a
    schedule the checker refuses, or a worse one: never a claimed optimum.
    """
    instance = offline.instance
    rows = []  # host, unit, start, end (real), delay, outcome
    previous_host, previous_end = -1, -math.inf
    for task in sorted(plan, key=lambda t: (t.host, t.position)):
        host = offline.hosts[task.host]
        if task.host != previous_host:
            previous_host, previous_end = task.host, -math.inf
        grid_w = max((w for w, span in enumerate(host.windows) if span[0] <= task.start),
                     default=0)
        w = min(grid_w, len(host.spans) - 1)
        arrival = float(instance.arrival[task.unit])
        ready = max(host.spans[w][0], arrival, previous_end)
        while ready >= host.spans[w][1] - TIME_TOL and w + 1 < len(host.spans):
            w += 1
            ready = max(host.spans[w][0], arrival, previous_end)
        delay = float(host.delay[task.position])
        natural = ready + float(instance.noi[task.unit] / instance.cpu[task.host] * delay)
        stop = host.spans[w][1]
        lost = math.isfinite(stop) and natural > stop + TIME_TOL
        end = stop if lost else natural
        outcome = LOST if lost else int(host.outcome[task.position])
        rows.append([task.host, task.unit, ready, end, delay, outcome, natural])
        previous_end = end
    done = [min((r[3] for r in rows if r[1] == u and r[5] == CORRECT), default=math.inf)
            for u in range(instance.n_units)]
    finish = max(done, default=0.0)
    records = []
    for h, u, start, end, delay, outcome, _natural in rows:
        if start >= finish and instance.n_units:
            continue
        if end > finish:
            end, outcome = finish, CANCELLED
        records.append((u, h, start, end, delay, outcome))
    return from_records(records, _log(instance, records, finish))


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
