"""The gang exact method on near-tolerance instances: same rule, same tolerance as the checker.

The instances are built so that deadlines fall within ~1e-6 of what a chain of
tasks needs (slacks on both sides of the checker's ``TIME_TOL``), with times
such as 1/3 that floats cannot hold exactly; random tiny instances besides.
An independent brute force enumerates every choice of jobs, VM sets and
order, with earliest starts computed two ways (exact, and pulled into the
band the checker once tolerated per start: each start ``TIME_TOL`` early)
and the checker as the judge. The checker recomputes real times (a stated
start within ``TIME_TOL`` of the earliest one is rounded to it, the tolerance
is granted once, at the deadline), so the band buys nothing, and the exact
method proves the brute force's optimum; its schedule, bound and claim are
held against it, and against the heuristics it starts from.
"""

from __future__ import annotations

import dataclasses
from itertools import combinations, permutations, product

import numpy as np
import pulp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.gang import lower_bound
from hybridsched.gang.adapters import best_heuristic
from hybridsched.gang.checker import TIME_TOL, check, evaluate
from hybridsched.gang.generator import generate
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import from_starts
from hybridsched.models.gang import milp, milp_capacity
from hybridsched.result import Status

ONLINE = ("cplmt", "fifo", "fair", "asjs", "cmms")
SLACKS = (-2e-9, -1e-9, -5e-10, 0.0, 5e-10, 1e-9, 2e-9, 1e-8, 1e-7, 1e-6)


def fewest_unfinished(instance: Instance, bands: tuple[float, ...] = (0.0, TIME_TOL)) -> int:
    """Fewest unfinished jobs over every schedule of jobs, VM sets and orders the checker accepts.

    Each candidate is placed at earliest starts, exactly (``max(arrival,
    free)``, band 0) and stated ``TIME_TOL`` early (each start before its
    arrival or the end of the task before it: the band an older checker
    tolerated per start); a candidate counts only if :func:`check` accepts it
    (a candidate with a task ending after ``due + TIME_TOL`` at its stated
    start is rejected without asking it: its real start is not earlier).
    With ``bands=(0.0,)``: the fewest over schedules at earliest starts.
    """
    n, m = instance.n_jobs, instance.n_vms
    fits = instance.fits()
    times = instance.task_time()
    due = instance.due + TIME_TOL
    choices = [[None] + [vms for vms in combinations(range(m), int(instance.parallelism[j]))
                         if fits[j, list(vms)].all()] for j in range(n)]
    best = n
    for pick in product(*choices):
        jobs = [j for j in range(n) if pick[j] is not None]
        if n - len(jobs) >= best:
            continue
        for order, band in product(permutations(jobs), bands):
            free = np.full(m, -np.inf)
            starts = {}
            for j in order:
                vms = list(pick[j])
                s = max(float(instance.arrival[j]) - band, float(free[vms].max()) - band)
                starts[j] = (s, vms)
                free[vms] = s + times[j, vms]
                if (free[vms] > due[j]).any():
                    break
            else:
                dropped = {j: "not picked" for j in range(n) if j not in starts}
                if not check(instance, from_starts(n, starts, dropped)):
                    best = n - len(jobs)
                    break
    return best


def make(arrival: np.ndarray, parallelism: np.ndarray, instructions: np.ndarray,
         deadline: np.ndarray, speed: np.ndarray, memory: np.ndarray | None = None,
         vm_memory: np.ndarray | None = None) -> Instance:
    """An instance from its arrays (memory the only demand that can fail to fit)."""
    n, m = len(arrival), len(speed)
    return Instance(
        "tiny", tuple(f"j{k}" for k in range(n)), arrival=arrival, parallelism=parallelism,
        instructions=instructions, memory=np.ones(n) if memory is None else memory,
        bandwidth=np.ones(n), disk=np.zeros(n), deadline=deadline,
        vm_ids=tuple(f"v{k}" for k in range(m)), speed=speed,
        vm_memory=np.ones(m) if vm_memory is None else vm_memory, vm_bandwidth=np.ones(m),
        vm_disk=np.full(m, np.inf))


