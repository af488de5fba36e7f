"""What a hybrid-deadline exact solve may claim, the same on both backends.

A claim is made on a schedule the family checker accepted, at the rent cost
the checker recomputes: ``optimal`` only when that cost meets a proven bound
(:func:`proves_optimal`); otherwise ``time_limit`` or ``feasible`` with the
bound, never above the schedule's cost.
"""

from __future__ import annotations

from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.result import Result, Status

#: Relative tolerance when comparing a checked cost (dollars, float sums) with a proven bound.
OPTIMALITY_RTOL = 1e-9
#: Absolute tolerance (dollars) of the same comparison.
OPTIMALITY_ATOL = 1e-9

FAMILY = "hybrid-deadline"


def proves_optimal(cost: float, bound: float | None) -> bool:
    """Whether a checked ``cost`` meets a proven ``bound`` (within the stated tolerance)."""
    return bound is not None and cost <= bound * (1 + OPTIMALITY_RTOL) + OPTIMALITY_ATOL


def result(status: Status, solution: Solution | None, bound: float | None,
           message: str) -> Result:
    """The exact method's result, as it is."""
    return Result("exact", FAMILY, status, solution=solution, bound=bound, message=message)


def finish(instance: Instance, best: Solution | None, bound: float | None, timed_out: bool,
           message: str) -> Result:
    """The result for a checked schedule ``best`` (or none) and a valid ``bound`` (or none)."""
    if best is None:
        return result(Status.NO_SOLUTION, None, bound, message)
    cost = rent_cost(instance, best)
    if proves_optimal(cost, bound):
        return result(Status.OPTIMAL, best, min(bound, cost), message)
    return result(Status.TIME_LIMIT if timed_out else Status.FEASIBLE, best,
                  None if bound is None else min(bound, cost), message)
