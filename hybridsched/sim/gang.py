"""Online simulation of the ``gang`` family on the shared SimPy layer.

Decisions are made at events (arrivals, job ends). At each decision:

1. *Dropping* (the paper's metrics count unfinished jobs as not run). With
   ``drop="latest-start"`` (the default), a job is dropped at arrival when
   fewer than ``parallelism`` VMs meet its memory, bandwidth and disk demands
   (it could never run), and at any decision once fewer than ``parallelism``
   such VMs could finish a task by its deadline if started now, even all
   free (its latest start has passed). With ``drop="deadline"`` a job stays
   in the queue (seen by the policy, with no usable VM once too late) until
   the first decision at or after its deadline.
2. The policy chooses jobs to start now, each on ``parallelism`` free VMs
   that meet its demands and are fast enough to end by its deadline (the
   CPU requirement read through the deadline).

*Reading* ``drop``: the paper never says when a job leaves the queue. It
counts "UFJ: the number of unfinished jobs" and "Check(ALL) checks whether
there are more jobs can be finished before their deadlines" (Fig. 3, lost
in the text); a job that cannot finish by its deadline is unfinished either
way, so the reading only matters to a policy a waiting job can hold up
(strict FIFO's head of the queue). The default keeps the rule of the
checker's problem (a job is either run by its deadline or not run) and
drops a job as soon as it can no longer be run. Decisions happen at events
(arrivals, job ends) under both readings.

The simulation checks every choice against these rules, so a policy can
only start valid gangs; the family checker re-checks the realised schedule.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hybridsched.gang.checker import TIME_TOL
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts
from hybridsched.sim import Simulation


@dataclass
class DecisionState:
    """What a policy sees at a decision: the waiting jobs and the usable VMs.

    ``usable[k, v]``: free VM ``v`` meets the demands of ``waiting[k]`` and
    ends its task by the job's deadline if started ``now``; ``fits[k, v]``: VM
    ``v`` (free or busy) meets its memory, bandwidth and disk demands;
    ``task_time`` is the instance's full job-by-VM matrix; ``ready[v]`` is
    when VM ``v`` is free (``now`` when it is).
    """

    now: float
    waiting: np.ndarray
    usable: np.ndarray
    instance: Instance
    task_time: np.ndarray
    fits: np.ndarray
    ready: np.ndarray | None = None


#: A policy: ``policy(state) -> [(job, vms), ...]`` to start now, in order.
Policy = Callable[[DecisionState], list[tuple[int, np.ndarray]]]


@dataclass
class OnlineStats:
    """Counters of one simulation."""

    decisions: int = 0
    events: int = 0
    wall_s: float = 0.0

    def metrics(self) -> dict[str, float]:
        """Metrics a method reports beside the checker's."""
        return {"decisions": self.decisions, "events": self.events,
                "events_per_second": self.events / self.wall_s if self.wall_s > 0 else 0.0}


#: When a waiting job is dropped (module docstring), the default first.
DROP_RULES = ("latest-start", "deadline")


def simulate(instance: Instance, policy: Policy, *, drop: str = "latest-start"
             ) -> tuple[Solution, OnlineStats]:
    """Run ``policy`` online on ``instance``; return the realised schedule and counters."""
    if drop not in DROP_RULES:
        raise ValueError(f"drop: must be one of {', '.join(DROP_RULES)}, got {drop!r}")
    started_at = time.perf_counter()
    sim = Simulation()
    fits = instance.fits()
    task_time = instance.task_time()
    due = instance.due
    free = np.ones(instance.n_vms, dtype=bool)
    busy_until = np.zeros(instance.n_vms)
    waiting: list[int] = []
    starts: dict[int, tuple[float, list[int]]] = {}
    dropped: dict[int, str] = {}
    stats = OnlineStats()
    ids, vm_ids = instance.job_ids, instance.vm_ids

    def drop_job(j: int, reason: str) -> None:
        dropped[j] = reason
        sim.log.record(float(sim.now), "drop", job=ids[j], reason=reason)

    def decide() -> None:
        now = float(sim.now)
        stats.decisions += 1
        if not waiting:
            return
        rows = np.array(waiting, dtype=np.int64)
        in_time = now + task_time[rows] <= due[rows, None] + TIME_TOL
        can = fits[rows] & in_time
        if drop == "latest-start":
            late = can.sum(axis=1) < instance.parallelism[rows]
            reason = "no longer enough VMs fast enough for its deadline"
        else:
            late = now >= due[rows] - TIME_TOL
            reason = "its deadline has passed"
        for j in rows[late]:
            drop_job(int(j), reason)
        keep = ~late
        waiting[:] = rows[keep].tolist()
        if not waiting:
            return
        state = DecisionState(now, rows[keep], can[keep] & free[None, :], instance, task_time,
                              fits[rows[keep]], np.where(free, now, busy_until))
        for j, vms in policy(state):
            vms = np.asarray(vms, dtype=np.int64)
            if (len(vms) != instance.parallelism[j] or len(set(vms.tolist())) != len(vms)
                    or not free[vms].all() or not fits[j, vms].all()
                    or (now + task_time[j, vms] > due[j] + TIME_TOL).any()):
                raise RuntimeError(f"policy started job {ids[j]!r} on invalid VMs")
            free[vms] = False
            waiting.remove(int(j))
            end = now + float(task_time[j, vms].max())
            busy_until[vms] = end
            starts[int(j)] = (now, vms.tolist())
            sim.log.record(now, "start", job=ids[j], vms=[vm_ids[v] for v in vms], end=end)
            sim.after(end - now, lambda j=int(j), vms=vms, end=end: finish(j, vms, end))

    def finish(j: int, vms: np.ndarray, end: float) -> None:
        free[vms] = True
        sim.log.record(end, "end", job=ids[j])
        decide()

    def arrive(batch: list[int]) -> None:
        for j in batch:
            sim.log.record(float(sim.now), "arrival", job=ids[j])
            if drop == "latest-start" and fits[j].sum() < instance.parallelism[j]:
                drop_job(j, f"only {int(fits[j].sum())} VMs meet its demands, it needs "
                        f"{int(instance.parallelism[j])}")
            else:
                waiting.append(j)
        decide()

    sim.arrivals(instance.arrival, arrive)
    sim.run()
    for j in waiting:  # only under drop="deadline": queued past the last event
        drop_job(j, "never started")
    stats.wall_s = time.perf_counter() - started_at
    stats.events = len(sim.log)
    return from_starts(instance.n_jobs, starts, dropped, sim.log.records()), stats
