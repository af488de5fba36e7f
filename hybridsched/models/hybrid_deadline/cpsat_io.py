"""Schedules in and out of the hybrid-deadline CP-SAT model: the hint and the extraction.

:func:`add_schedule_hint` maps a checked schedule onto the model's cores in
the canonical order the symmetry breaking expects (the cores of a group by
the rank of their first task), with back-to-back EDF starts in work units
and each slot's billed hours. :func:`extract` reads the solver's placement
back as a schedule in real units (EDF order, back to back from time 0,
used slots renumbered as VMs) for the family checker to judge.
"""

from __future__ import annotations

from typing import Any

from hybridsched.hybrid_deadline.checker import vm_billed_hours
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.models.hybrid_deadline.cores import edf, schedule_of
from hybridsched.models.hybrid_deadline.cpsat_build import BnpCpsat, hours_cover
from hybridsched.models.hybrid_deadline.cpsat_scale import ScaledData


def scaled_cost(instance: Instance, data: ScaledData, solution: Solution) -> int:
    """The cost of a checked ``solution`` in the model's (scaled) price units."""
    hours = vm_billed_hours(instance, solution)
    return sum(data.price[t] * h for t, h in zip(solution.vm_types, hours, strict=True))


def _placement(built: BnpCpsat, solution: Solution) -> dict[int, list[int]] | None:
    """Model core -> tasks for ``solution`` in canonical order, or ``None`` if it does not fit."""
    instance = built.instance
    n_pm = len(instance.pms)
    position = {i: r for r, i in enumerate(built.rank)}
    per_core: dict[tuple[int, int], list[int]] = {}
    for i in range(instance.n_tasks):
        per_core.setdefault((int(solution.machine[i]), int(solution.core[i])), []).append(i)

    def first(tasks: list[int]) -> int:
        return min((position[i] for i in tasks), default=len(position))

    placement: dict[int, list[int]] = {}
    pm_sets: dict[float, list[list[int]]] = {}
    for k, pm in enumerate(instance.pms):
        for n in range(pm.cores):
            pm_sets.setdefault(pm.capacity, []).append(per_core.get((k, n), []))
    for capacity, sets in pm_sets.items():
        cores = [c for c, core in enumerate(built.cores)
                 if not core.on_vm and core.capacity == capacity]
        for c, tasks in zip(cores, sorted(sets, key=first), strict=True):
            placement[c] = tasks
    for t in range(len(instance.vm_types)):
        vms = [sorted((per_core.get((n_pm + j, n), []) for n in range(instance.vm_types[t].cores)),
                      key=first)
               for j, vt in enumerate(solution.vm_types) if vt == t]
        vms = sorted((sets for sets in vms if any(sets)), key=lambda sets: first(sets[0]))
        slots = [s for s, st in enumerate(built.slot_types) if st == t]
        if len(vms) > len(slots):
            return None
        for s, sets in zip(slots, vms, strict=False):
            for c, tasks in zip(built.slot_cores[s], sets, strict=True):
                placement[c] = tasks
    return placement


def add_schedule_hint(built: BnpCpsat, solution: Solution) -> bool:
    """Hint ``solution`` to CP-SAT (all placements, starts and hours); whether it fitted."""
    placement = _placement(built, solution)
    if placement is None:
        return False
    instance, data, model = built.instance, built.data, built.model
    on: dict[int, int] = {}
    start: dict[int, int] = {}
    loads = [0] * len(built.cores)
    for c, tasks in placement.items():
        clock = 0
        for i in edf(instance, tasks):
            if (i, c) not in built.x:
                return False
            on[i], start[i] = c, clock
            clock += data.work[i]
        loads[c] = clock
    for (i, c), present in built.x.items():
        model.add_hint(present, int(on.get(i) == c))
        model.add_hint(built.starts[i, c], start[i] if on.get(i) == c else 0)
    for s, owned in enumerate(built.slot_cores):
        capacity = built.cores[owned[0]].capacity
        hours = hours_cover(data, capacity, max(loads[c] for c in owned))
        model.add_hint(built.hours[s], hours)
    return True


def chosen(built: BnpCpsat, solver: Any) -> dict[int, list[int]]:
    """Tasks on each model core in the solver's incumbent (cores with none left out)."""
    placed: dict[int, list[int]] = {}
    for (i, c), present in built.x.items():
        if solver.boolean_value(present):
            placed.setdefault(c, []).append(i)
    return placed


def extract(built: BnpCpsat, solver: Any) -> Solution:
    """The incumbent as a schedule: EDF order, back to back, in hours."""
    return schedule_of(built.instance, built.cores, built.slot_types, chosen(built, solver))
