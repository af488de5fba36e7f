"""Schedules that respect hard bandwidth/storage limits *over time* (and the DAG).

The checker reads the limits of Eq. 7-8 over time: at every instant, the
bandwidth (storage) in use by the running tasks of a site must not exceed
the site's limit by more than :data:`~hybridsched.bot_sites.checker.LIMIT_TOL`
relative. This module builds schedules that satisfy that rule by
construction, for the exact method's warm starts, repairs and fallbacks:

* :func:`allowed_pairs`: the (BoT, site) pairs where one task fits the limits
  on its own (the checker's rule); a BoT with no allowed site makes the
  instance infeasible, and with at least one allowed site per BoT a schedule
  always exists (one task at a time).
* :func:`retime`: list-schedule given blocks (BoT, processor, count) in a given
  order, each as early as its processor, its BoT's predecessors and the
  site's limits allow. Starts are the checker's real times (the same binary64
  sums: each start is the latest of its processor's last end and its
  predecessors' finishes, or a time the limits impose): the start of a block
  never precedes the finish of a predecessor BoT, so the result passes the
  checker whatever the input times were. A start the limits delay by less
  than the checker's snap window (:func:`~hybridsched.bot_sites.timeline.window`)
  would be read as undelayed, so it is delayed beyond the window.
* :func:`cheapest_schedule`: every task on a cheapest allowed site: a
  minimum-cost schedule (its cost is :func:`~hybridsched.bot_sites.bounds.min_cost`).

Limits are kept with a margin of zero where several tasks share a site
(``usage + rate <= limit``, so float rounding in the checker's own sums cannot
tip it over), and with the checker's tolerance when a task runs alone (so a
task the checker accepts on its own is never refused).
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from hybridsched.bot_sites.checker import LIMIT_TOL
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.bot_sites.timeline import window


def limited(instance: Instance) -> bool:
    """Whether hard bandwidth or storage limits constrain schedules of ``instance``."""
    return bool(instance.hard_limits and instance.has_limits)


def _resources(instance: Instance) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(use[k, i], limit[i])`` of each hard resource (bandwidth, storage)."""
    if not instance.hard_limits:
        return []
    out = []
    rate = instance.rate
    if rate is not None and instance.site_bandwidth is not None:
        out.append((np.asarray(rate, dtype=float), np.asarray(instance.site_bandwidth, float)))
    if instance.storage is not None and instance.storage_limit is not None:
        use = np.repeat(np.asarray(instance.storage, dtype=float)[:, None], instance.n_sites,
                        axis=1)
        out.append((use, np.asarray(instance.storage_limit, dtype=float)))
    return out


def allowed_pairs(instance: Instance) -> np.ndarray:
    """``(K, M)`` whether one task of BoT ``k`` alone on site ``i`` meets the hard limits.

    The same rule as the checker: ``use / limit <= 1 + LIMIT_TOL``. All true
    without hard limits.
    """
    ok = np.ones((instance.n_bots, instance.n_sites), dtype=bool)
    for use, limit in _resources(instance):
        ok &= use / limit[None, :] <= 1 + LIMIT_TOL
    return ok


