"""The window LP of a ``pull`` instance: can every unit have a correct result by ``T``.

A relaxation of every schedule the checker accepts (:mod:`.checker`) whose
run ends by ``T`` (absolute time). Count, for each unit, only its *first
correct result* (the task that completes it): it ran to its end inside one
availability window of its host, started no earlier than its unit's arrival
and ended by ``T``. Units are grouped into classes (:func:`unit_classes`:
each class's size and arrival are the smallest of its members', so a class
understates every member), hosts with the same speed and windows into host
classes (``m`` hosts), and ``x[g, c]`` counts the units of class ``c``
completed in window ``g`` (one window of a host class, all ``m`` hosts):

- **cover** ``c``: ``sum_g x[g, c] + s[c] >= n[c]`` (``s``: units left
  without a result; the LP minimises ``sum s``);
- **capacity** ``g``: ``sum_c dur[c] x[g, c] <= m x cap[g]``, where
  ``dur = noi / cpu`` (delay factors are at least 1) and ``cap`` is the
  window's span within ``[t0, T]`` (``t0``: the first arrival), plus the
  checker's ``TIME_TOL`` (a task may end that late) and binary64's rounding
  of a chain of real times (:data:`ROUNDING_SLACK` x ``T``: the tasks of a
  window run back to back, and each real time lies within ``k x 2^-53`` of
  the exact sum after ``k`` tasks);
- ``x[g, c]`` exists only when a class-``c`` unit fits in the window after
  its arrival, and is at most ``m x floor(room / dur)`` (that many fit);
- **waste** per host class: a host's ``k``-th task takes draw ``k``
  (:mod:`.behaviour`) whatever unit it runs, so completing ``N`` units on a
  host means running every draw before its ``N``-th correct one. Each of
  them ran to its end (at least ``noi_min / cpu x delay``), was lost (at
  most one per window, the window's end cutting it) or completed a unit
  (``noi / cpu x delay >= dur + noi_min / cpu x (delay - 1)``). So the
  host's busy time in its windows is at least ``sum dur x + mu
  (phi(N) - L x dmax)``, with ``mu = noi_min / cpu``, ``phi(N)`` the sum of
  the delays of the draws up to the ``N``-th correct one less ``N``, ``L``
  the windows and ``dmax`` the largest delay. ``phi(N) >= a N + b`` (``b``
  the least of ``phi(N) - a N`` over the ``N`` the host can reach by ``T``)
  makes it one linear row per host class: ``sum (dur + mu a) x <= m sum cap
  + mu (L sum dmax - sum b)``.

If the LP's minimum is positive, no accepted schedule ends by ``T``: the
makespan exceeds ``T`` minus the first schedule. The same structure
(:func:`structure`, deterministic binary64 comparisons widened so that every
column a schedule could use is in it) serves the solver (float
coefficients, :func:`float_rows`) and the exact check (:func:`exact_rows`),
which rebuilds every coefficient from the instance with fractions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from hybridsched.bound_proof import Row
from hybridsched.pull.behaviour import replay
from hybridsched.pull.instance import Instance
from hybridsched.pull.solution import CORRECT
from hybridsched.pull.timeline import TIME_TOL

#: Default ratio of the unit classes' size grid (a class's size is within it of its members').
RHO = 0.005
#: At most this many arrival groups (more distinct arrivals are grouped by rank).
ARRIVAL_GROUPS = 32
#: Relative slack for binary64's rounding of a window's chain of real times (see docstring:
#: ``3 x 2^-53`` per task, for up to ~3 x 10^6 tasks).
ROUNDING_SLACK = Fraction(1, 10**9)
#: The absolute tolerance as the exact decimal the checker states.
EXACT_TOL = Fraction(1, 10**6)
#: Widening of the float fit test, so that it keeps every column the exact test keeps.
FIT_RTOL = 1e-9
#: Most draws replayed per host for its waste row (beyond: no waste row for its class).
MAX_DRAWS = 100_000


@dataclass(frozen=True)
class UnitClasses:
    """Unit classes: each class's smallest size and arrival, and how many units it has."""

    noi: np.ndarray
    arrival: np.ndarray
    count: np.ndarray


