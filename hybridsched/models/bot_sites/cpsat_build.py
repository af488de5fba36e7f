"""The bot-sites CP-SAT model, written from the problem's definition: data scaling and building.

The problem (:mod:`hybridsched.bot_sites.checker` is its definition): every
task of every BoT runs on one processor, tasks on a processor never overlap,
a BoT starts after every task of its DAG predecessors has finished, and with
hard limits the bandwidth and storage in use on a site never exceed its
limits (``use / limit <= 1 + LIMIT_TOL``, the checker's rule). The makespan
is the last finish.

Two models (:func:`build`):

* **Assignment** (no DAG, no hard limits): ``x[k, q]``, the number of tasks
  of BoT ``k`` on processor ``q`` (a literal when ``delta_k = 1``, as on the
  Braun matrices), ``sum_q x[k, q] = delta_k`` and ``C >= sum_k p x[k, q]``:
  the tasks of a processor run back to back in any order, so this is the
  makespan exactly.
* **Timed** (a DAG or hard limits): *blocks* ``(k, q, b)``, optional interval
  variables of ``xb * p`` time holding ``xb >= 1`` tasks of BoT ``k`` back to
  back on processor ``q`` (``b`` below ``B_k``); one ``NoOverlap`` per
  processor; ``S_k <= start``, ``end <= F_k <= C`` for present blocks and
  ``F_a <= S_b`` per DAG edge; with hard limits one ``Cumulative`` per site
  and resource (demand: one task's use, capacity: the limit with the
  checker's tolerance). ``B_k`` is
  :func:`~hybridsched.models.bot_sites.dag.block_bound` with a DAG and no
  limits (its proof: some optimal schedule needs no more runs), and
  ``delta_k`` with hard limits (one block per task always suffices).
  Blocks of one (BoT, processor) are used in order and do not overlap.

Both models break only the symmetry of identical processors of a site (non
increasing loads, valid: exchanging the whole schedules of two identical
processors keeps every constraint, limits included), drop pairs where one
task alone breaks a hard limit or exceeds the horizon ``C <= H`` (the
makespan of a known schedule: the optimum is never above it), and start ``C``
at a proven lower bound (the fluid/critical-path bound).

**Scaling** (:func:`time_scaling`). CP-SAT needs integers. When every
effective time ``p`` (and, with hard limits, every use and limit) is a decimal
with at most 6 places, all are scaled by the same power of ten exactly; then
some optimal schedule has every start a sum of durations (left-justified), so
it lies on the integer grid and the model's optimum is the real optimum.
Otherwise (``p = data / bandwidth`` is rarely decimal) times are scaled by
the largest power of ten that keeps the horizon within :data:`TIME_RANGE`,
durations and uses are rounded *down* and capacities *up*: a schedule that
respects the constraints exactly, with every time ``t`` mapped to
``floor(t * factor)``, is then feasible in the model (ends and overlaps only
shrink), so the model is a relaxation and its bound is valid, nothing else.
Like the HiGHS model, "respects the constraints" means exactly, and every
schedule the checker accepts does: its *real* times (the checker's rule: the
``1e-9`` relative window only snaps a stated start onto the time it must
respect) never overlap on a processor, never start a BoT before its
predecessors finish and keep the limits over time, binary64 rounding of the
recomputed sums aside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hybridsched.bot_sites.checker import LIMIT_TOL, real_times
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import allowed_pairs, limited
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import TimeBudget
from hybridsched.models.bot_sites.dag import block_bound, normalise
from hybridsched.models.solvers.cpsat import Scaling, decimal_scale, require_ortools

#: Largest scaled horizon of an inexact scaling (room below int64 for CP-SAT's sums).
TIME_RANGE = 2**50

#: Largest power of ten an inexact scaling uses.
MAX_INEXACT_FACTOR = 10**13

STAGE_BUILD = "building the CP-SAT model"


@dataclass
class CpsatBotModel:
    """A built CP-SAT model and what reading it back needs.

    ``pairs`` maps ``(k, q)`` to the count variable of the assignment model;
    ``blocks`` maps ``(k, q, b)`` to ``(presence, count, start)`` of the timed
    model. Model processor ``q`` is the instance's global processor ``q``;
    ``duration`` holds one task's time per (BoT, site) in model units and
    ``lower``/``upper`` the domain of the makespan ``C``.
    """

    model: Any
    instance: Instance
    scaling: Scaling
    timed: bool
    duration: np.ndarray
    makespan: Any
    lower: int
    upper: int
    allowed: np.ndarray
    pairs: dict[tuple[int, int], Any] = field(default_factory=dict)
    blocks: dict[tuple[int, int, int], tuple[Any, Any, Any]] = field(default_factory=dict)


def limit_data(instance: Instance) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(use[k, i], limit[i])`` of each hard resource (empty without hard limits)."""
    if not limited(instance):
        return []
    out = []
    rate = instance.rate
    if rate is not None and instance.site_bandwidth is not None:
        out.append((np.asarray(rate, dtype=float), np.asarray(instance.site_bandwidth, float)))
    if instance.storage is not None and instance.storage_limit is not None:
        use = np.repeat(np.asarray(instance.storage, float)[:, None], instance.n_sites, axis=1)
        out.append((use, np.asarray(instance.storage_limit, float)))
    return out