@st.composite
def near_tolerance(draw: st.DrawFn) -> Instance:
    """2-4 jobs on 1-3 VMs whose deadlines sit a tiny slack from a chain of tasks."""
    n = draw(st.integers(2, 4))
    m = draw(st.integers(1, 3))
    instructions = np.array([draw(st.sampled_from([1.0, 2.0, 3.0])) for _ in range(n)])
    speed = np.array([draw(st.sampled_from([1.0, 2.0, 3.0])) for _ in range(m)])
    arrival = np.array([draw(st.sampled_from([0.0, 0.0, 1.0 / 3.0, 0.5])) for _ in range(n)])
    deadline = np.empty(n)
    for j in range(n):
        chain = [k for k in range(n) if k == j or draw(st.booleans())]
        v = draw(st.integers(0, m - 1))
        need = float(arrival.min()) + sum(instructions[k] / speed[v] for k in chain)
        deadline[j] = max(need + draw(st.sampled_from(SLACKS)) - arrival[j], 1e-3)
    parallelism = np.array([draw(st.integers(1, min(m, 2))) for _ in range(n)])
    return make(arrival, parallelism, instructions, deadline, speed)


@st.composite
def random_tiny(draw: st.DrawFn) -> Instance:
    """1-4 jobs on 1-3 VMs, arbitrary deadlines and memory demands."""
    n = draw(st.integers(1, 4))
    m = draw(st.integers(1, 3))
    num = st.sampled_from([1.0, 2.0, 3.0])
    return make(
        arrival=np.array([draw(st.sampled_from([0.0, 0.5, 1.0, 1.0 / 3.0])) for _ in range(n)]),
        parallelism=np.array([draw(st.integers(1, min(m, 2))) for _ in range(n)]),
        instructions=np.array([draw(num) for _ in range(n)]),
        deadline=np.array([draw(st.sampled_from([0.5, 1.0, 2.0, 3.0, 4.0])) for _ in range(n)]),
        speed=np.array([draw(st.sampled_from([1.0, 2.0, 3.0])) for _ in range(m)]),
        memory=np.array([draw(num) for _ in range(n)]),
        vm_memory=np.array([draw(num) for _ in range(m)]))


INSTANCES = st.one_of(near_tolerance(), random_tiny())


@settings(max_examples=30, deadline=None)  # CI time; the nightly profile multiplies it
@given(instance=INSTANCES)
def test_no_accepted_schedule_beats_a_proven_optimum(instance: Instance) -> None:
    result = run_method("gang", "exact", instance, time_limit=30)
    assert check(instance, result.solution) == []
    assert result.objective == evaluate(instance, result.solution).objective
    optimum = fewest_unfinished(instance)
    assert result.bound is not None and result.bound <= optimum
    assert lower_bound(instance) <= optimum
    # the band buys nothing: the optimum is met at earliest starts, and proven
    assert fewest_unfinished(instance, (0.0,)) == optimum
    assert result.status is Status.OPTIMAL and result.objective == optimum
    for method in ONLINE:
        online = run_method("gang", method, instance)
        assert check(instance, online.solution) == []
        assert online.objective >= result.bound
        if result.status is Status.OPTIMAL:
            assert online.objective >= result.objective


@settings(max_examples=15, deadline=None)
@given(instance=INSTANCES)
@pytest.mark.parametrize("limit", [0.0, 1e-300, 0.05])
def test_the_exact_method_is_never_worse_than_the_best_heuristic(instance: Instance,
                                                                limit: float) -> None:
    name, heuristic = best_heuristic(instance)
    result = run_method("gang", "exact", instance, time_limit=limit)
    assert check(instance, result.solution) == []
    assert result.objective <= evaluate(instance, heuristic).objective
    assert result.status.has_solution and result.bound <= result.objective
    if limit < 1e-6:
        assert result.status in (Status.TIME_LIMIT, Status.OPTIMAL)
        assert result.message.endswith(f"returned the best heuristic schedule ({name})")
        assert np.array_equal(result.solution.start, heuristic.start, equal_nan=True)


