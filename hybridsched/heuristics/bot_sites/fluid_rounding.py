"""A schedule from the fluid LP: for BoTs of thousands of tasks, close to the bound.

With 10^4 tasks per BoT the fluid LP (:mod:`hybridsched.bot_sites.bounds`)
is nearly tight: integrality costs about one task time per processor. This
heuristic turns its solution into a schedule:

1. solve a *phased* fluid LP (:func:`fluid_split`: one phase per DAG level,
   so that the split respects the DAG) restricted to the (BoT, site) pairs
   with ``p <= C``, ``C`` the family's cheap bound (Lenstra, Shmoys and
   Tardos' restriction: no task longer than the bound), and read the tasks
   of each BoT per site and phase;
2. round each BoT's split to integers (largest remainders, same total);
3. on each site, deal the BoTs' tasks to its processors, phase by phase
   (within a phase, the longest DAG tail first), each spread over the least loaded
   processors by water filling;
4. time the blocks with :func:`~hybridsched.bot_sites.limits.retime` (each
   block as early as its processor, its predecessors and the hard limits
   allow), so the schedule passes the checker by construction.

The LPs are tried with several caps on the task length (:data:`TASK_SHARES`)
and the best schedule is kept. Deterministic (no randomness); ``None`` when
every LP fails.
"""

from __future__ import annotations

import time

import highspy
import numpy as np

from hybridsched.bot_sites.bound_check import windows
from hybridsched.bot_sites.bounds import lower_bound
from hybridsched.bot_sites.checker import LIMIT_TOL, completion_times
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import allowed_pairs, retime
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import TimeBudget


