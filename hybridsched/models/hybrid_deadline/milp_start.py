"""Warm start of the hybrid-deadline BNP: a checked schedule mapped onto the model.

PM cores of one capacity are interchangeable in the model, and so are the
slots of a VM type and the cores of a slot: :func:`load_start` maps the
schedule's cores onto them by decreasing load, sets the billed hours of each
slot and the cumulative-load variables, and says whether the whole schedule
found a place (HiGHS then gets it as its MIP start).
"""

from __future__ import annotations

from hybridsched.hybrid_deadline.checker import billed_hours
from hybridsched.hybrid_deadline.solution import Solution, durations_function
from hybridsched.models.hybrid_deadline.milp_build import BNPModel


def _pm_groups(built: BNPModel) -> dict[float, list[int]]:
    """Model PM cores by capacity (interchangeable within a group), in model order."""
    groups: dict[float, list[int]] = {}
    for c, core in enumerate(built.cores):
        if not core.on_vm:
            groups.setdefault(core.capacity, []).append(c)
    return groups


def load_start(built: BNPModel, start: Solution) -> bool:
    """Load ``start`` into the variables (PM cores of a capacity by decreasing load).

    Returns whether the whole schedule could be mapped onto the model.
    """
    instance, m = built.instance, built.model
    n_pm = len(instance.pms)
    per_core: dict[tuple[int, int], list[int]] = {}
    for i in range(instance.n_tasks):
        per_core.setdefault((int(start.machine[i]), int(start.core[i])), []).append(i)
    durations = durations_function(instance, start.vm_types)

    def core_load(key: tuple[int, int]) -> float:
        tasks = per_core.get(key, [])
        return float(durations(key[0])[tasks].sum()) if tasks else 0.0

    placement: dict[int, list[int]] = {}
    for group in _pm_groups(built).values():
        real = [(built.cores[c].owner, built.cores[c].number) for c in group]
        real.sort(key=lambda key: -core_load(key))
        for c, key in zip(group, real, strict=True):
            placement[c] = per_core.get(key, [])
    by_type: dict[int, list[int]] = {}
    for j, t in enumerate(start.vm_types):
        by_type.setdefault(t, []).append(n_pm + j)
    hours: dict[int, int] = {}
    complete = True
    for t, vms in by_type.items():
        cores = instance.vm_types[t].cores
        ranked = [sorted(((vm, c) for c in range(cores)), key=lambda key: -core_load(key))
                  for vm in vms]
        ranked = [keys for keys in ranked if any(per_core.get(key) for key in keys)]
        ranked.sort(key=lambda keys: -core_load(keys[0]))
        slots = [s for s, st in enumerate(built.slot_types) if st == t]
        complete &= len(ranked) <= len(slots)
        for s, keys in zip(slots, ranked, strict=False):
            for c, key in zip(built.slot_cores[s], keys, strict=True):
                placement[c] = per_core.get(key, [])
            hours[s] = billed_hours(core_load(keys[0]))
    pairs = set(built.pairs)
    for i, c in built.pairs:
        m.x[i, c].set_value(0)
    for c, tasks in placement.items():
        for i in tasks:
            if (i, c) in pairs:
                m.x[i, c].set_value(1)
            else:
                complete = False
    for s in range(len(built.slot_types)):
        m.h[s].set_value(min(hours.get(s, 0), int(m.h[s].ub)))
    if hasattr(m, "used"):
        for s in range(len(built.slot_types)):
            m.used[s].set_value(1 if any(placement.get(c) for c in built.slot_cores[s]) else 0)
    for variable, previous, terms in built.chains:
        value = (previous.value if previous is not None else 0.0) + sum(
            run * (x.value or 0) for run, x in terms)
        variable.set_value(value, skip_validation=True)
    return complete
