"""Family ``hybrid-deadline``: deadline-constrained BoT jobs on PMs plus per-hour VMs.

After Wang, Song, Sun and Liu (2016), *Managing deadline-constrained
bag-of-tasks jobs on hybrid clouds with closest deadline first scheduling*.
"""

from hybridsched.families import Family, converters, register_family
from hybridsched.hybrid_deadline import files
from hybridsched.hybrid_deadline.checker import check, evaluate
from hybridsched.hybrid_deadline.instance import PM, Instance, VMType
from hybridsched.hybrid_deadline.solution import Solution


def infeasible_items(instance: Instance) -> list[str]:
    """Tasks that no usable core can finish alone (only PM cores when ``max_vms`` is 0)."""
    from hybridsched.models.bnp_bounds import infeasible_tasks

    return infeasible_tasks(instance)


def lower_bound(instance: Instance) -> float:
    """Cheap valid lower bound on the rent cost (see :mod:`hybridsched.models.bnp_bounds`)."""
    from hybridsched.models.bnp_bounds import lower_bound as bound

    return bound(instance)


FAMILY = register_family(
    Family(
        name="hybrid-deadline",
        objective_name="rent cost ($)",
        **converters(files),
        check=check,
        evaluate=evaluate,
        infeasible_items=infeasible_items,
        reference=files.reference,
        lower_bound=lower_bound,
        size=lambda instance: instance.n_tasks,
    )
)

__all__ = ["FAMILY", "PM", "Instance", "Solution", "VMType", "check", "evaluate",
           "infeasible_items", "lower_bound"]
