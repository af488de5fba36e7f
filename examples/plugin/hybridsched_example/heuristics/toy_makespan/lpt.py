"""LPT for ``toy-makespan``: longest processing time first, on the least-loaded machine."""

from __future__ import annotations

import heapq

from hybridsched_example.toy_makespan.instance import Instance
from hybridsched_example.toy_makespan.solution import Schedule


def lpt(instance: Instance) -> Schedule:
    """Longest processing time first, each task on the least-loaded machine (ties: lowest)."""
    order = sorted(range(len(instance.durations)), key=lambda t: -instance.durations[t])
    heap = [(0.0, m) for m in range(instance.machines)]
    machine_of = [0] * len(order)
    for task in order:
        load, machine = heapq.heappop(heap)
        machine_of[task] = machine
        heapq.heappush(heap, (load + instance.durations[task], machine))
    return Schedule(tuple(machine_of))
