"""The exact model can be inspected before solving."""

import math

import numpy as np
import pyomo.environ as pyo

from hybridsched.heuristics.hybrid_deadline.cdf import cdf
from hybridsched.hybrid_deadline import PM, VMType
from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.hybrid_deadline.generator import generate
from hybridsched.models.hybrid_deadline import milp

from .helpers import make_instance


def test_slots_are_bounded_by_the_heuristic_cost():
    instance = generate(20, "mixed", 5)
    start = cdf(instance)
    built = milp.build(instance, start)
    price = instance.vm_types[0].price
    assert len(built.slot_types) <= math.floor(rent_cost(instance, start) / price + 1e-9)
    assert len(built.slot_types) >= len(start.vm_types)


def test_impossible_pairs_are_not_created():
    # Task 1 cannot finish on the slow PM by its deadline: no variable for that pair.
    instance = make_instance([1.0, 2.0], [2.0, 1.0], pms=[PM("slow", 1, 1.0)],
                             vm_types=[VMType("fast", 1, 4.0, 1.0)])
    built = milp.build(instance, None)
    pm_cores = [c for c, core in enumerate(built.cores) if not core.on_vm]
    assert (1, pm_cores[0]) not in built.pairs
    assert (0, pm_cores[0]) in built.pairs


def test_warm_start_satisfies_every_constraint():
    instance = generate(25, "mixed", 3)
    built = milp.build(instance, cdf(instance))
    for constraint in built.model.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(constraint.body)
        assert constraint.lower is None or body >= pyo.value(constraint.lower) - 1e-6
        assert constraint.upper is None or body <= pyo.value(constraint.upper) + 1e-6


def test_extract_orders_each_core_by_deadline():
    instance = generate(15, "mixed", 2)
    result = milp.solve(instance, cdf(instance))
    sol = result.solution
    for key in set(zip(sol.machine.tolist(), sol.core.tolist(), strict=True)):
        on_core = np.flatnonzero((sol.machine == key[0]) & (sol.core == key[1]))
        by_start = on_core[np.argsort(sol.start[on_core])]
        assert np.all(np.diff(instance.deadline[by_start]) >= 0)
