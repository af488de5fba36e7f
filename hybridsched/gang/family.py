"""The ``gang`` family as the contract sees it: its :class:`~hybridsched.family.Family`.

The family is declared by its registration module (:mod:`hybridsched.gang.methods`)
and built from here the first time it is asked for.
"""

from __future__ import annotations

import numpy as np

from hybridsched.family import Family, converters
from hybridsched.gang import files
from hybridsched.gang.checker import check, could_finish, evaluate
from hybridsched.gang.instance import Instance


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


def lower_bound(instance: Instance) -> float:
    """Jobs that fewer than ``parallelism`` VMs could ever finish in time are unfinished.

    "In time" is the checker's rule, tolerance included (:func:`could_finish`), so the
    bound never exceeds the objective of a schedule the checker accepts.
    """
    return float(np.sum(could_finish(instance).sum(axis=1) < instance.parallelism))


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
    size=lambda instance: instance.n_jobs,
)
