"""The DAG part of the bot-sites makespan MILP: blocks, precedence, disjunctions.

With a DAG, BoT ``k`` runs as up to ``B_k`` blocks per processor
(:func:`block_bound`): block ``b`` holds ``xb[k, q, b]`` tasks back to back
from ``s[k, q, b]``; binaries ``z`` mark used blocks (used first), ``S_k``/``F_k``
are the BoT's start and finish with ``S_l >= F_k`` for every edge ``k -> l``,
``s >= S_k`` for used blocks, ``F_k >= s + p xb`` and ``F_k >= S_k + min p``,
``F_k - S_k >= p x[k, q]`` (the tasks of ``k`` on ``q`` fit in its window: a
valid cut that speeds proofs up about 5x), and a big-M disjunction (binary
``o``) orders every two blocks of unrelated BoTs on a processor. The big-M is
the horizon, an upper bound on ``C``
(:func:`~hybridsched.models.bot_sites.milp_build.horizon_for`): the makespan of
a valid schedule (every optimal schedule can be normalised into the model,
see below) or, for capped objectives, the fully serial schedule on the
slowest sites. :func:`add_blocks` adds these rows to the model that
:func:`~hybridsched.models.bot_sites.milp_build.build` makes.

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
implements this construction (the tests check it), and
:func:`~hybridsched.models.bot_sites.milp_schedule.warm_start` uses it. One
block per (BoT, processor), the earlier model, is *not* exact:
``tests/bot_sites/test_bot_exact_soundness.py`` has a counterexample where
the only optimal schedules split a BoT around a critical-path task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyomo.environ as pyo

from hybridsched.bot_sites.checker import real_times
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import allowed_pairs
from hybridsched.bot_sites.solution import Solution


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


def unrelated_pairs(instance: Instance) -> list[tuple[int, int]]:
    """Pairs ``(a, b)``, ``a < b``, with no DAG path between them (either direction)."""
    related = _related(instance)
    K = instance.n_bots
    return [(a, b) for a in range(K) for b in range(a + 1, K) if (a, b) not in related]


def add_blocks(m: pyo.ConcreteModel, instance: Instance, B: np.ndarray, ok: np.ndarray,
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
    quads = [(a, b, q, i, j) for a, b in unrelated_pairs(instance) for q in range(N)
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


def normalise(instance: Instance, solution: Solution) -> Solution:
    """The schedule of the module docstring's proof: at most ``B_k`` runs per (BoT, processor).

    On each processor, blocks are grouped by the release interval holding
    their start and each group is re-sequenced back to back from its first
    start in earliest-deadline order (deadline: the BoT's finish in
    ``solution``; ties by BoT index). For a valid ``solution`` the result is
    valid, no BoT finishes later, and consecutive runs of one BoT are merged.
    Starts, finishes and releases are the checker's *real* times
    (:func:`~hybridsched.bot_sites.checker.real_times`), never the stated ones.
    """
    real = real_times(instance, solution)
    finish, start = real.completion, real.start
    preds = instance.predecessors
    release = np.array([max((finish[a] for a in preds[k]), default=0.0)
                        for k in range(instance.n_bots)])
    cuts = np.unique(release)
    glob = instance.proc_offset[solution.site] + solution.proc
    p = instance.p
    out_bot, out_proc, out_count, out_start = [], [], [], []
    for q in np.unique(glob):
        on = np.flatnonzero(glob == q)
        on = on[np.argsort(start[on], kind="stable")]
        site = int(instance.proc_site[q])
        group = np.searchsorted(cuts, start[on], side="right") - 1
        for g in np.unique(group):
            members = on[group == g]
            t = float(start[members].min())
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

