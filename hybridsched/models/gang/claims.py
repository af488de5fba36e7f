"""What a gang exact solve may claim, the same on both backends.

The solve starts from a schedule the checker accepts (the warm start, or the
schedule that runs no job) and only ever replaces it by a checked schedule
that ranks better. Its claim is about that schedule's UFJ (unfinished jobs):
``optimal`` when a valid bound meets it, where a solver's bound above a
checked schedule's UFJ is refuted by that schedule and discarded.
"""

from __future__ import annotations

from hybridsched.gang.checker import check, rank
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts
from hybridsched.result import Result, Status


def first_incumbent(instance: Instance, incumbent: Solution | None,
                    source: str) -> tuple[Solution, str]:
    """The schedule to start from and what it is: ``incumbent`` if the checker accepts it."""
    if incumbent is not None and not check(instance, incumbent):
        return incumbent, source
    return (from_starts(instance.n_jobs, {}, {j: "not run" for j in range(instance.n_jobs)}),
            "the schedule that runs no job")


def claim(instance: Instance, best: Solution, returned: str, *, solver: str,
          solver_bound: float, cheap_bound: float, stopped: bool, notes: list[str]) -> Result:
    """The result for the best checked schedule, the solver's bound and the family's bound."""
    unfinished, bound = rank(instance, best)[0], float(cheap_bound)
    if solver_bound > unfinished:  # refuted by a checked schedule: never claim anything from it
        notes.append(f"{solver}'s bound {solver_bound:g} exceeds a checked schedule's UFJ "
                     "and was discarded")
    else:
        bound = max(bound, solver_bound)
    status = (Status.OPTIMAL if unfinished <= bound else
              Status.TIME_LIMIT if stopped else Status.FEASIBLE)
    notes.append(f"returned {returned}")
    return Result("exact", "gang", status, solution=best, objective=unfinished,
                  bound=bound, message="; ".join(notes))