def test_time_limits_zero_and_tiny_return_the_same_schedule() -> None:
    instance = generate(40, seed=3)  # the best heuristic: 32 unfinished, the bound 28
    name, heuristic = best_heuristic(instance)
    zero = run_method("gang", "exact", instance, time_limit=0)
    tiny = run_method("gang", "exact", instance, time_limit=1e-300)
    assert zero.status is tiny.status is Status.TIME_LIMIT
    assert zero.objective == tiny.objective == evaluate(instance, heuristic).objective
    assert zero.bound == tiny.bound == lower_bound(instance)
    assert np.array_equal(zero.solution.start, tiny.solution.start, equal_nan=True)
    assert zero.message == tiny.message
    assert f"returned the best heuristic schedule ({name})" in zero.message


def test_a_model_too_large_returns_the_best_heuristic(monkeypatch: pytest.MonkeyPatch) -> None:
    instance = generate(20, seed=1)
    name, heuristic = best_heuristic(instance)
    monkeypatch.setattr(milp, "MAX_ORDER_BINARIES", 0)
    result = run_method("gang", "exact", instance, time_limit=30)
    assert result.status is Status.FEASIBLE and "no model built" in result.message
    assert f"returned the best heuristic schedule ({name})" in result.message
    assert result.objective == evaluate(instance, heuristic).objective
    assert check(instance, result.solution) == []


def test_the_mip_start_satisfies_every_row_of_the_relaxed_model() -> None:
    """Jobs, VMs, real starts and order binaries of the best heuristic, set consistently."""
    instance = generate(20, scenario="table2", seed=0)
    _, heuristic = best_heuristic(instance)
    model = milp.build(instance, *milp.relaxed(instance))
    values = milp.start_values(model, heuristic)
    assert set(values) == set(model.problem.variables())
    for var, value in values.items():
        var.varValue = value
    assert all(c.valid(eps=1e-9) for c in model.problem.constraints())
    assert sum(values[var] for var in model.run.values()) == instance.n_jobs - evaluate(
        instance, heuristic).objective


def band_instance() -> Instance:
    """Two unit tasks in a row on one VM; the second is due 2.5e-9 before it can end.

    An older checker let it end in time (by ``due + TIME_TOL``) when the first
    started ``TIME_TOL`` early and they overlapped by ``TIME_TOL``; real times
    leave it 1.5e-9 late.
    """
    return make(arrival=np.zeros(2), parallelism=np.ones(2, dtype=np.int64),
                instructions=np.ones(2), deadline=np.array([1.0, 2.0 - 2.5e-9]),
                speed=np.ones(1))


def test_the_read_back_drops_a_job_that_ends_late_and_says_why() -> None:
    """A solution HiGHS may return (rows violated within its 1e-6 tolerance) reads back repaired.

    The band instance with a loose deadline on the first job: no window holds
    both jobs, so no capacity row forbids running both on the VM.
    """
    instance = dataclasses.replace(band_instance(), deadline=np.array([10.0, 2.0 - 2.5e-9]))
    model = milp.build(instance, *milp.relaxed(instance))
    assert milp_capacity.capacity_rows(instance) == []
    for var, value in [(model.run[0], 1), (model.run[1], 1), (model.use[0, 0], 1),
                       (model.use[1, 0], 1), (model.order[0, 1, 0], 1),
                       (model.start[0], 0.0), (model.start[1], 1.0 - 2 * TIME_TOL)]:
        var.varValue = value
    assert all(c.valid(eps=1e-8) for c in model.problem.constraints())
    assert not all(c.valid(eps=1e-12) for c in model.problem.constraints())
    read = milp.extract(model)
    assert check(instance, read.solution) == [] and read.repaired == 1
    assert read.solution.dropped == {1: milp.REPAIRED}
    # b is late because a ran before it on the VM: that choice is the no-good
    assert read.cuts == [[((0, 0), True), ((1, 0), True), ((0, 1, 0), True)]]


