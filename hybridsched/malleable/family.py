"""The ``malleable`` family as the contract sees it: its :class:`~hybridsched.family.Family`.

The family is declared by its registration module (:mod:`hybridsched.malleable.methods`)
and built from here the first time it is asked for.
"""

from __future__ import annotations

from hybridsched.family import Family, converters
from hybridsched.malleable import files
from hybridsched.malleable.bound_check import verify_bound
from hybridsched.malleable.bounds import lower_bound
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.instance import Instance
from hybridsched.malleable.measures import MEASURES

#: Recorded optimum keys of the instance file, by objective.
OPTIMUM_KEYS = {"penalised_a": "optimal_penalised_a", "penalised_b": "optimal_penalised_b",
                "cost": "optimal_cost"}


def infeasible_items(instance: Instance) -> list[str]:
    """None: deadlines and budgets are soft, and every job fits on every resource."""
    return []


def reference(instance: Instance) -> dict[str, float]:
    """Recorded offline optima and bounds.

    ``optimum`` (policy A score) and ``optimum_<objective>`` where proven;
    ``lower_bound_<objective>`` and ``upper_bound_<objective>`` where not
    (``lower_bound`` and ``upper_bound`` alone for policy A).
    """
    recorded = instance.reference or {}
    found: dict[str, float] = {}
    for objective, key in OPTIMUM_KEYS.items():
        if recorded.get(key) is not None:
            found[f"optimum_{objective}"] = float(recorded[key])
            if objective == "penalised_a":
                found["optimum"] = float(recorded[key])
    for objective in OPTIMUM_KEYS:
        for side in ("lower_bound", "upper_bound"):
            value = recorded.get(f"{side}_{objective}")
            if value is not None:
                found[f"{side}_{objective}"] = float(value)
                if objective == "penalised_a":
                    found[side] = float(value)
    for key in ("lower_bound", "upper_bound"):
        if recorded.get(key) is not None:
            found[key] = float(recorded[key])
    return found



FAMILY = Family(
    name="malleable",
    objective_name="penalised cost (policy A)",
    objective_metric="penalised_a",
    **converters(files),
    check=check,
    evaluate=evaluate,
    infeasible_items=infeasible_items,
    reference=reference,
    lower_bound=lower_bound,
    strong_bound="hybridsched.models.malleable.bound:strong_bound",
    verify_bound=verify_bound,
    objectives=("penalised_a", "penalised_b", "cost", "total_time", "total_delay"),
    measures=MEASURES,
    size_name="jobs",
    size=lambda instance: instance.n_jobs,
)
