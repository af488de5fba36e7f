"""The real times of a bot-sites schedule: the checker's rule, computed once.

The rule is stated in :mod:`hybridsched.bot_sites.checker`'s module
docstring (the family's one definition of feasibility); this module only
computes it. In short: stated starts are trusted for the *order* they give
and for idle gaps longer than :func:`window`; a stated start within the
window of the latest of 0, the real end of the previous block on its
processor and the real completions of its BoT's DAG predecessors is read as
that time exactly; real ends are real starts plus ``count * p`` in binary64.

Blocks are processed in *run order*: by stated start, then the BoT's
topological rank, then block index; on each processor that order is the
order the blocks run in. A block is processed once the block before it on
its processor and every block of its BoT's predecessors are (Kahn's
algorithm over blocks, a heap keyed by run order). A block that can never be
processed waits, through processor order, for a block of one of its own
predecessors: no real times satisfy that, so it is a precedence violation
(:attr:`Timeline.stuck`), and it keeps its stated start.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from hybridsched.bot_sites.instance import Instance

#: The snap window of a time ``t`` is ``TOL * max(1, |t|)``: relative, 1e-9 absolute below 1.
TOL = 1e-9


def window(t: float) -> float:
    """Half-width of the snap window around the time ``t``: ``TOL * max(1, |t|)``."""
    t = abs(t)
    return TOL * t if t > 1.0 else TOL


@dataclass(frozen=True)
class Timeline:
    """Real times of a schedule whose blocks are structurally valid.

    Attributes
    ----------
    start, end:
        ``(B,)`` real start and real end of each block.
    completion:
        ``(K,)`` real completion of each BoT: the latest real end of its
        blocks (0 for a BoT without blocks).
    overlaps:
        ``(previous block, block)`` on one processor: the block's stated start
        lies more than the window before the previous block's real end.
    early:
        ``(predecessor BoT, block)``: the block's stated start lies more than
        the window before the predecessor's real completion.
    stuck:
        ``(predecessor BoT, block)``: the block runs on its processor before a
        block of that predecessor does (nothing can make that valid).
    """

    start: np.ndarray
    end: np.ndarray
    completion: np.ndarray
    overlaps: list[tuple[int, int]]
    early: list[tuple[int, int]]
    stuck: list[tuple[int, int]]


def run_order(instance: Instance, bot: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Block indices by stated start, then topological rank of the BoT, then index."""
    n = len(bot)
    rank = np.zeros(instance.n_bots, dtype=np.int64)
    if len(instance.edges):
        topo = instance.topological_order()
        rank[:] = instance.n_bots              # BoTs on a cycle (never in a valid instance)
        rank[topo] = np.arange(len(topo))
    return np.lexsort((np.arange(n), rank[bot] if n else bot, start))


def compute(instance: Instance, p: np.ndarray, bot: np.ndarray, site: np.ndarray,
            proc: np.ndarray, count: np.ndarray, start: np.ndarray) -> Timeline:
    """Real times of the blocks (indices, counts >= 1 and finite starts already checked).

    ``p`` is the ``(K, M)`` effective time of one task.
    """
    n, K = len(bot), instance.n_bots
    order = run_order(instance, bot, start)
    dur = (count * p[bot, site])[order].tolist() if n else []
    glob = (instance.proc_offset[site] + proc)[order].tolist() if n else []
    stated = start[order].tolist()
    blocks = order.tolist()
    real_start = [0.0] * n
    real_end = [0.0] * n
    overlaps: list[tuple[int, int]] = []
    early: list[tuple[int, int]] = []
    stuck: list[tuple[int, int]] = []
    last = [0.0] * instance.n_procs          # real end of the previous block on a processor
    prev = [-1] * instance.n_procs           # that block
    if not len(instance.edges):
        for i in range(n):
            q, s = glob[i], stated[i]
            latest = last[q]
            w = TOL * latest if latest > 1.0 else TOL
            if s > latest + w:
                r = s                            # an idle gap, kept
            elif s >= latest - w:
                r = latest                       # rounding: it runs right then
            else:
                r = s
                if prev[q] >= 0:
                    overlaps.append((prev[q], blocks[i]))
            e = r + dur[i]
            real_start[i], real_end[i] = r, e
            last[q], prev[q] = e, blocks[i]
        out_start, out_end = np.empty(n), np.empty(n)
        out_start[order], out_end[order] = real_start, real_end
        completion = np.zeros(K)
        if n:
            np.maximum.at(completion, bot, out_end)
        return Timeline(out_start, out_end, completion, overlaps, early, stuck)
    ks = bot[order].tolist()
    preds, succs = instance.predecessors, instance.successors
    pending = np.bincount(bot, minlength=K).tolist() if n else [0] * K
    waiting = [sum(1 for a in preds[k] if pending[a] > 0) for k in range(K)]
    finish = [0.0] * K                       # real completion so far
    release = [0.0] * K                      # real completion of the predecessors
    sequence: list[list[int]] = [[] for _ in range(instance.n_procs)]
    for i in range(n):
        sequence[glob[i]].append(i)
    head = [0] * instance.n_procs
    parked: list[list[int]] = [[] for _ in range(K)]
    heap: list[int] = []

    def offer(q: int) -> None:
        if head[q] < len(sequence[q]):
            i = sequence[q][head[q]]
            if waiting[ks[i]] == 0:
                heapq.heappush(heap, i)
            else:
                parked[ks[i]].append(i)

    for q in range(instance.n_procs):
        offer(q)
    done = [False] * n
    while heap:
        i = heapq.heappop(heap)
        q, k, s = glob[i], ks[i], stated[i]
        on_proc, ready = last[q], release[k]
        latest = on_proc if on_proc >= ready else ready
        w = TOL * latest if latest > 1.0 else TOL
        if s > latest + w:
            r = s
        elif s >= latest - w:
            r = latest
        else:
            r = s
            if prev[q] >= 0 and s < on_proc - window(on_proc):
                overlaps.append((prev[q], blocks[i]))
            early.extend((a, blocks[i]) for a in preds[k] if s < finish[a] - window(finish[a]))
        e = r + dur[i]
        real_start[i], real_end[i], done[i] = r, e, True
        last[q], prev[q] = e, blocks[i]
        if e > finish[k]:
            finish[k] = e
        head[q] += 1
        offer(q)
        pending[k] -= 1
        if pending[k] == 0:
            for t in succs[k]:
                waiting[t] -= 1
                if waiting[t] == 0:
                    release[t] = max(finish[a] for a in preds[t])
                    for j in parked[t]:
                        heapq.heappush(heap, j)
                    parked[t] = []
    for i in range(n):
        if not done[i]:                          # waits for itself: keeps its stated start
            k = ks[i]
            real_start[i], real_end[i] = stated[i], stated[i] + dur[i]
            if real_end[i] > finish[k]:
                finish[k] = real_end[i]
            if waiting[k]:
                stuck.extend((a, blocks[i]) for a in preds[k] if pending[a] > 0)
    out_start, out_end = np.empty(n), np.empty(n)
    out_start[order], out_end[order] = real_start, real_end
    return Timeline(out_start, out_end, np.array(finish, dtype=float), overlaps, early, stuck)
