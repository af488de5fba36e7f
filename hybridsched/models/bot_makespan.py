"""Exact MILP models of the bot-sites family (Pyomo + HiGHS): build, solve, extract.

Variables ``x[k, q]`` count the tasks of BoT ``k`` on processor ``q``
(processors numbered site by site), integer in ``[0, delta_k]``, and ``C``
is the makespan.

* **Without a DAG**, the tasks of a processor run back to back in any order,
  so ``C >= sum_k p_k,site(q) x[k, q]`` is exact. Identical processors of a
  site are interchangeable: the symmetry is broken by non-increasing loads
  within each site (valid with or without a DAG: swapping the whole
  schedules of two identical processors keeps a schedule valid).
* **With a DAG**, BoT ``k`` runs as up to ``B_k`` blocks per processor
  (:func:`block_bound`): block ``b`` holds ``xb[k, q, b]`` tasks back to
  back from ``s[k, q, b]``; binaries ``z`` mark used blocks (used first),
  ``S_k``/``F_k`` are the BoT's start and finish with ``S_l >= F_k`` for every
  edge ``k -> l``, ``s >= S_k`` for used blocks, ``F_k >= s + p xb`` and
  ``F_k >= S_k + min p``, ``F_k - S_k >= p x[k, q]`` (the tasks of ``k`` on
  ``q`` fit in its window: a valid cut that speeds proofs up about 5x), and a
  big-M disjunction (binary ``o``) orders every two blocks of unrelated BoTs
  on a processor. The big-M is the horizon, an
  upper bound on ``C``: :func:`solve` takes the makespan of a valid schedule
  (every optimal schedule can be normalised into the model, see below) or,
  for capped objectives, the fully serial schedule on the slowest sites.

  **Why ``B_k = min(delta_k, 1 + |U_k|)`` blocks suffice** (``U_k``: the BoTs
  neither ancestors nor descendants of ``k``). Take any valid schedule, with
  BoT finishes ``F`` and releases ``R_k = max_{a -> k} F_a`` (0 for sources).
  Cut time at the distinct release values ``v_0 < v_1 < ...``. On one
  processor, group its blocks by the interval ``[v_e, v_e+1)`` holding their
  start; every block of group ``e`` is released by ``v_e`` (releases are
  among the ``v``), so the group can be re-sequenced from its first start,
  back to back, in earliest-deadline order (deadline ``F_k``, ties by BoT
  index). EDD on jobs available at a common time minimises the maximum
  lateness, so every block still ends by its BoT's old finish, the group
  ends no later than before (no collision with the next group), and every
  start is still after its old release, hence after the (no later) new
  finishes of the predecessors. The makespan does not grow, and in the new
  schedule the tasks of BoT ``k`` on a processor form one contiguous run per
  group, and only groups whose release value lies in ``[R_k, F_k)`` can hold
  them: ``R_k`` itself and releases of BoTs in ``U_k`` (a descendant is
  released after ``F_k``; an ancestor before ``R_k``). Hence at most
  ``1 + |U_k|`` runs, and trivially at most ``delta_k``. :func:`normalise`
  implements this construction (the tests check it), and :func:`warm_start`
  uses it. One block per (BoT, processor), the earlier model, is *not*
  exact: ``tests/bot_sites/test_bot_exact_soundness.py`` has a counterexample
  where the only optimal schedules split a BoT around a critical-path task.
* **Hard bandwidth/storage limits** (``instance.hard_limits``): pairs where
  one task alone breaks a limit are fixed to 0 (valid); binaries
  ``y[k, q] >= x[k, q] / delta_k`` mark the BoTs a processor runs and
  ``u[q] >= use_k,i / limit_i * y[k, q]`` its peak share of each limit; the
  shares of a site's processors must sum to at most ``1 + LIMIT_TOL``. This
  static condition is *sufficient* for the checker's over-time peak, not
  necessary: such a model is *restricted* (:func:`_restricted`), so its
  infeasibility and its bound prove nothing; only the fluid/critical-path
  bounds (valid with limits) can certify its schedules.

Tolerances. The models state the constraints exactly (no tolerance on time):
bounds and "optimal" refer to schedules that respect processors and
precedence exactly; the checker's ``1e-9`` relative allowances only absorb
floating-point noise (a schedule exploiting them could be shorter by at most
its number of blocks times ``1e-9`` relative). Limits use the checker's rule
and constant ``LIMIT_TOL``. Every schedule read back is re-timed exactly
(:func:`~hybridsched.bot_sites.limits.retime`, which also enforces the limits
over time) and checked by the family checker before anything is claimed; a
result is ``optimal`` only when its checker-recomputed objective meets a
bound valid for the real problem within :data:`CLAIM_RTOL` (relative, with
a floor of 1 in absolute value), plus, when that bound is HiGHS's, the
solver's absolute feasibility tolerance along the critical chain
(:func:`solver_slack`: HiGHS's bound is valid, but may undercut the
optimum by that much). Such a result reports its objective as its bound.

Objectives: minimum makespan, or minimum cost (Eq. 6) with ``C <= T``
(``makespan_cap``), or minimum makespan with cost at most a cap. Caps are
mutable parameters so one model serves a whole Pareto front.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyomo.environ as pyo

from hybridsched.bot_sites.checker import LIMIT_TOL, check, completion_times, schedule_cost
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import (
    allowed_pairs,
    cheapest_schedule,
    cheapest_sites,
    limited,
    repair,
    retime,
)
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.errors import InputError
from hybridsched.models.bot_bounds import lower_bound, min_cost
from hybridsched.models.highs import MIP_FEASIBILITY_TOL, SolveOutcome, solve_with_highs
from hybridsched.result import Result, Status

#: Relative tolerance (with a floor of 1 in absolute value) for claiming that an
#: objective meets a proven bound.
CLAIM_RTOL = 1e-9

#: Relative gap at which HiGHS stops (below :data:`CLAIM_RTOL`, so a proven optimum is
#: recognised as such).
MIP_GAP = 1e-10

#: The model-building rules check the time budget every this many rows.
CHECK_EVERY = 256

STAGE_BUILD = "building the model"


@dataclass
class BotModel:
    """A built Pyomo model and what :func:`extract` needs to read it.

    ``blocks`` is ``B_k`` per BoT for the DAG model (``None`` without a DAG).
    """

    model: pyo.ConcreteModel
    instance: Instance
    dag: bool
    horizon: float
    blocks: np.ndarray | None = None


def _meets(value: float, bound: float, absolute: float = 0.0) -> bool:
    """Whether ``value`` is within :data:`CLAIM_RTOL` (plus ``absolute``) of ``bound``."""
    return value <= bound + CLAIM_RTOL * max(1.0, abs(bound)) + absolute


def solver_slack(bm: BotModel) -> float:
    """Time by which HiGHS's bound may undercut the optimum through its tolerances.

    HiGHS accepts rows violated by up to its MIP feasibility tolerance
    (:data:`~hybridsched.models.highs.MIP_FEASIBILITY_TOL`, absolute; kept at
    1e-6 by the driver), so its bound on ``C`` is valid but may sit that much
    below the optimum per row on the critical chain: one row without a DAG,
    ``B_k + 3`` rows per BoT on a path with one.
    """
    rows = 1 if bm.blocks is None else int(np.sum(bm.blocks + 3))
    return MIP_FEASIBILITY_TOL * rows


def _related(instance: Instance) -> set[tuple[int, int]]:
    """Pairs ``(a, b)``, ``a < b``, with a DAG path between them (either direction)."""
    import networkx as nx

    graph = nx.DiGraph([(int(a), int(b)) for a, b in instance.edges])
    graph.add_nodes_from(range(instance.n_bots))
    closure = nx.transitive_closure_dag(graph)
    return {(min(a, b), max(a, b)) for a, b in closure.edges}


def block_bound(instance: Instance) -> np.ndarray:
    """``B_k = min(delta_k, 1 + |U_k|)``: blocks per processor the DAG model allows.

    ``U_k`` are the BoTs unrelated to ``k`` (no path either way); see the
    module docstring for the proof that some optimal schedule needs no more.
    """
    K = instance.n_bots
    related = _related(instance)
    unrelated = np.array([sum(1 for l in range(K) if l != k  # noqa: E741
                              and (min(k, l), max(k, l)) not in related) for k in range(K)])
    return np.minimum(instance.tasks, 1 + unrelated).astype(np.int64)


def model_size(instance: Instance) -> int:
    """Integer and binary variables of the model :func:`build` would make."""
    ok = allowed_pairs(instance)[:, instance.proc_site]
    size = int(ok.sum())
    if limited(instance):
        size += int(ok.sum())
    if len(instance.edges):
        B = block_bound(instance)
        size += int(2 * (ok.sum(axis=1) * B).sum())
        for a, b in _unrelated_pairs(instance):
            size += int((ok[a] & ok[b]).sum()) * int(B[a] * B[b])
    return size


def _unrelated_pairs(instance: Instance) -> list[tuple[int, int]]:
    related = _related(instance)
    K = instance.n_bots
    return [(a, b) for a in range(K) for b in range(a + 1, K) if (a, b) not in related]


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
        _add_blocks(m, instance, blocks, ok, H, tick)
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


def _add_blocks(m: pyo.ConcreteModel, instance: Instance, B: np.ndarray, ok: np.ndarray,
                H: float, tick: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """The DAG part: blocks, BoT start/finish, precedence, disjunctions (module docstring)."""
    K, N = instance.n_bots, instance.n_procs
    site = instance.proc_site
    p = instance.p
    tasks = [int(t) for t in instance.tasks]
    allowed = allowed_pairs(instance)
    pmin = [float(np.min(p[k][allowed[k]])) for k in range(K)]
    triples = [(k, q, b) for k in range(K) for q in range(N) if ok[k, q]
               for b in range(int(B[k]))]
    pairs = [(k, q) for k in range(K) for q in range(N) if ok[k, q]]
    nexts = [(k, q, b) for k, q, b in triples if b + 1 < B[k]]

    def dur(k: int, q: int) -> float:
        return float(p[k, site[q]])

    m.KQB = pyo.Set(initialize=triples, dimen=3)
    m.KQ = pyo.Set(initialize=pairs, dimen=2)
    m.NEXT = pyo.Set(initialize=nexts, dimen=3)
    m.xb = pyo.Var(m.KQB, domain=pyo.NonNegativeIntegers,
                   bounds=tick(lambda _, k, q, b: (0, tasks[k])))
    m.z = pyo.Var(m.KQB, domain=pyo.Binary)
    m.s = pyo.Var(m.KQB, domain=pyo.NonNegativeReals, bounds=(0, H))
    m.S = pyo.Var(m.K, domain=pyo.NonNegativeReals, bounds=(0, H))
    m.F = pyo.Var(m.K, domain=pyo.NonNegativeReals, bounds=(0, H))
    m.split = pyo.Constraint(m.KQ, rule=tick(lambda _, k, q: m.x[k, q] == sum(
        m.xb[k, q, b] for b in range(int(B[k])))))
    m.used_hi = pyo.Constraint(m.KQB, rule=tick(lambda _, k, q, b: m.xb[k, q, b]
                                                <= tasks[k] * m.z[k, q, b]))
    m.used_lo = pyo.Constraint(m.KQB, rule=tick(lambda _, k, q, b: m.xb[k, q, b]
                                                >= m.z[k, q, b]))
    m.used_first = pyo.Constraint(m.NEXT, rule=tick(lambda _, k, q, b: m.z[k, q, b + 1]
                                                    <= m.z[k, q, b]))
    m.chain = pyo.Constraint(m.NEXT, rule=tick(lambda _, k, q, b: m.s[k, q, b + 1]
                                               >= m.s[k, q, b] + dur(k, q) * m.xb[k, q, b]))
    m.E = pyo.Set(initialize=[(int(a), int(b)) for a, b in instance.edges], dimen=2)
    m.release = pyo.Constraint(m.E, rule=lambda _, a, b: m.S[b] >= m.F[a])
    m.start = pyo.Constraint(m.KQB, rule=tick(lambda _, k, q, b: m.s[k, q, b]
                                              >= m.S[k] - H * (1 - m.z[k, q, b])))
    m.finish = pyo.Constraint(m.KQB, rule=tick(lambda _, k, q, b: m.F[k]
                                               >= m.s[k, q, b] + dur(k, q) * m.xb[k, q, b]))
    m.minlen = pyo.Constraint(m.K, rule=lambda _, k: m.F[k] >= m.S[k] + pmin[k])
    # Valid cut that tightens the LP a lot (5x faster proofs on the benchmark's DAG
    # instances): on each processor, the tasks of k run inside [S_k, F_k].
    m.window = pyo.Constraint(m.KQ, rule=tick(lambda _, k, q: m.F[k] - m.S[k]
                                              >= dur(k, q) * m.x[k, q]))
    m.span = pyo.Constraint(m.K, rule=lambda _, k: m.F[k] <= m.C)
    quads = [(a, b, q, i, j) for a, b in _unrelated_pairs(instance) for q in range(N)
             if ok[a, q] and ok[b, q] for i in range(int(B[a])) for j in range(int(B[b]))]
    m.O = pyo.Set(initialize=quads, dimen=5)
    m.o = pyo.Var(m.O, domain=pyo.Binary)
    m.before = pyo.Constraint(m.O, rule=tick(lambda _, a, b, q, i, j: m.s[b, q, j] >= m.s[
        a, q, i] + dur(a, q) * m.xb[a, q, i] - H * (1 - m.o[a, b, q, i, j])))
    m.after = pyo.Constraint(m.O, rule=tick(lambda _, a, b, q, i, j: m.s[a, q, i] >= m.s[
        b, q, j] + dur(b, q) * m.xb[b, q, j] - H * m.o[a, b, q, i, j]))
    # Blocks of one BoT are ordered on a processor, so the orders are monotone.
    rows_i = [t for t in quads if t[3] + 1 < B[t[0]]]
    rows_j = [t for t in quads if t[4] + 1 < B[t[1]]]
    m.OI = pyo.Set(initialize=rows_i, dimen=5)
    m.OJ = pyo.Set(initialize=rows_j, dimen=5)
    m.mono_i = pyo.Constraint(m.OI, rule=tick(lambda _, a, b, q, i, j: m.o[a, b, q, i + 1, j]
                                              <= m.o[a, b, q, i, j]))
    m.mono_j = pyo.Constraint(m.OJ, rule=tick(lambda _, a, b, q, i, j: m.o[a, b, q, i, j]
                                              <= m.o[a, b, q, i, j + 1]))


def _limit_rows(instance: Instance) -> list[tuple[str, np.ndarray]]:
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
    for name, share in _limit_rows(instance):
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


def normalise(instance: Instance, solution: Solution) -> Solution:
    """The schedule of the module docstring's proof: at most ``B_k`` runs per (BoT, processor).

    On each processor, blocks are grouped by the release interval holding
    their start and each group is re-sequenced back to back from its first
    start in earliest-deadline order (deadline: the BoT's finish in
    ``solution``; ties by BoT index). For a valid ``solution`` the result is
    valid, no BoT finishes later, and consecutive runs of one BoT are merged.
    """
    finish = completion_times(instance, solution)
    preds = instance.predecessors
    release = np.array([max((finish[a] for a in preds[k]), default=0.0)
                        for k in range(instance.n_bots)])
    cuts = np.unique(release)
    glob = instance.proc_offset[solution.site] + solution.proc
    p = instance.p
    out_bot, out_proc, out_count, out_start = [], [], [], []
    for q in np.unique(glob):
        on = np.flatnonzero(glob == q)
        on = on[np.argsort(solution.start[on], kind="stable")]
        site = int(instance.proc_site[q])
        group = np.searchsorted(cuts, solution.start[on], side="right") - 1
        for g in np.unique(group):
            members = on[group == g]
            t = float(solution.start[members].min())
            k_of = solution.bot[members]
            members = members[np.lexsort((k_of, finish[k_of]))]
            for b in members:
                k, c = int(solution.bot[b]), int(solution.count[b])
                if out_bot and out_proc[-1] == q and out_bot[-1] == k \
                        and out_start[-1] + out_count[-1] * p[k, site] == t:
                    out_count[-1] += c
                else:
                    out_bot.append(k)
                    out_proc.append(int(q))
                    out_count.append(c)
                    out_start.append(t)
                t = t + c * float(p[k, site])
    bot, proc = np.array(out_bot, dtype=np.int64), np.array(out_proc, dtype=np.int64)
    site_of = instance.proc_site[proc] if len(proc) else np.zeros(0, dtype=np.int64)
    return Solution(bot, site_of, proc - instance.proc_offset[site_of],
                    np.array(out_count, dtype=np.int64), np.array(out_start),
                    notes=dict(solution.notes))


def warm_start(bm: BotModel, solution: Solution) -> bool:
    """Load ``solution`` as the starting point; False if the model cannot hold it.

    DAG models get the :func:`normalise`-d schedule; models with hard limits
    only schedules that meet the static limit rule; schedules longer than
    the horizon are refused.
    """
    inst, m = bm.instance, bm.model
    N, site, off = inst.n_procs, inst.proc_site, inst.proc_offset
    if bm.dag:
        solution = normalise(inst, solution)
    span = float(completion_times(inst, solution).max(initial=0.0))
    if span > bm.horizon:
        return False
    counts = np.zeros((inst.n_bots, N), dtype=np.int64)
    glob = off[solution.site] + solution.proc
    np.add.at(counts, (solution.bot, glob), solution.count)
    ok = allowed_pairs(inst)[:, site]
    if (counts[~ok] > 0).any():
        return False
    loads = (counts * inst.p[:, site]).sum(axis=0)
    order = np.arange(N)
    for i in range(inst.n_sites):          # processors of a site by decreasing load
        block = np.arange(off[i], off[i + 1])
        order[block] = block[np.argsort(-loads[block], kind="stable")]
    position = np.empty(N, dtype=np.int64)
    position[order] = np.arange(N)
    counts = counts[:, order]
    values: list[tuple[Any, float]] = []
    for k in range(inst.n_bots):
        for q in range(N):
            values.append((m.x[k, q], int(counts[k, q])))
    values.append((m.C, span))
    if limited(inst):
        used = counts > 0
        for k, q in m.KQy:
            values.append((m.y[k, q], float(used[k, q])))
        for name, share in _limit_rows(inst):
            u = getattr(m, f"u_{name}")
            peak = np.where(used, share[:, site], 0.0).max(axis=0)
            sums = np.bincount(site, weights=peak, minlength=inst.n_sites)
            if (sums > 1 + LIMIT_TOL).any():
                return False
            for q in range(N):
                values.append((u[q], float(peak[q])))
    if bm.dag and not _warm_blocks(bm, solution, position[glob], values):
        return False
    for var, value in values:
        var.set_value(value, skip_validation=True)
    return True


def _warm_blocks(bm: BotModel, solution: Solution, proc: np.ndarray,
                 values: list[tuple[Any, float]]) -> bool:
    """Block variables of the DAG model from a normalised schedule (``proc``: model index)."""
    inst, m, B = bm.instance, bm.model, bm.blocks
    if B is None:
        return False
    end = solution.start + solution.count * inst.p[solution.bot, solution.site]
    runs: dict[tuple[int, int], list[int]] = {}
    for b in np.argsort(solution.start, kind="stable"):
        runs.setdefault((int(solution.bot[b]), int(proc[b])), []).append(int(b))
    if any(len(v) > B[k] for (k, _), v in runs.items()):
        return False
    start_of: dict[tuple[int, int, int], float] = {}
    end_of: dict[tuple[int, int, int], float] = {}
    for k, q, j in m.KQB:
        run = runs.get((k, q), [])
        if j < len(run):
            b = run[j]
            values.append((m.xb[k, q, j], int(solution.count[b])))
            values.append((m.z[k, q, j], 1))
            start_of[k, q, j], end_of[k, q, j] = float(solution.start[b]), float(end[b])
        else:   # unused: parked at the end of the previous run (or at 0)
            t = float(end[run[-1]]) if run else 0.0
            values.append((m.xb[k, q, j], 0))
            values.append((m.z[k, q, j], 0))
            start_of[k, q, j] = end_of[k, q, j] = t
        values.append((m.s[k, q, j], start_of[k, q, j]))
    first = np.full(inst.n_bots, np.inf)
    last = np.zeros(inst.n_bots)
    np.minimum.at(first, solution.bot, solution.start)
    np.maximum.at(last, solution.bot, end)
    for k in range(inst.n_bots):
        values.append((m.S[k], float(first[k])))
        values.append((m.F[k], float(last[k])))
    for a, b, q, i, j in m.O:
        values.append((m.o[a, b, q, i, j], float(end_of[a, q, i] <= start_of[b, q, j])))
    return True


def extract(bm: BotModel) -> Solution:
    """Read the incumbent into a :class:`Solution`, re-timed exactly.

    Blocks are ordered by the model's start times (DAG) or by BoT index, then
    list-scheduled by :func:`~hybridsched.bot_sites.limits.retime`: each as
    early as its processor, its BoT's predecessors and (hard limits) the
    site's limits over time allow. Without limits no block starts later
    than in the model.
    """
    inst, m = bm.instance, bm.model
    bots, procs, counts, keys = [], [], [], []
    if bm.dag:
        for k, q, j in m.KQB:
            n = round(pyo.value(m.xb[k, q, j]) or 0)
            if n > 0:
                bots.append(k)
                procs.append(q)
                counts.append(n)
                keys.append(float(pyo.value(m.s[k, q, j]) or 0.0))
    else:
        for k in m.K:
            for q in m.Q:
                n = round(pyo.value(m.x[k, q]) or 0)
                if n > 0:
                    bots.append(k)
                    procs.append(q)
                    counts.append(n)
                    keys.append(float(k))
    solution = retime(inst, np.array(bots, dtype=np.int64), np.array(procs, dtype=np.int64),
                      np.array(counts, dtype=np.int64), np.array(keys),
                      notes={"method": "exact"})
    if solution is None:
        raise RuntimeError("the model placed a BoT on a site its tasks cannot use")
    return solution


def _restricted(instance: Instance) -> bool:
    """Whether the model restricts the problem (static hard limits; the DAG model is exact)."""
    return limited(instance)


def _horizon(instance: Instance, start: Solution | None) -> float:
    """Upper bound for ``C``: ``start``'s makespan, or the fully serial schedule's."""
    if start is not None:
        return float(completion_times(instance, start).max(initial=0.0)) * (1 + 1e-9) + 1e-9
    # Everything serialised on one processor of each BoT's slowest allowed site: an
    # upper bound on the optimum of every model here, whatever the caps.
    p = np.where(allowed_pairs(instance), instance.p, 0.0)
    return float(np.sum(instance.tasks * p.max(axis=1))) * (1 + 1e-9) + 1.0


@dataclass
class _Candidate:
    """A checked schedule with its recomputed makespan and cost."""

    solution: Solution
    makespan: float
    cost: float
    origin: str


def _candidate(instance: Instance, solution: Solution | None, origin: str
               ) -> _Candidate | None:
    """``solution`` if the checker accepts it (repaired over time when it does not)."""
    if solution is None:
        return None
    if check(instance, solution):
        solution = repair(instance, solution)
        if solution is None or check(instance, solution):
            return None
        origin += " (re-timed)"
    return _Candidate(solution, float(completion_times(instance, solution).max(initial=0.0)),
                      schedule_cost(instance, solution), origin)


def solve(instance: Instance, *, objective: str = "makespan", time_limit: float | None = None,
          start: Solution | None = None, verbose: bool = False,
          budget: TimeBudget | None = None) -> Result:
    """Solve ``instance`` exactly (or until the time limit) and return a :class:`Result`.

    Parameters
    ----------
    instance:
        The instance.
    objective:
        ``"makespan"``: minimum makespan; ``bound`` is a proven lower bound
        on it (HiGHS's bound on an exact model, or the fluid/critical-path
        bound). ``"cost"``: lexicographic: minimum cost (known exactly:
        :func:`~hybridsched.models.bot_bounds.min_cost`, reached by
        :func:`~hybridsched.bot_sites.limits.cheapest_schedule`), then
        minimum makespan among schedules of that cost (within
        :data:`CLAIM_RTOL`). Status and ``bound`` then refer to the cost;
        the makespan's proof goes to ``metrics["makespan_bound"]`` and
        ``metrics["makespan_proven_minimal"]``.
    time_limit:
        Seconds for the whole call (used when ``budget`` is not given);
        ``0``: no model, return the best warm start with its bound.
    start:
        A schedule to start from (checked; repaired over time when it breaks
        hard limits; ignored when invalid).
    verbose:
        Stream the HiGHS log.
    budget:
        The method's time budget (includes the time already spent on
        ``start``).
    """
    if objective not in ("makespan", "cost"):
        raise InputError(f"--objective: must be 'makespan' or 'cost', got {objective!r}")
    budget = budget if budget is not None else TimeBudget(time_limit)
    allowed = allowed_pairs(instance)
    if not allowed.any(axis=1).all():
        names = [instance.bot_ids[k] for k in np.flatnonzero(~allowed.any(axis=1))]
        return Result("exact", "bot-sites", Status.INFEASIBLE,
                      message="infeasible: one task alone breaks a hard limit on every site: "
                      + ", ".join(names))
    candidates = [c for c in (_candidate(instance, start, "warm start"),) if c is not None]
    if objective == "cost" or (limited(instance) and not candidates):
        cheap = _candidate(instance, cheapest_schedule(instance), "cheapest-site schedule")
        if cheap is not None:
            candidates.append(cheap)
    proof = _Proof(instance, objective)
    if budget.warm_start_only:
        return proof.result(candidates, None, None, "time limit 0: warm start only, no model "
                            "built", timed_out=True)
    cost_cap = None
    if objective == "cost":   # every min-cost schedule, with half the claim tolerance to spare
        cost_cap = proof.cost_bound + CLAIM_RTOL / 2 * max(1.0, abs(proof.cost_bound))
    if objective == "makespan" and len(instance.edges) and not limited(instance) \
            and block_bound(instance).max() > 1:
        try:
            found = _one_block_start(instance, candidates, proof, budget)
        except (BudgetExpired, RuntimeError):
            found = None
        if found is not None:
            candidates.append(found)
    best = proof.best(candidates)
    if objective == "makespan" and best is not None and not limited(instance):
        horizon = _horizon(instance, best.solution)
    else:
        horizon = _horizon(instance, None)
    try:
        _check_room(budget, _BUILD_S_PER_VAR * model_size(instance) * (1 + _TRANSLATE_FACTOR),
                    "building the model")
        built = budget.elapsed()
        bm = build(instance, horizon=horizon, budget=budget)
        if cost_cap is not None:
            set_objective(bm, "makespan", cost_cap=cost_cap)
        warm = False
        for cand in sorted(candidates, key=proof.key):
            if cost_cap is not None and cand.cost > cost_cap:
                continue
            if warm_start(bm, cand.solution):
                warm = True
                break
        budget.check(STAGE_BUILD)
        _check_room(budget, (budget.elapsed() - built) * _TRANSLATE_FACTOR,
                    "translating the model for HiGHS")
        outcome = solve_with_highs(bm.model, mip_rel_gap=MIP_GAP, warm_start=warm,
                                   verbose=verbose, budget=_solver_budget(budget, instance),
                                   options={"mip_abs_gap": MIP_GAP})
    except BudgetExpired as exc:
        return proof.result(candidates, None, None,
                            f"time limit expired while {exc.stage}", timed_out=True)
    except RuntimeError as exc:  # HiGHS stopped with an error and no solution
        return proof.result(candidates, None, None, str(exc))
    if outcome.has_incumbent:
        try:
            found = _candidate(instance, extract(bm), "MILP")
        except RuntimeError:
            found = None
        if found is not None:
            candidates.append(found)
    return proof.result(candidates, bm, outcome, outcome.message,
                        timed_out=outcome.status is Status.TIME_LIMIT)


#: Seconds kept back from HiGHS for reading the solution back, plus per model variable.
EXTRACT_RESERVE_S = (0.1, 5e-6)

#: Rough cost of building the model (seconds per integer variable, on a 2-core machine
#: of 2024) and of translating it for HiGHS (times the building time): used only to
#: stop early when the time left cannot cover them, as neither can be interrupted
#: cheaply (the translation not at all).
_BUILD_S_PER_VAR = 1.5e-5
_TRANSLATE_FACTOR = 1.7


def _check_room(budget: TimeBudget, needed: float, stage: str) -> None:
    """Raise :class:`BudgetExpired` now if ``needed`` seconds (estimated) do not fit."""
    remaining = budget.remaining()
    if remaining is not None and needed + EXTRACT_RESERVE_S[0] > remaining:
        raise BudgetExpired(f"{stage} (about {needed:.2g} s needed, "
                            f"{remaining:.2g} s left)", float(budget.seconds or 0.0))


def _solver_budget(budget: TimeBudget, instance: Instance) -> TimeBudget:
    """What HiGHS may use of ``budget``: the rest minus time to read back and check."""
    remaining = budget.remaining()
    if remaining is None:
        return budget
    base, per_var = EXTRACT_RESERVE_S
    reserve = base + per_var * instance.n_bots * instance.n_procs
    return TimeBudget(max(0.0, remaining - reserve))


#: Share of the remaining time the one-block model may use to find a warm start.
ONE_BLOCK_SHARE = 0.3


def _one_block_start(instance: Instance, candidates: list[_Candidate], proof: _Proof,
                     budget: TimeBudget) -> _Candidate | None:
    """A warm start from the one-block DAG model (a fast restriction; gap 1e-6).

    Its schedule is usually optimal, so the exact model then gets a tight
    horizon (big-M) and only has to prove it: about twice as fast overall on
    the benchmark's DAG instances.
    """
    # Room for this model and the exact one, or skip it (BudgetExpired).
    _check_room(budget, 2 * _BUILD_S_PER_VAR * model_size(instance) * (1 + _TRANSLATE_FACTOR),
                "building the one-block model")
    best = proof.best(candidates)
    horizon = _horizon(instance, best.solution if best else None)
    bm = build(instance, horizon=horizon, budget=budget, max_blocks=1)
    warm = best is not None and warm_start(bm, best.solution)
    remaining = budget.remaining()
    share = None if remaining is None else remaining * ONE_BLOCK_SHARE
    out = solve_with_highs(bm.model, time_limit=share, mip_rel_gap=1e-6, warm_start=warm,
                           budget=budget)
    if not out.has_incumbent:
        return None
    return _candidate(instance, extract(bm), "one-block MILP")


class _Proof:
    """What is proven about one instance and objective, and the result it supports."""

    def __init__(self, instance: Instance, objective: str):
        self.instance = instance
        self.objective = objective
        if objective == "makespan":
            self.makespan_bound = lower_bound(instance)
            self.cost_bound = math.nan
        else:
            self.cost_bound = min_cost(instance)
            # Min-cost schedules use cheapest sites only: the bounds restricted to them.
            self.makespan_bound = lower_bound(instance, sites=cheapest_sites(instance))

    def key(self, c: _Candidate) -> tuple[float, float]:
        """Lexicographic order: (makespan, cost) or (cost at claim resolution, makespan)."""
        if self.objective == "makespan":
            return (c.makespan, c.cost)
        at_min = _meets(c.cost, self.cost_bound)
        return (self.cost_bound if at_min else c.cost, c.makespan)

    def best(self, candidates: list[_Candidate]) -> _Candidate | None:
        """The best candidate (the MILP's on ties)."""
        if not candidates:
            return None
        return min(candidates, key=lambda c: (*self.key(c), c.origin != "MILP"))

    def result(self, candidates: list[_Candidate], bm: BotModel | None,
               outcome: SolveOutcome | None, message: str, timed_out: bool = False
               ) -> Result:
        """The result for the best candidate, claiming only what the bounds prove."""
        instance = self.instance
        model_bound = None
        notes: list[str] = [message] if message else []
        if outcome is not None and bm is not None:
            if outcome.status is Status.INFEASIBLE:
                notes.append("the restricted model is infeasible (proves nothing)"
                             if _restricted(instance) else
                             "HiGHS reported the model infeasible although a valid schedule "
                             "is known (numerical trouble)")
            elif (outcome.bound is not None and not _restricted(instance)
                  and outcome.status in (Status.OPTIMAL, Status.TIME_LIMIT)):
                model_bound = float(outcome.bound)
            elif _restricted(instance) and outcome.status is Status.OPTIMAL:
                notes.append("MILP optimal under the static limit rule only (a restriction): "
                             "makespans are certified by the fluid/critical-path bound")
        span_bound = self.makespan_bound
        if model_bound is not None:
            span_bound = max(span_bound, model_bound)
        slack = solver_slack(bm) if model_bound is not None and bm is not None else 0.0
        best = self.best(candidates)
        if best is None:
            return Result("exact", "bot-sites", Status.NO_SOLUTION,
                          bound=span_bound if self.objective == "makespan" else self.cost_bound,
                          message="; ".join(notes) or "no schedule found")
        span_proven = _meets(best.makespan, self.makespan_bound) or (
            model_bound is not None and _meets(best.makespan, model_bound, slack))
        metrics: dict[str, Any] = {"schedule_from": best.origin}
        if self.objective == "makespan":
            proven = span_proven
            bound = min(span_bound, best.makespan)
        else:
            proven = _meets(best.cost, self.cost_bound)
            bound = min(self.cost_bound, best.cost)
            metrics["makespan_bound"] = min(span_bound, best.makespan)
            metrics["makespan_proven_minimal"] = bool(span_proven)
            metrics["optimised"] = "cost, then makespan"
            notes.append("cost proven minimal" if proven else "cost not proven minimal")
            notes.append("makespan proven minimal among min-cost schedules" if span_proven
                         else "makespan among min-cost schedules not proven minimal")
        status = (Status.OPTIMAL if proven
                  else Status.TIME_LIMIT if timed_out else Status.FEASIBLE)
        if proven:   # proven within CLAIM_RTOL: report the optimum as its own bound
            bound = best.makespan if self.objective == "makespan" else best.cost
        if best.origin != "MILP" and bm is not None:
            notes.append(f"schedule is the {best.origin}")
        return Result("exact", "bot-sites", status, solution=best.solution, bound=bound,
                      message="; ".join(n for n in notes if n), metrics=metrics)
