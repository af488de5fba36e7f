"""``toy-makespan`` as hybridsched's :class:`~hybridsched.family.Family` contract sees it."""

from __future__ import annotations

from hybridsched.family import Family, converters
from hybridsched_example.toy_makespan import files
from hybridsched_example.toy_makespan.bounds import lower_bound
from hybridsched_example.toy_makespan.checker import check, evaluate

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
