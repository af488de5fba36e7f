"""The ``gang`` family as the contract sees it: its :class:`~hybridsched.family.Family`.

The family is declared by its registration module (:mod:`hybridsched.gang.methods`)
and built from here the first time it is asked for.
"""

from __future__ import annotations

from hybridsched.family import Family, converters
from hybridsched.gang import files
from hybridsched.gang.bound_check import verify_bound
from hybridsched.gang.bounds import lower_bound
from hybridsched.gang.checker import check, evaluate
from hybridsched.gang.instance import Instance
from hybridsched.gang.measures import MEASURES


def infeasible_items(instance: Instance) -> list[str]:
    """None: a job no VM set can host is reported as unfinished, not as infeasible."""
    return []


def reference(instance: Instance) -> dict[str, float]:
    """The recorded offline optimum (fewest unfinished jobs) under ``optimum``."""
    recorded = instance.reference or {}
    found = {}
    if recorded.get("optimal_unfinished") is not None:
        found["optimum"] = float(recorded["optimal_unfinished"])
    for key in ("lower_bound", "upper_bound"):
        if recorded.get(key) is not None:
            found[key] = float(recorded[key])
    return found



FAMILY = Family(
    name="gang",
    objective_name="unfinished jobs",
    objective_metric="unfinished",
    **converters(files),
    check=check,
    evaluate=evaluate,
    infeasible_items=infeasible_items,
    reference=reference,
    lower_bound=lower_bound,
    strong_bound="hybridsched.models.gang.bound:strong_bound",
    verify_bound=verify_bound,
    measures=MEASURES,
    size_name="jobs",
    size=lambda instance: instance.n_jobs,
)
