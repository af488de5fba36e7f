"""Lower bounds on the makespan of bot-sites instances that scale to 10^5+ tasks.

* :func:`fluid_bound`: the LP (fluid) relaxation. Tasks of BoT ``k`` are split
  fractionally over sites (``y_ki``), each site ``i`` does at most ``m_i C``
  units of work, and with hard limits the time-averaged bandwidth and
  storage stay within the site limits. It is strengthened as in Lenstra,
  Shmoys and Tardos (1990): a task of BoT ``k`` can only use site ``i`` if
  ``p_ki <= C``, so the bound is the smallest ``C`` for which the LP restricted
  to those pairs fits in ``C`` (binary search over the distinct ``p`` values).
* :func:`critical_path_bound`: the longest DAG path with each BoT weighted by
  its fastest task time (every BoT needs at least one task time after its
  predecessors finish).
* :func:`min_cost`: the minimum cost, exactly (every task on a cheapest
  site where one task alone fits the hard limits).

With hard limits, (BoT, site) pairs where one task alone breaks a limit are
left out (:func:`~hybridsched.bot_sites.limits.allowed_pairs`, the checker's
rule), and the fluid LP's time-averaged limits get the checker's tolerance
``1 + LIMIT_TOL``. All are valid for the unrestricted problem (any schedule
the checker accepts).
The LPs are built directly with ``highspy`` (one column per (BoT, site) pair,
arrays in CSC form): at 10^3 BoTs x 10^2 sites a Pyomo model of the same LP
takes seconds to build, highspy milliseconds.
"""

from __future__ import annotations

import highspy
import numpy as np

from hybridsched.bot_sites.checker import LIMIT_TOL
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import allowed_pairs


def _restricted_fluid(instance: Instance, allowed: np.ndarray) -> float:
    """Minimum ``C`` of the fluid LP using only the ``allowed`` (BoT, site) pairs."""
    solved = restricted_fluid_lp(instance, allowed)
    if solved is None:
        return np.inf
    # The LP optimum within tolerances of 1e-10: shave a relative 2e-10 so the bound
    # stays valid despite them (well below the 1e-9 at which optimality is claimed).
    return solved[0] * (1 - 2e-10)


def restricted_fluid_lp(instance: Instance, allowed: np.ndarray
                        ) -> tuple[float, dict[str, np.ndarray]] | None:
    """The fluid LP over the ``allowed`` pairs: (optimum, row duals by group); ``None``: infeasible.

    Row groups: ``"bots"`` (``K`` rows ``sum_i y_ki = n_k``), ``"sites"`` (``M`` rows
    ``sum_k p_ki y_ki - m_i C <= 0``) and, with hard limits, ``"bandwidth"`` and
    ``"storage"`` (``M`` rows each, resource-time within ``limit_i (1 + LIMIT_TOL) C``).
    Duals in HiGHS's sign convention (``<= 0`` on the ``<=`` rows); the optimum is the
    solver's float, unshaved.
    """
    K, M = instance.n_bots, instance.n_sites
    allowed = allowed & allowed_pairs(instance)
    if not allowed.any(axis=1).all():
        return None
    kk, ii = np.nonzero(allowed)
    p = instance.p[kk, ii]
    groups: list[tuple[np.ndarray, np.ndarray]] = [(K + ii, p)]
    cap_rows = [instance.procs.astype(float)]
    names = ["sites"]
    rate = instance.rate
    if instance.hard_limits and rate is not None and instance.site_bandwidth is not None:
        groups.append((K + len(cap_rows) * M + ii, rate[kk, ii] * p))
        cap_rows.append(np.asarray(instance.site_bandwidth, dtype=float) * (1 + LIMIT_TOL))
        names.append("bandwidth")
    if instance.hard_limits and instance.storage is not None \
            and instance.storage_limit is not None:
        groups.append((K + len(cap_rows) * M + ii, instance.storage[kk] * p))
        cap_rows.append(np.asarray(instance.storage_limit, dtype=float) * (1 + LIMIT_TOL))
        names.append("storage")
    n_rows = K + len(cap_rows) * M
    per_col = 1 + len(groups)
    n = len(kk)
    index = np.empty((n, per_col), dtype=np.int32)
    value = np.empty((n, per_col))
    index[:, 0], value[:, 0] = kk, 1.0
    for g, (rows, vals) in enumerate(groups, start=1):
        index[:, g], value[:, g] = rows, vals
    c_rows = np.arange(K, n_rows, dtype=np.int32)
    c_vals = -np.concatenate(cap_rows)
    lp = highspy.HighsLp()
    lp.num_col_ = n + 1
    lp.num_row_ = n_rows
    lp.col_cost_ = np.concatenate((np.zeros(n), [1.0]))
    lp.col_lower_ = np.zeros(n + 1)
    lp.col_upper_ = np.full(n + 1, np.inf)
    lp.row_lower_ = np.concatenate((instance.tasks.astype(float), np.full(n_rows - K, -np.inf)))
    lp.row_upper_ = np.concatenate((instance.tasks.astype(float), np.zeros(n_rows - K)))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.concatenate((np.arange(n + 1) * per_col,
                                          [n * per_col + len(c_rows)])).astype(np.int32)
    lp.a_matrix_.index_ = np.concatenate((index.ravel(), c_rows))
    lp.a_matrix_.value_ = np.concatenate((value.ravel(), c_vals))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("primal_feasibility_tolerance", 1e-10)
    h.setOptionValue("dual_feasibility_tolerance", 1e-10)
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kOptimal:
        dual = np.asarray(h.getSolution().row_dual, dtype=float)
        duals = {"bots": dual[:K]}
        for r, name in enumerate(names):
            duals[name] = dual[K + r * M:K + (r + 1) * M]
        return float(h.getInfo().objective_function_value), duals
    if status == highspy.HighsModelStatus.kInfeasible:
        return None
    raise RuntimeError(f"fluid LP: HiGHS stopped with {h.modelStatusToString(status)}")