@dataclass(frozen=True)
class Structure:
    """The LP at one ``end``: which rows and columns exist (numbers: :func:`float_rows`).

    ``windows`` rows: ``(host class, window index)``; ``columns``: ``(window row, unit
    class)``; ``waste``: per host class, ``None`` (no row) or its hosts' draws summary.
    """

    instance: Instance
    end: float
    rho: float
    classes: UnitClasses
    host_classes: tuple[tuple[int, ...], ...]
    windows: tuple[tuple[int, int], ...]
    columns: np.ndarray  # shape (k, 2): window row, class
    waste: tuple[bool, ...]

    def window_key(self, row: int) -> str:
        """The proof's key of a capacity row: ``"<first host>:<window index>"``."""
        k, w = self.windows[row]
        return f"{self.host_classes[k][0]}:{w}"

    def class_key(self, k: int) -> str:
        """The proof's key of a host class's waste row: its first host."""
        return str(self.host_classes[k][0])


def unit_classes(instance: Instance, rho: float = RHO) -> UnitClasses:
    """Units grouped by arrival group and size bucket (a geometric grid of ratio ``1 + rho``).

    Deterministic binary64 comparisons only, so the check recomputes the
    same classes; each class keeps its members' smallest size and arrival.
    """
    noi, arrival = instance.noi, instance.arrival
    if rho > 0:
        grid = [float(noi.min())]
        top = float(noi.max())
        while grid[-1] <= top:
            grid.append(grid[-1] * (1.0 + rho))
        bucket = np.searchsorted(np.array(grid), noi, side="right") - 1
    else:
        bucket = np.unique(noi, return_inverse=True)[1]
    times = np.unique(arrival)
    edges = times if len(times) <= ARRIVAL_GROUPS else times[
        np.linspace(0, len(times) - 1, ARRIVAL_GROUPS).astype(np.int64)]
    group = np.searchsorted(edges, arrival, side="right") - 1
    keys, inverse = np.unique(np.stack((group, bucket)), axis=1, return_inverse=True)
    k = keys.shape[1]
    rep_noi = np.full(k, np.inf)
    rep_arrival = np.full(k, np.inf)
    np.minimum.at(rep_noi, inverse, noi)
    np.minimum.at(rep_arrival, inverse, arrival)
    return UnitClasses(rep_noi, rep_arrival, np.bincount(inverse, minlength=k))


def host_classes(instance: Instance) -> tuple[tuple[int, ...], ...]:
    """Hosts with the same speed and windows, in the order of their first host."""
    groups: dict[tuple, list[int]] = {}
    for h in range(instance.n_hosts):
        groups.setdefault((float(instance.cpu[h]), instance.windows[h]), []).append(h)
    return tuple(tuple(g) for g in groups.values())


def _slack(end: float) -> float:
    return TIME_TOL + float(ROUNDING_SLACK) * max(1.0, abs(end))


def _exact_slack(end: float) -> Fraction:
    return EXACT_TOL + ROUNDING_SLACK * max(Fraction(1), abs(Fraction(end)))


def structure(instance: Instance, end: float, rho: float = RHO) -> Structure:
    """Rows and columns of the window LP for runs ending by ``end`` (absolute time)."""
    classes = unit_classes(instance, rho)
    hosts = host_classes(instance)
    t0 = float(instance.arrival.min())
    slack = _slack(end)
    windows, columns, waste = [], [], []
    for k, members in enumerate(hosts):
        h = members[0]
        cpu = float(instance.cpu[h])
        dur = classes.noi / cpu
        used = False
        for w, (a, b) in enumerate(instance.windows[h]):
            stop = min(b, end)
            if not (a <= end and b > t0 and stop - max(a, t0) + slack > 0):
                continue
            room = stop - np.maximum(a, classes.arrival) + slack
            fit = np.flatnonzero(dur <= room * (1 + FIT_RTOL) + FIT_RTOL)
            if fit.size:
                columns.append(np.stack((np.full(fit.size, len(windows)), fit), axis=1))
                windows.append((k, w))
                used = True
        waste.append(used and _draws_needed(instance, h, end) <= MAX_DRAWS)
    cols = np.concatenate(columns) if columns else np.zeros((0, 2), dtype=np.int64)
    return Structure(instance, end, rho, classes, hosts, tuple(windows), cols, tuple(waste))


def _intersecting(instance: Instance, h: int, end: float) -> list[tuple[float, float]]:
    """Host ``h``'s windows that meet ``(t0, end]``."""
    t0 = float(instance.arrival.min())
    return [(a, b) for a, b in instance.windows[h] if a <= end and b > t0]


def _draws_needed(instance: Instance, h: int, end: float) -> int:
    """More draws than host ``h`` can start by ``end`` (module docstring, waste)."""
    t0 = float(instance.arrival.min())
    spans = _intersecting(instance, h, end)
    busy = sum(min(b, end) - max(a, t0) + _slack(end) for a, b in spans)
    shortest = float(instance.noi.min()) / float(instance.cpu[h])
    count = max(busy, 0.0) / shortest * (1 + FIT_RTOL) if shortest > 0 else math.inf
    if not count <= MAX_DRAWS:  # too many (or inf): no waste row (:func:`structure`)
        return MAX_DRAWS + 1
    return int(math.ceil(count)) + len(spans) + 1


