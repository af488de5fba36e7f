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

import numpy as np

from hybridsched.malleable.billing import HOUR, hour_cost
from hybridsched.malleable.candidates import Candidate
from hybridsched.malleable.instance import Instance, Resource
from hybridsched.malleable.speedup import minutes_needed_array, rate


class CloudScheduler:
    """The local scheduler of one cloud (CCA).

    ``tables`` may be shared by the clouds of one simulation: clouds of the
    same VM type and size then compute the job-by-VM-count durations once.
    """

    def __init__(self, index: int, resource: Resource, instance: Instance,
                 tables: dict[tuple[int, float, int], tuple[np.ndarray, np.ndarray]] | None = None
                 ) -> None:
        if not resource.is_cloud:
            raise ValueError("CloudScheduler runs clouds")
        self.index = index
        self.resource = resource
        self.instance = instance
        self.free_at = np.zeros(resource.max_vms, dtype=np.int64)
        self.last_hour = np.full(resource.max_vms, -1, dtype=np.int64)
        self.billed = np.zeros(64, dtype=np.int64)  # VMs billed per clock hour
        # Bill of n VMs for one hour, n = 0 .. max_vms (no hour ever bills more).
        self.hour_bill = np.asarray(hour_cost(resource, np.arange(resource.max_vms + 1)),
                                    dtype=float)
        key = (resource.cpus, resource.performance, resource.max_vms)
        tables = {} if tables is None else tables
        if key not in tables:
            tables[key] = _duration_table(resource, instance)
        self.minutes, self.useful = tables[key]
        self.ks = np.arange(1, resource.max_vms + 1)

    def _billed(self, first: int, last: int) -> np.ndarray:
        if last >= len(self.billed):
            grown = np.zeros(max(2 * len(self.billed), last + 1), dtype=np.int64)
            grown[: len(self.billed)] = self.billed
            self.billed = grown
        return self.billed[first: last + 1]

    def options(self, job: int, now: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``(k, end, cost)`` of running ``job`` on ``k = 1, 2, ...`` VMs from ``now``.

        ``None`` when every VM is busy. The list stops at the first ``k``
        that needs one minute (more VMs cannot be faster).
        """
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

    def candidates(self, job: int, now: int, migrate: bool = True) -> list[Candidate]:
        """Algorithm 3's candidates: one good, or the deadline one and the budget one."""
        found = self.options(job, now)
        if found is None:
            return []
        ks, ends, cost = found
        deadline = int(self.instance.deadline[job])
        budget = float(self.instance.budget[job])
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
        inst = self.instance
        good = bool(end <= inst.deadline[job] and cost <= inst.budget[job])
        return Candidate(job, self.index, option, now, int(end), float(cost),
                         int(k) * self.resource.cpus, good)

    def accept(self, candidate: Candidate) -> list[tuple[int, int]]:
        """Start the job now on its VMs; return the ``(first_cpu, count)`` ranges used.

        Jobs must be accepted in start order (the greedy VM choice then bills
        ``sum_h max VMs busy in hour h``). Raises ``ValueError`` when fewer VMs
        than the candidate needs are free.
        """
        now, end = candidate.start, candidate.end
        k = candidate.width // self.resource.cpus
        hour, last = now // HOUR, (end - 1) // HOUR
        free = self.free_at <= now
        billed_now = np.flatnonzero(free & (self.last_hour == hour))
        others = np.flatnonzero(free & (self.last_hour != hour))
        if len(billed_now) + len(others) < k:
            raise ValueError(f"cloud {self.resource.id!r} has no {k} free VMs at minute {now}")
        chosen = np.sort(np.concatenate([billed_now, others])[:k])
        new_now = k - min(k, len(billed_now))
        billed = self._billed(hour, last)
        billed[0] += new_now
        billed[1:] += k
        self.free_at[chosen] = end
        self.last_hour[chosen] = last
        return _ranges(chosen, self.resource.cpus)


def _duration_table(resource: Resource, instance: Instance) -> tuple[np.ndarray, np.ndarray]:
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
    return minutes, useful


def _ranges(vms: np.ndarray, cpus: int) -> list[tuple[int, int]]:
    """Contiguous VM ids as ``(first_cpu, count)`` processor ranges."""
    out: list[tuple[int, int]] = []
    for v in vms.tolist():
        if out and out[-1][0] + out[-1][1] == v * cpus:
            out[-1] = (out[-1][0], out[-1][1] + cpus)
        else:
            out.append((v * cpus, cpus))
    return out
