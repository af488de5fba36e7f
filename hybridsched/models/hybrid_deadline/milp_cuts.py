"""No-good cuts of the hybrid-deadline BNP against what the checker rejects.

HiGHS accepts violations up to its feasibility tolerance (1e-9, as large as
the checker's own), so a solver schedule may break a deadline or an hour
boundary by a hair. :func:`add_no_good_cuts` forbids the combination at fault
(the tasks due by the missed deadline on that core, or the tasks that push a
VM into one more billed hour) with integer coefficients, valid for every core
of that capacity (no tolerance can blur an integer cut). The cuts remove only
what the checker rejects, so the model's bound stays valid.
"""

from __future__ import annotations

import pyomo.environ as pyo

from hybridsched.hybrid_deadline.checker import billed_hours
from hybridsched.hybrid_deadline.instance import TIME_TOL
from hybridsched.models.hybrid_deadline.milp_build import BNPModel, linear
from hybridsched.models.hybrid_deadline.milp_extract import chosen_tasks


def add_no_good_cuts(built: BNPModel) -> int:
    """Forbid the task combinations of the current solution that the checker rejects.

    For each core, its tasks run back to back in EDF order with the
    checker's arithmetic; the first task that misses ``deadline +
    TIME_TOL`` makes its prefix ``S`` infeasible on any core of that
    capacity: ``sum_{j in S} x[j, c'] <= |S| - 1``. For each VM slot whose
    ``h`` is below the checker's billed hours ``H`` of a core with tasks
    ``S``: ``h[s'] >= H (sum_{j in S} x[j, c'] - |S| + 1)`` on every core of
    every slot of that type. Returns the number of cuts added.
    """
    instance, m = built.instance, built.model
    if not hasattr(m, "no_good"):
        m.no_good = pyo.ConstraintList()
    chosen = chosen_tasks(built)
    pairs = set(built.pairs)
    added = 0
    lease_need: dict[int, tuple[int, list[int]]] = {}
    for c, tasks in chosen.items():
        core = built.cores[c]
        run = instance.work / core.capacity
        ordered = sorted(tasks, key=lambda i: (instance.deadline[i], i))
        clock = 0.0
        prefix: list[int] = []
        for i in ordered:
            clock = clock + run[i]
            prefix.append(i)
            if clock > instance.deadline[i] + TIME_TOL:
                for other, other_core in enumerate(built.cores):
                    if other_core.capacity == core.capacity and all(
                            (j, other) in pairs for j in prefix):
                        m.no_good.add(linear([1.0] * len(prefix),
                                              [m.x[j, other] for j in prefix])
                                      <= len(prefix) - 1)
                        added += 1
                break
        if core.on_vm:
            hours = billed_hours(clock)
            value = m.h[core.owner].value or 0.0
            if hours > value + 0.5 and hours > lease_need.get(core.owner, (0, []))[0]:
                lease_need[core.owner] = (hours, ordered)
    for s, (hours, tasks) in lease_need.items():
        t = built.slot_types[s]
        for other, owned in enumerate(built.slot_cores):
            if built.slot_types[other] != t:
                continue
            for c in owned:
                if all((j, c) in pairs for j in tasks):
                    m.no_good.add(linear([1.0] + [-float(hours)] * len(tasks),
                                          [m.h[other]] + [m.x[j, c] for j in tasks])
                                  >= -float(hours) * (len(tasks) - 1))
                    added += 1
    return added