def waste_terms(instance: Instance, h: int, end: float, slope: Fraction | None
                ) -> tuple[Fraction, Fraction, Fraction]:
    """``(a, b, dmax)`` of host ``h``'s waste cut (module docstring), exactly.

    ``slope``: ``a`` (``None``: the host's mean slope ``phi(C) / C``).
    """
    count = _draws_needed(instance, h, end)
    delay, outcome = replay(instance, h, count)
    dmax = max(Fraction(1), max((Fraction(float(d)) for d in delay), default=Fraction(1)))
    phi, total, n, values = Fraction(0), Fraction(0), 0, [(0, Fraction(0))]
    for d, o in zip(delay.tolist(), outcome.tolist(), strict=True):
        total += Fraction(d)
        if o == CORRECT:
            n += 1
            phi = total - n
            values.append((n, phi))
    a = slope if slope is not None else (phi / n if n else Fraction(0))
    b = min(v - a * m for m, v in values)
    return a, b, dmax


def _float_phi(instance: Instance, h: int, end: float) -> tuple[np.ndarray, float]:
    """``phi(N)`` for ``N = 0..C`` and ``dmax`` of host ``h`` in binary64 (the solver's side)."""
    delay, outcome = replay(instance, h, _draws_needed(instance, h, end))
    total = np.cumsum(delay)[outcome == CORRECT]
    phi = np.concatenate(([0.0], total - np.arange(1, total.size + 1)))
    return phi, max(1.0, float(delay.max(initial=1.0)))


@dataclass(frozen=True)
class FloatLP:
    """The LP in ``A x <= b`` form for a solver (columns: ``s`` then ``x``)."""

    cost: np.ndarray
    upper: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    rhs: np.ndarray
    n_cover: int
    n_capacity: int
    waste_rows: tuple[int, ...]  # host class of each waste row
    slopes: tuple[float, ...]


def float_rows(s: Structure) -> FloatLP:
    """The LP's float coefficients, every row as ``<=`` (cover rows negated)."""
    inst, cl = s.instance, s.classes
    n_c, n_x = len(cl.count), len(s.columns)
    t0 = float(inst.arrival.min())
    slack = _slack(s.end)
    if not n_x:  # no unit fits anywhere by ``end``: only the cover rows
        return FloatLP(np.ones(n_c), cl.count.astype(float), np.arange(n_c), np.arange(n_c),
                       -np.ones(n_c), -cl.count.astype(float), n_c, 0, (), ())
    win, cls = s.columns[:, 0], s.columns[:, 1]
    hclass = np.array([k for k, _ in s.windows], dtype=np.int64)[win]
    first = np.array([s.host_classes[k][0] for k in range(len(s.host_classes))])
    cpu = inst.cpu[first]
    mult = np.array([len(m) for m in s.host_classes], dtype=float)
    dur = cl.noi[cls] / cpu[hclass]
    spans = [inst.windows[s.host_classes[k][0]][w] for k, w in s.windows]
    starts = np.array([a for a, _ in spans]).reshape(-1)
    stops = np.minimum(np.array([b for _, b in spans]).reshape(-1), s.end)
    cap = stops - np.maximum(starts, t0) + slack
    room = stops[win] - np.maximum(starts[win], cl.arrival[cls]) + slack
    upper_x = np.minimum(cl.count[cls], mult[hclass] * np.floor(room / dur))
    rows = [np.arange(n_c), cls, n_c + win]
    cols = [np.arange(n_c), n_c + np.arange(n_x), n_c + np.arange(n_x)]
    values = [-np.ones(n_c), -np.ones(n_x), dur]
    rhs = [-cl.count.astype(float), mult[[k for k, _ in s.windows]] * cap]
    waste_rows, slopes, next_row = [], [], n_c + len(s.windows)
    for k, on in enumerate(s.waste):
        if not on:
            continue
        h_cpu = float(cpu[k])
        mu = float(inst.noi.min()) / h_cpu
        draws = [_float_phi(inst, h, s.end) for h in s.host_classes[k]]
        a = float(np.median([phi[-1] / max(len(phi) - 1, 1) for phi, _ in draws]))
        spans_k = _intersecting(inst, s.host_classes[k][0], s.end)
        total_cap = sum(min(b, s.end) - max(a0, t0) + slack for a0, b in spans_k)
        extra = mu * (len(spans_k) * sum(dmax for _, dmax in draws)
                      - sum(float(np.min(phi - a * np.arange(len(phi)))) for phi, _ in draws))
        mine = np.flatnonzero(hclass == k)
        rows.append(np.full(mine.size, next_row))
        cols.append(n_c + mine)
        values.append(dur[mine] + mu * a)
        rhs.append(np.array([mult[k] * total_cap + extra]))
        waste_rows.append(k)
        slopes.append(a)
        next_row += 1
    cost = np.concatenate((np.ones(n_c), np.zeros(n_x)))
    upper = np.concatenate((cl.count.astype(float), upper_x))
    return FloatLP(cost, upper, np.concatenate(rows), np.concatenate(cols),
                   np.concatenate(values), np.concatenate(rhs), n_c, len(s.windows),
                   tuple(waste_rows), tuple(slopes))


