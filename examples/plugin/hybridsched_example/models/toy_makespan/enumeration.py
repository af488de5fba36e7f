"""The exact method of ``toy-makespan``: every placement tried (tiny instances only)."""

from __future__ import annotations

import itertools
import time

from hybridsched.errors import InputError
from hybridsched.result import Result, Status
from hybridsched_example.heuristics.toy_makespan.lpt import lpt
from hybridsched_example.toy_makespan.bounds import lower_bound
from hybridsched_example.toy_makespan.checker import makespan
from hybridsched_example.toy_makespan.instance import Instance
from hybridsched_example.toy_makespan.solution import Schedule

#: Enumeration is refused above this many tasks (machines ** tasks schedules).
MAX_ENUMERATED_TASKS = 12


def enumerate_all(instance: Instance, time_limit: float | None = None) -> Result:
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
