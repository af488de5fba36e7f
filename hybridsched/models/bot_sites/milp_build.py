"""The bot-sites makespan/cost MILP (Pyomo): building the model and choosing its objective.

Variables ``x[k, q]`` count the tasks of BoT ``k`` on processor ``q``
(processors numbered site by site), integer in ``[0, delta_k]``, and ``C``
is the makespan.

* **Without a DAG**, the tasks of a processor run back to back in any order,
  so ``C >= sum_k p_k,site(q) x[k, q]`` is exact. Identical processors of a
  site are interchangeable: the symmetry is broken by non-increasing loads
  within each site (valid with or without a DAG: swapping the whole
  schedules of two identical processors keeps a schedule valid).
* **With a DAG**, BoT ``k`` runs as up to ``B_k`` blocks per processor, with
  precedence and disjunctions between blocks: see
  :mod:`hybridsched.models.bot_sites.dag`, which also proves that ``B_k``
  blocks lose no optimum. The big-M of its disjunctions is the horizon
  (:func:`horizon_for`), an upper bound on ``C``.
* **Hard bandwidth/storage limits** (``instance.hard_limits``): pairs where
  one task alone breaks a limit are fixed to 0 (valid); binaries
  ``y[k, q] >= x[k, q] / delta_k`` mark the BoTs a processor runs and
  ``u[q] >= use_k,i / limit_i * y[k, q]`` its peak share of each limit; the
  shares of a site's processors must sum to at most ``1 + LIMIT_TOL``. This
  static condition is *sufficient* for the checker's over-time peak, not
  necessary: such a model is *restricted* (:func:`restricted`), so its
  infeasibility and its bound prove nothing; only the fluid/critical-path
  bounds (valid with limits) can certify its schedules.

The models state the constraints exactly (no tolerance on time), as the
checker judges schedules: by their real times, in which its snap window never
shortens a run nor lets two overlap (:mod:`hybridsched.bot_sites.checker`), so
every schedule it accepts is in the model. Limits use the checker's rule and
constant ``LIMIT_TOL``.

Objectives (:func:`set_objective`): minimum makespan, or minimum cost (Eq. 6)
with ``C <= T`` (``makespan_cap``), or minimum makespan with cost at most a
cap. Caps are mutable parameters so one model serves a whole Pareto front.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyomo.environ as pyo

from hybridsched.bot_sites.checker import LIMIT_TOL, completion_times
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import allowed_pairs, limited
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import TimeBudget
from hybridsched.models.bot_sites.dag import add_blocks, block_bound, unrelated_pairs

#: The model-building rules check the time budget every this many rows.
CHECK_EVERY = 256

STAGE_BUILD = "building the model"


@dataclass
class BotModel:
    """A built Pyomo model and what reading it back needs.

    Read by :func:`~hybridsched.models.bot_sites.milp_schedule.extract`.
    ``blocks`` is ``B_k`` per BoT for the DAG model (``None`` without a DAG).
    """

    model: pyo.ConcreteModel
    instance: Instance
    dag: bool
    horizon: float
    blocks: np.ndarray | None = None


def model_size(instance: Instance) -> int:
    """Integer and binary variables of the model :func:`build` would make."""
    ok = allowed_pairs(instance)[:, instance.proc_site]
    size = int(ok.sum())
    if limited(instance):
        size += int(ok.sum())
    if len(instance.edges):
        B = block_bound(instance)
        size += int(2 * (ok.sum(axis=1) * B).sum())
        for a, b in unrelated_pairs(instance):
            size += int((ok[a] & ok[b]).sum()) * int(B[a] * B[b])
    return size


def _ticking(rule: Callable[..., Any], budget: TimeBudget | None) -> Callable[..., Any]:
    """``rule`` that checks ``budget`` every :data:`CHECK_EVERY` calls."""
    if budget is None or not budget.limited:
        return rule
    calls = [0]

    def wrapped(*args: Any) -> Any:
        calls[0] += 1
        if calls[0] % CHECK_EVERY == 0:
            budget.check(STAGE_BUILD)
        return rule(*args)

    return wrapped


def build(instance: Instance, *, horizon: float, symmetry: bool = True,
          budget: TimeBudget | None = None, max_blocks: int | None = None) -> BotModel:
    """Build the model (minimum makespan objective active).

    Parameters
    ----------
    instance:
        The instance.
    horizon:
        An upper bound on the makespan of the schedules the model must
        contain (e.g. a valid schedule's makespan): big-M of the DAG
        disjunctions and upper bound of ``C``.
    symmetry:
        Add the load-ordering constraints between identical processors.
    budget:
        Checked while the constraints are generated.
    max_blocks:
        Cap on the blocks per (BoT, processor) of the DAG model, for
        measurements only: below :func:`block_bound` the model is a
        restriction (``max_blocks=1`` is the earlier, inexact model).

    Raises
    ------
    BudgetExpired
        When ``budget`` runs out while building.
    """
    K, N = instance.n_bots, instance.n_procs
    site = instance.proc_site
    p = instance.p
    tasks = [int(t) for t in instance.tasks]
    ok = allowed_pairs(instance)[:, site]
    dag = len(instance.edges) > 0
    H = float(horizon)

    def tick(rule: Callable[..., Any]) -> Callable[..., Any]:
        return _ticking(rule, budget)

    m = pyo.ConcreteModel(name=f"bot-sites:{instance.name}")
    m.K = pyo.RangeSet(0, K - 1)
    m.Q = pyo.RangeSet(0, N - 1)
    m.x = pyo.Var(m.K, m.Q, domain=pyo.NonNegativeIntegers,
                  bounds=tick(lambda _, k, q: (0, tasks[k] if ok[k, q] else 0)))
    m.C = pyo.Var(domain=pyo.NonNegativeReals, bounds=(0, H))
    m.assign = pyo.Constraint(m.K, rule=tick(lambda _, k: sum(m.x[k, q] for q in m.Q)
                                             == tasks[k]))
    load = {q: sum(float(p[k, site[q]]) * m.x[k, q] for k in m.K if ok[k, q]) for q in m.Q}
    if budget is not None:
        budget.check(STAGE_BUILD)
    blocks = None
    if dag:
        blocks = block_bound(instance)
        if max_blocks is not None:
            blocks = np.minimum(blocks, max_blocks)
        add_blocks(m, instance, blocks, ok, H, tick)
        m.loadcap = pyo.Constraint(m.Q, rule=tick(lambda _, q: load[q] <= m.C))
    else:
        m.span = pyo.Constraint(m.Q, rule=tick(lambda _, q: load[q] <= m.C))
    if symmetry:
        twins = [q for q in range(N - 1) if site[q] == site[q + 1]]
        m.T = pyo.Set(initialize=twins)
        m.sym = pyo.Constraint(m.T, rule=tick(lambda _, q: pyo.Constraint.Skip if not (
            ok[:, q].any() or ok[:, q + 1].any()) else load[q] >= load[q + 1]))
    if limited(instance):
        _add_limits(m, instance, ok, tick)
    cost = instance.cost_per_task
    m.cost = pyo.Expression(expr=sum(float(cost[k, site[q]]) * m.x[k, q]
                                     for k in m.K for q in m.Q if ok[k, q]))
    m.makespan_cap = pyo.Param(mutable=True, initialize=H)
    finite_cost = np.where(np.isfinite(cost), cost, 0.0)
    m.cost_cap = pyo.Param(mutable=True, initialize=float(np.sum(
        instance.tasks * finite_cost.max(axis=1))))
    m.cap_makespan = pyo.Constraint(expr=m.makespan_cap >= m.C)
    m.cap_cost = pyo.Constraint(expr=m.cost <= m.cost_cap)
    m.cap_makespan.deactivate()
    m.cap_cost.deactivate()
    m.obj_makespan = pyo.Objective(expr=m.C, sense=pyo.minimize)
    m.obj_cost = pyo.Objective(expr=m.cost, sense=pyo.minimize)
    m.obj_cost.deactivate()
    if budget is not None:
        budget.check(STAGE_BUILD)
    return BotModel(m, instance, dag, H, blocks)


def limit_rows(instance: Instance) -> list[tuple[str, np.ndarray]]:
    """``(name, share[k, i])``: use of one task over the site limit, per hard resource."""
    rows = []
    rate = instance.rate
    if rate is not None and instance.site_bandwidth is not None:
        rows.append(("bw", rate / np.asarray(instance.site_bandwidth)[None, :]))
    if instance.storage is not None and instance.storage_limit is not None:
        rows.append(("st", np.asarray(instance.storage)[:, None]
                     / np.asarray(instance.storage_limit)[None, :]))
    return rows


def _add_limits(m: pyo.ConcreteModel, instance: Instance, ok: np.ndarray,
                tick: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """Static (sufficient) limits: per-processor peak shares summed per site."""
    site = instance.proc_site
    tasks = [int(t) for t in instance.tasks]
    pairs = [(k, q) for k in range(instance.n_bots) for q in range(instance.n_procs)
             if ok[k, q]]
    m.KQy = pyo.Set(initialize=pairs, dimen=2)
    m.y = pyo.Var(m.KQy, domain=pyo.Binary)
    m.link = pyo.Constraint(m.KQy, rule=tick(lambda _, k, q: m.x[k, q] <= tasks[k] * m.y[k, q]))
    M = pyo.RangeSet(0, instance.n_sites - 1)
    for name, share in limit_rows(instance):
        u = pyo.Var(m.Q, domain=pyo.NonNegativeReals, bounds=(0, 1 + LIMIT_TOL))
        setattr(m, f"u_{name}", u)
        setattr(m, f"{name}_peak", pyo.Constraint(m.KQy, rule=tick(
            lambda _, k, q, u=u, share=share: u[q] >= float(share[k, site[q]]) * m.y[k, q])))
        setattr(m, f"{name}_site", pyo.Constraint(M, rule=lambda _, i, u=u: sum(
            u[q] for q in m.Q if site[q] == i) <= 1 + LIMIT_TOL))


def set_objective(bm: BotModel, objective: str, *, makespan_cap: float | None = None,
                  cost_cap: float | None = None) -> None:
    """Choose the objective and the epsilon-constraint caps (``None``: no cap)."""
    m = bm.model
    m.obj_makespan.activate() if objective == "makespan" else m.obj_makespan.deactivate()
    m.obj_cost.activate() if objective == "cost" else m.obj_cost.deactivate()
    if makespan_cap is None:
        m.cap_makespan.deactivate()
    else:
        m.makespan_cap.set_value(float(makespan_cap))
        m.cap_makespan.activate()
    if cost_cap is None:
        m.cap_cost.deactivate()
    else:
        m.cost_cap.set_value(float(cost_cap))
        m.cap_cost.activate()


def restricted(instance: Instance) -> bool:
    """Whether the model restricts the problem (static hard limits; the DAG model is exact)."""
    return limited(instance)


def horizon_for(instance: Instance, start: Solution | None) -> float:
    """Upper bound for ``C``: ``start``'s makespan, or the fully serial schedule's."""
    if start is not None:
        return float(completion_times(instance, start).max(initial=0.0)) * (1 + 1e-9) + 1e-9
    # Everything serialised on one processor of each BoT's slowest allowed site: an
    # upper bound on the optimum of every model here, whatever the caps.
    p = np.where(allowed_pairs(instance), instance.p, 0.0)
    return float(np.sum(instance.tasks * p.max(axis=1))) * (1 + 1e-9) + 1.0
