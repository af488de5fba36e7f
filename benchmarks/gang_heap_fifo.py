"""The yardstick of the gang simulation: strict FIFO on a plain heap of events, no SimPy.

It makes the same decisions as ``fifo`` under the default drop rule
(``latest-start``, :mod:`hybridsched.heuristics.gang.simulation`), in the same order, so it
returns the identical schedule and event log: events happen in time order,
ties in the order they were scheduled (as SimPy orders them), and each
event's time is computed as SimPy computes it (``now + (time - now)``).
At each event, waiting jobs whose ``parallelism``-th fastest fitting VM can
no longer end their task by the deadline are dropped, then the head of the
queue starts on its first usable VMs while it can.

``python benchmarks/gang_heap_fifo.py`` checks it against ``fifo`` on a few
instances; ``bench_gang.py`` prints the ratio of the two times.
"""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

from hybridsched.gang.checker import TIME_TOL
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts


def heap_fifo(instance: Instance) -> Solution:
    """Strict FIFO, simulated on a heap of ``(time, order, job)`` events."""
    fits, task_time = instance.fits(), instance.task_time()
    n_jobs, n_vms = instance.n_jobs, instance.n_vms
    p = instance.parallelism.tolist()
    fitting = fits.sum(axis=1).tolist()
    # The p-th shortest time among the fitting VMs: a job is late once even it misses.
    kth = np.sort(np.where(fits, task_time, np.inf), axis=1)
    p_th = kth[np.arange(n_jobs), np.clip(instance.parallelism, 1, n_vms) - 1].tolist()
    due_tol = (instance.due + TIME_TOL).tolist()
    ids, vm_ids = instance.job_ids, instance.vm_ids
    free = np.ones(n_vms, dtype=bool)
    ends: dict[int, float] = {}
    waiting: list[int] = []
    starts: dict[int, tuple[float, list[int]]] = {}
    dropped: dict[int, str] = {}
    log: list[dict[str, Any]] = []
    order = np.argsort(instance.arrival, kind="stable").tolist()
    times = np.asarray(instance.arrival)[order].tolist()
    events: list[tuple[float, int, int]] = []  # (time, order scheduled, job: -1 = arrivals)
    scheduled, now, k = 0, 0.0, 0
    late_reason = "no longer enough VMs fast enough for its deadline"

    def next_arrivals() -> None:  # SimPy's arrival process waits for the next batch
        nonlocal scheduled
        if k < len(order):
            at = now + (times[k] - now) if times[k] > now else now
            heapq.heappush(events, (at, scheduled, -1))
            scheduled += 1

    next_arrivals()
    while events:
        now, _, j = heapq.heappop(events)
        if j < 0:  # a batch of arrivals
            t = times[k]
            while k < len(order) and times[k] == t:
                a = order[k]
                k += 1
                log.append({"time": now, "event": "arrival", "job": ids[a]})
                if fitting[a] < p[a]:
                    dropped[a] = f"only {fitting[a]} VMs meet its demands, it needs {p[a]}"
                    log.append({"time": now, "event": "drop", "job": ids[a],
                                "reason": dropped[a]})
                else:
                    waiting.append(a)
        else:  # job j ends
            free[[int(v) for v in starts[j][1]]] = True
            log.append({"time": ends[j], "event": "end", "job": ids[j]})
        keep = []
        for w in waiting:
            if now + p_th[w] > due_tol[w]:
                dropped[w] = late_reason
                log.append({"time": now, "event": "drop", "job": ids[w], "reason": late_reason})
            else:
                keep.append(w)
        waiting = keep
        while waiting:
            head = waiting[0]
            usable = np.flatnonzero(free & fits[head]
                                    & (now + task_time[head] <= due_tol[head]))
            if len(usable) < p[head]:
                break
            vms = usable[:p[head]]
            free[vms] = False
            waiting.pop(0)
            end = now + float(task_time[head, vms].max())
            ends[head] = end
            starts[head] = (now, vms.tolist())
            log.append({"time": now, "event": "start", "job": ids[head],
                        "vms": [vm_ids[v] for v in vms], "end": end})
            heapq.heappush(events, (now + (end - now), scheduled, head))
            scheduled += 1
        if j < 0:
            next_arrivals()
    log.sort(key=lambda record: record["time"])
    return from_starts(n_jobs, starts, dropped, tuple(log))


def same_schedule(a: Solution, b: Solution) -> bool:
    """Whether two gang schedules agree in every start, VM, drop and logged event."""
    return (np.array_equal(a.start, b.start, equal_nan=True)
            and np.array_equal(a.task_job, b.task_job) and np.array_equal(a.task_vm, b.task_vm)
            and a.dropped == b.dropped and a.events == b.events)


def main() -> None:
    from hybridsched.gang.generator import generate
    from hybridsched.heuristics.gang.baselines import fifo
    from hybridsched.heuristics.gang.simulation import simulate

    for scenario, rate in (("table1", 10.0), ("table2", 40.0), ("table1", 2.0)):
        for seed in range(3):
            instance = generate(2000, rate, scenario, seed)
            same = same_schedule(heap_fifo(instance), simulate(instance, fifo)[0])
            print(f"{scenario} at {rate:g}, seed {seed}: identical to fifo: {same}")


if __name__ == "__main__":
    main()
