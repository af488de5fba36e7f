"""The time-bucket relaxation of the ``malleable`` problem: a linear programme, as rows.

The strong bound (:mod:`hybridsched.models.malleable.bound`) solves it, and
:mod:`hybridsched.malleable.bound_check` rebuilds it here, from the instance
alone and in exact arithmetic, to check a dual vector by weak duality. One
builder serves both (``exact`` picks :class:`~fractions.Fraction` or float
coefficients), so the solver never sees a row the checker would not.

Grid
----
Minutes ``[0, H)`` cut into buckets (:class:`Grid`: ``L`` minutes up to the
last deadline, then growing); bucket ``b`` is ``[T_b, T_{b+1})``. A job *ends in* bucket ``b``
when its last working minute ``E - 1`` lies in it; a job ending after ``H``
takes the *tail*.

Columns (all ``>= 0``)
----------------------
``x[j,i,b]``
    job ``j`` runs on resource ``i`` and ends in bucket ``b`` (only buckets
    with ``T_{b+1} >= a_j + d_min(j, i)``, ``d_min`` the fewest minutes on all
    of ``i``'s processors); cost: the delay and arrival-to-end of the earliest
    end ``max(T_b + 1, a_j + d_min)``.
``tail[j]``
    ``j`` ends after ``H``: delay ``>= H + 1 - d_j``, time ``>= H + 1 - a_j``.
``z[j,i,b]``
    ``j`` runs on ``i`` and is still running in bucket ``b``:
    ``z_b = x_b + z_{b+1}`` (so ``z`` of ``j``'s first bucket is ``sum_b x``).
``y[j,i,b]``
    processor-minutes of ``j`` on ``i`` in ``b``, at most
    ``P_i * len(b from a_j) * z_b``; cost ``price`` on an allocated cluster.
``r[j,i,b]``
    work of ``j`` in ``b`` (only for a serial fraction ``f > 0``; with ``f = 0``
    the work is ``performance * y``): below the speed-up *chords*
    ``c_k * len * z_b + s_k * y``, the lines through ``(k, rate(k))`` and
    ``(k + 1, rate(k + 1))``, which lie above ``rate`` at every whole width
    (``rate`` is concave with ``rate(0) = 0``), for ``k`` in :func:`chord_points`.
``V[i,h]`` (cloud ``i``, clock hour ``h``)
    VMs billed in hour ``h``, split as ``Vs <= spot_vms`` at ``price`` and
    ``Vo`` at ``on_demand_price`` (one column at the lower price when
    on-demand is cheaper); a bucket's processor-minutes on the cloud are at
    most ``cpus`` times the VM-minutes billed over it.
``o[j,i]``
    ``j``'s overspend if it runs on ``i``: at least its share there minus its
    budget times ``z`` of its first bucket (a cloud share is at least
    ``price / (60 cpus)`` per processor-minute). One per resource, so that
    splitting a job between a free and a paid resource does not hide it.

Every schedule the checker accepts gives a point of this LP (its own widths,
ends and billed VMs; a tail job's columns left at 0) whose cost is at most
the schedule's objective, so any dual vector's weak-duality bound is a bound
of the real problem. The required work is ``size * (1 - NEED_SLACK)``: the
checker accepts a float sum of rates reaching ``size * (1 - 1e-9)``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from hybridsched.bound_proof import Row
from hybridsched.malleable.billing import HOUR
from hybridsched.malleable.bounds import fewest_minutes, usable, weights
from hybridsched.malleable.instance import Instance, ResourceType
from hybridsched.malleable.speedup import rate

#: Growth of the buckets after the fine part of a grid: a bucket lasts 1/GROWTH of the time
#: since its end (so buckets grow by about 1 + 1/GROWTH each).
GROWTH = 4
#: Most buckets of the fine part of a grid (a proof naming more is refused, not listed).
MAX_BUCKETS = 1_000_000
#: Relative slack on the work a job needs: the checker's own 1e-9 plus its float sums.
NEED_SLACK = Fraction(3, 10**9)

Number = float | Fraction


@dataclass(frozen=True)
class Grid:
    """Minutes ``[0, horizon)`` in buckets: ``bucket`` minutes up to ``fine_until``, then growing.

    After ``fine_until`` a bucket starting at ``t`` lasts
    ``max(bucket, (t - fine_until) // GROWTH)`` minutes, so a schedule's late
    ends, whose delay is already large, cost few buckets.
    """

    horizon: int
    bucket: int
    fine_until: int | None = None

    def __post_init__(self) -> None:
        if self.horizon < 1 or self.bucket < 1:
            raise ValueError(f"grid: horizon and bucket must be >= 1, got {self.horizon}, "
                             f"{self.bucket}")
        fine = self.horizon if self.fine_until is None else max(0, self.fine_until)
        if -(-min(fine, self.horizon) // self.bucket) > MAX_BUCKETS:
            raise ValueError(f"grid: more than {MAX_BUCKETS:,} buckets before minute {fine}")
        cuts = [0]
        while cuts[-1] < self.horizon:
            t = cuts[-1]
            length = self.bucket if t < fine else max(self.bucket, (t - fine) // GROWTH)
            cuts.append(min(t + length, self.horizon))
        object.__setattr__(self, "_cuts", tuple(cuts))

    @property
    def cuts(self) -> tuple[int, ...]:
        """Bucket boundaries ``T_0 = 0 < T_1 < ... < T_B = horizon``."""
        return self._cuts  # type: ignore[attr-defined, no-any-return]

    @property
    def n_buckets(self) -> int:
        """Number of buckets."""
        return len(self.cuts) - 1

    def start(self, b: int) -> int:
        """First minute of bucket ``b`` (``T_b``)."""
        return self.cuts[b]

    def stop(self, b: int) -> int:
        """One past the last minute of bucket ``b`` (``T_{b+1}``)."""
        return self.cuts[b + 1]

    def bucket_of(self, minute: int) -> int:
        """The bucket holding ``minute`` (``n_buckets`` past the horizon)."""
        return bisect.bisect_right(self.cuts, minute) - 1


@dataclass
class LinearProgram:
    """``min costs x`` over ``rows`` and ``lower <= x <= upper`` (``None``: unbounded)."""

    costs: list[Number] = field(default_factory=list)
    lower: list[Number] = field(default_factory=list)
    upper: list[Number | None] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    row_keys: list[str] = field(default_factory=list)

    def column(self, name: str, cost: Number, upper: Number | None) -> int:
        """Add a column ``>= 0``; its index."""
        self.names.append(name)
        self.costs.append(cost)
        self.lower.append(0)
        self.upper.append(upper)
        return len(self.costs) - 1

    def row(self, key: str, coefficients: dict[int, Number], sense: str, rhs: Number) -> None:
        """Add a row named ``key`` (the name a proof's dual is filed under)."""
        self.rows.append(Row(coefficients, sense, rhs))
        self.row_keys.append(key)

    @property
    def nonzeros(self) -> int:
        """Number of row coefficients."""
        return sum(len(row.coefficients) for row in self.rows)


def chord_points(processors: int) -> list[int]:
    """Left ends ``k`` of the chords used: 0, ``2^m - 1`` and ``P - 1`` (``k + 1 <= P``)."""
    points = {0, processors - 1}
    m = 1
    while (1 << m) - 1 < processors - 1:
        points.add((1 << m) - 1)
        m += 1
    return sorted(k for k in points if 0 <= k < processors)


def exact_rate(width: int, performance: Fraction, fraction: Fraction) -> Fraction:
    """``rate(width)`` of :mod:`~hybridsched.malleable.speedup` in exact arithmetic."""
    if width == 0:
        return Fraction(0)
    return performance / (fraction + (1 - fraction) / width)


def estimate_size(instance: Instance, grid: Grid) -> tuple[int, int]:
    """Columns and nonzeros of :func:`build` on ``grid``, from the sizes alone (an upper bound)."""
    buckets = grid.n_buckets
    columns = nonzeros = 0
    for r in instance.resources:
        if not usable(r):
            continue
        chords = len(chord_points(r.processors))
        serial = int((instance.serial_fraction > 0).sum())
        per_job = 4 * buckets
        columns += instance.n_jobs * per_job + serial * buckets
        nonzeros += instance.n_jobs * 9 * buckets + serial * buckets * (3 * chords + 2)
        if r.is_cloud:
            columns += 2 * (grid.horizon // HOUR + 2)
            nonzeros += 3 * buckets
    columns += 2 * instance.n_jobs
    return columns, nonzeros


def build(instance: Instance, objective: str, grid: Grid, exact: bool = False
          ) -> LinearProgram:
    """The relaxation of the module docstring for ``objective`` on ``grid``.

    ``exact``: coefficients as :class:`~fractions.Fraction` (the checker's
    path), else floats (the solver's).
    """
    w_cost, w_delay, w_over, w_time = weights(objective)
    num: Callable[[float | int | Fraction], Number] = (
        (lambda v: Fraction(v)) if exact else (lambda v: float(v)))
    lp = LinearProgram()
    horizon, n_buckets = grid.horizon, grid.n_buckets
    hours = (horizon - 1) // HOUR + 1
    # Cloud columns first: the rows of every job on a cloud refer to them.
    billed: dict[int, list[list[int]]] = {}
    for i, r in enumerate(instance.resources):
        if not (r.is_cloud and usable(r)):
            continue
        per_hour = []
        for h in range(hours):
            low = min(r.price, r.on_demand_price)
            if r.on_demand_price >= r.price and r.spot_vms < r.max_vms:
                cols = [lp.column(f"Vs:{i}:{h}", num(w_cost * r.price), r.spot_vms),
                        lp.column(f"Vo:{i}:{h}", num(w_cost * r.on_demand_price),
                                  r.max_vms - r.spot_vms)]
            else:
                cols = [lp.column(f"V:{i}:{h}", num(w_cost * low), r.max_vms)]
            per_hour.append(cols)
        billed[i] = per_hour
    on_resource: dict[tuple[int, int], list[int]] = {}  # (i, b) -> y columns
    # (job, resource) -> (its z of the first bucket, {y column: share per processor-minute})
    share_terms: dict[tuple[int, int], tuple[int, dict[int, Number]]] = {}
    for j in range(instance.n_jobs):
        arrival, deadline = int(instance.arrival[j]), int(instance.deadline[j])
        size, fraction = float(instance.size[j]), float(instance.serial_fraction[j])
        need = Fraction(size) * (1 - NEED_SLACK)
        assign: dict[int, Number] = {}
        tail_end = horizon + 1
        assign[lp.column(f"tail:{j}", num(w_delay * max(0, tail_end - deadline)
                                          + w_time * (tail_end - arrival)), 1)] = num(1)
        first = min(grid.bucket_of(arrival), n_buckets)
        for i, r in enumerate(instance.resources):
            if not usable(r) or first >= n_buckets:
                continue
            processors = r.processors
            d_min = fewest_minutes(size, float(rate(processors, r.performance, fraction)))
            earliest = arrival + d_min
            perf, frac = Fraction(r.performance), Fraction(fraction)
            chords = []
            if fraction > 0:
                for k in chord_points(processors):
                    low_rate = exact_rate(k, perf, frac)
                    slope = exact_rate(k + 1, perf, frac) - low_rate
                    chords.append((k, low_rate - k * slope, slope))
            if r.type is ResourceType.ALLOCATED:
                price, share = r.price, Fraction(r.price)
            elif r.is_cloud:
                price, share = 0.0, Fraction(r.price) / (HOUR * r.cpus)
            else:
                price, share = 0.0, Fraction(0)
            z_cols: list[int] = []
            x_cols: list[int | None] = []
            work: dict[int, Number] = {}
            for b in range(first, n_buckets):
                stop = grid.stop(b)
                z_cols.append(lp.column(f"z:{j}:{i}:{b}", 0, 1))
                if stop >= earliest:
                    end = max(grid.start(b) + 1, earliest)
                    cost = w_delay * max(0, end - deadline) + w_time * (end - arrival)
                    x = lp.column(f"x:{j}:{i}:{b}", num(cost), 1)
                    assign[x] = num(1)
                    x_cols.append(x)
                else:
                    x_cols.append(None)
                length = stop - max(grid.start(b), arrival)
                y = lp.column(f"y:{j}:{i}:{b}", num(w_cost * price), processors * length)
                on_resource.setdefault((i, b), []).append(y)
                z = z_cols[-1]
                # Width: no more processors than the resource has, and only while running.
                lp.row(f"width:{j}:{i}:{b}", {z: num(processors * length), y: num(-1)},
                       ">=", 0)
                if share:
                    share_terms.setdefault((j, i), (z_cols[0], {}))[1][y] = (
                        share if exact else float(share))
                if chords:
                    w = lp.column(f"r:{j}:{i}:{b}", 0,
                                  num(r.performance * processors * length))
                    work[w] = num(1)
                    for k, intercept, slope in chords:
                        lp.row(f"chord:{j}:{i}:{b}:{k}",
                               {z: intercept * length if exact else float(intercept * length),
                                y: slope if exact else float(slope), w: num(-1)}, ">=", 0)
                else:
                    work[y] = num(r.performance)
            # z_b = x_b + z_{b+1}: running in b means ending in b or running after it.
            for k, z in enumerate(z_cols):
                coefficients: dict[int, Number] = {z: num(1)}
                if x_cols[k] is not None:
                    coefficients[x_cols[k]] = num(-1)
                if k + 1 < len(z_cols):
                    coefficients[z_cols[k + 1]] = num(-1)
                lp.row(f"chain:{j}:{i}:{first + k}", coefficients, "==", 0)
            # Work: all of it, if the job runs here (z of the first bucket).
            work[z_cols[0]] = -need if exact else -float(need)
            lp.row(f"work:{j}:{i}", work, ">=", 0)
        lp.row(f"assign:{j}", assign, "==", 1)
    for i, r in enumerate(instance.resources):
        if not usable(r):
            continue
        for b in range(n_buckets):
            ys = on_resource.get((i, b), [])
            if not ys:
                continue
            length = grid.stop(b) - grid.start(b)
            if r.is_cloud:
                coefficients = {y: num(-1) for y in ys}
                for h in range(grid.start(b) // HOUR, (grid.stop(b) - 1) // HOUR + 1):
                    overlap = min(grid.stop(b), (h + 1) * HOUR) - max(grid.start(b), h * HOUR)
                    for v in billed[i][h]:
                        coefficients[v] = num(r.cpus * overlap)
                lp.row(f"cloud:{i}:{b}", coefficients, ">=", 0)
            else:
                lp.row(f"cap:{i}:{b}", {y: num(-1) for y in ys}, ">=",
                       num(-r.processors * length))
    if w_over:
        for (j, i), (run, terms) in share_terms.items():
            # Per resource (the job runs on one): overspend >= share - budget * (runs here).
            o = lp.column(f"o:{j}:{i}", num(w_over), None)
            coefficients = {y: -c for y, c in terms.items()}
            coefficients[o] = num(1)
            coefficients[run] = num(float(instance.budget[j]))
            lp.row(f"over:{j}:{i}", coefficients, ">=", 0)
    return lp


def default_grid(instance: Instance, objective: str, upper: float, max_columns: int
                 ) -> Grid | None:
    """A grid whose tail costs at least ``upper`` and whose size stays under ``max_columns``.

    The horizon ``H`` makes a job ending after it at least as costly as the
    schedule of value ``upper`` (``w_delay (H + 1 - max deadline) >= upper``,
    or ``H + 1 - max arrival >= upper`` for ``total_time``); for ``cost``,
    where lateness is free, a horizon past every deadline and every job's
    sequential run. The bucket is the least length (a divisor or multiple of
    an hour) that keeps the columns under ``max_columns``, all of the grid in
    such buckets if it fits, else growing after the last deadline; ``None``
    when no grid fits.
    """
    _, w_delay, _, w_time = weights(objective)
    if instance.n_jobs == 0:
        return Grid(1, 1)
    last_arrival = int(instance.arrival.max())
    if w_delay:
        horizon = int(instance.deadline.max()) + math.ceil(upper / w_delay)
    elif w_time:
        horizon = last_arrival + math.ceil(upper)
    else:
        horizon = int(instance.deadline.max()) + 1
    horizon = max(horizon, last_arrival + 1, 1)
    fine = min(int(instance.deadline.max()) + 1, horizon)
    # A bucket's columns, to rule out a grid before its cuts are listed (a horizon of 10^7
    # minutes in one-minute buckets would take gigabytes just to list).
    per_bucket = 4 * instance.n_jobs * sum(1 for r in instance.resources if usable(r))
    for bucket in (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60, 120, 240, 480, 960, 1440):
        for limit in (horizon, fine):
            if -(-limit // bucket) * per_bucket > max_columns:
                continue
            grid = Grid(horizon, bucket, limit)
            if estimate_size(instance, grid)[0] <= max_columns:
                return grid
    return None
