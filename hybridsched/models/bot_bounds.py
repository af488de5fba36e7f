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

Both are valid for the unrestricted problem (any schedule of any method).
The LPs are built directly with ``highspy`` (one column per (BoT, site) pair,
arrays in CSC form): at 10^3 BoTs x 10^2 sites a Pyomo model of the same LP
takes seconds to build, highspy milliseconds.
"""

from __future__ import annotations

import highspy
import numpy as np

from hybridsched.bot_sites.instance import Instance


def _restricted_fluid(instance: Instance, allowed: np.ndarray) -> float:
    """Minimum ``C`` of the fluid LP using only the ``allowed`` (BoT, site) pairs."""
    K, M = instance.n_bots, instance.n_sites
    if not allowed.any(axis=1).all():
        return np.inf
    kk, ii = np.nonzero(allowed)
    p = instance.p[kk, ii]
    groups: list[tuple[np.ndarray, np.ndarray]] = [(K + ii, p)]
    cap_rows = [instance.procs.astype(float)]
    rate = instance.rate
    if instance.hard_limits and rate is not None and instance.site_bandwidth is not None:
        groups.append((K + len(cap_rows) * M + ii, rate[kk, ii] * p))
        cap_rows.append(np.asarray(instance.site_bandwidth, dtype=float))
    if instance.hard_limits and instance.storage is not None \
            and instance.storage_limit is not None:
        groups.append((K + len(cap_rows) * M + ii, instance.storage[kk] * p))
        cap_rows.append(np.asarray(instance.storage_limit, dtype=float))
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
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kOptimal:
        # The LP optimum within tolerances; shave a relative 1e-9 so the bound stays valid.
        return float(h.getInfo().objective_function_value) * (1 - 1e-9)
    if status == highspy.HighsModelStatus.kInfeasible:
        return np.inf
    raise RuntimeError(f"fluid LP: HiGHS stopped with {h.modelStatusToString(status)}")


def fluid_bound(instance: Instance, *, strengthen: bool = True) -> float:
    """Fluid LP bound on the makespan, optionally LST-strengthened (module docstring)."""
    everything = np.ones((instance.n_bots, instance.n_sites), dtype=bool)
    base = _restricted_fluid(instance, everything)
    if not strengthen or base >= instance.p.max():
        return base
    floor = float(instance.p.min(axis=1).max())
    values = np.unique(instance.p)
    values = values[values >= floor * (1 - 1e-15)]
    lo = int(np.searchsorted(values, max(base, floor) * (1 - 1e-12), side="right")) - 1
    lo = max(lo, 0)

    def level(t: int) -> float:
        return _restricted_fluid(instance, instance.p <= values[t])

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


def critical_path_bound(instance: Instance) -> float:
    """Longest DAG path, each BoT weighted by its fastest task time."""
    fastest = instance.p.min(axis=1)
    finish = np.zeros(instance.n_bots)
    preds = instance.predecessors
    for k in instance.topological_order():
        finish[k] = max((finish[a] for a in preds[k]), default=0.0) + fastest[k]
    return float(finish.max()) if len(finish) else 0.0


def lower_bound(instance: Instance) -> float:
    """Best of the fluid (LST-strengthened) and critical-path bounds on the makespan."""
    if instance.n_bots == 0:
        return 0.0
    return max(fluid_bound(instance), critical_path_bound(instance))


def min_cost(instance: Instance) -> float:
    """Smallest possible cost (Eq. 6): every task on a cheapest site for its BoT."""
    return float(np.sum(instance.tasks * instance.cost_per_task.min(axis=1)))