def test_the_band_buys_nothing_and_the_optimum_is_proven() -> None:
    instance = band_instance()
    n = instance.n_jobs
    assert fewest_unfinished(instance) == 1
    # the band schedule an older checker accepted: the first starts early, the second overlaps
    band = from_starts(n, {0: (-TIME_TOL, [0]), 1: (1.0 - 2 * TIME_TOL, [0])})
    assert check(instance, band) != []
    for backend in ("highs", "cpsat"):
        if backend == "cpsat":
            pytest.importorskip("ortools")
        result = run_method("gang", "exact", instance, time_limit=30, backend=backend)
        assert check(instance, result.solution) == []
        assert result.status is Status.OPTIMAL
        assert (result.objective, result.bound) == (1, 1)


def test_a_deadline_met_only_inside_the_tolerance_is_met() -> None:
    """Two unit tasks in a row on one VM; the second is due 5e-10 before it can end."""
    instance = make(arrival=np.zeros(2), parallelism=np.ones(2, dtype=np.int64),
                    instructions=np.ones(2), deadline=np.array([1.0, 2.0 - 5e-10]),
                    speed=np.ones(1))
    result = run_method("gang", "exact", instance, time_limit=30)
    assert result.status is Status.OPTIMAL and result.objective == 0
    assert check(instance, result.solution) == []
    assert lower_bound(instance) == 0


def test_a_job_that_can_end_in_time_only_inside_the_tolerance_counts_in_the_bound() -> None:
    """Due 5e-10 before its one task can end: the family bound must not count it unfinished."""
    instance = make(arrival=np.array([1.0 / 3.0]), parallelism=np.ones(1, dtype=np.int64),
                    instructions=np.ones(1), deadline=np.array([1.0 - 5e-10]),
                    speed=np.ones(1))
    assert lower_bound(instance) == 0
    result = run_method("gang", "exact", instance, time_limit=30)
    assert result.status is Status.OPTIMAL and result.objective == 0


@pytest.mark.parametrize("unfinished", [0, 1, 7, 80])
def test_the_dual_bound_rounds_to_whole_jobs_with_a_margin(unfinished: int) -> None:
    # A finished search reports at most the incumbent's value, >= UFJ - SIN_WEIGHT, less
    # HiGHS's 1e-6 gap: that still proves UFJ ...
    assert milp.whole_jobs(unfinished - milp.SIN_WEIGHT - 1e-6) == unfinished
    # ... and a bound overstated by less than the margin never proves one job more.
    assert milp.whole_jobs(unfinished + 0.24) == unfinished
    assert milp.whole_jobs(-np.inf) == -np.inf


def test_a_dual_bound_refuted_by_a_checked_schedule_is_discarded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    instance = band_instance()  # the heuristics leave one job unfinished, the family bound 0
    monkeypatch.setattr(milp, "whole_jobs", lambda dual: float(instance.n_jobs + 1))
    result = run_method("gang", "exact", instance, time_limit=30)
    assert "discarded" in result.message
    assert result.status is Status.FEASIBLE and (result.objective, result.bound) == (1, 0)


def test_the_no_good_cuts_hold_for_the_variables_they_name() -> None:
    """Each cut added to a model is a row over its own use and order binaries."""
    instance = band_instance()
    model = milp.build(instance, TIME_TOL, 0.0)
    rows = len(model.problem.constraints())
    milp.add_cuts(model, [[((0, 0), True), ((1, 0), True), ((0, 1, 0), True)]])
    assert len(model.problem.constraints()) == rows + 1
    cut = list(model.problem.constraints())[-1]
    assert cut.sense == pulp.LpConstraintLE and -cut.constant == 2
    assert {v.name for v in cut} == {"y_0_0", "y_1_0", "o_0_1_0"}
