"""Schedules into and out of the bot-sites makespan MILP.

:func:`warm_start` loads a schedule (normalised for the DAG model) as the
solver's starting point; :func:`extract` reads the incumbent back into a
:class:`~hybridsched.bot_sites.solution.Solution`, re-timed exactly by
:func:`~hybridsched.bot_sites.limits.retime` (which also enforces hard limits
over time), so what the solver returns is a schedule like any heuristic's,
for the family checker to judge.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyomo.environ as pyo

from hybridsched.bot_sites.checker import LIMIT_TOL, completion_times, real_times
from hybridsched.bot_sites.limits import allowed_pairs, limited, retime
from hybridsched.bot_sites.solution import Solution
from hybridsched.models.bot_sites.dag import normalise
from hybridsched.models.bot_sites.milp_build import BotModel, limit_rows


def warm_start(bm: BotModel, solution: Solution) -> bool:
    """Load ``solution`` as the starting point; False if the model cannot hold it.

    DAG models get the
    :func:`~hybridsched.models.bot_sites.dag.normalise`-d schedule; models with hard limits
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
        for name, share in limit_rows(inst):
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
    real = real_times(inst, solution)          # the checker's real times, not the stated ones
    start, end = real.start, real.end
    runs: dict[tuple[int, int], list[int]] = {}
    for b in np.argsort(start, kind="stable"):
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
            start_of[k, q, j], end_of[k, q, j] = float(start[b]), float(end[b])
        else:   # unused: parked at the end of the previous run (or at 0)
            t = float(end[run[-1]]) if run else 0.0
            values.append((m.xb[k, q, j], 0))
            values.append((m.z[k, q, j], 0))
            start_of[k, q, j] = end_of[k, q, j] = t
        values.append((m.s[k, q, j], start_of[k, q, j]))
    first = np.full(inst.n_bots, np.inf)
    last = np.zeros(inst.n_bots)
    np.minimum.at(first, solution.bot, start)
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
