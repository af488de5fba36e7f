"""The greedy family of Duan, Prodan and Li (2014), Section 4.5, for BoT instances.

Machines are the processors (sites in order, processors in order within a
site: global index ``j``); tasks are numbered BoT by BoT. Each heuristic is
the textbook task-by-task definition (Braun et al. 2001; Casanova et al.
2000) with lowest-index tie-breaking, computed BoT-aware so that it scales to
10^5 tasks while producing *exactly* the same schedule:

* Tasks of one BoT are identical, so among tied tasks the lowest index is the
  BoT's first unscheduled task, and BoTs can be compared by one row of the
  ETC matrix.
* Processors of one site are identical, so the best processor of a site for
  a task is its earliest available one (lowest index among equals), and the
  second best is found from the site's two earliest availabilities.

Completion times are computed with the same floating-point expression as the
textbook (``max(ready_j, release_k) + p_ki``), so ties resolve identically.

Workflow DAGs (our extension where the paper is silent): a task is a
candidate only when every task of every predecessor BoT is scheduled, and it
cannot start before the predecessors' last finish (its *release*). One-pass
heuristics (MET, MCT, OLB) take BoTs in topological order, lowest index first
among ready BoTs. Without edges every release is 0 and this is exactly the
textbook.

Definitions (``ct_j`` the completion time on processor ``j``, ``c_i`` the
cost ``p_ki * price_i`` of one task on site ``i``):

* G-MET: minimum execution time; draws by lowest cost (paper), then by
  earliest start, then lowest index. Earliest start spreads a BoT over the
  identical processors of its fastest site ("serializes most tasks on the
  fastest site"); strict lowest-index ties would put a whole BoT on one
  processor. On one-processor sites (Braun) this is the textbook MET.
* G-MCT: minimum completion time. G-OLB: earliest start (availability),
  ignoring execution time and cost.
* G-Min-min / G-Max-min: for every candidate task its minimum completion
  time; schedule the task with the smallest / largest one.
* G-Sufferage (as in Section 4.5, Casanova et al. style): schedule the task
  with the largest difference between its second-best and best completion
  times over all processors (0 when there is a single processor).

Cost-driven variants (``objective="cost"``; "... or cost" in Section 4.5):
machines are compared by ``(c_i, ct_j)`` lexicographically, Min-min/Max-min
compare tasks by ``(best cost, its completion time)``, and Sufferage uses the
difference ``(c2 - c1, ct2 - ct1)`` compared lexicographically. G-MET
compares ``(c_i, p_ki)`` then earliest start. G-OLB ignores cost by
definition and is unchanged. With all prices 0 the cost variants equal the
makespan ones.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution, from_task_assignments
from hybridsched.errors import InputError
from hybridsched.heuristics.bot_sites.dag import release_successors

OBJECTIVES = ("makespan", "cost")


def _check_objective(objective: str) -> None:
    if objective not in OBJECTIVES:
        raise InputError(f"--objective: must be one of {', '.join(OBJECTIVES)}, "
                         f"got {objective!r}")


class _Recorder:
    """Collects one (bot, processor, start) entry per task."""

    def __init__(self, n: int) -> None:
        self.bot = np.zeros(n, dtype=np.int64)
        self.proc = np.zeros(n, dtype=np.int64)
        self.start = np.zeros(n)
        self.n = 0

    def add(self, k: int, j: int, s: float) -> None:
        self.bot[self.n], self.proc[self.n], self.start[self.n] = k, j, s
        self.n += 1

    def solution(self, instance: Instance, method: str, objective: str) -> Solution:
        return from_task_assignments(instance, self.bot[: self.n], self.proc[: self.n],
                                     self.start[: self.n],
                                     notes={"method": method, "objective": objective})


def _one_pass(instance: Instance, method: str, objective: str,
              heap_for: Callable[[int, float, list[float]], list[tuple]],
              push_key: Callable[[int, int, float], tuple]) -> Solution:
    """Shared loop of G-MET, G-MCT and G-OLB (BoTs in topological order).

    ``heap_for(k, release, mat)`` builds the heap of candidate processors for
    BoT ``k``; entries end with ``(..., j, start)``. ``push_key(k, j, end)``
    is the entry of processor ``j`` once it is free at ``end``.
    """
    _check_objective(objective)
    rec = _Recorder(instance.n_tasks)
    site_of = instance.proc_site.tolist()
    p = instance.p.tolist()
    mat = [0.0] * instance.n_procs
    finish = [0.0] * instance.n_bots
    preds = instance.predecessors
    for k in instance.topological_order():
        release = max((finish[a] for a in preds[k]), default=0.0)
        heap = heap_for(k, release, mat)
        heapq.heapify(heap)
        pk = p[k]
        last = release
        for _ in range(int(instance.tasks[k])):
            entry = heap[0]
            j, s = entry[-2], entry[-1]
            end = s + pk[site_of[j]]
            rec.add(k, j, s)
            mat[j] = end
            last = max(last, end)
            heapq.heapreplace(heap, push_key(k, j, end))
        finish[k] = last
    return rec.solution(instance, method, objective)


def g_met(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          objective: str = "makespan") -> Solution:
    """G-MET: each task to a processor of minimum execution time (see module docstring)."""
    _check_objective(objective)
    p, cost = instance.p, instance.cost_per_task
    off = instance.proc_offset
    first, second = (p, cost) if objective == "makespan" else (cost, p)
    candidates: list[list[int]] = []
    for k in range(instance.n_bots):
        mask = first[k] == first[k].min()
        mask &= second[k] == second[k][mask].min()
        candidates.append([j for i in np.flatnonzero(mask) for j in range(off[i], off[i + 1])])

    def heap_for(k: int, release: float, mat: list[float]) -> list[tuple]:
        return [(max(mat[j], release), j, max(mat[j], release)) for j in candidates[k]]

    return _one_pass(instance, "g-met", objective, heap_for, lambda k, j, end: (end, j, end))


def g_mct(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          objective: str = "makespan") -> Solution:
    """G-MCT: each task to the processor of minimum completion time (or cost, then time)."""
    _check_objective(objective)
    site_of = instance.proc_site.tolist()
    p = instance.p.tolist()
    cost = instance.cost_per_task.tolist()
    N = instance.n_procs
    if objective == "makespan":
        def heap_for(k: int, release: float, mat: list[float]) -> list[tuple]:
            pk = p[k]
            return [(max(mat[j], release) + pk[site_of[j]], j, max(mat[j], release))
                    for j in range(N)]

        def push_key(k: int, j: int, end: float) -> tuple:
            return (end + p[k][site_of[j]], j, end)
    else:
        def heap_for(k: int, release: float, mat: list[float]) -> list[tuple]:
            pk, ck = p[k], cost[k]
            return [(ck[site_of[j]], max(mat[j], release) + pk[site_of[j]], j,
                     max(mat[j], release)) for j in range(N)]

        def push_key(k: int, j: int, end: float) -> tuple:
            return (cost[k][site_of[j]], end + p[k][site_of[j]], j, end)

    return _one_pass(instance, "g-mct", objective, heap_for, push_key)


def g_olb(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          objective: str = "makespan") -> Solution:
    """G-OLB: each task to the processor available first (ignores time and cost)."""
    N = instance.n_procs

    def heap_for(k: int, release: float, mat: list[float]) -> list[tuple]:
        return [(max(mat[j], release), j, max(mat[j], release)) for j in range(N)]

    return _one_pass(instance, "g-olb", objective, heap_for, lambda k, j, end: (end, j, end))


def _lexmin(primary: np.ndarray, secondary: np.ndarray) -> int:
    """Index of the lexicographic minimum of ``(primary, secondary)``, first among ties."""
    cand = primary == primary.min()
    return int(np.where(cand, secondary, np.inf).argmin())


def _lexmax(primary: np.ndarray, secondary: np.ndarray) -> int:
    """Index of the lexicographic maximum of ``(primary, secondary)``, first among ties."""
    cand = primary == primary.max()
    return int(np.where(cand, secondary, -np.inf).argmax())


def _second_smallest(rows: np.ndarray) -> np.ndarray:
    """Second smallest value of each row (with multiplicity); inf for one column."""
    if rows.shape[1] < 2:
        return np.full(rows.shape[0], np.inf)
    return np.partition(rows, 1, axis=1)[:, 1]


def _select(rule: str, objective: str, ct: np.ndarray, pr: np.ndarray, cr: np.ndarray,
            rel: np.ndarray, site_second: np.ndarray) -> tuple[int, int]:
    """Pick (row, site) for one step of Min-min, Max-min or Sufferage."""
    ar = np.arange(ct.shape[0])
    if objective == "makespan":
        bi = ct.argmin(axis=1)
        best = ct[ar, bi]
        if rule == "min-min":
            sel = int(best.argmin())
        elif rule == "max-min":
            sel = int(best.argmax())
        else:
            ct2 = np.maximum(site_second[bi], rel[:, 0]) + pr[ar, bi]
            second = np.minimum(_second_smallest(ct), ct2)
            suff = np.where(np.isinf(second), 0.0, second - best)
            sel = int(suff.argmax())
        return sel, int(bi[sel])
    cmin = cr.min(axis=1)
    masked = np.where(cr == cmin[:, None], ct, np.inf)
    bi = masked.argmin(axis=1)
    best = masked[ar, bi]
    if rule == "min-min":
        sel = _lexmin(cmin, best)
    elif rule == "max-min":
        sel = _lexmax(cmin, best)
    else:
        # Second best machine by (cost, ct): best among other sites, or the best site's
        # second processor.
        others_c = cr.copy()
        others_c[ar, bi] = np.inf
        oc = others_c.min(axis=1)
        ot = np.where(others_c == oc[:, None], ct, np.inf).min(axis=1)
        t2b = np.maximum(site_second[bi], rel[:, 0]) + pr[ar, bi]
        c2b = np.where(np.isinf(t2b), np.inf, cmin)   # the best site may have one processor
        take_other = (oc < c2b) | ((oc == c2b) & (ot < t2b))
        c2 = np.where(take_other, oc, c2b)
        t2 = np.where(take_other, ot, t2b)
        none = np.isinf(t2)
        dc = np.where(none, 0.0, c2 - cmin)
        dt = np.where(none, 0.0, t2 - best)
        sel = _lexmax(dc, dt)
    return sel, int(bi[sel])


def _batch(instance: Instance, rule: str, objective: str) -> Solution:
    """Shared engine of G-Min-min, G-Max-min and G-Sufferage (one task per step)."""
    _check_objective(objective)
    K = instance.n_bots
    p, cost = instance.p, instance.cost_per_task
    procs = instance.procs
    off = instance.proc_offset
    mat = np.zeros(instance.n_procs)
    site_min = np.zeros(instance.n_sites)
    site_second = np.where(procs >= 2, 0.0, np.inf)
    remaining = instance.tasks.copy()
    release = np.zeros(K)
    finish = np.zeros(K)
    preds, succs = instance.predecessors, instance.successors
    waiting = np.array([len(x) for x in preds])
    ready = (waiting == 0) & (remaining > 0)
    rec = _Recorder(instance.n_tasks)
    rows = np.flatnonzero(ready)
    for _ in range(instance.n_tasks):
        rel = release[rows][:, None]
        pr = p[rows]
        ct = np.maximum(site_min[None, :], rel) + pr
        sel, i = _select(rule, objective, ct, pr, cost[rows], rel, site_second)
        k = int(rows[sel])
        r = release[k]
        s = mat[off[i]:off[i + 1]]
        if r > site_min[i]:
            jl = int(np.argmax(s <= r))
            start = r
        else:
            jl = int(np.argmax(s == site_min[i]))
            start = site_min[i]
        end = ct[sel, i]
        rec.add(k, int(off[i]) + jl, float(start))
        s[jl] = end
        site_min[i] = s.min()
        if len(s) >= 2:
            site_second[i] = np.partition(s, 1)[1]
        finish[k] = max(finish[k], end)
        remaining[k] -= 1
        if remaining[k] == 0:
            ready[k] = False
            for b in release_successors(k, succs, preds, waiting, finish, release):
                ready[b] = True
            rows = np.flatnonzero(ready)
    return rec.solution(instance, f"g-{rule}", objective)


def g_min_min(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
              objective: str = "makespan") -> Solution:
    """G-Min-min: schedule the task with the smallest minimum completion time (or cost)."""
    return _batch(instance, "min-min", objective)


def g_max_min(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
              objective: str = "makespan") -> Solution:
    """G-Max-min: schedule the task with the largest minimum completion time (or cost)."""
    return _batch(instance, "max-min", objective)


def g_sufferage(instance: Instance, *, seed: int | None = None,
                time_limit: float | None = None, objective: str = "makespan") -> Solution:
    """G-Sufferage: schedule the task with the largest second-best minus best."""
    return _batch(instance, "sufferage", objective)


#: Registry names of the greedy family, in the paper's order.
GREEDY = {
    "g-met": g_met,
    "g-mct": g_mct,
    "g-olb": g_olb,
    "g-min-min": g_min_min,
    "g-max-min": g_max_min,
    "g-sufferage": g_sufferage,
}
