"""The cores both hybrid-deadline models place tasks on, and the schedule a placement makes.

Both backends index the same cores: every core of every PM, then the cores of
each VM *slot* (a VM the model may rent). A placement (model core -> tasks)
becomes a :class:`~hybridsched.hybrid_deadline.solution.Solution` the same way
for both: tasks in EDF order on each core, back to back, and the slots used
renumbered as the schedule's VMs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences


@dataclass(frozen=True)
class Core:
    """A model core: core ``number`` of PM ``owner``, or of VM slot ``owner``."""

    on_vm: bool
    owner: int
    number: int
    capacity: float


def edf(instance: Instance, tasks: list[int]) -> list[int]:
    """``tasks`` by deadline, then index: the order every core runs its tasks in."""
    return sorted(tasks, key=lambda i: (instance.deadline[i], i))


def schedule_of(instance: Instance, cores: Sequence[Core], slot_types: Sequence[int],
                placed: dict[int, list[int]]) -> Solution:
    """The schedule of a placement ``{model core: tasks}``: EDF order, back to back, in hours."""
    used = sorted({cores[c].owner for c in placed if cores[c].on_vm})
    number = {s: j for j, s in enumerate(used)}
    vm_types = [slot_types[s] for s in used]
    n_pm = len(instance.pms)
    sequences = {}
    for c, tasks in placed.items():
        core = cores[c]
        machine = n_pm + number[core.owner] if core.on_vm else core.owner
        sequences[(machine, core.number)] = edf(instance, tasks)
    return from_core_sequences(instance.n_tasks, vm_types, sequences,
                               durations_function(instance, vm_types))