class _SiteProfile:
    """Resource use of one site over time: a step function on sorted breakpoints.

    ``level[j]`` is the use on ``[times[j], times[j + 1])`` (the last segment
    is open-ended and always empty).
    """

    def __init__(self, limit: np.ndarray) -> None:
        self.limit = limit
        self.times = np.zeros(1)
        self.level = np.zeros((1, len(limit)))

    def _fits(self, rows: np.ndarray, use: np.ndarray) -> np.ndarray:
        """Per segment: shared use within the limit, or the task alone within tolerance."""
        shared = np.all(rows + use <= self.limit, axis=1)
        alone = ~np.any(rows > 0, axis=1) & bool(np.all(use / self.limit <= 1 + LIMIT_TOL))
        return shared | alone

    def earliest(self, t: float, duration: float, use: np.ndarray) -> float:
        """Earliest start ``>= t`` at which a block of ``duration`` fits the limits.

        Runs of consecutive segments where the block fits are found at once;
        the first run (from ``t`` on) at least ``duration`` long wins. The
        last segment is empty and open-ended, so one always does.
        """
        first = max(int(np.searchsorted(self.times, t, side="right")) - 1, 0)
        ok = self._fits(self.level[first:], use)
        starts = np.maximum(self.times[first:], t)
        ends = np.append(self.times[first + 1:], np.inf)
        # Run heads: fitting segments whose predecessor does not fit.
        head = ok & ~np.concatenate(([False], ok[:-1]))
        # End of each run: the end of its last fitting segment.
        stop = ok & ~np.concatenate((ok[1:], [False]))
        heads, stops = np.flatnonzero(head), np.flatnonzero(stop)
        long_enough = ends[stops] - starts[heads] >= duration
        return float(starts[heads[int(np.argmax(long_enough))]])

    def _split(self, x: float) -> int:
        """Index of the segment starting at ``x`` (inserting a breakpoint if needed)."""
        j = int(np.searchsorted(self.times, x, side="left"))
        if j < len(self.times) and self.times[j] == x:
            return j
        self.times = np.insert(self.times, j, x)
        self.level = np.insert(self.level, j, self.level[j - 1], axis=0)
        return j

    def add(self, start: float, end: float, use: np.ndarray) -> None:
        if end <= start:
            return
        j0 = self._split(start)
        j1 = self._split(end)
        self.level[j0:j1] += use


def retime(instance: Instance, bot: np.ndarray, proc: np.ndarray, count: np.ndarray,
           key: np.ndarray, notes: dict | None = None) -> Solution | None:
    """List-schedule blocks as early as possible in the order of ``key``.

    Parameters
    ----------
    instance:
        The instance.
    bot, proc, count:
        One entry per block: BoT, *global* processor index, number of tasks.
    key:
        Priority of each block (e.g. its start in some schedule); a block is
        placed once every block of its BoT's predecessors is placed, so the
        order is the key order whenever that order respects the DAG.
    notes:
        Stored on the solution.

    Returns
    -------
    Solution or None
        ``None`` when a block is on a site where one of its tasks alone
        breaks a hard limit (no timing can fix that).
    """
    bot = np.asarray(bot, dtype=np.int64)
    proc = np.asarray(proc, dtype=np.int64)
    count = np.asarray(count, dtype=np.int64)
    keep = count > 0
    bot, proc, count = bot[keep], proc[keep], count[keep]
    key = np.asarray(key, dtype=float)[keep]
    K = instance.n_bots
    site = instance.proc_site[proc]
    resources = _resources(instance)
    if resources and not allowed_pairs(instance)[bot, site].all():
        return None
    uses = (np.stack([use[bot, site] for use, _ in resources], axis=1) if resources
            else np.zeros((len(bot), 0)))
    limits = (np.stack([limit for _, limit in resources], axis=1) if resources
              else np.zeros((instance.n_sites, 0)))
    profiles = [_SiteProfile(limits[i]) for i in range(instance.n_sites)]
    duration = count * instance.p[bot, site]
    preds, succs = instance.predecessors, instance.successors
    pending = np.bincount(bot, minlength=K)
    waiting_preds = np.array([sum(1 for a in preds[k] if pending[a] > 0) for k in range(K)])
    by_bot: list[list[int]] = [[] for _ in range(K)]
    order = np.lexsort((np.arange(len(bot)), key))
    for b in order:
        by_bot[bot[b]].append(int(b))
    heap: list[tuple[float, int]] = []
    for k in range(K):
        if waiting_preds[k] == 0:
            heap.extend((float(key[b]), b) for b in by_bot[k])
    heapq.heapify(heap)
    free = np.zeros(instance.n_procs)
    finish = np.zeros(K)
    start = np.zeros(len(bot))
    placed = 0
    while heap:
        _, b = heapq.heappop(heap)
        k, q, i = int(bot[b]), int(proc[b]), int(site[b])
        t = max(free[q], max((finish[a] for a in preds[k]), default=0.0))
        if resources:
            latest = t
            t = profiles[i].earliest(latest, float(duration[b]), uses[b])
            if latest < t <= latest + window(latest):
                # The checker would read this start as ``latest`` (its snap rule) and see
                # the block overlap the one it waits for: state it beyond the window.
                beyond = math.nextafter(latest + window(latest), math.inf)
                t = profiles[i].earliest(beyond, float(duration[b]), uses[b])
            profiles[i].add(t, t + float(duration[b]), uses[b])
        start[b] = t
        free[q] = t + duration[b]
        finish[k] = max(finish[k], free[q])
        placed += 1
        pending[k] -= 1
        if pending[k] == 0:
            for s in succs[k]:
                waiting_preds[s] -= 1
                if waiting_preds[s] == 0:
                    for c in by_bot[s]:
                        heapq.heappush(heap, (float(key[c]), c))
    if placed != len(bot):  # cannot happen for a DAG; kept as a guard
        return None
    offset = instance.proc_offset
    return Solution(bot, site, proc - offset[site], count, start, notes=dict(notes or {}))


