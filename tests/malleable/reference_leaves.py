"""Straightforward local schedulers kept as references for the fast ones.

:class:`ReferenceCloud` is CCA as it was written first, on numpy arrays
(every VM's free time and last billed hour, the bill per clock hour, all VM
counts priced at once); :func:`reference_cluster_candidates` is DCA/ACA's
candidate computation as first written. The tests drive them beside
:class:`~hybridsched.heuristics.malleable.cloud_scheduler.CloudScheduler` and
:class:`~hybridsched.heuristics.malleable.cluster_scheduler.ClusterScheduler`.
"""

from __future__ import annotations

import bisect

import numpy as np

from hybridsched.heuristics.malleable.cluster_scheduler import ClusterScheduler
from hybridsched.malleable.billing import HOUR, hour_cost
from hybridsched.malleable.candidates import Candidate, is_good
from hybridsched.malleable.instance import Instance, Resource
from hybridsched.malleable.speedup import minutes_needed_array, rate


class ReferenceCloud:
    """CCA on numpy arrays: the first implementation, kept as the reference."""

    def __init__(self, index: int, resource: Resource, instance: Instance) -> None:
        self.index, self.resource, self.instance = index, resource, instance
        self.free_at = np.zeros(resource.max_vms, dtype=np.int64)
        self.last_hour = np.full(resource.max_vms, -1, dtype=np.int64)
        self.billed = np.zeros(64, dtype=np.int64)
        self.hour_bill = np.asarray(hour_cost(resource, np.arange(resource.max_vms + 1)),
                                    dtype=float)
        ks = np.arange(1, resource.max_vms + 1)
        self.minutes = minutes_needed_array(
            instance.size[:, None],
            rate(ks[None, :] * resource.cpus, resource.performance,
                 instance.serial_fraction[:, None])).reshape(instance.n_jobs, resource.max_vms)
        ones = self.minutes == 1
        self.useful = np.where(ones.any(axis=1), ones.argmax(axis=1) + 1, resource.max_vms)
        self.ks = ks

    def _billed(self, first: int, last: int) -> np.ndarray:
        if last >= len(self.billed):
            grown = np.zeros(max(2 * len(self.billed), last + 1), dtype=np.int64)
            grown[: len(self.billed)] = self.billed
            self.billed = grown
        return self.billed[first: last + 1]

    def options(self, job: int, now: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        free = self.free_at <= now
        k_max = min(int(np.count_nonzero(free)), int(self.useful[job]))
        if k_max == 0:
            return None
        ks = self.ks[:k_max]
        ends = now + self.minutes[job, :k_max]
        hour = now // HOUR
        last = (ends - 1) // HOUR
        billed = self._billed(hour, int(last[0]))
        bill = self.hour_bill
        reused = int(np.count_nonzero(free & (self.last_hour == hour)))
        b0 = int(billed[0])
        cost = bill[b0 + np.maximum(ks - reused, 0)] - bill[b0]
        if len(billed) > 1:
            later = billed[1:]
            grow = bill[later[None, :] + ks[:, None]] - bill[later][None, :]
            inside = np.arange(hour + 1, hour + len(billed))[None, :] <= last[:, None]
            cost = cost + (grow * inside).sum(axis=1)
        return ks, ends, cost

    def candidates(self, job: int, now: int) -> list[Candidate]:
        found = self.options(job, now)
        if found is None:
            return []
        ks, ends, cost = found
        deadline, budget = int(self.instance.deadline[job]), float(self.instance.budget[job])
        meets = ends <= deadline
        first = int(meets.argmax()) if meets[-1] else len(ks) - 1
        one = self._candidate(job, now, 0, ks[first], ends[first], cost[first])
        if one.good:
            return [one]
        fits = np.flatnonzero(cost[: first + 1] <= budget)
        if fits.size:
            second = int(fits[-1])
        else:
            second = int(np.flatnonzero(cost[: first + 1] == cost[: first + 1].min())[-1])
        if second == first:
            return [one]
        return [one, self._candidate(job, now, 1, ks[second], ends[second], cost[second])]

    def _candidate(self, job: int, now: int, option: int, k: int, end: int, cost: float
                   ) -> Candidate:
        inst = self.instance
        good = bool(end <= inst.deadline[job] and cost <= inst.budget[job])
        return Candidate(job, self.index, option, now, int(end), float(cost),
                         int(k) * self.resource.cpus, good)

    def accept(self, candidate: Candidate) -> list[tuple[int, int]]:
        now, end = candidate.start, candidate.end
        k = candidate.width // self.resource.cpus
        hour, last = now // HOUR, (end - 1) // HOUR
        free = self.free_at <= now
        billed_now = np.flatnonzero(free & (self.last_hour == hour))
        others = np.flatnonzero(free & (self.last_hour != hour))
        if len(billed_now) + len(others) < k:
            raise ValueError(f"no {k} free VMs at minute {now}")
        chosen = np.sort(np.concatenate([billed_now, others])[:k])
        billed = self._billed(hour, last)
        billed[0] += k - min(k, len(billed_now))
        billed[1:] += k
        self.free_at[chosen] = end
        self.last_hour[chosen] = last
        out: list[tuple[int, int]] = []
        cpus = self.resource.cpus
        for v in chosen.tolist():
            if out and out[-1][0] + out[-1][1] == v * cpus:
                out[-1] = (out[-1][0], out[-1][1] + cpus)
            else:
                out.append((v * cpus, cpus))
        return out


def reference_cluster_candidates(cluster: ClusterScheduler, job: int, now: int,
                                 migrate: bool = True) -> list[Candidate]:
    """DCA/ACA's candidates computed as first written, from the cluster's public state."""
    if not cluster.queue:
        end = max(now, cluster.busy_until) + cluster.duration[job]
        cost = cluster.cost[job]
        return [Candidate(job, cluster.index, 0, end - cluster.duration[job], end, cost,
                          cluster.resource.cpus,
                          end <= cluster.deadline[job] and cost <= cluster.budget[job])]
    pos = bisect.bisect_left(cluster.queue, cluster.order[job])
    dur = cluster.duration
    start = max(now, cluster.busy_until) + sum(dur[q[2]] for q in cluster.queue[:pos])
    end = start + dur[job]
    moved: list[int] = []
    if migrate:
        now_end, old_end = end, start
        for _, _, q in cluster.queue[pos:]:
            d = dur[q]
            old_end += d
            if now_end + d <= cluster.deadline[q] or old_end > cluster.deadline[q]:
                now_end += d
            else:
                moved.append(q)
    moved_size = sum(cluster.size[q] for q in moved)
    if moved and moved_size >= cluster.size[job]:
        return []
    cost = cluster.cost[job]
    good = is_good(end, cost, moved_size, cluster.deadline[job], cluster.budget[job],
                   cluster.size[job])
    return [Candidate(job, cluster.index, 0, start, end, cost, cluster.resource.cpus, good,
                      tuple(moved))]
