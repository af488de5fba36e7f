"""Exact verification of bot-sites makespan bounds (:func:`verify_bound`): no solver involved.

A strong bound (:mod:`hybridsched.models.bot_sites.bound`) comes with a proof
that this module checks from the instance data alone, in exact rational
arithmetic (:class:`fractions.Fraction`, and integer dynamic programs):

``configuration``
    A Lagrangian (Farkas) certificate of the *configuration LP* (Gilmore and
    Gomory's cutting-stock LP, used for R||Cmax by e.g. Kim, Mallik and Moore
    and in the "configuration LP" of Bansal and Sviridenko): the tasks of a
    set ``S`` of BoTs are split into per-processor *configurations* (task
    counts ``a_k`` with ``sum_k a_k p_ki <= T``). If every schedule had
    makespan ``C <= t + q + T``, with ``t`` the smallest DAG *head* and ``q``
    the smallest *tail* in ``S`` (:func:`windows`), every task of ``S`` runs
    inside ``[t, C - q]``, so each processor's load of ``S`` is at most ``T``
    and, with hard limits, each site's bandwidth-time and storage-time of
    ``S`` at most ``limit * (1 + LIMIT_TOL) * T``. The configuration LP
    (columns: configurations; rows: BoT demands ``>= n_k``, processors per
    site ``<= m_i``, resource-time per site) would then be feasible. The
    proof gives multipliers ``u_k >= 0`` (BoT rows) and ``w_i, s_i >= 0``
    (bandwidth, storage rows); then

    ``L = sum_k u_k n_k - sum_i (m_i V_i + T (1 + LIMIT_TOL) (w_i B_i + s_i S_i))``

    with ``V_i`` the best configuration value on site ``i`` (item values
    ``u_k - w_i d_ki - s_i sr_k p_ki``) is ``<= 0`` for every feasible point,
    by weak duality. :func:`~.knapsack_bound.site_value` computes an *upper* bound on ``V_i``
    exactly (the smaller of a fractional knapsack and an integer dynamic
    program on weights rounded *down* to a grid of ``T / grid``, values
    rounded *up*), so ``L > 0`` proves ``C > t + q + T`` for every schedule.
    Any multipliers are safe: a wrong vector only proves less.
``critical_path``
    The longest DAG path, each BoT weighted by the time it needs even alone
    on the platform (:func:`alone_time`: its processors, and with hard
    limits the tasks its bandwidth and storage let run at once; at least the
    cheap bound's fastest task time), recomputed exactly; empty proof.
``fluid``
    Dual certificates of the fluid LP (:mod:`hybridsched.bot_sites.bounds`),
    LST-strengthened as there (Lenstra, Shmoys and Tardos 1990). Each entry of
    ``levels`` names a ``threshold`` ``tau`` (``None``: no restriction) and dual
    values keyed by row group: ``bots`` (``K`` values, rows
    ``sum_i y_ki = n_k``), ``sites`` (``M`` multipliers ``>= 0`` of the rows
    ``sum_k p_ki y_ki <= m_i C``) and, with hard limits, ``bandwidth`` /
    ``storage`` (``M`` multipliers ``>= 0`` of the resource-time rows
    ``sum_k use_ki y_ki <= limit_i (1 + LIMIT_TOL) (1 + RESOURCE_SLACK) C``;
    :func:`resource_rows`). The rows are rebuilt from the instance over the
    allowed pairs with ``p_ki <= tau`` (variables ``0 <= y_ki <= n_k``,
    ``C >= 0`` of cost 1) and the dual's bound ``L`` is computed exactly by
    :func:`hybridsched.bound_proof.weak_duality_bound` (any dual vector is
    safe: a wrong one proves less, or nothing). A schedule either runs some
    task on a pair with ``p_ki > tau`` (then ``C >= tau+``, the smallest such
    ``p``) or is a point of that LP (then ``C >= L``); an entry thus proves
    ``min(tau+, L)`` (``tau+`` alone when some BoT has no pair within
    ``tau``), and the proof the largest entry (:func:`fluid_proven`).
``min_cost``
    A bound on the *cost* objective (``--objective cost``): every task on a
    cheapest allowed site, exactly (:func:`min_cost`).

Float slack of the checker: real times are binary64 sums (one rounding per
block end), so a schedule's computed makespan may fall short of the exact
sum of its run times by a relative ``2^-53`` per block along a chain. The
proven value is lowered by :func:`shave` (``max(2e-10, 4e-16 (tasks + K))``
relative), which covers every chain the instance can have, then rounded
down to a float.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from hybridsched.bot_sites.checker import LIMIT_TOL
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.knapsack_bound import site_value
from hybridsched.bot_sites.limits import allowed_pairs
from hybridsched.bound_proof import (
    BoundCertificate,
    BoundProofError,
    Row,
    exact,
    floor_float,
    weak_duality_bound,
)

#: Relative slack in the time-averaged resource rows on top of ``LIMIT_TOL``: a run's
#: binary64 duration and its use ``d / p`` may each be off by an ulp or so.
RESOURCE_SLACK = Fraction(1, 10**12)

#: Largest grid accepted in a proof (the dynamic program's table has ``grid + 1`` cells).
MAX_GRID = 1 << 22

#: Claimed and recomputed values may differ by this much (relative) before a proof fails.
RTOL = Fraction(1, 10**9)


def shave(instance: Instance) -> Fraction:
    """Relative amount a proven value is lowered by for the checker's binary64 sums."""
    return max(Fraction(2, 10**10), Fraction(4, 10**16) * (instance.n_tasks + instance.n_bots))


