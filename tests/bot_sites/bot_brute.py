"""Brute-force optima of tiny bot-sites instances, written independently for the tests.

Every task is assigned to a processor and every task order is tried; each
(order, assignment) is turned into a schedule by the *serial schedule
generation scheme*: tasks in list order, each at the earliest time when its
processor is idle for its whole duration (gaps may be filled), its BoT's
predecessors have finished, and (hard limits) the site's bandwidth and
storage in use stay within the limits (the checker's rule: at most
``limit * (1 + 1e-9)``). The schedules this generates include every
*active* schedule, and some active schedule is optimal for the makespan
(Kolisch 1996), so the minimum over all (order, assignment) pairs is the
optimum; the cost depends on the assignment only, so the minimum cost and
the minimum makespan among min-cost schedules are exact too.

Sizes: at most ~6 tasks and 3 processors (``processors ** tasks`` assignments
times the distinct task orders).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

LIMIT_RTOL = 1e-9


@dataclass(frozen=True)
class BruteResult:
    """Optimal values and one schedule per criterion (task tuples: bot, processor, start)."""

    makespan: float
    makespan_schedule: tuple
    cost: float
    makespan_at_min_cost: float
    cost_schedule: tuple


def _orders(bots: list[int]):
    """Distinct orderings of a multiset of BoT labels (tasks of a BoT are identical)."""
    seen = set()
    for perm in itertools.permutations(range(len(bots))):
        key = tuple(bots[i] for i in perm)
        if key not in seen:
            seen.add(key)
            yield key


def _fits(intervals, t, d, use, limits):
    """Whether a task using ``use`` fits the site limits over ``[t, t + d)``."""
    if not limits:
        return True
    points = [t] + [s for s, e, _ in intervals if t < s < t + d]
    for x in points:
        total = [0.0] * len(limits)
        for s, e, u in intervals:
            if s <= x < e:
                total = [a + b for a, b in zip(total, u, strict=True)]
        for lim, a, b in zip(limits, total, use, strict=True):
            if a + b > lim * (1 + LIMIT_RTOL):
                return False
    return True


def _place(busy, t, d):
    """Earliest start >= t with the processor idle on [start, start + d)."""
    for s, e in sorted(busy):
        if t + d <= s:
            return t
        if e > t:
            t = e
    return t


def _resources(inst):
    """Per site: list of limits, and per (bot, site): list of uses (hard limits only)."""
    if not inst.hard_limits:
        return None
    res = []
    if inst.data is not None and inst.site_bandwidth is not None:
        res.append(([float(v) for v in inst.site_bandwidth],
                    [[float(inst.data[k][i] / inst.p[k][i]) for i in range(inst.n_sites)]
                     for k in range(inst.n_bots)]))
    if inst.storage is not None and inst.storage_limit is not None:
        res.append(([float(v) for v in inst.storage_limit],
                    [[float(inst.storage[k])] * inst.n_sites for k in range(inst.n_bots)]))
    return res or None


def schedule(inst, order, assign, res):
    """Serial SGS of tasks ``order`` (BoT labels) on processors ``assign``; None if stuck."""
    site = [i for i in range(inst.n_sites) for _ in range(int(inst.procs[i]))]
    preds = [list(x) for x in inst.predecessors]
    left = [int(t) for t in inst.tasks]
    finish = [0.0] * inst.n_bots
    busy = [[] for _ in site]
    on_site = [[] for _ in range(inst.n_sites)]
    tasks = []
    for k, q in zip(order, assign, strict=True):
        if any(left[a] for a in preds[k]):
            return None               # a predecessor BoT is not finished: invalid order
        i = site[q]
        d = float(inst.p[k][i])
        use = [u[k][i] for _, u in res] if res else []
        limits = [lim[i] for lim, _ in res] if res else []
        t = max([finish[a] for a in preds[k]], default=0.0)
        while True:
            t = _place(busy[q], t, d)
            if _fits(on_site[i], t, d, use, limits):
                break
            later = [e for s, e, _ in on_site[i] if e > t]
            if not later:
                return None           # one task alone breaks the limit
            t = min(later)
        busy[q].append((t, t + d))
        on_site[i].append((t, t + d, use))
        finish[k] = max(finish[k], t + d)
        left[k] -= 1
        tasks.append((k, q, t))
    return max(finish), tuple(tasks)


def brute_force(inst) -> BruteResult | None:
    """Exact optima by enumeration (``None`` when no schedule exists)."""
    site = [i for i in range(inst.n_sites) for _ in range(int(inst.procs[i]))]
    bots = [k for k in range(inst.n_bots) for _ in range(int(inst.tasks[k]))]
    res = _resources(inst)
    cost_of = [[float(inst.p[k][i] * inst.price[i]) for i in range(inst.n_sites)]
               for k in range(inst.n_bots)]
    best = (float("inf"), None)
    best_cost = (float("inf"), float("inf"), None)
    for order in _orders(bots):
        for assign in itertools.product(range(len(site)), repeat=len(bots)):
            out = schedule(inst, order, assign, res)
            if out is None:
                continue
            span, tasks = out
            cost = sum(cost_of[k][site[q]] for k, q in zip(order, assign, strict=True))
            if span < best[0]:
                best = (span, tasks)
            key = (round(cost, 9), span)
            if key < best_cost[:2]:
                best_cost = (*key, tasks)
    if best[1] is None:
        return None
    return BruteResult(best[0], best[1], best_cost[0], best_cost[1], best_cost[2])


def one_block_optimum(inst) -> float:
    """Best makespan when each (BoT, processor) pair runs as one contiguous block (no limits).

    Enumerates the task counts of every BoT on every processor and every
    order of the blocks on each processor; times are the earliest ones
    (longest paths through processor order and BoT precedence), which is
    no worse than any other timing of the same orders.
    """
    import networkx as nx

    site = [i for i in range(inst.n_sites) for _ in range(int(inst.procs[i]))]
    N = len(site)

    def compositions(n, parts):
        if parts == 1:
            yield (n,)
            return
        for first in range(n + 1):
            for rest in compositions(n - first, parts - 1):
                yield (first, *rest)

    best = float("inf")
    for split in itertools.product(*(list(compositions(int(t), N)) for t in inst.tasks)):
        blocks = [[(k, split[k][q]) for k in range(inst.n_bots) if split[k][q]]
                  for q in range(N)]
        for orders in itertools.product(*(itertools.permutations(b) for b in blocks)):
            graph = nx.DiGraph()
            for q, seq in enumerate(orders):
                for n, (k, c) in enumerate(seq):
                    graph.add_node((k, q), w=c * float(inst.p[k][site[q]]))
                    if n:
                        graph.add_edge((seq[n - 1][0], q), (k, q))
            for a, b in inst.edges:
                for qa in range(N):
                    for qb in range(N):
                        if (int(a), qa) in graph and (int(b), qb) in graph:
                            graph.add_edge((int(a), qa), (int(b), qb))
            if not nx.is_directed_acyclic_graph(graph):
                continue
            end = {}
            for v in nx.topological_sort(graph):
                end[v] = max((end[u] for u in graph.predecessors(v)), default=0.0) \
                    + graph.nodes[v]["w"]
            best = min(best, max(end.values()))
    return best
