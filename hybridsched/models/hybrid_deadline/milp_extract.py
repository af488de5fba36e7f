"""Reading a schedule back from the hybrid-deadline BNP's variables.

:func:`chosen_tasks` says which tasks the solver put on each model core;
:func:`extract` turns that into a
:class:`~hybridsched.hybrid_deadline.solution.Solution` (EDF order on every
core, the used slots renumbered as VMs) for the family checker to judge.
"""

from __future__ import annotations

from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.models.hybrid_deadline.cores import schedule_of
from hybridsched.models.hybrid_deadline.milp_build import BNPModel


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
    return schedule_of(built.instance, built.cores, built.slot_types, chosen_tasks(built))
