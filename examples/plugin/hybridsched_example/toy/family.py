"""``toy-makespan`` as hybridsched's :class:`~hybridsched.family.Family` contract sees it."""

from __future__ import annotations

from hybridsched.family import Family, converters
from hybridsched_example.toy import files
from hybridsched_example.toy.checker import check, evaluate
from hybridsched_example.toy.model import Instance


def lower_bound(instance: Instance) -> float:
    """The longest task, or the total work shared evenly, whichever is larger."""
    return max(max(instance.durations), sum(instance.durations) / instance.machines)


FAMILY = Family(
    name=files.FAMILY,
    objective_name="makespan",
    **converters(files),
    check=check,
    evaluate=evaluate,
    infeasible_items=lambda instance: [],  # any placement is a schedule
    reference=lambda instance: dict(instance.reference),
    lower_bound=lower_bound,
    size=lambda instance: len(instance.durations),
)
