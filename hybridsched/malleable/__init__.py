"""Family ``malleable``: malleable jobs on dedicated, allocated and cloud resources.

After Caron and Dias de Assuncao (2016), *Multi-criteria malleable task
management for hybrid-cloud platforms* (CloudTech'16). Jobs arrive online
with a priority, a deadline and a budget; local schedulers (DCA, ACA, CCA)
offer candidates, and a tree of agents selects one (Algorithm 4). The
objective is the penalised cost of policy A (``penalised_a``); ``cost``,
``total_time``, ``total_delay`` and ``penalised_b`` are selectable too.
"""

from __future__ import annotations

from hybridsched.families import Family, converters, register_family
from hybridsched.malleable import files
from hybridsched.malleable.bounds import lower_bound
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.solution import Solution

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


FAMILY = register_family(
    Family(
        name="malleable",
        objective_name="penalised cost (policy A)",
        **converters(files),
        check=check,
        evaluate=evaluate,
        infeasible_items=infeasible_items,
        reference=reference,
        lower_bound=lower_bound,
        objectives=("penalised_a", "penalised_b", "cost", "total_time", "total_delay"),
        size=lambda instance: instance.n_jobs,
    )
)

__all__ = ["FAMILY", "Instance", "Resource", "ResourceType", "Solution", "check", "evaluate"]
