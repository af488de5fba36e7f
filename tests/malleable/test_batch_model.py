"""Offline batch MILP of the malleable family against an independent brute force.

The brute force enumerates, for every job, every resource, every processor
count (every set of VMs on a cloud) and every start minute up to a horizon,
keeps the schedules the family checker accepts and takes the least value of
each objective as :func:`hybridsched.malleable.checker.evaluate` computes it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pulp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched.malleable.billing import POLICY_WEIGHTS
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.solution import from_pieces
from hybridsched.malleable.speedup import minutes_needed, rate
from hybridsched.models.malleable.batch_greedy import realise
from hybridsched.models.malleable.batch_grid import job_options
from hybridsched.models.malleable.milp_batch import OBJECTIVES, solve
from hybridsched.models.malleable.milp_batch_build import build, extract
from hybridsched.result import Status

TOL = 1e-6

DEDICATED = Resource("ded", ResourceType.DEDICATED, 4)
ALLOCATED = Resource("alloc", ResourceType.ALLOCATED, 2, price=1.0)
CLOUD = Resource("cloud", ResourceType.CLOUD, 2, price=60.0, max_vms=2, spot_vms=1,
                 on_demand_price=90.0)
CLOUD_ONE = Resource("cloud1", ResourceType.CLOUD, 2, price=60.0, max_vms=1, spot_vms=1,
                     on_demand_price=90.0)
# On-demand cheaper than spot: the bill still takes the spot VMs first.
CLOUD_ODD = Resource("cloud_odd", ResourceType.CLOUD, 2, price=90.0, max_vms=2, spot_vms=1,
                     on_demand_price=60.0)
PLATFORM = (DEDICATED, ALLOCATED, CLOUD)


def make(jobs: list[tuple[float, int, int, float, float]], resources=PLATFORM,
         name: str = "tiny") -> Instance:
    """Jobs as ``(size, arrival, deadline, budget, serial fraction)``."""
    arr = np.array(jobs, dtype=float).reshape(-1, 5)
    n = len(jobs)
    return Instance(name, tuple(f"j{k}" for k in range(n)), arr[:, 0], np.ones(n, np.int64),
                    arr[:, 2].astype(np.int64), arr[:, 3], arr[:, 1].astype(np.int64),
                    arr[:, 4], tuple(resources))


# ------------------------------------------------------------------ brute force

def _placements(instance: Instance, j: int, horizon: int):
    """Every way to run job ``j`` within the horizon: ``(resource, [(s, e, cpu, count)])``."""
    out = []
    size, f, a = float(instance.size[j]), float(instance.serial_fraction[j]), \
        int(instance.arrival[j])
    for i, r in enumerate(instance.resources):
        if r.is_cloud:
            for k in range(1, r.max_vms + 1):
                d = minutes_needed(size, rate(k * r.cpus, r.performance, f))
                for vms in itertools.combinations(range(r.max_vms), k):
                    for s in range(a, horizon - d + 2):
                        out.append((i, [(s, s + d, v * r.cpus, r.cpus) for v in vms]))
        else:
            d = minutes_needed(size, rate(r.cpus, r.performance, f))
            for s in range(a, horizon - d + 2):
                out.append((i, [(s, s + d, 0, r.cpus)]))
    return out


def _clash(p, q) -> bool:
    """Whether two placements certainly share a processor at some minute."""
    if p[0] != q[0]:
        return False
    return any(s1 < e2 and s2 < e1 and c1 < c2 + n2 and c2 < c1 + n1
               for s1, e1, c1, n1 in p[1] for s2, e2, c2, n2 in q[1])


def brute_force(instance: Instance, horizon: int) -> dict[str, float]:
    """Least value of every objective over all valid schedules ending by ``horizon + 1``."""
    options = [_placements(instance, j, horizon) for j in range(instance.n_jobs)]
    best = dict.fromkeys(OBJECTIVES, math.inf)

    def extend(chosen):
        j = len(chosen)
        if j == instance.n_jobs:
            pieces = [(k, s, e, c, n) for k, (_, runs) in enumerate(chosen)
                      for s, e, c, n in runs]
            solution = from_pieces(instance.n_jobs, [p[0] for p in chosen], pieces)
            if check(instance, solution) == []:
                metrics = evaluate(instance, solution).metrics
                for what in OBJECTIVES:
                    best[what] = min(best[what], metrics[what])
            return
        for p in options[j]:
            if not any(_clash(p, q) for q in chosen):
                extend([*chosen, p])

    extend([])
    return best


def grid_optimum(instance: Instance, objective: str, horizon: int) -> float:
    """Optimum of the model over the grid ``horizon``, read back through the checker."""
    model = build(instance, objective, horizon)
    model.problem.solve(pulp.HiGHS(msg=False, threads=1, gapRel=0.0))
    if pulp.LpStatus[model.problem.status] == "Infeasible":
        return math.inf
    assert pulp.LpStatus[model.problem.status] == "Optimal"
    solution = extract(model)
    assert check(instance, solution) == []
    return evaluate(instance, solution).metrics[objective]


def assert_result_sound(instance: Instance, objective: str, result, exact: float | None):
    """Valid schedule, objective recomputed, bound below, optimal only if right."""
    assert result.status.has_solution
    assert check(instance, result.solution) == []
    value = evaluate(instance, result.solution).metrics[objective]
    assert result.objective == pytest.approx(value, abs=TOL)
    assert result.bound is not None and result.bound <= result.objective + TOL
    if exact is not None:
        assert result.objective >= exact - TOL
        assert result.bound <= exact + TOL
        if result.status is Status.OPTIMAL:
            assert result.objective == pytest.approx(exact, abs=TOL)


def global_optimum(instance: Instance, objective: str, brute: dict[str, float],
                   horizon: int) -> float | None:
    """The brute-force value when it is provably the optimum of the unrestricted problem.

    A schedule running past ``horizon + 1`` delays a job by at least
    ``horizon + 2 - max deadline`` (or takes that long since its arrival):
    when the brute-force value is below that tail, nothing outside beats it.
    """
    value = brute[objective]
    if objective == "cost":
        return None
    if objective == "total_time":
        tail = horizon + 2 - int(instance.arrival.max())
    else:
        weight = {"penalised_a": POLICY_WEIGHTS["A"][0], "penalised_b": POLICY_WEIGHTS["B"][0],
                  "total_delay": 1.0}[objective]
        tail = weight * max(0, horizon + 2 - int(instance.deadline.max()))
    return value if value <= tail else None


# ------------------------------------------------------------------ instances

HAND = {
    # Two jobs at once, one with Amdahl fraction 0.3, deadline = arrival, budget 0.
    "amdahl_tight": (make([(8, 0, 0, 0.0, 0.3), (6, 0, 3, 5.0, 0.0)]), 12),
    # Arrivals at minute 59: runs straddle the first clock hour.
    "straddle": (make([(10, 59, 61, 3.0, 0.0), (12, 59, 62, 0.0, 0.0)],
                      (ALLOCATED, CLOUD)), 66),
    # One VM only, no dedicated cluster: the cloud and the allocated cluster compete.
    "one_vm": (make([(6, 0, 2, 2.0, 0.0), (9, 1, 3, 4.0, 0.3), (4, 2, 4, 0.0, 0.0)],
                    (ALLOCATED, CLOUD_ONE)), 8),
    # Three jobs on the full platform, overlapping deadlines.
    "three": (make([(16, 0, 3, 10.0, 0.0), (12, 0, 2, 1.0, 0.3), (5, 1, 3, 0.0, 0.0)]), 6),
    # A free cluster and a paid one, budgets 0: waiting for the free one beats paying.
    "free_vs_paid": (make([(8, 0, 2, 0.0, 0.0), (8, 0, 2, 0.0, 0.3), (6, 1, 3, 0.0, 0.0)],
                          (DEDICATED, ALLOCATED)), 10),
    # Two VMs at once where on-demand is the cheaper rate.
    "cheap_on_demand": (make([(8, 0, 2, 0.0, 0.0), (8, 0, 2, 5.0, 0.0)], (CLOUD_ODD,)), 8),
    # Cloud only, spot then on-demand VMs.
    "cloud_only": (make([(8, 0, 1, 0.0, 0.0), (8, 0, 1, 0.0, 0.0)], (CLOUD,)), 8),
}


@pytest.fixture(scope="module")
def hand_brute():
    return {key: brute_force(inst, horizon) for key, (inst, horizon) in HAND.items()}


@pytest.mark.parametrize("key", sorted(HAND))
@pytest.mark.parametrize("objective", OBJECTIVES)
def test_grid_model_equals_brute_force(key, objective, hand_brute):
    instance, horizon = HAND[key]
    assert grid_optimum(instance, objective, horizon) == pytest.approx(
        hand_brute[key][objective], abs=TOL)


@pytest.mark.parametrize("key", sorted(HAND))
@pytest.mark.parametrize("objective", OBJECTIVES)
def test_solve_is_sound_and_proves_what_it_claims(key, objective, hand_brute):
    instance, horizon = HAND[key]
    result = solve(instance, objective, time_limit=30)
    exact = global_optimum(instance, objective, hand_brute[key], horizon)
    assert_result_sound(instance, objective, result, exact)
    # These tiny batches are all solved to proven optimality; a claimed optimum is never
    # beaten by a brute-force schedule (and equals it when the brute force is exhaustive).
    assert result.status is Status.OPTIMAL
    assert result.objective <= hand_brute[key][objective] + TOL


def test_cost_on_the_hour_boundary_is_optimal():
    # One job arriving at 59 on a cloud alone: waiting one minute saves a VM-hour.
    instance = make([(4, 59, 59, 100.0, 0.0)], (CLOUD,))
    result = solve(instance, "cost")
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(60.0)
    assert result.solution.start.min() >= 60


def test_tiny_horizon_is_not_claimed_optimal(hand_brute):
    instance, horizon = HAND["free_vs_paid"]
    # Horizons 0 and 4: the grid holds no schedule; 6: its optimum exceeds the tail bound.
    for objective, tiny in itertools.product(
            ("penalised_a", "penalised_b", "total_time", "total_delay"), (0, 4, 6)):
        exact = global_optimum(instance, objective, hand_brute["free_vs_paid"], horizon)
        assert exact is not None
        result = solve(instance, objective, horizon=tiny)
        assert result.status is not Status.OPTIMAL
        assert_result_sound(instance, objective, result, exact)
        assert result.bound <= exact + TOL
        assert result.bound < result.objective


@pytest.mark.parametrize("limit", [0, 1e-4, 0.05])
def test_tiny_time_limits(limit):
    from hybridsched.malleable.generator import generate
    instance = generate(12, "small", seed=3)
    instance = make([(float(s), int(a), int(d), float(b), 0.1) for s, a, d, b in zip(
        instance.size / 8, instance.arrival, instance.arrival + 2, instance.budget / 8,
        strict=True)], PLATFORM)
    result = solve(instance, "penalised_b", time_limit=limit)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT,
                             Status.NO_SOLUTION)
    if result.status.has_solution:
        assert check(instance, result.solution) == []
        assert result.objective == pytest.approx(
            evaluate(instance, result.solution).metrics["penalised_b"], abs=TOL)
        assert result.bound <= result.objective + TOL


def test_unknown_objective_and_empty_batch():
    instance, _ = HAND["three"]
    with pytest.raises(ValueError):
        solve(instance, "makespan")
    empty = make([], PLATFORM)
    assert solve(empty).status is Status.OPTIMAL


# ------------------------------------------------------------------ random tiny instances

@st.composite
def tiny_instances(draw):
    resources = draw(st.lists(st.sampled_from([DEDICATED, ALLOCATED, CLOUD, CLOUD_ONE, CLOUD_ODD]),
                              min_size=1, max_size=3, unique_by=lambda r: r.id))
    clouds = [r for r in resources if r.is_cloud]
    for extra in clouds[1:]:  # one cloud at most: keeps the brute force small
        resources.remove(extra)
    base = draw(st.sampled_from([0, 57]))
    jobs = []
    for _ in range(2):
        arrival = base + draw(st.integers(0, 3))
        jobs.append((float(draw(st.integers(3, 20))), arrival,
                     arrival + draw(st.integers(0, 4)), float(draw(st.integers(0, 6))),
                     draw(st.sampled_from([0.0, 0.3]))))
    return make(jobs, tuple(resources), "random")


# 10 draws by default (CI time); the nightly profile multiplies them.
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_instances())
def test_random_tiny_instances(instance):
    horizon = int(instance.arrival.max()) + 7
    brute = brute_force(instance, horizon)
    for objective in OBJECTIVES:
        assert grid_optimum(instance, objective, horizon) == pytest.approx(brute[objective],
                                                                           abs=TOL)
        result = solve(instance, objective, time_limit=20)
        assert_result_sound(instance, objective, result,
                            global_optimum(instance, objective, brute, horizon))
        assert result.objective <= brute[objective] + TOL


CLOUD_THREE = Resource("cloud3", ResourceType.CLOUD, 2, price=60.0, max_vms=3, spot_vms=2,
                       on_demand_price=90.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(3, 40), st.integers(0, 150), st.integers(0, 2)),
                min_size=1, max_size=8))
def test_vm_assignment_bills_the_hourly_peaks(jobs):
    # Any placement within the VM limit is realised with a bill of sum_h cost(peak VMs in h).
    instance = make([(float(size), start, start, 0.0, 0.0) for size, start, _ in jobs],
                    (CLOUD_THREE,))
    options = job_options(instance)
    busy: dict[int, int] = {}
    placements = []
    for j, (_, start, pick) in enumerate(jobs):
        o = min(pick, len(options[j]) - 1)
        opt = options[j][o]
        minutes = range(start, start + opt.minutes)
        if any(busy.get(t, 0) + opt.vms > CLOUD_THREE.max_vms for t in minutes):
            o, opt = 0, options[j][0]
            start = max(busy, default=start) + 1  # after everything placed so far
            minutes = range(start, start + opt.minutes)
        for t in minutes:
            busy[t] = busy.get(t, 0) + opt.vms
        placements.append((j, o, start))
    solution = realise(instance, options, placements)
    assert check(instance, solution) == []
    peaks: dict[int, int] = {}
    for t, vms in busy.items():
        peaks[t // 60] = max(peaks.get(t // 60, 0), vms)
    expected = sum(60.0 * min(v, 2) + 90.0 * max(v - 2, 0) for v in peaks.values())
    assert evaluate(instance, solution).metrics["cost"] == pytest.approx(expected)
