"""The ``hybrid-deadline`` family as the contract sees it: its :class:`~hybridsched.family.Family`.

The family is declared by its registration module (:mod:`hybridsched.hybrid_deadline.methods`)
and built from here the first time it is asked for.
"""

from hybridsched.family import Family, converters
from hybridsched.hybrid_deadline import files
from hybridsched.hybrid_deadline.bound_check import verify_bound
from hybridsched.hybrid_deadline.checker import check, evaluate
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.measures import MEASURES


def infeasible_items(instance: Instance) -> list[str]:
    """Tasks that no usable core can finish alone (only PM cores when ``max_vms`` is 0)."""
    from hybridsched.hybrid_deadline.bounds import infeasible_tasks

    return infeasible_tasks(instance)


def lower_bound(instance: Instance) -> float:
    """Cheap valid lower bound on the rent cost (see :mod:`hybridsched.hybrid_deadline.bounds`)."""
    from hybridsched.hybrid_deadline.bounds import lower_bound as bound

    return bound(instance)



FAMILY = Family(
    name="hybrid-deadline",
    objective_name="rent cost ($)",
    objective_metric="cost",
    **converters(files),
    check=check,
    evaluate=evaluate,
    infeasible_items=infeasible_items,
    reference=files.reference,
    lower_bound=lower_bound,
    measures=MEASURES,
    size_name="tasks",
    size=lambda instance: instance.n_tasks,
    strong_bound="hybridsched.models.hybrid_deadline.bound:strong_bound",
    verify_bound=verify_bound,
)