def resource_rows(instance: Instance) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Hard resources as ``{name: (use_time[k, i], limit[i])}``: resource-time per task.

    Bandwidth: a task uses ``d_ki / p_ki`` for ``p_ki``, so ``d_ki`` per task;
    storage: ``sr_k`` for ``p_ki``. Empty without hard limits (the checker
    only reports them then).
    """
    if not instance.hard_limits:
        return {}
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if instance.data is not None and instance.site_bandwidth is not None:
        rate = instance.rate
        assert rate is not None
        out["bandwidth"] = (rate * instance.p, np.asarray(instance.site_bandwidth, float))
    if instance.storage is not None and instance.storage_limit is not None:
        use = np.asarray(instance.storage, float)[:, None] * instance.p
        out["storage"] = (use, np.asarray(instance.storage_limit, float))
    return out


def concurrency(instance: Instance) -> np.ndarray:
    """``(K, M)`` most tasks of BoT ``k`` that can run at once on site ``i`` (0: not allowed).

    The site's processors, and with hard limits the most copies of the
    task's bandwidth and storage use that fit the limit with the checker's
    tolerance (plus :data:`RESOURCE_SLACK`, so float rounding of the uses
    can only make the count larger, never wrongly smaller).
    """
    ok = allowed_pairs(instance)
    cap = np.where(ok, instance.procs[None, :], 0).astype(np.int64)
    widen = (1 + LIMIT_TOL_EXACT) * (1 + RESOURCE_SLACK)
    rate = instance.rate
    for k, i in zip(*np.nonzero(ok), strict=True):
        limits = []
        if instance.hard_limits and rate is not None and instance.site_bandwidth is not None \
                and rate[k, i] > 0:
            limits.append(exact(float(instance.site_bandwidth[i])) * widen
                          / exact(float(rate[k, i])))
        if instance.hard_limits and instance.storage is not None \
                and instance.storage_limit is not None and instance.storage[k] > 0:
            limits.append(exact(float(instance.storage_limit[i])) * widen
                          / exact(float(instance.storage[k])))
        for most in limits:
            cap[k, i] = min(cap[k, i], math.floor(most))
    return cap


def alone_time(instance: Instance, k: int, cap: np.ndarray | None = None) -> Fraction:
    """Exact lower bound on the time BoT ``k`` needs from its start, even alone on the platform.

    Within a span ``L`` at most ``c_i`` of its tasks run at once on site ``i``
    (:func:`concurrency`), so at most ``c_i floor(L / p_ki)`` complete there
    (colour the runs into ``c_i`` non-overlapping chains). The result is the
    smallest count breakpoint above the largest span found to be too short,
    which is at most the true minimum.
    """
    cap = concurrency(instance) if cap is None else cap
    sites = [i for i in range(instance.n_sites) if cap[k, i] > 0]
    if not sites:
        return Fraction(0)
    p = {i: exact(float(instance.p[k, i])) for i in sites}
    n = int(instance.tasks[k])
    if n <= sum(int(cap[k, i]) for i in sites if p[i] == min(p.values())):
        return min(p.values())              # one round on the fastest sites

    def count(span: Fraction) -> int:
        return sum(int(cap[k, i]) * math.floor(span / p[i]) for i in sites)

    # Bisect in floats (cheap), then make sure exactly that the span found is too short.
    caps = np.array([float(cap[k, i]) for i in sites])
    ps = np.array([float(p[i]) for i in sites])
    lo_f, hi_f = 0.0, float(n / float((caps / ps).sum()) + ps.max())
    for _ in range(100):
        mid = (lo_f + hi_f) / 2
        if not lo_f < mid < hi_f:
            break
        if float((caps * np.floor(mid / ps)).sum()) >= n:
            hi_f = mid
        else:
            lo_f = mid
    lo = Fraction(lo_f)
    while lo > 0 and count(lo) >= n:       # float slip: step down until exactly too short
        lo = max(Fraction(0), lo - max(lo * Fraction(1, 10**9), min(p.values())))
    return min((math.floor(lo / p[i]) + 1) * p[i] for i in sites)


def windows(instance: Instance) -> tuple[list[Fraction], list[Fraction], list[Fraction]]:
    """Exact DAG heads, tails and own time of each BoT.

    ``own[k]``: :func:`alone_time` (at least its fastest task); ``head[k]``:
    the longest predecessor path weighted by ``own`` (no task of ``k`` can
    start earlier: each predecessor starts after its own head and needs its
    own time); ``tail[k]``: the same over successors (``k`` must finish that
    long before the makespan).
    """
    cap = concurrency(instance)
    own = [alone_time(instance, k, cap) for k in range(instance.n_bots)]
    order = instance.topological_order()
    preds, succs = instance.predecessors, instance.successors
    head = [Fraction(0)] * instance.n_bots
    for k in order:
        head[k] = max((head[a] + own[a] for a in preds[k]), default=Fraction(0))
    tail = [Fraction(0)] * instance.n_bots
    for k in reversed(order):
        tail[k] = max((tail[s] + own[s] for s in succs[k]), default=Fraction(0))
    return head, tail, own


def critical_path(instance: Instance) -> Fraction:
    """Exact longest DAG path, each BoT weighted by :func:`alone_time` (>= its fastest task)."""
    if not instance.n_bots:
        return Fraction(0)
    head, tail, own = windows(instance)
    return max(head[k] + own[k] + tail[k] for k in range(instance.n_bots))


def configuration_excess(instance: Instance, proof: Mapping[str, Any]
                         ) -> tuple[Fraction, Fraction, Fraction]:
    """``(L, t, q)`` of a configuration certificate (module docstring), exactly.

    Raises
    ------
    BoundProofError
        When a field is missing or malformed, or a multiplier sits on a BoT
        outside the window the proof relies on.
    """
    K, M = instance.n_bots, instance.n_sites
    capacity = _number(proof, "capacity")
    if capacity <= 0:
        raise BoundProofError("configuration proof: capacity must be positive")
    grid = proof.get("grid")
    if isinstance(grid, bool) or not isinstance(grid, int) or not 1 <= grid <= MAX_GRID:
        raise BoundProofError(f"configuration proof: grid must be an integer in 1..{MAX_GRID}")
    u = [max(Fraction(0), x) for x in _vector(proof, "bots", K)]
    support = [k for k in range(K) if u[k] > 0]
    if not support:
        raise BoundProofError("configuration proof: every BoT multiplier is 0")
    if len(instance.edges):
        head, tail, _ = windows(instance)
        t = min(head[k] for k in support)
        q = min(tail[k] for k in support)
    else:
        t = q = Fraction(0)
    resources = resource_rows(instance)
    multipliers = {}
    for name in resources:
        given = proof.get(name)
        multipliers[name] = ([Fraction(0)] * M if given is None
                             else [max(Fraction(0), x) for x in _vector(proof, name, M)])
    ok = allowed_pairs(instance)
    widened = capacity * (1 + LIMIT_TOL_EXACT) * (1 + RESOURCE_SLACK)
    excess = sum((u[k] * int(instance.tasks[k]) for k in support), Fraction(0))
    for i in range(M):
        ps, vals, counts = [], [], []
        for k in support:
            if not ok[k, i]:
                continue
            value = u[k]
            for name, (use, _) in resources.items():
                if multipliers[name][i]:
                    value -= multipliers[name][i] * exact(float(use[k, i]))
            ps.append(exact(float(instance.p[k, i])))
            vals.append(value)
            counts.append(int(instance.tasks[k]))
        excess -= int(instance.procs[i]) * site_value(ps, vals, counts, capacity, grid)
        for name, (_, limit) in resources.items():
            if multipliers[name][i]:
                excess -= multipliers[name][i] * exact(float(limit[i])) * widened
    return excess, t, q


#: :data:`LIMIT_TOL` as an exact fraction of its float value.
LIMIT_TOL_EXACT = Fraction(LIMIT_TOL)


def proven(instance: Instance, proof: Mapping[str, Any]) -> Fraction:
    """The makespan bound ``proof`` proves, exactly, before :func:`shave`.

    Raises
    ------
    BoundProofError
        When the proof is malformed or proves nothing.
    """
    kind = proof.get("kind")
    if kind == "critical_path":
        return critical_path(instance)
    if kind == "configuration":
        excess, t, q = configuration_excess(instance, proof)
        if excess <= 0:
            raise BoundProofError(f"configuration proof: the multipliers leave {float(excess):.6g}"
                                  " <= 0, so capacity is not proven too small")
        return t + q + _number(proof, "capacity")
    if kind == "min_cost":
        return min_cost(instance)
    if kind == "fluid":
        return fluid_proven(instance, proof, Fraction(1))
    raise BoundProofError(f"unknown bot-sites bound proof kind {kind!r}")


#: Most levels a fluid proof may hold (the producer writes two).
MAX_FLUID_LEVELS = 8


def fluid_proven(instance: Instance, proof: Mapping[str, Any], factor: Fraction) -> Fraction:
    """The makespan bound of a ``fluid`` proof (module docstring), exactly.

    ``factor`` multiplies each level's LP part (``1 - shave``: :func:`fluid_level`).

    Raises
    ------
    BoundProofError
        When the proof is malformed.
    """
    levels = proof.get("levels")
    if not isinstance(levels, list | tuple) or not 1 <= len(levels) <= MAX_FLUID_LEVELS:
        raise BoundProofError(f"fluid proof: field 'levels' must be a list of 1..{MAX_FLUID_LEVELS}"
                              " objects")
    best = Fraction(0)
    for level in levels:
        if not isinstance(level, Mapping):
            raise BoundProofError("fluid proof: each level must be an object")
        best = max(best, fluid_level(instance, level, factor))
    return best


def fluid_level(instance: Instance, level: Mapping[str, Any],
                factor: Fraction = Fraction(1)) -> Fraction:
    """What one level of a fluid proof proves: ``min(tau+, factor L)`` (module docstring), exactly.

    ``factor`` (``1 - shave``) covers the binary64 sums along a chain, which only
    the LP part ``L`` adds up; ``tau+`` needs none: a schedule that runs a task on
    a pair with ``p > tau`` ends no earlier than that ``p`` even in binary64 (a run
    ends at its start ``>= 0`` plus ``count * p >= p``, both rounded monotonically).
    """
    K, M = instance.n_bots, instance.n_sites
    raw = level.get("threshold")
    if raw is not None and (isinstance(raw, bool) or not isinstance(raw, int | float)):
        raise BoundProofError("fluid proof: field 'threshold' must be a number or null")
    ok = allowed_pairs(instance)
    p = instance.p
    if raw is None:
        within, above = ok, None
    else:
        threshold = float(raw)
        within = ok & (p <= threshold)
        longer = p[ok & (p > threshold)]
        above = exact(float(longer.min())) if len(longer) else None
    if not within.any(axis=1).all():
        # Some BoT has no pair within the threshold: every schedule uses a longer one.
        return Fraction(0) if above is None else above
    u = _vector(level, "bots", K, "fluid")
    resources = resource_rows(instance)
    multipliers = {"sites": _vector(level, "sites", M, "fluid")}
    for name in resources:
        given = level.get(name)
        multipliers[name] = [Fraction(0)] * M if given is None else _vector(level, name, M, "fluid")
    kk, ii = np.nonzero(within)
    n = len(kk)
    tasks = [int(x) for x in instance.tasks]
    pairs = list(zip(kk.tolist(), ii.tolist(), strict=True))
    by_bot: list[dict[int, int]] = [{} for _ in range(K)]
    by_site: list[dict[int, Any]] = [{} for _ in range(M)]
    for j, (k, i) in enumerate(pairs):
        by_bot[k][j] = 1
        by_site[i][j] = float(p[k, i])
    rows = [Row(by_bot[k], "==", tasks[k]) for k in range(K)]
    duals: list[Fraction] = list(u)
    for i in range(M):
        rows.append(Row({**by_site[i], n: -int(instance.procs[i])}, "<=", 0))
        duals.append(-multipliers["sites"][i])
    widen = (1 + LIMIT_TOL_EXACT) * (1 + RESOURCE_SLACK)
    for name, (use, limit) in resources.items():
        coefficients: list[dict[int, Any]] = [{} for _ in range(M)]
        for j, (k, i) in enumerate(pairs):
            coefficients[i][j] = float(use[k, i])
        for i in range(M):
            coefficients[i][n] = -exact(float(limit[i])) * widen
            rows.append(Row(coefficients[i], "<=", 0))
            duals.append(-multipliers[name][i])
    costs = [0] * n + [1]
    lower = [0] * (n + 1)
    upper: list[int | None] = [tasks[k] for k, _ in pairs] + [None]
    value = weak_duality_bound(costs, lower, upper, rows, duals)
    if value is None:                   # C's reduced cost negative: the vector proves nothing
        return Fraction(0)
    value = max(value, Fraction(0)) * factor
    return value if above is None else min(above, value)


def min_cost(instance: Instance) -> Fraction:
    """Exact minimum cost: every task on a cheapest allowed site (a bound on the *cost*)."""
    ok = allowed_pairs(instance)
    total = Fraction(0)
    for k in range(instance.n_bots):
        cheapest = min(exact(float(instance.p[k, i])) * exact(float(instance.price[i]))
                       for i in np.flatnonzero(ok[k]))
        total += int(instance.tasks[k]) * cheapest
    return total


def certified_value(instance: Instance, proof: Mapping[str, Any]) -> float:
    """The float a proof certifies: :func:`proven` lowered by :func:`shave`, rounded down.

    A ``fluid`` proof's task-time part (``tau+``) is not shaved: a run's binary64
    end is at least its one task's time (:func:`fluid_level`).
    """
    if proof.get("kind") == "fluid":
        return floor_float(fluid_proven(instance, proof, 1 - shave(instance)))
    return floor_float(proven(instance, proof) * (1 - shave(instance)))


def verify_bound(instance: Instance, certificate: BoundCertificate) -> float:
    """Recompute ``certificate``'s bound from the instance and its proof (exactly).

    Returns the recomputed value. An empty proof is the critical-path bound.

    Raises
    ------
    BoundProofError
        When the proof proves less than ``certificate.value`` (beyond
        :data:`RTOL` relative) or is malformed.
    """
    proof = dict(certificate.proof) or {"kind": "critical_path"}
    value = certified_value(instance, proof)
    claimed = exact(certificate.value)
    if claimed > exact(value) + RTOL * max(Fraction(1), abs(claimed)):
        raise BoundProofError(f"bot-sites bound: the proof gives {value!r}, "
                              f"less than the claimed {certificate.value!r}")
    return value


def _number(proof: Mapping[str, Any], key: str) -> Fraction:
    value = proof.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BoundProofError(f"configuration proof: field {key!r} must be a number")
    return exact(value)


def _vector(proof: Mapping[str, Any], key: str, length: int,
            kind: str = "configuration") -> list[Fraction]:
    values = proof.get(key)
    if not isinstance(values, list | tuple) or len(values) != length:
        raise BoundProofError(f"{kind} proof: field {key!r} must be a list of {length} numbers")
    out = []
    for x in values:
        if isinstance(x, bool) or not isinstance(x, int | float):
            raise BoundProofError(f"{kind} proof: field {key!r} holds a non-number")
        out.append(exact(x))
    return out
