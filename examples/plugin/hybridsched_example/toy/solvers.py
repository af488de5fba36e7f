"""Two methods for ``toy-makespan``: LPT (a heuristic) and enumeration (exact, tiny only)."""

from __future__ import annotations

import heapq
import itertools
import time

from hybridsched.errors import InputError
from hybridsched.result import Result, Status
from hybridsched_example.toy.checker import makespan
from hybridsched_example.toy.family import lower_bound
from hybridsched_example.toy.model import Instance, Schedule

#: Enumeration is refused above this many tasks (machines ** tasks schedules).
MAX_ENUMERATED_TASKS = 12


def lpt(instance: Instance, *, seed: int | None = None, time_limit: float | None = None
        ) -> Schedule:
    """Longest processing time first, each task on the least-loaded machine (ties: lowest)."""
    order = sorted(range(len(instance.durations)), key=lambda t: -instance.durations[t])
    heap = [(0.0, m) for m in range(instance.machines)]
    machine_of = [0] * len(order)
    for task in order:
        load, machine = heapq.heappop(heap)
        machine_of[task] = machine
        heapq.heappush(heap, (load + instance.durations[task], machine))
    return Schedule(tuple(machine_of))


def enumerate_all(instance: Instance, *, seed: int | None = None,
                  time_limit: float | None = None) -> Result:
    """Try every placement (first task on machine 0: machines are identical).

    ``optimal`` when every placement was tried, ``time_limit`` with the
    LPT-or-better incumbent and the simple lower bound otherwise.
    """
    n = len(instance.durations)
    if n > MAX_ENUMERATED_TASKS:
        raise InputError(f"method 'enumerate' takes at most {MAX_ENUMERATED_TASKS} tasks, "
                         f"this instance has {n}")
    start = time.perf_counter()
    best = lpt(instance)
    best_value = makespan(instance, best)
    for rest in itertools.product(range(instance.machines), repeat=n - 1):
        if time_limit is not None and time.perf_counter() - start > time_limit:
            return Result("enumerate", "toy-makespan", Status.TIME_LIMIT, solution=best,
                          bound=lower_bound(instance))
        candidate = Schedule((0, *rest))
        value = makespan(instance, candidate)
        if value < best_value:
            best, best_value = candidate, value
    return Result("enumerate", "toy-makespan", Status.OPTIMAL, solution=best, bound=best_value)