def phase_windows(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    """Earliest and latest phase of each BoT: its DAG level, and one before its successors'."""
    level = dag_levels(instance)
    phases = int(level.max()) + 1 if instance.n_bots else 1
    succs = instance.successors
    last = np.array([min((level[s] for s in succs[k]), default=phases) - 1
                     for k in range(instance.n_bots)], dtype=np.int64)
    return level, last


def fluid_split(instance: Instance, ok: np.ndarray) -> np.ndarray | None:
    """``(K, M, L)`` tasks per site and DAG phase of the phased fluid LP over the pairs ``ok``.

    The horizon is cut into one phase per DAG level; a BoT runs only in the
    phases from its level to the one before its earliest successor's, so
    that the phases' order makes the DAG hold; each site's work and
    resource-time in a phase fit its processors and limits over the phase's
    length; the sum of the lengths is minimised. Without a DAG this is the
    fluid LP.
    """
    K, M = instance.n_bots, instance.n_sites
    first, last = phase_windows(instance)
    L = int(first.max()) + 1
    rows_of = []
    if instance.hard_limits:
        rate = instance.rate
        if rate is not None and instance.site_bandwidth is not None:
            rows_of.append((rate * instance.p, np.asarray(instance.site_bandwidth, float)))
        if instance.storage is not None and instance.storage_limit is not None:
            rows_of.append((np.asarray(instance.storage, float)[:, None] * instance.p,
                            np.asarray(instance.storage_limit, float)))
    R = 1 + len(rows_of)                     # capacity rows per (site, phase)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    inf = highspy.kHighsInf
    n_rows = K + M * L * R
    tasks = instance.tasks.astype(float)
    h.addRows(n_rows, np.concatenate((tasks, np.full(n_rows - K, -inf))),
              np.concatenate((tasks, np.zeros(n_rows - K))), 0, np.zeros(0, np.int32),
              np.zeros(0, np.int32), np.zeros(0))

    def row(i: int, j: int, r: int) -> int:
        return K + (j * M + i) * R + r

    cells = []
    for k, i in zip(*np.nonzero(ok), strict=True):
        for j in range(int(first[k]), int(last[k]) + 1):
            rows = [int(k)] + [row(int(i), j, r) for r in range(R)]
            vals = [1.0, float(instance.p[k, i])] + [float(use[k, i]) for use, _ in rows_of]
            h.addCol(0.0, 0.0, inf, len(rows), np.array(rows, np.int32), np.array(vals))
            cells.append((int(k), int(i), j))
    for j in range(L):                       # the phase lengths
        rows = [row(i, j, r) for i in range(M) for r in range(R)]
        vals = []
        for i in range(M):
            vals.append(-float(instance.procs[i]))
            vals += [-float(limit[i]) * (1 + LIMIT_TOL) for _, limit in rows_of]
        h.addCol(1.0, 0.0, inf, len(rows), np.array(rows, np.int32), np.array(vals))
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    values = np.maximum(np.array(h.getSolution().col_value)[:len(cells)], 0.0)
    y = np.zeros((K, M, L))
    for (k, i, j), v in zip(cells, values, strict=True):
        y[k, i, j] = v
    return y


def round_split(y: np.ndarray, tasks: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Integer split per BoT with the same totals (largest remainders over the cells ``ok``).

    ``y`` and ``ok`` have the same shape: one row per BoT, any shape after it.
    """
    shape = y.shape
    y = y.reshape(len(tasks), -1)
    ok = ok.reshape(len(tasks), -1)
    counts = np.where(ok, np.floor(y + 1e-9), 0).astype(np.int64)
    for k in range(len(tasks)):
        short = int(tasks[k]) - int(counts[k].sum())
        if short < 0:                       # float excess: take from the largest shares
            for c in np.argsort(-counts[k], kind="stable")[:-short]:
                counts[k, c] -= 1
        elif short > 0:
            remainder = np.where(ok[k], y[k] - counts[k], -np.inf)
            for c in np.argsort(-remainder, kind="stable")[:short]:
                counts[k, c] += 1
    return counts.reshape(shape)


def _spread(loads: np.ndarray, duration: float, n: int) -> np.ndarray:
    """Tasks per processor that finish ``n`` tasks of ``duration`` earliest (water filling)."""
    lo, hi = float(loads.min()), float(loads.min()) + n * duration
    for _ in range(100):
        mid = (lo + hi) / 2
        if np.floor(np.maximum(mid - loads, 0.0) / duration).sum() >= n:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-9 * max(1.0, hi):
            break
    counts = np.floor(np.maximum(hi - loads, 0.0) / duration).astype(np.int64)
    extra = int(counts.sum()) - n
    order = np.argsort(-(loads + counts * duration), kind="stable")
    j = 0
    while extra > 0:                        # drop from the latest finishers
        q = order[j % len(order)]
        if counts[q] > 0:
            counts[q] -= 1
            extra -= 1
        j += 1
    while counts.sum() < n:
        q = int(np.argmin(loads + (counts + 1) * duration))
        counts[q] += 1
    return counts


def dag_levels(instance: Instance) -> np.ndarray:
    """Longest number of edges from a source to each BoT."""
    level = np.zeros(instance.n_bots, dtype=np.int64)
    preds = instance.predecessors
    for k in instance.topological_order():
        level[k] = max((level[a] + 1 for a in preds[k]), default=0)
    return level


#: Longest task allowed, as a share of the cheap bound, in the LPs tried: shorter tasks
#: make rounding cheaper (a processor overruns by at most one task) at some loss in the LP.
TASK_SHARES = (1.0, 0.2, 0.05, 0.02)


def fluid_rounding(instance: Instance, budget: TimeBudget | None = None) -> Solution | None:
    """The best schedule of the module docstring over :data:`TASK_SHARES`, or ``None``.

    A further task cap is tried only while ``budget`` leaves twice the time
    the previous one took.
    """
    if instance.n_bots == 0:
        return None
    allowed = allowed_pairs(instance)
    if not allowed.any(axis=1).all():
        return None
    bound = lower_bound(instance)
    best, best_span = None, float("inf")
    spent = 0.0
    for share in TASK_SHARES:
        left = None if budget is None else budget.remaining()
        if best is not None and left is not None and left < 2 * spent:
            break                            # the next try would likely overrun
        started = time.perf_counter()
        ok = allowed & (instance.p <= bound * share * (1 + 1e-9))
        if not ok.any(axis=1).all():
            if share < 1.0:
                break
            ok = allowed
        found = _from_split(instance, ok)
        if found is not None:
            span = float(completion_times(instance, found).max(initial=0.0))
            if span < best_span:
                best, best_span = found, span
        spent = time.perf_counter() - started
    return best


def _from_split(instance: Instance, ok: np.ndarray) -> Solution | None:
    """Round, deal and time the phased fluid split over the pairs ``ok``."""
    y = fluid_split(instance, ok)
    if y is None:
        return None
    counts = round_split(y, instance.tasks, y > 0)
    first, last = phase_windows(instance)
    offset = instance.proc_offset
    topo_rank = np.empty(instance.n_bots, dtype=np.int64)
    topo_rank[instance.topological_order()] = np.arange(instance.n_bots)
    _, tail, _ = windows(instance)
    # By DAG level, and within a level the BoTs with the longest way to the end first,
    # so that successors are released early.
    order = sorted(range(instance.n_bots), key=lambda k: (-tail[k], topo_rank[k]))
    bots, procs, sizes, keys = [], [], [], []
    steps = [(j, k) for j in range(counts.shape[2]) for k in order]
    for i in range(instance.n_sites):
        loads = np.zeros(int(instance.procs[i]))
        for rank, (j, k) in enumerate(steps):
            n = int(counts[k, i, j])
            if n == 0:
                continue
            d = float(instance.p[k, i])
            share = _spread(loads, d, n)
            for q in np.flatnonzero(share):
                bots.append(k)
                procs.append(int(offset[i] + q))
                sizes.append(int(share[q]))
                keys.append(float(rank))
            loads = loads + share * d
    return retime(instance, np.array(bots), np.array(procs), np.array(sizes),
                  np.array(keys, dtype=float), notes={"method": "fluid-rounding"})