def repair(instance: Instance, solution: Solution, notes: dict | None = None
           ) -> Solution | None:
    """Re-time ``solution``'s blocks (same processors, same order) with :func:`retime`."""
    glob = instance.proc_offset[solution.site] + solution.proc
    return retime(instance, solution.bot, glob, solution.count, solution.start,
                  notes=dict(solution.notes) | dict(notes or {}))


def cheapest_sites(instance: Instance) -> np.ndarray:
    """``(K, M)`` the allowed sites of least cost per task for each BoT (exact ties)."""
    cost = np.where(allowed_pairs(instance), instance.cost_per_task, np.inf)
    return cost == cost.min(axis=1, keepdims=True)


def cheapest_schedule(instance: Instance) -> Solution | None:
    """A minimum-cost schedule: every task on a cheapest allowed site.

    BoTs are placed in topological order; the tasks of a BoT are spread over
    the processors of its cheapest sites so that they finish as early as
    possible given the processors' current loads (exact water filling), then
    the whole schedule is re-timed with :func:`retime` so that hard limits
    hold over time. ``None`` only when some BoT has no allowed site.
    """
    if not allowed_pairs(instance).any(axis=1).all():
        return None
    best = cheapest_sites(instance)
    site_of = instance.proc_site
    free = np.zeros(instance.n_procs)
    finish = np.zeros(instance.n_bots)
    preds = instance.predecessors
    bots, procs, counts, keys = [], [], [], []
    for k in instance.topological_order():
        release = max((finish[a] for a in preds[k]), default=0.0)
        cand = np.flatnonzero(best[k, site_of])
        ready = np.maximum(free[cand], release)
        dur = instance.p[k, site_of[cand]]
        c = _water_fill(ready, dur, int(instance.tasks[k]))
        used = c > 0
        for q, n, r in zip(cand[used], c[used], ready[used], strict=True):
            bots.append(k)
            procs.append(int(q))
            counts.append(int(n))
            keys.append(float(r))
        free[cand] = np.where(used, ready + c * dur, free[cand])
        finish[k] = float((ready + c * dur)[used].max())
    return retime(instance, np.array(bots), np.array(procs), np.array(counts), np.array(keys),
                  notes={"method": "cheapest"})


def _water_fill(ready: np.ndarray, dur: np.ndarray, n: int) -> np.ndarray:
    """Counts per processor that finish ``n`` tasks earliest (ready times, task durations)."""

    def done(t: float) -> np.ndarray:
        return np.floor(np.maximum(t - ready, 0.0) / dur + 1e-12).astype(np.int64)

    lo, hi = float(ready.min()), float((ready + n * dur).min())
    for _ in range(200):
        if done(lo).sum() >= n or hi - lo <= 1e-12 * max(1.0, hi):
            break
        mid = (lo + hi) / 2
        if done(mid).sum() >= n:
            hi = mid
        else:
            lo = mid
    counts = np.minimum(done(hi), n)
    extra = int(counts.sum()) - n
    while extra > 0:                     # drop the latest-finishing tasks
        j = int(np.argmax(np.where(counts > 0, ready + counts * dur, -np.inf)))
        counts[j] -= 1
        extra -= 1
    while counts.sum() < n:              # float safety: add where it finishes first
        j = int(np.argmin(ready + (counts + 1) * dur))
        counts[j] += 1
    return counts
