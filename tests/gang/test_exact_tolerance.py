"""The gang exact method on near-tolerance instances: same rule, same tolerance as the checker.

The instances are built so that deadlines fall within ~1e-6 of what a chain of
tasks needs (slacks on both sides of the checker's ``TIME_TOL``), with times
such as 1/3 that floats cannot hold exactly. An independent brute force
enumerates every choice of jobs, VMs and order, with earliest starts computed
two ways (exact, and shifted into the checker's tolerance band) and the
checker as the judge; the exact method's schedule, bound and claim of
optimality are held against it, and against the heuristics it starts from.
"""

from __future__ import annotations

from itertools import combinations, permutations, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.gang import lower_bound
from hybridsched.gang.checker import TIME_TOL, check, evaluate
from hybridsched.gang.instance import Instance
from hybridsched.gang.methods import best_heuristic
from hybridsched.gang.solution import from_starts
from hybridsched.result import Status

ONLINE = ("cplmt", "fifo", "fair", "asjs", "cmms")
SLACKS = (-2e-9, -1e-9, -5e-10, 0.0, 5e-10, 1e-9, 2e-9, 1e-8, 1e-7, 1e-6)


def fewest_unfinished(instance: Instance) -> int:
    """Fewest unfinished jobs over every schedule of jobs, VM sets and orders the checker accepts.

    Each candidate is placed at earliest starts, both exactly (``max(arrival,
    free)``) and pulled ``TIME_TOL`` into the band the checker tolerates; a
    candidate counts only if :func:`check` accepts it.
    """
    n, m = instance.n_jobs, instance.n_vms
    fits = instance.fits()
    times = instance.task_time()
    choices = [[None] + [vms for vms in combinations(range(m), int(instance.parallelism[j]))
                         if fits[j, list(vms)].all()] for j in range(n)]
    best = n
    for pick in product(*choices):
        jobs = [j for j in range(n) if pick[j] is not None]
        if n - len(jobs) >= best:
            continue
        for order, band in product(permutations(jobs), (0.0, TIME_TOL)):
            free = np.full(m, -np.inf)
            starts = {}
            for j in order:
                vms = list(pick[j])
                s = max(float(instance.arrival[j]) - band, float(free[vms].max()) - band)
                starts[j] = (s, vms)
                free[vms] = s + times[j, vms]
            dropped = {j: "not picked" for j in range(n) if j not in starts}
            if not check(instance, from_starts(n, starts, dropped)):
                best = n - len(jobs)
                break
    return best


@st.composite
def near_tolerance(draw: st.DrawFn) -> Instance:
    """2-4 jobs on 1-2 VMs whose deadlines sit a tiny slack from a chain of tasks."""
    n = draw(st.integers(2, 4))
    m = draw(st.integers(1, 2))
    instructions = np.array([draw(st.sampled_from([1.0, 2.0, 3.0])) for _ in range(n)])
    speed = np.array([draw(st.sampled_from([1.0, 2.0, 3.0])) for _ in range(m)])
    arrival = np.array([draw(st.sampled_from([0.0, 0.0, 1.0 / 3.0, 0.5])) for _ in range(n)])
    deadline = np.empty(n)
    for j in range(n):
        chain = [k for k in range(n) if k == j or draw(st.booleans())]
        v = draw(st.integers(0, m - 1))
        need = float(arrival.min()) + sum(instructions[k] / speed[v] for k in chain)
        deadline[j] = max(need + draw(st.sampled_from(SLACKS)) - arrival[j], 1e-3)
    parallelism = np.array([draw(st.integers(1, m)) for _ in range(n)])
    return Instance(
        "near", tuple(f"j{k}" for k in range(n)), arrival=arrival, parallelism=parallelism,
        instructions=instructions, memory=np.ones(n), bandwidth=np.ones(n), disk=np.zeros(n),
        deadline=deadline, vm_ids=tuple(f"v{k}" for k in range(m)), speed=speed,
        vm_memory=np.ones(m), vm_bandwidth=np.ones(m), vm_disk=np.full(m, np.inf))


@settings(max_examples=40, deadline=None)
@given(instance=near_tolerance())
def test_no_accepted_schedule_beats_a_proven_optimum(instance: Instance) -> None:
    result = run_method("gang", "exact", instance, time_limit=30)
    assert check(instance, result.solution) == []
    assert result.objective == evaluate(instance, result.solution).objective
    optimum = fewest_unfinished(instance)
    assert result.bound is not None and result.bound <= optimum
    assert lower_bound(instance) <= optimum
    assert result.objective >= optimum
    if result.status is Status.OPTIMAL:
        assert result.objective == optimum
    for method in ONLINE:
        online = run_method("gang", method, instance)
        assert check(instance, online.solution) == []
        assert online.objective >= result.bound
        if result.status is Status.OPTIMAL:
            assert online.objective >= result.objective


@settings(max_examples=15, deadline=None)
@given(instance=near_tolerance())
@pytest.mark.parametrize("limit", [0.0, 1e-300, 0.05])
def test_the_exact_method_is_never_worse_than_the_best_heuristic(instance: Instance,
                                                                limit: float) -> None:
    _, heuristic = best_heuristic(instance)
    result = run_method("gang", "exact", instance, time_limit=limit)
    assert check(instance, result.solution) == []
    assert result.objective <= evaluate(instance, heuristic).objective
    assert result.status.has_solution and result.bound <= result.objective
    if limit < 1e-6:
        assert result.status in (Status.TIME_LIMIT, Status.OPTIMAL)
        assert "best heuristic" in result.message


def test_time_limits_zero_and_tiny_return_the_same_schedule() -> None:
    rng = np.random.default_rng(3)
    from hybridsched.gang.generator import generate

    instance = generate(40, seed=int(rng.integers(1000)))
    zero = run_method("gang", "exact", instance, time_limit=0)
    tiny = run_method("gang", "exact", instance, time_limit=1e-300)
    assert zero.status is tiny.status
    assert zero.objective == tiny.objective and zero.bound == tiny.bound
    assert np.array_equal(zero.solution.start, tiny.solution.start, equal_nan=True)


def test_a_deadline_met_only_inside_the_tolerance_is_met() -> None:
    """Two unit tasks in a row on one VM; the second is due 5e-10 before it can end."""
    instance = Instance(
        "band", ("a", "b"), arrival=np.zeros(2), parallelism=np.ones(2, dtype=np.int64),
        instructions=np.ones(2), memory=np.ones(2), bandwidth=np.ones(2), disk=np.zeros(2),
        deadline=np.array([1.0, 2.0 - 5e-10]), vm_ids=("v",), speed=np.ones(1),
        vm_memory=np.ones(1), vm_bandwidth=np.ones(1), vm_disk=np.full(1, np.inf))
    result = run_method("gang", "exact", instance, time_limit=30)
    assert result.status is Status.OPTIMAL and result.objective == 0
    assert check(instance, result.solution) == []
    assert lower_bound(instance) == 0