def fluid_bound(instance: Instance, *, strengthen: bool = True,
                sites: np.ndarray | None = None) -> float:
    """Fluid LP bound on the makespan, optionally LST-strengthened (module docstring).

    ``sites`` (``(K, M)`` booleans) restricts each BoT to some sites: the
    bound then holds for the schedules that use only those (e.g. the
    minimum-cost schedules, which use only cheapest sites).
    """
    everything = allowed_pairs(instance)
    if sites is not None:
        everything = everything & sites
    base = _restricted_fluid(instance, everything)
    p = np.where(everything, instance.p, np.inf)
    if not strengthen or not np.isfinite(base) or base >= p[everything].max():
        return base
    floor = float(p.min(axis=1).max())
    values = np.unique(p[everything])
    values = values[values >= floor * (1 - 1e-15)]
    lo = int(np.searchsorted(values, max(base, floor) * (1 - 1e-12), side="right")) - 1
    lo = max(lo, 0)

    def level(t: int) -> float:
        return _restricted_fluid(instance, p <= values[t])

    def good(t: int) -> tuple[bool, float]:
        nxt = values[t + 1] if t + 1 < len(values) else np.inf
        value = level(t)
        return value < nxt, value

    ok, value = good(lo)
    if ok:
        return max(float(values[lo]), value, base)
    hi, step = lo, 1
    while True:                                  # exponential search for a good index
        hi = min(lo + step, len(values) - 1)
        ok, value = good(hi)
        if ok or hi == len(values) - 1:
            break
        lo, step = hi, step * 2
    best = (hi, value)
    while hi - lo > 1:                           # invariant: lo bad, hi good
        mid = (lo + hi) // 2
        ok, value = good(mid)
        if ok:
            hi, best = mid, (mid, value)
        else:
            lo = mid
    t, value = best
    return max(float(values[t]), value, base)


def critical_path_bound(instance: Instance, *, sites: np.ndarray | None = None) -> float:
    """Longest DAG path, each BoT weighted by its fastest task time (allowed sites)."""
    allowed = allowed_pairs(instance) if sites is None else allowed_pairs(instance) & sites
    fastest = np.where(allowed, instance.p, np.inf).min(axis=1)
    finish = np.zeros(instance.n_bots)
    preds = instance.predecessors
    for k in instance.topological_order():
        finish[k] = max((finish[a] for a in preds[k]), default=0.0) + fastest[k]
    return float(finish.max()) if len(finish) else 0.0


def lower_bound(instance: Instance, *, sites: np.ndarray | None = None) -> float:
    """Best of the fluid (LST-strengthened) and critical-path bounds on the makespan.

    ``sites``: see :func:`fluid_bound`.
    """
    if instance.n_bots == 0:
        return 0.0
    return max(fluid_bound(instance, sites=sites), critical_path_bound(instance, sites=sites))


def min_cost(instance: Instance) -> float:
    """Smallest possible cost (Eq. 6): every task on a cheapest allowed site for its BoT.

    Cost is a sum over tasks, so this is a lower bound on every schedule's
    cost, and it is attained: with hard limits, sites where one task alone
    breaks a limit are excluded, and running one task at a time on the
    remaining cheapest sites always fits
    (:func:`~hybridsched.bot_sites.limits.cheapest_schedule` builds a better
    one). ``inf`` when some BoT has no allowed site.
    """
    cost = np.where(allowed_pairs(instance), instance.cost_per_task, np.inf)
    return float(np.sum(instance.tasks * cost.min(axis=1)))
