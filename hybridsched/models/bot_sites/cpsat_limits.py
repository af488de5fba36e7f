"""The bot-sites CP-SAT model under hard limits: one interval per task, sites as pools.

Used by :mod:`hybridsched.models.bot_sites.cpsat` when the instance has hard
bandwidth/storage limits (the checker reads them over time). Written from
the problem's definition (:mod:`hybridsched.bot_sites.checker`):

* **Tasks, not blocks.** Every task ``t`` of BoT ``k`` gets one start
  ``s_t`` and one optional fixed-size interval per allowed site ``i``
  (presence ``x[t, i]``, size ``d[k, i]``), exactly one present. The tasks of
  a BoT are identical, so they are ordered by (site, start): site indices
  non-decreasing and, on one site, starts non-decreasing (valid: renaming
  identical tasks maps every schedule to one in that order). No block
  counts, so no symmetric ways of splitting a run into blocks.
* **Processors as a pool.** A site's ``m_i`` identical processors are one
  ``Cumulative`` of capacity ``m_i`` with unit demands (``NoOverlap`` when
  ``m_i = 1``): intervals with at most ``m_i`` running at any instant can be
  put on ``m_i`` processors (interval graphs are perfect: assign by start,
  :mod:`~hybridsched.models.bot_sites.cpsat_limits_extract`), and conversely.
  No processor labels, so no symmetry between identical processors.
* **Limits.** One ``Cumulative`` per site and resource (bandwidth, storage)
  with each task's use; a DAG edge ``a -> b`` is ``F_a <= S_b`` with
  ``F_a >= end_t`` over the tasks of ``a`` and ``S_b <= s_t`` over those of
  ``b``; ``C >= end_t``. Redundant: each site's load ``sum d x <= m_i C``.

**Scaling (why the bound holds).** Times are multiplied by ``factor``
(:func:`limits_scaling`) and durations rounded *down*; uses are multiplied by
their own per-resource factor (:func:`demand_factor`), rounded *down*, and
the capacity is ``floor(limit * (1 + LIMIT_TOL) * g)``. A real schedule that
respects the rules exactly (every schedule the checker accepts does, in the
real times it judges), with every start ``s`` mapped to
``floor(s * factor)``, is then feasible in the model: ends only move earlier
(``floor(s f) + floor(p f) <= floor((s + p) f)``), two model intervals
overlap only if the real ones do, so (Helly) a set running together in the
model runs together in reality, and a sum of floors is at most the floor of
the sum. The model is a relaxation, its bound (over ``factor``) is valid for
the real problem. When every duration is a decimal that ``factor`` makes an
integer, times are exact. ``factor`` is chosen so that re-timing the model's
schedule with real durations (at most one unit lost per task on any chain)
stays within half the claim tolerance of the model's makespan: a proven model
optimum then yields a schedule the claim rule accepts.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from hybridsched.bot_sites.checker import LIMIT_TOL, real_times
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import allowed_pairs
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import TimeBudget
from hybridsched.models.bot_sites.cpsat_build import TIME_RANGE, limit_data
from hybridsched.models.solvers.cpsat import Scaling, decimal_scale, require_ortools

#: Room left below int64 for products of a demand and a scaled time.
PRODUCT_RANGE = 2**60

#: Relative slack of the claim rule the re-timing loss may use (of ``CLAIM_RTOL``).
CLAIM_SHARE = 0.25

#: The claim rule's relative tolerance (``claims.CLAIM_RTOL``).
CLAIM_RTOL = 1e-9

#: Relative floating-point noise allowed for in the rounding of uses and limits.
NOISE = 1e-12

#: Largest number of self-conflicting BoTs whose subsets are searched for cliques.
CLIQUE_BOTS = 12

STAGE_BUILD = "building the CP-SAT model"


@dataclass
class LimitsModel:
    """A built task-interval model and what reading it back needs.

    ``bot[t]`` is task ``t``'s BoT; ``starts[t]`` its start variable;
    ``present[t]`` maps each candidate site to its presence literal;
    ``duration`` is one task's model time per (BoT, site).
    """

    model: Any
    instance: Instance
    scaling: Scaling
    duration: np.ndarray
    makespan: Any
    lower: int
    upper: int
    allowed: np.ndarray
    bot: np.ndarray
    starts: list[Any] = field(default_factory=list)
    present: list[dict[int, Any]] = field(default_factory=list)


def limits_scaling(instance: Instance, horizon: float, lower: float) -> Scaling:
    """Exact decimal scaling of the durations when small enough; else the claim-driven grid.

    The grid loses less than one unit per task along any chain when the
    schedule is re-timed with the real durations; with ``n`` tasks the loss
    is below ``(n + 1) / factor``, kept under ``CLAIM_SHARE * CLAIM_RTOL``
    of the makespan (at least ``lower``, floor 1).
    """
    allowed = allowed_pairs(instance)
    need = (instance.n_tasks + 1) / (CLAIM_SHARE * CLAIM_RTOL * max(1.0, lower))
    exact = decimal_scale(instance.p[allowed].ravel(), largest=TIME_RANGE)
    if exact.exact and horizon * exact.factor <= TIME_RANGE:
        return exact
    factor = 10 ** max(0, math.ceil(math.log10(need)))
    # A coarser grid only when the horizon would not fit (the bound stays valid).
    while factor > 1 and horizon * factor > TIME_RANGE:
        factor //= 10
    return Scaling(factor, False)


def _floor(scaling: Scaling, value: float) -> int:
    """``value * factor`` rounded down: exact decimal scaling, else the float's exact value.

    (``Scaling.down`` allows 1e-9 of noise upwards, right for decimal data but
    not for a relaxation's rounding of arbitrary reals.)
    """
    if scaling.exact:
        return scaling.down(value)
    return math.floor(Fraction(float(value)) * scaling.factor)


def demand_factor(use: np.ndarray, limit: np.ndarray, upper: int) -> float:
    """Per-resource multiplier of uses and limits: as fine as int64 products allow."""
    top = float(np.max(limit)) * (1 + LIMIT_TOL)
    room = PRODUCT_RANGE / max(1, upper) / max(1.0, float(len(use.ravel())))
    return max(1.0, min(room, 1e9)) / max(top, 1e-300)


def build_limits(instance: Instance, *, horizon: float, lower: float = 0.0,
                 sites: np.ndarray | None = None, hint: Solution | None = None,
                 budget: TimeBudget | None = None, scaling: Scaling | None = None
                 ) -> LimitsModel:
    """Build the minimum-makespan model of the module docstring.

    Parameters are those of :func:`~hybridsched.models.bot_sites.cpsat_build.build`.
    """
    cp = require_ortools()
    scaling = scaling or limits_scaling(instance, horizon, lower)
    duration = np.array([[_floor(scaling, v) for v in row] for row in instance.p],
                        dtype=np.int64)
    upper = scaling.up(horizon)
    low = max(0, min(upper, _floor(scaling, lower)))
    ok = allowed_pairs(instance) & (duration <= upper)
    if sites is not None:
        ok &= sites
    m = cp.CpModel()
    C = m.new_int_var(low, upper, "C")
    m.minimize(C)
    bot = np.repeat(np.arange(instance.n_bots), instance.tasks)
    lm = LimitsModel(m, instance, scaling, duration, C, low, upper, ok, bot)
    M = instance.n_sites
    on_site: list[list[tuple[Any, int, int]]] = [[] for _ in range(M)]   # (interval, k, lit)
    loads: list[list[tuple[int, Any]]] = [[] for _ in range(M)]
    first = [m.new_int_var(0, upper, f"S{k}") for k in range(instance.n_bots)]
    last = [m.new_int_var(0, upper, f"F{k}") for k in range(instance.n_bots)]
    for t, k in enumerate(bot.tolist()):
        cand = np.flatnonzero(ok[k]).tolist()
        if not cand:   # no site fits: infeasible model (the caller catches this first)
            m.add_bool_or([])
            cand = []
        longest = max((int(duration[k, i]) for i in cand), default=0)
        s = m.new_int_var(0, max(0, upper - min((int(duration[k, i]) for i in cand),
                                                default=0)), f"s{t}")
        lits: dict[int, Any] = {}
        for i in cand:
            lit = m.new_constant(1) if len(cand) == 1 else m.new_bool_var(f"x{t}_{i}")
            d = int(duration[k, i])
            iv = m.new_optional_fixed_size_interval_var(s, d, lit, f"I{t}_{i}")
            on_site[i].append((iv, k, len(lm.starts)))
            loads[i].append((d, lit))
            lits[i] = lit
        if len(cand) > 1:
            m.add_exactly_one(list(lits.values()))
        end = s + sum(int(duration[k, i]) * lits[i] for i in cand) if len(cand) > 1 \
            else s + longest
        m.add(end <= C)
        m.add(last[k] >= end)
        m.add(first[k] <= s)
        lm.starts.append(s)
        lm.present.append(lits)
        if budget is not None:
            budget.check(STAGE_BUILD)
    _order_identical_tasks(lm)
    if len(instance.edges):
        _bot_spans(lm, first, last, loads, on_site)
    for a, b in instance.edges.tolist():
        m.add(first[b] >= last[a])
    for i in range(M):
        if not on_site[i]:
            continue
        ivs = [iv for iv, _, _ in on_site[i]]
        procs = int(instance.procs[i])
        if procs == 1:
            m.add_no_overlap(ivs)
        elif len(ivs) > procs:
            m.add_cumulative(ivs, [1] * len(ivs), procs)
        m.add(sum(d * lit for d, lit in loads[i]) <= procs * C)
    _exclusive_tasks(lm, on_site, loads)
    for use, limit in limit_data(instance):
        g = demand_factor(use, limit, upper)
        for i in range(M):
            if not on_site[i]:
                continue
            # Floating-point noise goes the relaxation's way (larger cap, smaller uses).
            cap = math.floor(float(limit[i]) * (1 + LIMIT_TOL) * g * (1 + NOISE))
            demand = [min(cap, math.floor(float(use[k, i]) * g * (1 - NOISE)))
                      for _, k, _ in on_site[i]]
            if sum(demand) > cap:
                m.add_cumulative([iv for iv, _, _ in on_site[i]], demand, cap)
                # Redundant energy: the use-time area fits under cap * C.
                m.add(sum(dm * int(duration[k, i]) * lits
                          for dm, (_, k, _), (_, lits) in zip(demand, on_site[i], loads[i],
                                                              strict=True)) <= cap * C)
    if hint is not None:
        add_task_hint(lm, hint)
    return lm


def _exclusive_tasks(lm: LimitsModel, on_site: list[list[tuple[Any, int, int]]],
                     loads: list[list[tuple[int, Any]]]) -> None:
    """Redundant ``NoOverlap`` per site over tasks that two at a time break a limit.

    Two tasks of BoTs ``a`` and ``b`` (``a = b`` allowed) *conflict* on site
    ``i`` when their uses of some resource add up beyond the limit (with the
    checker's tolerance): they never run together there in a real schedule.
    For every maximal set of BoTs that pairwise conflict, themselves included
    (subsets of at most :data:`CLIQUE_BOTS` BoTs), their tasks on the site
    form a disjunctive set: a ``NoOverlap`` (much stronger propagation than
    the cumulative's) and the row ``sum d x <= C``.
    """
    inst, m = lm.instance, lm.model
    resources = limit_data(inst)
    K = inst.n_bots
    for i in range(inst.n_sites):
        if int(inst.procs[i]) == 1 or not on_site[i]:
            continue   # already a NoOverlap
        clash = np.zeros((K, K), dtype=bool)
        for use, limit in resources:
            u = use[:, i]
            clash |= u[:, None] + u[None, :] > float(limit[i]) * (1 + LIMIT_TOL) * (1 + NOISE)
        present = sorted({k for _, k, _ in on_site[i]})
        for group in _maximal_cliques(clash, present):
            chosen = [(iv, d, lit) for (iv, k, _), (d, lit) in
                      zip(on_site[i], loads[i], strict=True) if k in group]
            if len(chosen) > 1:
                m.add_no_overlap([iv for iv, _, _ in chosen])
                m.add(sum(d * lit for _, d, lit in chosen) <= lm.makespan)


def _bot_spans(lm: LimitsModel, first: list[Any], last: list[Any],
               loads: list[list[tuple[int, Any]]],
               on_site: list[list[tuple[Any, int, int]]]) -> None:
    """Redundant (DAG): a BoT's tasks on a site fit in ``[S_k, F_k]`` on its processors.

    At most ``m_i`` of them run at once, and one when two of its tasks break
    a limit together; so their total time is at most that many times
    ``F_k - S_k`` (LP rows that carry the DAG's critical path).
    """
    inst, m = lm.instance, lm.model
    resources = limit_data(inst)
    for i in range(inst.n_sites):
        width = np.full(inst.n_bots, int(inst.procs[i]))
        for use, limit in resources:
            alone = 2 * use[:, i] > float(limit[i]) * (1 + LIMIT_TOL) * (1 + NOISE)
            width[alone] = 1
        for k in range(inst.n_bots):
            terms = [(d, lit) for (d, lit), (_, kk, _) in zip(loads[i], on_site[i], strict=True)
                     if kk == k]
            if terms:
                m.add(sum(d * lit for d, lit in terms) <= int(width[k]) * (last[k] - first[k]))


def _maximal_cliques(clash: np.ndarray, bots: list[int]) -> list[set[int]]:
    """Maximal sets of ``bots`` pairwise in ``clash`` (each with itself), small K only."""
    selfish = [k for k in bots if clash[k, k]]
    if len(selfish) > CLIQUE_BOTS:   # too many subsets: the BoTs one by one
        return [{k} for k in selfish]
    cliques: list[set[int]] = []
    for size in range(len(selfish), 0, -1):
        for group in itertools.combinations(selfish, size):
            if all(clash[a, b] for a, b in itertools.combinations(group, 2)) \
                    and not any(set(group) <= c for c in cliques):
                cliques.append(set(group))
    return cliques


def _order_identical_tasks(lm: LimitsModel) -> None:
    """Tasks of one BoT by (site, start): site index non-decreasing, then starts."""
    m = lm.model
    for t in range(len(lm.bot) - 1):
        if lm.bot[t] != lm.bot[t + 1]:
            continue
        a, b = lm.present[t], lm.present[t + 1]
        if len(a) > 1:
            m.add(sum(i * lit for i, lit in a.items()) <= sum(i * lit for i, lit in b.items()))
        for i in a:
            if len(a) == 1:
                m.add(lm.starts[t] <= lm.starts[t + 1])
            else:
                m.add(lm.starts[t] <= lm.starts[t + 1]).only_enforce_if([a[i], b[i]])


def task_times(instance: Instance, solution: Solution) -> tuple[np.ndarray, np.ndarray,
                                                                 np.ndarray]:
    """``(bot, site, start)`` of every task of ``solution``, sorted by (BoT, site, start).

    Starts are the checker's real times (the stated ones are only claims).
    """
    reps = solution.count
    bot = np.repeat(solution.bot, reps)
    site = np.repeat(solution.site, reps)
    offset = np.concatenate([np.arange(c) for c in reps]) if len(reps) else np.zeros(0)
    first = real_times(instance, solution).start
    start = np.repeat(first, reps) + offset * instance.p[bot, site]
    order = np.lexsort((start, site, bot))
    return bot[order], site[order], start[order]


def add_task_hint(lm: LimitsModel, solution: Solution) -> bool:
    """Give ``solution``'s task starts (rounded down: still feasible) as CP-SAT's hint."""
    bot, site, start = task_times(lm.instance, solution)
    if len(bot) != len(lm.bot) or not np.array_equal(bot, lm.bot):
        return False
    if not all(int(i) in lm.present[t] for t, i in enumerate(site.tolist())):
        return False
    m = lm.model
    span = 0
    for t, (i, s) in enumerate(zip(site.tolist(), start.tolist(), strict=True)):
        value = lm.scaling.down(float(s))
        m.add_hint(lm.starts[t], value)
        span = max(span, value + int(lm.duration[lm.bot[t], i]))
        for j, lit in lm.present[t].items():
            if len(lm.present[t]) > 1:
                m.add_hint(lit, int(j == i))
    m.add_hint(lm.makespan, min(lm.upper, max(lm.lower, span)))
    return True
