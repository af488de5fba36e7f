"""Reading a schedule back from the hybrid-deadline BNP's variables.

:func:`chosen_tasks` says which tasks the solver put on each model core;
:func:`extract` turns that into a
:class:`~hybridsched.hybrid_deadline.solution.Solution` (EDF order on every
core, the used slots renumbered as VMs) for the family checker to judge.
"""

from __future__ import annotations

from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences
from hybridsched.models.bnp_build import BNPModel


def chosen_tasks(built: BNPModel) -> dict[int, list[int]]:
    """Tasks on each model core in the variables' current values (cores with none left out)."""
    chosen: dict[int, list[int]] = {}
    for i, c in built.pairs:
        value = built.model.x[i, c].value
        if value is not None and value > 0.5:
            chosen.setdefault(c, []).append(i)
    return chosen


def extract(built: BNPModel) -> Solution:
    """Read the schedule from the variables' values: EDF order on every core."""
    instance = built.instance
    chosen = chosen_tasks(built)
    used_slots = sorted({built.cores[c].owner for c in chosen if built.cores[c].on_vm})
    vm_number = {s: j for j, s in enumerate(used_slots)}
    vm_types = [built.slot_types[s] for s in used_slots]
    n_pm = len(instance.pms)
    sequences = {}
    for c, tasks in chosen.items():
        core = built.cores[c]
        machine = n_pm + vm_number[core.owner] if core.on_vm else core.owner
        sequences[(machine, core.number)] = sorted(tasks, key=lambda i: (instance.deadline[i], i))

    return from_core_sequences(instance.n_tasks, vm_types, sequences,
                               durations_function(instance, vm_types))