def model_size(instance: Instance) -> int:
    """Count and block variables the model would have (before dropping pairs by horizon)."""
    ok = allowed_pairs(instance)[:, instance.proc_site]
    if not (len(instance.edges) or limited(instance)):
        return int(ok.sum())
    B = block_bound(instance) if not limited(instance) else np.asarray(instance.tasks)
    return int((ok.sum(axis=1) * B).sum())


def time_scaling(instance: Instance, horizon: float) -> Scaling:
    """The scaling of the module docstring: exact when the data allow, else a fine grid."""
    allowed = allowed_pairs(instance)
    values = [instance.p[allowed].ravel()]
    for use, limit in limit_data(instance):
        values += [use[allowed].ravel(), limit]
    data = np.concatenate(values) if values else np.zeros(0)
    exact = decimal_scale(data, largest=TIME_RANGE)
    if exact.exact and horizon * exact.factor <= TIME_RANGE:
        return exact
    factor = 10 ** max(0, math.floor(math.log10(TIME_RANGE / max(horizon, 1.0))))
    return Scaling(min(factor, MAX_INEXACT_FACTOR), False)


def scaled_durations(instance: Instance, scaling: Scaling) -> np.ndarray:
    """``(K, M)`` one task's time in model units: exact, or rounded down (relaxation)."""
    return np.array([[scaling.down(v) for v in row] for row in instance.p], dtype=np.int64)


def build(instance: Instance, *, horizon: float, lower: float = 0.0,
          sites: np.ndarray | None = None, hint: Solution | None = None,
          budget: TimeBudget | None = None, scaling: Scaling | None = None) -> CpsatBotModel:
    """Build the minimum-makespan model (module docstring).

    Parameters
    ----------
    instance:
        The instance.
    horizon:
        Makespan of a known schedule (in the model's set): ``C <= horizon``.
    lower:
        A proven lower bound on the makespan: ``C >= lower``.
    sites:
        ``(K, M)`` booleans: the sites each BoT may use (e.g. its cheapest
        sites, for the cost objective); ``None`` for all.
    hint:
        A schedule given to CP-SAT as its starting point.
    budget:
        Checked once per BoT while building.
    scaling:
        Overrides :func:`time_scaling` (tests).
    """
    cp = require_ortools()
    scaling = scaling or time_scaling(instance, horizon)
    duration = scaled_durations(instance, scaling)
    upper = scaling.up(horizon)
    low = max(0, min(upper, scaling.down(lower)))
    ok = allowed_pairs(instance) & (duration <= upper)
    if sites is not None:
        ok &= sites
    model = cp.CpModel()
    makespan = model.new_int_var(low, upper, "C")
    model.minimize(makespan)
    timed = bool(len(instance.edges)) or limited(instance)
    bm = CpsatBotModel(model, instance, scaling, timed, duration, makespan, low, upper, ok)
    if timed:
        _timed(bm, budget)
    else:
        _assignment(bm, budget)
    if hint is not None:
        add_hint(bm, hint)
    return bm


