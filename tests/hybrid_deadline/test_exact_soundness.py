"""The exact method against an independent brute force near the checker tolerance (issue 6/7).

The brute force enumerates every assignment of up to 6 tasks to PM cores and
to rented VMs (new VMs numbered canonically, so no two enumerated schedules
differ only by VM numbering), runs each core's tasks back to back in EDF
order, and keeps the cheapest schedule the family checker accepts. It shares
nothing with the model, the heuristics or the bounds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched import get_family
from hybridsched.heuristics.hybrid_deadline.cdf import cdf
from hybridsched.hybrid_deadline import PM, Instance, VMType, check
from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.hybrid_deadline.instance import TIME_TOL
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.models.hybrid_deadline import milp
from hybridsched.models.hybrid_deadline.milp_cuts import add_no_good_cuts
from hybridsched.models.solvers.highs import solve_with_highs
from hybridsched.result import Status

from .helpers import make_instance, solve_checked


def _schedule(instance: Instance, vm_types: list[int],
              cores: dict[tuple[int, int], list[int]]) -> Solution:
    """Back-to-back EDF schedule of ``cores`` ({(machine, core): tasks})."""
    n = instance.n_tasks
    machine, core = np.zeros(n, dtype=int), np.zeros(n, dtype=int)
    start, finish = np.zeros(n), np.zeros(n)
    n_pm = len(instance.pms)
    for (m, c), tasks in cores.items():
        capacity = (instance.pms[m].capacity if m < n_pm
                    else instance.vm_types[vm_types[m - n_pm]].capacity)
        clock = 0.0
        for i in sorted(tasks, key=lambda i: (instance.deadline[i], i)):
            machine[i], core[i], start[i] = m, c, clock
            clock = clock + instance.work[i] / capacity
            finish[i] = clock
    return Solution(tuple(vm_types), machine, core, start, finish)


def _edf_ok(instance: Instance, tasks: list[int], capacity: float) -> bool:
    clock = 0.0
    for i in sorted(tasks, key=lambda i: (instance.deadline[i], i)):
        clock = clock + instance.work[i] / capacity
        if clock > instance.deadline[i] + TIME_TOL:
            return False
    return True


def brute_force(instance: Instance) -> float | None:
    """Optimal rent cost by enumeration (``None``: infeasible)."""
    n_pm = len(instance.pms)
    pm_keys = [(k, c) for k, pm in enumerate(instance.pms) for c in range(pm.cores)]
    limit = instance.n_tasks if instance.max_vms is None else min(instance.max_vms,
                                                                   instance.n_tasks)
    best = [math.inf]
    cores: dict[tuple[int, int], list[int]] = {key: [] for key in pm_keys}
    vm_types: list[int] = []

    def capacity(key: tuple[int, int]) -> float:
        m = key[0]
        return (instance.pms[m].capacity if m < n_pm
                else instance.vm_types[vm_types[m - n_pm]].capacity)

    def place(i: int) -> None:
        if i == instance.n_tasks:
            solution = _schedule(instance, list(vm_types), cores)
            if not check(instance, solution):
                best[0] = min(best[0], rent_cost(instance, solution))
            return
        for key in list(cores):
            m, c = key
            if m >= n_pm and c > 0 and not cores[(m, c - 1)]:
                continue  # empty VM cores are interchangeable: fill them in order
            cores[key].append(i)
            if _edf_ok(instance, cores[key], capacity(key)):
                place(i + 1)
            cores[key].pop()
        if len(vm_types) < limit:
            for t, vm in enumerate(instance.vm_types):
                m = n_pm + len(vm_types)
                vm_types.append(t)
                for c in range(vm.cores):
                    cores[(m, c)] = []
                cores[(m, 0)].append(i)
                if _edf_ok(instance, cores[(m, 0)], vm.capacity):
                    place(i + 1)
                for c in range(vm.cores):
                    del cores[(m, c)]
                vm_types.pop()

    place(0)
    return None if math.isinf(best[0]) else best[0]


def assert_agrees(instance: Instance) -> None:
    """``exact`` matches the brute force: status, optimum, and a valid bound."""
    expected = brute_force(instance)
    result = solve_checked(instance, "exact")
    lower = get_family("hybrid-deadline").lower_bound(instance)
    if expected is None:
        assert result.status is Status.INFEASIBLE, (result.status, result.message)
        return
    assert result.status is Status.OPTIMAL, (result.status, result.message, expected)
    assert result.objective == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert result.bound is not None
    assert result.bound <= expected + 1e-9
    assert result.objective <= result.bound * (1 + 1e-9) + 1e-9  # optimal: bound meets it
    assert lower <= expected + 1e-9


VM1 = VMType("one", 1, 1.0, 0.105)


@pytest.mark.parametrize("works, deadline, pms, types, max_vms, expected", [
    # Two near-half works sum to 1 + 1e-10 h on a 1 GHz core: within TIME_TOL, no VM.
    ([0.4999999995, 0.5000000006], 1.0, [PM("p", 1, 1.0)], [VM1], None, 0.0),
    # The same two works overshoot by 2e-9 h: one must rent (one hour).
    ([0.4999999995, 0.5000000025], 1.0, [PM("p", 1, 1.0)], [VM1], None, 0.105),
    # A VM lease of 1 + 5e-10 h bills one hour (the checker's ceil(lease - TIME_TOL)).
    ([0.6, 0.4000000005], 2.0, [], [VM1], None, 0.105),
    # ... and of 1 + 2e-9 h two hours, unless split over two VMs (one hour each).
    ([0.6, 0.400000002], 2.0, [], [VM1], None, 0.21),
    # No VM allowed: 1 + 5e-10 h of work fits by deadline 1; 1 + 2e-9 h does not.
    ([0.5, 0.5000000005], 1.0, [PM("p", 1, 1.0)], [VM1], 0, 0.0),
    ([0.5, 0.500000002], 1.0, [PM("p", 1, 1.0)], [VM1], 0, None),
    # Equal prices per GHz-hour on two types: costs tie.
    ([0.7, 0.7, 0.7], 1.0, [], [VMType("a", 1, 1.0, 0.1), VMType("b", 2, 1.0, 0.2)], None,
     0.3),
    # Loads at 1 +- 5e-10 on a two-core VM, one core per side of the hour.
    ([0.5, 0.5000000005, 0.4999999995, 0.5], 1.5, [], [VMType("two", 2, 1.0, 0.105)], None,
     0.105),
])
def test_awkward_instances_match_the_brute_force(works, deadline, pms, types, max_vms,
                                                 expected):
    instance = make_instance(works, deadline, pms=pms, vm_types=types, max_vms=max_vms)
    assert brute_force(instance) == (None if expected is None else pytest.approx(expected))
    assert_agrees(instance)


@st.composite
def tiny_instances(draw):
    n = draw(st.integers(1, 5))
    base = draw(st.sampled_from([0.5, 1.0, 1.5]))
    # Works near simple fractions of an hour, nudged by sub-tolerance amounts.
    work = [draw(st.sampled_from([0.25, 0.5, 0.75, 1.0, 1.25])) * base
            + draw(st.sampled_from([0.0, 0.0, 5e-10, -5e-10, 2e-9, -2e-9]))
            for _ in range(n)]
    deadline = [draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0])) for _ in range(n)]
    pms = [PM(f"pm{k}", draw(st.integers(1, 2)), draw(st.sampled_from([1.0, 1.5])))
           for k in range(draw(st.integers(0, 1)))]
    types = [VMType(f"t{k}", draw(st.integers(1, 2)), draw(st.sampled_from([1.0, 2.0])),
                    draw(st.sampled_from([0.1, 0.105, 0.2])))
             for k in range(draw(st.integers(1, 2)))]
    max_vms = draw(st.sampled_from([None, None, 0, 1, 2]))
    return make_instance(work, deadline, pms=pms, vm_types=types, max_vms=max_vms)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_instances())
def test_exact_agrees_with_the_brute_force(instance):
    assert_agrees(instance)


def test_no_good_cuts_forbid_what_the_solver_tolerance_lets_through():
    """HiGHS accepts a 1e-9 h overshoot; the cut on that pair of tasks does not."""
    instance = make_instance([0.4999999995, 0.5000000025], 1.0, pms=[PM("p", 1, 1.0)],
                             vm_types=[VM1])
    built = milp.build(instance, None)
    pm_core = next(c for c, core in enumerate(built.cores) if not core.on_vm)
    for i, c in built.pairs:  # the solver's favourite: both tasks on the PM core
        built.model.x[i, c].set_value(1 if c == pm_core else 0)
    for s in range(len(built.slot_types)):
        built.model.h[s].set_value(0)
    assert check(instance, milp.extract(built)) != []
    assert add_no_good_cuts(built) >= 1
    outcome = solve_with_highs(built.model, mip_rel_gap=1e-9)
    assert outcome.status is Status.OPTIMAL
    assert outcome.objective == pytest.approx(0.105)
    assert check(instance, milp.extract(built)) == []


def test_the_solver_schedule_is_checked_and_never_claimed_beyond_the_proof(monkeypatch):
    """Even a schedule broken past repair is never returned, nor called optimal."""
    instance = make_instance([0.6, 0.6, 0.6, 0.3], [1.0, 1.0, 1.0, 2.0],
                             pms=[PM("p", 1, 1.0)])

    def broken_extract(built):
        solution = real_extract(built)
        finish, start = solution.finish.copy(), solution.start.copy()
        i = int(np.argmax(finish - instance.deadline))
        start[i] += instance.deadline[i] + 1e-6 - finish[i]
        finish[i] = instance.deadline[i] + 1e-6
        return Solution(solution.vm_types, solution.machine, solution.core, start, finish)

    real_extract = milp.extract
    monkeypatch.setattr(milp, "extract", broken_extract)
    result = milp.solve(instance, None)
    assert result.status is Status.NO_SOLUTION and result.solution is None
    assert result.bound is not None and result.bound <= 1.0 + 1e-9
    start = cdf(instance)
    result = milp.solve(instance, start)
    assert result.solution is start and check(instance, start) == []
    assert result.status is not Status.OPTIMAL or result.bound >= rent_cost(instance, start) - 1e-9