def exact_rows(s: Structure, slopes: dict[int, Fraction]
               ) -> tuple[list[Fraction], list[Fraction], list[Fraction], list[Row],
                          list[str]]:
    """The LP with exact coefficients: ``costs, lower, upper, rows, keys``.

    Rows in the order cover (``"cover:<class>"``), capacity (``"cap:<window
    key>"``), waste (``"waste:<class key>"``, for the host classes in
    ``slopes``: host class -> slope ``a``). Every number is rebuilt from the
    instance's data (fractions of its binary64 values).
    """
    inst, cl = s.instance, s.classes
    n_c, n_x = len(cl.count), len(s.columns)
    t0 = Fraction(float(inst.arrival.min()))
    end = Fraction(s.end)
    slack = _exact_slack(s.end)
    noi = [Fraction(float(v)) for v in cl.noi]
    arr = [Fraction(float(v)) for v in cl.arrival]
    cpu = [Fraction(float(inst.cpu[m[0]])) for m in s.host_classes]
    mult = [len(m) for m in s.host_classes]

    def stop_of(b: float) -> Fraction:
        return end if b >= s.end else Fraction(b)

    costs = [Fraction(1)] * n_c + [Fraction(0)] * n_x
    lower = [Fraction(0)] * (n_c + n_x)
    upper: list[Fraction] = [Fraction(int(c)) for c in cl.count]
    cover: list[dict[int, Fraction]] = [{c: Fraction(1)} for c in range(n_c)]
    capacity: list[dict[int, Fraction]] = [{} for _ in s.windows]
    per_class: dict[int, list[tuple[int, Fraction]]] = {}
    for j, (g, c) in enumerate(s.columns.tolist()):
        k, w = s.windows[g]
        a, b = inst.windows[s.host_classes[k][0]][w]
        d = noi[c] / cpu[k]
        room = stop_of(b) - max(Fraction(a), arr[c]) + slack
        fits = max(0, math.floor(room / d)) if room > 0 else 0
        upper.append(Fraction(min(int(cl.count[c]), mult[k] * fits)))
        cover[c][n_c + j] = Fraction(1)
        capacity[g][n_c + j] = d
        per_class.setdefault(k, []).append((n_c + j, d))
    rows = [Row(r, ">=", int(cl.count[c])) for c, r in enumerate(cover)]
    keys = [f"cover:{c}" for c in range(n_c)]
    for g, r in enumerate(capacity):
        k, w = s.windows[g]
        a, b = inst.windows[s.host_classes[k][0]][w]
        cap = stop_of(b) - max(Fraction(a), t0) + slack
        rows.append(Row(r, "<=", mult[k] * cap))
        keys.append(f"cap:{s.window_key(g)}")
    noi_min = Fraction(float(inst.noi.min()))
    for k, a in slopes.items():
        if not s.waste[k]:
            raise ValueError(f"host class {k} has no waste row")
        mu = noi_min / cpu[k]
        terms = [waste_terms(inst, h, s.end, a) for h in s.host_classes[k]]
        spans = _intersecting(inst, s.host_classes[k][0], s.end)
        total_cap = sum((stop_of(b) - max(Fraction(a0), t0) + slack for a0, b in spans),
                        Fraction(0))
        extra = mu * (len(spans) * sum(t[2] for t in terms) - sum(t[1] for t in terms))
        coefficients = {j: d + mu * a for j, d in per_class.get(k, [])}
        rows.append(Row(coefficients, "<=", mult[k] * total_cap + extra))
        keys.append(f"waste:{s.class_key(k)}")
    return costs, lower, upper, rows, keys