def _check(budget: TimeBudget | None) -> None:
    if budget is not None:
        budget.check(STAGE_BUILD)


def _assignment(bm: CpsatBotModel, budget: TimeBudget | None) -> None:
    inst, m, d = bm.instance, bm.model, bm.duration
    site = inst.proc_site
    loads: list[list[tuple[int, Any]]] = [[] for _ in range(inst.n_procs)]
    for k in range(inst.n_bots):
        n = int(inst.tasks[k])
        row = []
        for q in np.flatnonzero(bm.allowed[k, site]):
            var = m.new_bool_var(f"x{k}_{q}") if n == 1 else m.new_int_var(0, n, f"x{k}_{q}")
            bm.pairs[k, int(q)] = var
            loads[q].append((int(d[k, site[q]]), var))
            row.append(var)
        if not row:   # no site fits: the model is infeasible (caught by the caller first)
            m.add_bool_or([])
        elif n == 1:
            m.add_exactly_one(row)
        else:
            m.add(sum(row) == n)
        _check(budget)
    exprs = [sum(c * v for c, v in terms) if terms else 0 for terms in loads]
    for q in range(inst.n_procs):
        if loads[q]:
            m.add(exprs[q] <= bm.makespan)
    _symmetry(bm, exprs, [bool(t) for t in loads])


def _symmetry(bm: CpsatBotModel, loads: list[Any], used: list[bool]) -> None:
    """Non-increasing loads over the identical processors of each site."""
    site = bm.instance.proc_site
    for q in range(bm.instance.n_procs - 1):
        if site[q] == site[q + 1] and (used[q] or used[q + 1]):
            bm.model.add(loads[q] >= loads[q + 1])


def _timed(bm: CpsatBotModel, budget: TimeBudget | None) -> None:
    inst, m, d, H = bm.instance, bm.model, bm.duration, bm.upper
    site = inst.proc_site
    K, N = inst.n_bots, inst.n_procs
    B = block_bound(inst) if not limited(inst) else np.asarray(inst.tasks, dtype=np.int64)
    first = [m.new_int_var(0, H, f"S{k}") for k in range(K)]
    last = [m.new_int_var(0, H, f"F{k}") for k in range(K)]
    on_proc: list[list[Any]] = [[] for _ in range(N)]
    loads: list[list[tuple[int, Any]]] = [[] for _ in range(N)]
    resources = limit_data(inst)
    demands: list[list[list[tuple[Any, int]]]] = [[[] for _ in range(inst.n_sites)]
                                                  for _ in resources]
    for k in range(K):
        n = int(inst.tasks[k])
        counts = []
        for q in np.flatnonzero(bm.allowed[k, site]):
            q, i = int(q), int(site[q])
            dur = int(d[k, i])
            previous = None
            mine: list[tuple[int, Any]] = []
            for b in range(int(B[k])):
                used = m.new_bool_var(f"z{k}_{q}_{b}")
                count = m.new_int_var(0, n, f"n{k}_{q}_{b}")
                start = m.new_int_var(0, H, f"s{k}_{q}_{b}")
                end = m.new_int_var(0, H, f"e{k}_{q}_{b}")
                interval = m.new_optional_interval_var(start, count * dur, end, used,
                                                       f"I{k}_{q}_{b}")
                m.add(count >= 1).only_enforce_if(used)
                m.add(count == 0).only_enforce_if(~used)
                m.add(start >= first[k]).only_enforce_if(used)
                m.add(end <= last[k]).only_enforce_if(used)
                if previous is not None:   # blocks used in order, one after the other
                    p_used, p_end = previous
                    m.add_implication(used, p_used)
                    m.add(start >= p_end).only_enforce_if(used)
                previous = (used, end)
                bm.blocks[k, q, b] = (used, count, start)
                on_proc[q].append(interval)
                loads[q].append((dur, count))
                counts.append(count)
                mine.append((dur, count))
                for r, (use, _) in enumerate(resources):
                    demands[r][i].append((interval, _demand(bm.scaling, float(use[k, i]))))
            # Redundant: the tasks of k on q all run within [S_k, F_k] (a strong cut).
            m.add(sum(c * v for c, v in mine) <= last[k] - first[k])
        if not counts:
            m.add_bool_or([])
        m.add(sum(counts) == n)
        m.add(last[k] >= first[k] + int(d[k][bm.allowed[k]].min(initial=1)))
        m.add(last[k] <= bm.makespan)
        _check(budget)
    for a, b in inst.edges:
        m.add(first[int(b)] >= last[int(a)])
    for q in range(N):
        if len(on_proc[q]) > 1:
            m.add_no_overlap(on_proc[q])
    for r, (_, limit) in enumerate(resources):
        for i in range(inst.n_sites):
            if demands[r][i]:
                cap = _capacity(bm.scaling, float(limit[i]))
                m.add_cumulative([iv for iv, _ in demands[r][i]],
                                 [min(dm, cap) for _, dm in demands[r][i]], cap)
    exprs = [sum(c * v for c, v in terms) if terms else 0 for terms in loads]
    for q in range(N):
        if loads[q]:
            m.add(exprs[q] <= bm.makespan)
    _symmetry(bm, exprs, [bool(t) for t in loads])


