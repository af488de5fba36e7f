"""Exact MILP models of the bot-sites family (Pyomo + HiGHS): build, solve, extract.

Variables ``x[k, q]`` count the tasks of BoT ``k`` on processor ``q``
(processors numbered site by site), integer in ``[0, delta_k]``, and ``C``
is the makespan.

* Without a DAG, the tasks of a processor run back to back in any order, so
  ``C >= sum_k p_k,site(q) x[k, q]`` is exact. Identical processors of a
  site are interchangeable: the symmetry is broken by non-increasing loads
  within each site.
* With a DAG, each BoT runs as one contiguous block per processor, with start
  ``s[k, q]`` and BoT finish ``F_k``: ``F_k >= s[k, q] + p x[k, q]``,
  ``s[l, q] >= F_k`` for every edge ``k -> l``, and a big-M disjunction
  (binary ``o``) orders the blocks of unrelated BoTs on each processor. One
  block per (BoT, processor) is a restriction, so its optimum is reported
  as optimal only when it meets the instance's proven lower bound.
* Hard bandwidth/storage limits (``instance.hard_limits``): binaries
  ``y[k, q] >= x[k, q] / delta_k`` mark the BoTs a processor runs and
  ``u[q] >= rate_k,i y[k, q]`` its peak bandwidth (likewise storage); the sum
  of ``u`` over a site's processors must fit the site's limit. This static
  condition is sufficient for the checker's over-time peak, not necessary,
  so again optimality is claimed only when a valid bound is met.

Objectives: minimum makespan, or minimum cost (Eq. 6) with ``C <= T``
(``makespan_cap``) — the epsilon-constraint step of :mod:`pareto
<hybridsched.experiments.pareto>` — or minimum makespan with cost at most a
cap. Caps are mutable parameters so one model serves a whole Pareto front.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from hybridsched.bot_sites.checker import completion_times, schedule_cost
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution, from_task_assignments
from hybridsched.errors import InputError
from hybridsched.models.bot_bounds import lower_bound, min_cost
from hybridsched.models.highs import SolveOutcome, solve_with_highs
from hybridsched.result import Result, Status


@dataclass
class BotModel:
    """A built Pyomo model and what :func:`extract` needs to read it."""

    model: pyo.ConcreteModel
    instance: Instance
    dag: bool
    horizon: float


def _related(instance: Instance) -> set[tuple[int, int]]:
    """Pairs ``(a, b)`` with a DAG path between them (either direction)."""
    import networkx as nx

    graph = nx.DiGraph([(int(a), int(b)) for a, b in instance.edges])
    graph.add_nodes_from(range(instance.n_bots))
    closure = nx.transitive_closure_dag(graph)
    return {(min(a, b), max(a, b)) for a, b in closure.edges}


def build(instance: Instance, *, horizon: float, symmetry: bool = True) -> BotModel:
    """Build the model (minimum makespan objective active).

    Parameters
    ----------
    instance:
        The instance.
    horizon:
        An upper bound on the makespan (e.g. a heuristic's): big-M of the
        DAG disjunctions and upper bound of ``C``.
    symmetry:
        Add the load-ordering constraints between identical processors.
    """
    K, N = instance.n_bots, instance.n_procs
    site = instance.proc_site
    p = instance.p
    dag = len(instance.edges) > 0
    m = pyo.ConcreteModel(name=f"bot-sites:{instance.name}")
    m.K = pyo.RangeSet(0, K - 1)
    m.Q = pyo.RangeSet(0, N - 1)
    m.x = pyo.Var(m.K, m.Q, domain=pyo.NonNegativeIntegers,
                  bounds=lambda _, k, q: (0, int(instance.tasks[k])))
    m.C = pyo.Var(domain=pyo.NonNegativeReals, bounds=(0, horizon))
    m.assign = pyo.Constraint(m.K, rule=lambda _, k: sum(m.x[k, q] for q in m.Q)
                              == int(instance.tasks[k]))
    load = {q: sum(float(p[k, site[q]]) * m.x[k, q] for k in m.K) for q in m.Q}
    if dag:
        related = _related(instance)
        m.s = pyo.Var(m.K, m.Q, domain=pyo.NonNegativeReals, bounds=(0, horizon))
        m.F = pyo.Var(m.K, domain=pyo.NonNegativeReals, bounds=(0, horizon))
        m.finish = pyo.Constraint(m.K, m.Q, rule=lambda _, k, q: m.F[k] >= m.s[k, q]
                                  + float(p[k, site[q]]) * m.x[k, q])
        edges = [(int(a), int(b)) for a, b in instance.edges]
        m.E = pyo.Set(initialize=edges, dimen=2)
        m.prec = pyo.Constraint(m.E, m.Q, rule=lambda _, a, b, q: m.s[b, q] >= m.F[a])
        pairs = [(a, b) for a in range(K) for b in range(a + 1, K) if (a, b) not in related]
        m.U = pyo.Set(initialize=pairs, dimen=2)
        m.o = pyo.Var(m.U, m.Q, domain=pyo.Binary)
        m.before = pyo.Constraint(m.U, m.Q, rule=lambda _, a, b, q: m.s[b, q] >= m.s[a, q]
                                  + float(p[a, site[q]]) * m.x[a, q] - horizon * (1 - m.o[a, b, q]))
        m.after = pyo.Constraint(m.U, m.Q, rule=lambda _, a, b, q: m.s[a, q] >= m.s[b, q]
                                 + float(p[b, site[q]]) * m.x[b, q] - horizon * m.o[a, b, q])
        m.span = pyo.Constraint(m.K, rule=lambda _, k: m.F[k] <= m.C)
        m.loadcap = pyo.Constraint(m.Q, rule=lambda _, q: load[q] <= m.C)
    else:
        m.span = pyo.Constraint(m.Q, rule=lambda _, q: load[q] <= m.C)
    if symmetry:
        twins = [q for q in range(N - 1) if site[q] == site[q + 1]]
        m.T = pyo.Set(initialize=twins)
        m.sym = pyo.Constraint(m.T, rule=lambda _, q: load[q] >= load[q + 1])
    if instance.hard_limits and instance.has_limits:
        _add_limits(m, instance)
    cost = instance.cost_per_task
    m.cost = pyo.Expression(expr=sum(float(cost[k, site[q]]) * m.x[k, q]
                                     for k in m.K for q in m.Q))
    m.makespan_cap = pyo.Param(mutable=True, initialize=horizon)
    m.cost_cap = pyo.Param(mutable=True, initialize=float(np.sum(
        instance.tasks * instance.cost_per_task.max(axis=1))))
    m.cap_makespan = pyo.Constraint(expr=m.makespan_cap >= m.C)
    m.cap_cost = pyo.Constraint(expr=m.cost <= m.cost_cap)
    m.cap_makespan.deactivate()
    m.cap_cost.deactivate()
    m.obj_makespan = pyo.Objective(expr=m.C, sense=pyo.minimize)
    m.obj_cost = pyo.Objective(expr=m.cost, sense=pyo.minimize)
    m.obj_cost.deactivate()
    return BotModel(m, instance, dag, horizon)


def _add_limits(m: pyo.ConcreteModel, instance: Instance) -> None:
    site = instance.proc_site
    m.y = pyo.Var(m.K, m.Q, domain=pyo.Binary)
    m.link = pyo.Constraint(m.K, m.Q, rule=lambda _, k, q: m.x[k, q]
                            <= int(instance.tasks[k]) * m.y[k, q])
    M = range(instance.n_sites)
    rate = instance.rate
    if rate is not None and instance.site_bandwidth is not None:
        m.ubw = pyo.Var(m.Q, domain=pyo.NonNegativeReals)
        m.bw_peak = pyo.Constraint(m.K, m.Q, rule=lambda _, k, q: m.ubw[q]
                                   >= float(rate[k, site[q]]) * m.y[k, q])
        m.bw_site = pyo.Constraint(M, rule=lambda _, i: sum(
            m.ubw[q] for q in m.Q if site[q] == i) <= float(instance.site_bandwidth[i]))
    if instance.storage is not None and instance.storage_limit is not None:
        m.ust = pyo.Var(m.Q, domain=pyo.NonNegativeReals)
        m.st_peak = pyo.Constraint(m.K, m.Q, rule=lambda _, k, q: m.ust[q]
                                   >= float(instance.storage[k]) * m.y[k, q])
        m.st_site = pyo.Constraint(M, rule=lambda _, i: sum(
            m.ust[q] for q in m.Q if site[q] == i) <= float(instance.storage_limit[i]))


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


def warm_start(bm: BotModel, solution: Solution) -> bool:
    """Load ``solution`` as the starting point (non-DAG models); False if not usable."""
    inst, m = bm.instance, bm.model
    if bm.dag or (inst.hard_limits and inst.has_limits):
        return False
    N, site, off = inst.n_procs, inst.proc_site, inst.proc_offset
    counts = np.zeros((inst.n_bots, N), dtype=np.int64)
    np.add.at(counts, (solution.bot, off[solution.site] + solution.proc), solution.count)
    loads = (counts * inst.p[:, site]).sum(axis=0)
    order = np.arange(N)
    for i in range(inst.n_sites):          # processors of a site by decreasing load
        block = np.arange(off[i], off[i + 1])
        order[block] = block[np.argsort(-loads[block], kind="stable")]
    counts = counts[:, order]
    for k in range(inst.n_bots):
        for q in range(N):
            m.x[k, q].set_value(int(counts[k, q]))
    m.C.set_value(float(min(loads.max(), bm.horizon)))
    return True


def extract(bm: BotModel) -> Solution:
    """Read the incumbent into a :class:`Solution` (blocks started as early as possible).

    Blocks are ordered per processor by BoT index (no DAG) or by the model's
    start times (DAG), then started as soon as their processor is free and
    their BoT's predecessors have finished: never later than in the model.
    """
    inst, m = bm.instance, bm.model
    site = inst.proc_site
    x = np.array([[round(pyo.value(m.x[k, q]) or 0) for q in m.Q] for k in m.K], dtype=np.int64)
    kk, qq = np.nonzero(x)
    if bm.dag:
        key = np.array([pyo.value(m.s[k, q]) for k, q in zip(kk, qq, strict=True)])
    else:
        key = kk.astype(float)
    order = np.lexsort((kk, key))
    free = np.zeros(inst.n_procs)
    finish = np.zeros(inst.n_bots)
    preds = inst.predecessors
    bots, procs, starts = [], [], []
    for b in order:
        k, q = int(kk[b]), int(qq[b])
        release = max((finish[a] for a in preds[k]), default=0.0)
        start = max(free[q], release)
        for t in range(int(x[k, q])):
            bots.append(k)
            procs.append(q)
            starts.append(start + t * inst.p[k, site[q]])
        free[q] = start + x[k, q] * inst.p[k, site[q]]
        finish[k] = max(finish[k], free[q])
    return from_task_assignments(inst, bots, procs, starts, notes={"method": "exact"})


def _restricted(instance: Instance) -> bool:
    """Whether the model restricts the problem (DAG blocks or static limits)."""
    return len(instance.edges) > 0 or (instance.hard_limits and instance.has_limits)


def solve(instance: Instance, *, objective: str = "makespan", time_limit: float | None = None,
          start: Solution | None = None, verbose: bool = False) -> Result:
    """Solve ``instance`` exactly (or until ``time_limit``) and return a :class:`Result`.

    ``objective="makespan"``: minimum makespan; ``bound`` is HiGHS's proven
    bound (or, for restricted models, :func:`lower_bound`).
    ``objective="cost"``: lexicographic — the minimum cost (computed in
    closed form: every task on a cheapest site), then the minimum makespan
    among schedules of that cost. The result's ``objective`` stays the
    makespan (the family's objective), so ``bound`` is left empty and the
    proven cost goes to ``metrics["cost_bound"]``.
    """
    if objective not in ("makespan", "cost"):
        raise InputError(f"--objective: must be 'makespan' or 'cost', got {objective!r}")
    horizon = _horizon(instance, start if objective == "makespan" else None)
    bm = build(instance, horizon=horizon)
    if objective == "cost":
        cap = min_cost(instance)
        set_objective(bm, "makespan", cost_cap=cap * (1 + 1e-9) + 1e-9)
        start = start if start is not None and schedule_cost(instance, start) <= cap * (
            1 + 1e-9) + 1e-9 else None
    use_warm = start is not None and warm_start(bm, start)
    outcome = solve_with_highs(bm.model, time_limit=time_limit, mip_rel_gap=1e-9,
                               warm_start=use_warm, verbose=verbose)
    result = _to_result(instance, bm, outcome, objective)
    result = _keep_start_if_better(instance, result, start, objective)
    if objective == "cost":
        result.metrics["cost_bound"] = min_cost(instance)
        result.metrics["optimised"] = "cost, then makespan"
    return result


def _keep_start_if_better(instance: Instance, result: Result, start: Solution | None,
                          objective: str) -> Result:
    """Fall back to the warm start when HiGHS stopped without a better incumbent."""
    if start is None or result.status in (Status.OPTIMAL, Status.INFEASIBLE):
        return result
    span = float(completion_times(instance, start).max())
    if result.solution is not None and (
            objective == "cost" or float(completion_times(instance, result.solution).max())
            <= span):
        return result
    bound = result.bound
    if objective == "makespan":
        bound = max(bound or 0.0, lower_bound(instance))
    return Result("exact", "bot-sites", Status.TIME_LIMIT, solution=start, bound=bound,
                  message=(result.message or "time limit reached")
                  + "; schedule is the warm start")


def _horizon(instance: Instance, start: Solution | None) -> float:
    if start is not None:
        return float(completion_times(instance, start).max()) * (1 + 1e-9) + 1e-9
    # Everything serialised on one processor of each BoT's slowest site: an upper
    # bound on the optimum of every model here, whatever the caps.
    return float(np.sum(instance.tasks * instance.p.max(axis=1))) * (1 + 1e-9) + 1.0


def _to_result(instance: Instance, bm: BotModel, outcome: SolveOutcome, objective: str
               ) -> Result:
    if outcome.status is Status.INFEASIBLE:
        return Result("exact", "bot-sites", Status.INFEASIBLE, message=outcome.message)
    if not outcome.has_incumbent:
        bound = None if _restricted(instance) or outcome.bound is None else outcome.bound
        return Result("exact", "bot-sites", Status.NO_SOLUTION, bound=bound,
                      message=outcome.message or "no schedule within the time limit")
    solution = extract(bm)
    makespan = float(completion_times(instance, solution).max())
    if objective == "cost":
        status = Status.FEASIBLE if outcome.status is Status.OPTIMAL else Status.TIME_LIMIT
        return Result("exact", "bot-sites", status, solution=solution,
                      message="cost optimal; makespan minimal among min-cost schedules"
                      if outcome.status is Status.OPTIMAL and not _restricted(instance)
                      else outcome.message)
    valid = lower_bound(instance)
    if not _restricted(instance) and outcome.bound is not None:
        valid = max(valid, outcome.bound * (1 - 1e-9))
    proven = makespan <= valid * (1 + 1e-7) or (
        outcome.status is Status.OPTIMAL and not _restricted(instance))
    status = Status.OPTIMAL if proven else (
        Status.TIME_LIMIT if outcome.status is Status.TIME_LIMIT else Status.FEASIBLE)
    bound = makespan if status is Status.OPTIMAL else min(valid, makespan)
    message = outcome.message
    if _restricted(instance) and status is not Status.OPTIMAL:
        what = ("optimal within one block per BoT and processor / static limits"
                if outcome.status is Status.OPTIMAL else outcome.message)
        message = f"{what}; bound is the fluid/critical-path bound"
    return Result("exact", "bot-sites", status, solution=solution, bound=bound,
                  message=message)
