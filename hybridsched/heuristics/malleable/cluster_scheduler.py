"""DCA and ACA: the local schedulers of dedicated and allocated clusters (Algorithms 1, 2).

A cluster keeps its waiting jobs in decreasing order of priority (equal
priorities: earlier arrival, then job order). The job at the head of the
queue runs on all processors of the cluster, non-preemptively; queued jobs
may still be moved elsewhere (rescheduled) before they start.

For a new job the scheduler simulates its insertion: the job ends after
the running job, the queued jobs of higher or equal priority and itself.
Lower-priority queued jobs are then replayed in order; a job whose deadline
the insertion breaks (it met it before and misses it after) is taken out to
be rescheduled, the others are delayed. If the rescheduled jobs together
are as big as the new job, or bigger, the scheduler declines (sends an
empty list); otherwise it sends one candidate. The allocated cluster (ACA)
is the same plus the price of the processor-minutes reserved
(``price * cpus * duration``), which its candidate must fit in the budget;
a dedicated cluster (DCA) is free.

*Readings.* Algorithm 1 tests ``job_finished + j.length < j.deadline``
strictly while ``IsGood`` uses ``<=``: we use ``<=`` (ending at the
deadline is on time) in both. Algorithm 2's reservations are per job: a job
reserves all the cluster's processors for its run (the rule of Algorithm 1,
which ACA copies), so one reservation per job. Jobs that were already late
before the insertion are delayed, not rescheduled (the insertion does not
break their deadline).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Generator
from typing import Any

import numpy as np

from hybridsched.malleable.candidates import Candidate, is_good
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.speedup import minutes_needed_array, rate

#: ``on_start(job, resource, start, end, cpu, count)``, ``on_end(job, resource, time)``.
StartHook = Callable[[int, int, int, int, int, int], None]


class ClusterScheduler:
    """The local scheduler of one cluster (DCA if dedicated, ACA if allocated)."""

    def __init__(self, index: int, resource: Resource, instance: Instance,
                 tables: dict[Any, Any] | None = None) -> None:
        if resource.is_cloud:
            raise ValueError("ClusterScheduler runs clusters, not clouds")
        self.index = index
        self.resource = resource
        # ``tables`` may be shared by the leaves of one simulation: the per-job lists are
        # then built once, and once per kind of cluster (read only, never changed).
        tables = {} if tables is None else tables
        if "jobs" not in tables:
            tables["jobs"] = job_lists(instance)
        self.size, self.deadline, self.budget, self.order = tables["jobs"]
        paid = resource.type is ResourceType.ALLOCATED
        key = ("cluster", resource.cpus, resource.performance, resource.price if paid else None)
        if key not in tables:
            durations = minutes_needed_array(
                instance.size,
                rate(resource.cpus, resource.performance, instance.serial_fraction))
            tables[key] = (durations.tolist(),
                           (resource.price * resource.cpus * durations.astype(float)
                            if paid else np.zeros(instance.n_jobs)).tolist())
        self.duration: list[int]
        self.cost: list[float]
        self.duration, self.cost = tables[key]
        self.queue: list[tuple[int, int, int]] = []  # order keys; the job is the last field
        self.busy_until = 0
        self.running: int | None = None
        self._wake: Any = None

    def candidates(self, job: int, now: int, migrate: bool = True) -> list[Candidate]:
        """The candidates of Algorithms 1/2 for ``job`` at ``now`` (empty: declined).

        With ``migrate=False`` no job is rescheduled: lower-priority jobs are
        delayed instead, and the scheduler never declines.
        """
        if not self.queue:  # the common case, kept cheap: nothing to delay or migrate
            end = max(now, self.busy_until) + self.duration[job]
            cost = self.cost[job]
            return [Candidate(job, self.index, 0, end - self.duration[job], end, cost,
                              self.resource.cpus,
                              end <= self.deadline[job] and cost <= self.budget[job])]
        queue, dur = self.queue, self.duration
        pos = bisect.bisect_left(queue, self.order[job])
        start = max(now, self.busy_until)
        for k in range(pos):  # the running job's end, then the jobs queued before this one
            start += dur[queue[k][2]]
        end = start + dur[job]
        moved: list[int] = []
        if migrate:
            now_end, old_end = end, start
            deadline = self.deadline
            for k in range(pos, len(queue)):
                q = queue[k][2]
                d = dur[q]
                old_end += d
                if now_end + d <= deadline[q] or old_end > deadline[q]:
                    now_end += d
                else:
                    moved.append(q)
        cost = self.cost[job]
        if not moved:
            return [Candidate(job, self.index, 0, start, end, cost, self.resource.cpus,
                              end <= self.deadline[job] and cost <= self.budget[job])]
        moved_size = sum(self.size[q] for q in moved)
        if moved_size >= self.size[job]:
            return []
        good = is_good(end, cost, moved_size, self.deadline[job], self.budget[job],
                       self.size[job])
        return [Candidate(job, self.index, 0, start, end, cost, self.resource.cpus, good,
                          tuple(moved))]

    def create_schedules(self, job: int, now: int) -> tuple[Candidate, Candidate]:
        """Step 1's ``(P_cost, P_perf)``: one schedule, all processors, so both are the same.

        (A job at the head of a cluster's queue runs on all its processors;
        with linear speed-up that is also the cheapest use of an allocated
        cluster, and with Amdahl's law only the fastest.)
        """
        (schedule,) = self.candidates(job, now, migrate=False)
        return schedule, schedule

    def accept(self, candidate: Candidate) -> None:
        """Queue the candidate's job and take out the jobs it migrates."""
        for q in candidate.migrate:
            self.queue.remove(self.order[q])
        bisect.insort(self.queue, self.order[candidate.job])
        if self._wake is not None and not self._wake.triggered:
            self._wake.succeed()

    def process(self, env: Any, on_start: StartHook, on_end: Callable[[int, int, int], None]
                ) -> Generator[Any, Any, None]:
        """SimPy process: run the head of the queue on all processors, forever."""
        while True:
            if not self.queue:
                self._wake = env.event()
                yield self._wake
                self._wake = None
                continue
            job = self.queue.pop(0)[2]
            start = int(env.now)
            end = start + self.duration[job]
            self.running, self.busy_until = job, end
            on_start(job, self.index, start, end, 0, self.resource.cpus)
            yield env.timeout(end - start)
            self.running = None
            on_end(job, self.index, end)


def job_lists(instance: Instance) -> tuple[list[float], list[int], list[float],
                                           list[tuple[int, int, int]]]:
    """Per-job ``(size, deadline, budget, queue order key)`` as Python lists.

    The order key sorts by decreasing priority, then arrival, then job index.
    """
    order = list(zip((-instance.priority).tolist(), instance.arrival.tolist(),
                     range(instance.n_jobs), strict=True))
    return (instance.size.tolist(), instance.deadline.tolist(), instance.budget.tolist(), order)