def _demand(scaling: Scaling, use: float) -> int:
    """One task's use in model units: exact, or rounded down (relaxation)."""
    return max(0, scaling.down(use))


def _capacity(scaling: Scaling, limit: float) -> int:
    """A site's limit with the checker's tolerance: exact, or rounded up with a unit spare.

    A task whose use alone is within the tolerance is allowed (the caller's
    pairs); demands are capped at the capacity so such a task can always run
    alone, exactly as the checker accepts it.
    """
    if scaling.exact:
        return scaling.down(limit * (1 + LIMIT_TOL))
    return scaling.up(limit * (1 + LIMIT_TOL)) + 1


def add_hint(bm: CpsatBotModel, solution: Solution) -> bool:
    """Give ``solution`` to CP-SAT as a hint; False when the model cannot hold it.

    Processors of a site are permuted to non-increasing loads (the symmetry
    rule); the timed model gets the
    :func:`~hybridsched.models.bot_sites.dag.normalise`-d runs (DAG, no
    limits) or the schedule's blocks as they are.
    """
    inst = bm.instance
    site, off = inst.proc_site, inst.proc_offset
    if bm.timed and not limited(inst):
        solution = normalise(inst, solution)
    glob = off[solution.site] + solution.proc
    counts = np.zeros((inst.n_bots, inst.n_procs), dtype=np.int64)
    np.add.at(counts, (solution.bot, glob), solution.count)
    loads = (counts * bm.duration[:, site]).sum(axis=0)
    position = np.arange(inst.n_procs)
    for i in range(inst.n_sites):
        block = np.arange(off[i], off[i + 1])
        position[block[np.argsort(-loads[block], kind="stable")]] = block
    proc = position[glob]
    m = bm.model
    real = real_times(inst, solution)          # the checker's real times, not the stated ones
    span = bm.scaling.up(float(real.end.max(initial=0.0)))
    if span > bm.upper:
        return False
    if not bm.timed:
        for (k, q), var in bm.pairs.items():
            m.add_hint(var, int(counts[k, np.flatnonzero(position == q)[0]]))
        m.add_hint(bm.makespan, max(bm.lower, span))
        return True
    runs: dict[tuple[int, int], list[int]] = {}
    for b in np.argsort(real.start, kind="stable"):
        runs.setdefault((int(solution.bot[b]), int(proc[b])), []).append(int(b))
    room: dict[tuple[int, int], int] = {}
    for k, q, _ in bm.blocks:
        room[k, q] = room.get((k, q), 0) + 1
    if any(len(run) > room.get(key, 0) for key, run in runs.items()):
        return False
    for (k, q, j), (used, count, start) in bm.blocks.items():
        run = runs.get((k, q), [])
        if j < len(run):
            m.add_hint(used, 1)
            m.add_hint(count, int(solution.count[run[j]]))
            m.add_hint(start, bm.scaling.down(float(real.start[run[j]])))
        else:
            m.add_hint(used, 0)
            m.add_hint(count, 0)
    m.add_hint(bm.makespan, max(bm.lower, span))
    return True
