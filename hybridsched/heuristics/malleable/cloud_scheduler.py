"""CCA: the local scheduler of a cloud (Algorithm 3).

A job on the cloud starts at once on ``k`` whole VMs of the cloud's type.
The first candidate is the smallest ``k`` that meets the deadline (the
paper's ``ceil(size / (vm_productivity * deadline))``, computed with the
job's speed-up model and whole minutes); if no ``k`` meets it, the fastest
(the most free VMs, or the first ``k`` that runs the job in one minute).
Its cost is what the cloud's bill grows by (:mod:`~hybridsched.malleable.billing`):
VM-hours already paid in the current hour are reused first (the paper's
``free_time_left``). When it is within budget it is *good* and alone;
otherwise a second candidate minimises the budget overspend: the fastest
``k`` below the first whose cost fits the budget, or, if none does, the
cheapest ``k`` (the faster one on ties). A cloud never reschedules, and
declines only when all its VMs are busy.

VMs are assigned in the order that reaches the least bill: VMs already
billed in the current hour first, then the lowest free VM ids.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from typing import Any

import numpy as np

from hybridsched.heuristics.malleable.cluster_scheduler import job_lists
from hybridsched.malleable.billing import HOUR, hour_cost
from hybridsched.malleable.candidates import Candidate
from hybridsched.malleable.instance import Instance, Resource
from hybridsched.malleable.speedup import minutes_needed_array, rate


class CloudScheduler:
    """The local scheduler of one cloud (CCA).

    ``tables`` may be shared by the clouds of one simulation: clouds of the
    same VM type and size then compute the job-by-VM-count durations once
    (and all leaves the per-job lists, see :func:`.cluster_scheduler.job_lists`).

    State is kept in plain Python lists (a cloud has at most a few dozen VMs,
    and numpy's per-call overhead dominated every decision): each VM's free
    time, the same times sorted (free VMs and VMs already billed this hour
    are then counted by two binary searches, see :meth:`_counts`), and the
    VMs billed per clock hour.
    """

    def __init__(self, index: int, resource: Resource, instance: Instance,
                 tables: dict[Any, Any] | None = None) -> None:
        if not resource.is_cloud:
            raise ValueError("CloudScheduler runs clouds")
        self.index = index
        self.resource = resource
        self.instance = instance
        self.cpus = resource.cpus
        #: Minute each VM is free from; it is billed up to hour ``(free_at - 1) // HOUR``.
        self.free_at: list[int] = [0] * resource.max_vms
        self._sorted_free: list[int] = [0] * resource.max_vms  # free_at, sorted
        #: The minute every VM is free from. At or before the start of the current clock
        #: hour the cloud is idle: nothing busy or billed from this hour on, so it offers
        #: exactly what a new cloud of its kind would.
        self.all_free_at = 0
        self.billed: list[int] = []  # VMs billed per clock hour (missing hours: none)
        # Bill of n VMs for one hour, n = 0 .. max_vms (no hour ever bills more).
        self.hour_bill: list[float] = np.asarray(
            hour_cost(resource, np.arange(resource.max_vms + 1)), dtype=float).tolist()
        key = (resource.cpus, resource.performance, resource.max_vms)
        tables = {} if tables is None else tables
        if key not in tables:
            tables[key] = _duration_table(resource, instance)
        self.minutes, self.useful = tables[key]
        if "jobs" not in tables:
            tables["jobs"] = job_lists(instance)
        self.deadline: list[int] = tables["jobs"][1]
        self.budget: list[float] = tables["jobs"][2]

    @property
    def last_hour(self) -> list[int]:
        """Last clock hour each VM is billed for (-1: never used)."""
        return [(f - 1) // HOUR for f in self.free_at]

    def next_free(self) -> int:
        """The earliest minute a VM is free."""
        return self._sorted_free[0]

    def _counts(self, now: int) -> tuple[int, int]:
        """``(free VMs, free VMs already billed in now's hour)`` at minute ``now``.

        A VM is billed up to hour ``(free_at - 1) // HOUR``, so a free VM is
        billed in the current hour ``h`` exactly when ``60 h < free_at <= now``.
        """
        free = bisect_right(self._sorted_free, now)
        return free, free - bisect_right(self._sorted_free, now // HOUR * HOUR)

    def _cost(self, k: int, now: int, end: int, reused: int) -> float:
        """What the bill grows by when ``k`` VMs run from ``now`` to ``end``.

        The current hour bills only the VMs not already paid in it; every
        later hour the job reaches bills ``k`` more VMs.
        """
        billed, bill = self.billed, self.hour_bill
        hour, last = now // HOUR, (end - 1) // HOUR
        size = len(billed)
        b0 = billed[hour] if hour < size else 0
        cost = bill[b0 + max(k - reused, 0)] - bill[b0]
        if last > hour:
            grow = 0.0  # summed hour by hour, in order, as the bill is
            for h in range(hour + 1, last + 1):
                b = billed[h] if h < size else 0
                grow += bill[b + k] - bill[b]
            cost += grow
        return cost

    def options(self, job: int, now: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``(k, end, cost)`` of running ``job`` on ``k = 1, 2, ...`` VMs from ``now``.

        ``None`` when every VM is busy. The list stops at the first ``k``
        that needs one minute (more VMs cannot be faster).
        """
        free, reused = self._counts(now)
        k_max = min(free, self.useful[job])
        if k_max == 0:
            return None
        ends = [now + m for m in self.minutes[job][:k_max]]
        cost = [self._cost(i + 1, now, ends[i], reused) for i in range(k_max)]
        return (np.arange(1, k_max + 1), np.array(ends, dtype=np.int64),
                np.array(cost, dtype=float))

    def candidates(self, job: int, now: int, migrate: bool = True) -> list[Candidate]:
        """Algorithm 3's candidates: one good, or the deadline one and the budget one."""
        free, reused = self._counts(now)
        k_max = min(free, self.useful[job])
        if k_max == 0:
            return []
        minutes = self.minutes[job]
        deadline, budget = self.deadline[job], self.budget[job]
        room = deadline - now
        first = k_max - 1
        if minutes[first] <= room:  # some count meets the deadline: the smallest one
            first = next(i for i in range(k_max) if minutes[i] <= room)
        end = now + minutes[first]
        cost = self._cost(first + 1, now, end, reused)
        one = Candidate(job, self.index, 0, now, end, cost, (first + 1) * self.cpus,
                        end <= deadline and cost <= budget)
        if one.good:
            return [one]
        costs = [self._cost(i + 1, now, now + minutes[i], reused) for i in range(first)]
        costs.append(cost)
        second = next((i for i in range(first, -1, -1) if costs[i] <= budget), -1)
        if second < 0:  # nothing fits the budget: the cheapest, the faster one on ties
            least = min(costs)
            second = next(i for i in range(first, -1, -1) if costs[i] == least)
        if second == first:
            return [one]
        end = now + minutes[second]
        return [one, Candidate(job, self.index, 1, now, end, costs[second],
                               (second + 1) * self.cpus,
                               end <= deadline and costs[second] <= budget)]

    def create_schedules(self, job: int, now: int) -> tuple[Candidate, Candidate] | None:
        """Step 1's ``(P_cost, P_perf)``: the cheapest VM count and the fastest one.

        Ties: the cheapest breaks by earlier end, the fastest by lower cost;
        ``None`` when every VM is busy.
        """
        found = self.options(job, now)
        if found is None:
            return None
        ks, ends, cost = found
        cheapest = min(range(len(ks)), key=lambda i: (cost[i], ends[i]))
        fastest = min(range(len(ks)), key=lambda i: (ends[i], cost[i]))
        return (self._candidate(job, now, 1, ks[cheapest], ends[cheapest], cost[cheapest]),
                self._candidate(job, now, 0, ks[fastest], ends[fastest], cost[fastest]))

    def _candidate(self, job: int, now: int, option: int, k: int, end: int, cost: float
                   ) -> Candidate:
        good = bool(end <= self.deadline[job] and cost <= self.budget[job])
        return Candidate(job, self.index, option, now, int(end), float(cost),
                         int(k) * self.cpus, good)

    def accept(self, candidate: Candidate) -> list[tuple[int, int]]:
        """Start the job now on its VMs; return the ``(first_cpu, count)`` ranges used.

        Jobs must be accepted in start order (the greedy VM choice then bills
        ``sum_h max VMs busy in hour h``). Raises ``ValueError`` when fewer VMs
        than the candidate needs are free.
        """
        now, end = candidate.start, candidate.end
        k = candidate.width // self.cpus
        hour, last = now // HOUR, (end - 1) // HOUR
        paid_from = hour * HOUR  # free VMs with free_at above it are billed this hour
        free_at = self.free_at
        billed_now = [v for v, f in enumerate(free_at) if paid_from < f <= now]
        others = [v for v, f in enumerate(free_at) if f <= paid_from]
        if len(billed_now) + len(others) < k:
            raise ValueError(f"cloud {self.resource.id!r} has no {k} free VMs at minute {now}")
        chosen = sorted((billed_now + others)[:k])
        new_now = k - min(k, len(billed_now))
        billed = self.billed
        if last >= len(billed):
            billed.extend([0] * (last + 1 - len(billed)))
        billed[hour] += new_now
        for h in range(hour + 1, last + 1):
            billed[h] += k
        ordered = self._sorted_free
        for v in chosen:
            del ordered[bisect_left(ordered, free_at[v])]
            insort(ordered, end)
            free_at[v] = end
        self.all_free_at = ordered[-1]
        return _ranges(chosen, self.cpus)


def _duration_table(resource: Resource, instance: Instance) -> tuple[list[list[int]], list[int]]:
    """Minutes of every job on k = 1 .. max_vms VMs, and how many VM counts are useful.

    A count is useful up to the first one that runs the job in one minute.
    """
    ks = np.arange(1, resource.max_vms + 1)
    minutes = minutes_needed_array(
        instance.size[:, None],
        rate(ks[None, :] * resource.cpus, resource.performance,
             instance.serial_fraction[:, None])).reshape(instance.n_jobs, resource.max_vms)
    ones = minutes == 1
    useful = np.where(ones.any(axis=1), ones.argmax(axis=1) + 1, resource.max_vms)
    return minutes.tolist(), useful.tolist()


def _ranges(vms: list[int], cpus: int) -> list[tuple[int, int]]:
    """Contiguous VM ids as ``(first_cpu, count)`` processor ranges."""
    out: list[tuple[int, int]] = []
    for v in vms:
        if out and out[-1][0] + out[-1][1] == v * cpus:
            out[-1] = (out[-1][0], out[-1][1] + cpus)
        else:
            out.append((v * cpus, cpus))
    return out
