"""The malleable checker on hand-built instances and schedules, plus a property test.

Hand-built: every metric recomputed by hand (allocated cost, cloud bills with VM-hour
reuse, straddled hours and on-demand VMs, delays, overspend, penalised scores), every
rule violated once, and Amdahl boundaries. Property: every schedule of the online
simulator passes the checker, and the checker's cloud bill equals the least bill
``sum over clock hours of hour_cost(max VMs busy at one minute of the hour)``,
recomputed here minute by minute from the pieces.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched.heuristics.malleable.simulation import simulate
from hybridsched.malleable import billing
from hybridsched.malleable.billing import POLICY_WEIGHTS
from hybridsched.malleable.checker import check, costs, evaluate, job_work
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.solution import Solution, from_pieces
from hybridsched.malleable.speedup import minutes_needed, minutes_needed_array, rate

DED = Resource("ded", ResourceType.DEDICATED, 4)
ALLOC = Resource("alloc", ResourceType.ALLOCATED, 2, price=1.5)
CLOUD = Resource("cloud", ResourceType.CLOUD, 2, price=120.0, max_vms=3, spot_vms=1,
                 on_demand_price=200.0)
PLATFORM = (DED, ALLOC, CLOUD)
D, A, C = 0, 1, 2


def make(jobs: list[tuple[float, int, int, float]], serial: float | list[float] = 0.0,
         resources: tuple[Resource, ...] = PLATFORM) -> Instance:
    """Jobs as ``(size, arrival, deadline, budget)``; priority 1."""
    arr = np.array(jobs, dtype=float).reshape(-1, 4)
    n = len(jobs)
    return Instance("hand", tuple(f"j{k}" for k in range(n)), arr[:, 0],
                    np.ones(n, np.int64), arr[:, 2].astype(np.int64), arr[:, 3],
                    arr[:, 1].astype(np.int64), np.broadcast_to(
                        np.asarray(serial, dtype=float), (n,)).copy(), resources)


def metrics(instance: Instance, solution: Solution) -> dict:
    assert check(instance, solution) == []
    return evaluate(instance, solution).metrics


# -- bills and metrics by hand ------------------------------------------------------------

def test_allocated_cost_is_price_times_cpus_times_minutes() -> None:
    instance = make([(6, 0, 10, 100.0)])
    m = metrics(instance, from_pieces(1, [A], [(0, 0, 3, 0, 2)]))
    assert m["cost"] == pytest.approx(1.5 * 2 * 3) and m["cost_allocated"] == pytest.approx(9)
    assert m["overspend"] == 0


def test_one_allocated_processor_costs_half() -> None:
    instance = make([(6, 0, 10, 100.0)])
    m = metrics(instance, from_pieces(1, [A], [(0, 0, 6, 1, 1)]))
    assert m["cost"] == pytest.approx(1.5 * 1 * 6)


def test_dedicated_is_free() -> None:
    instance = make([(8, 0, 10, 0.0)])
    m = metrics(instance, from_pieces(1, [D], [(0, 0, 2, 0, 4)]))
    assert m["cost"] == 0 and m["overspend"] == 0 and m["penalised_a"] == 0


def test_two_jobs_on_one_vm_in_one_clock_hour_pay_one_vm_hour() -> None:
    instance = make([(20, 0, 60, 100.0), (20, 0, 60, 100.0)])
    solution = from_pieces(2, [C, C], [(0, 0, 10, 0, 2), (1, 20, 30, 0, 2)])
    m = metrics(instance, solution)
    assert m["cost"] == pytest.approx(120) and m["cost_cloud"] == pytest.approx(120)
    # Each job's share: 10 VM-minutes at 120 / 60 per minute.
    assert costs(instance, solution)[2] == pytest.approx([20, 20])


def test_the_same_jobs_in_two_clock_hours_pay_two_vm_hours() -> None:
    instance = make([(20, 0, 100, 100.0), (20, 0, 100, 100.0)])
    m = metrics(instance, from_pieces(2, [C, C], [(0, 0, 10, 0, 2), (1, 60, 70, 0, 2)]))
    assert m["cost"] == pytest.approx(240)


def test_a_job_straddling_minute_60_pays_two_hours() -> None:
    instance = make([(40, 0, 100, 1000.0)])
    m = metrics(instance, from_pieces(1, [C], [(0, 50, 70, 0, 2)]))
    assert m["cost"] == pytest.approx(2 * 120)
    # Ending exactly at minute 60 stays in hour 0.
    instance = make([(20, 0, 100, 1000.0)])
    assert metrics(instance, from_pieces(1, [C], [(0, 50, 60, 0, 2)]))["cost"] == \
        pytest.approx(120)


def test_two_vms_in_one_hour_with_one_spot_vm_pay_spot_plus_on_demand() -> None:
    instance = make([(20, 0, 60, 100.0), (20, 0, 60, 100.0)])
    m = metrics(instance, from_pieces(2, [C, C], [(0, 0, 10, 0, 2), (1, 0, 10, 2, 2)]))
    assert m["cost"] == pytest.approx(120 + 200)
    # One job over two VMs: the same bill.
    wide = make([(40, 0, 60, 100.0)])
    assert metrics(wide, from_pieces(1, [C], [(0, 0, 10, 0, 4)]))["cost"] == \
        pytest.approx(120 + 200)
    # Three VMs: one at spot, two on demand.
    three = make([(60, 0, 60, 1000.0)])
    assert metrics(three, from_pieces(1, [C], [(0, 0, 10, 0, 6)]))["cost"] == \
        pytest.approx(120 + 2 * 200)


def test_a_vm_straddled_by_a_piece_is_billed_once_per_vm() -> None:
    # Processors 1..2 touch VMs 0 and 1 (2 CPUs per VM): two VMs in the hour.
    instance = make([(20, 0, 60, 100.0)])
    assert metrics(instance, from_pieces(1, [C], [(0, 0, 10, 1, 2)]))["cost"] == \
        pytest.approx(120 + 200)


def test_every_metric_of_a_mixed_schedule_by_hand() -> None:
    instance = make([
        (6, 0, 2, 5.0),        # j0: alloc 0..3, 2 CPUs: cost 9 (over 4), 1 minute late
        (20, 0, 30, 100.0),    # j1: VM 0, 0..10: share 20
        (20, 15, 20, 0.0),     # j2: VM 0, 20..30: share 20 (over 20), 10 minutes late
        (40, 40, 100, 1000.0),  # j3: VM 1, 50..70: share 40; hours 0 (VMs 0, 1) and 1 (VM 1)
        (8, 1, 5, 0.0),        # j4: dedicated 1..3, 4 CPUs: free
    ])
    solution = from_pieces(5, [A, C, C, C, D], [
        (0, 0, 3, 0, 2), (1, 0, 10, 0, 2), (2, 20, 30, 0, 2), (3, 50, 70, 2, 2),
        (4, 1, 3, 0, 4)])
    m = metrics(instance, solution)
    cloud = (120 + 200) + 120
    assert m["cost_cloud"] == pytest.approx(cloud)
    assert m["cost_allocated"] == pytest.approx(9)
    assert m["cost"] == pytest.approx(9 + cloud)
    assert m["total_time"] == 3 + 10 + 15 + 30 + 2
    assert m["total_delay"] == 1 + 10 and m["late_jobs"] == 2
    assert costs(instance, solution)[2] == pytest.approx([9, 20, 20, 40, 0])
    assert m["overspend"] == pytest.approx(4 + 20)
    for policy, key in (("A", "penalised_a"), ("B", "penalised_b")):
        w_delay, w_over = POLICY_WEIGHTS[policy]
        assert m[key] == pytest.approx(m["cost"] + w_delay * 11 + w_over * 24)
    assert m["penalised_a"] == pytest.approx(449 + 10 * 11 + 100 * 24)
    assert m["penalised_b"] == pytest.approx(449 + 100 * 11 + 10 * 24)
    assert m["makespan"] == 70
    assert evaluate(instance, solution).objective == m["penalised_a"]


# -- violations ---------------------------------------------------------------------------

TWO = make([(8, 0, 10, 0.0), (8, 2, 10, 0.0)])


@pytest.mark.parametrize("resource, pieces, job, words", [
    ([D, D], [(0, 0, 2, 0, 4), (1, 2, 6, 0, 2)], None, None),  # valid control
    ([D, D], [(0, 0, 4, 0, 2), (1, 2, 6, 1, 2)], "'j1'", "serves job"),  # overlap on CPU 1
    ([D, D], [(0, 2, 4, 0, 4), (1, 3, 5, 0, 4)], "'j0'", "serves job"),
    ([D, D], [(0, 2, 4, 0, 4), (1, 3, 5, 0, 4)], "'j1'", "serves job"),
    ([D, D], [(0, 2, 4, 0, 4), (1, 2, 4, 0, 4)], "'j1'", "serves job"),  # same slot
    ([C, C], [(0, 0, 2, 0, 4), (1, 2, 4, 2, 4)], None, None),  # valid: VM 1 in turn
    ([C, C], [(0, 0, 4, 0, 4), (1, 2, 4, 2, 4)], "'j1'", "serves job"),  # VM 1 twice
    ([D, D], [(0, 0, 2, 0, 4), (1, 1, 5, 0, 2)], "'j1'", "before its arrival"),
    ([D, D], [(0, 0, 4, 2, 2), (1, 2, 4, 3, 2)], "'j1'", "which has 4"),  # CPU 4 missing
    ([D, A], [(0, 0, 2, 0, 4), (1, 2, 6, 1, 2)], "'j1'", "which has 2"),
    ([D, C], [(0, 0, 2, 0, 4), (1, 2, 10, 6, 1)], "'j1'", "which has 6"),  # VM 3 missing
    ([D, C], [(0, 0, 2, 0, 4), (1, 2, 4, 5, 2)], "'j1'", "which has 6"),
    ([D, D], [(0, 0, 2, 0, 4), (1, 2, 3, 0, 4)], "'j1'", "receives 4 of its 8"),  # too little
    ([D, D], [(0, 0, 1, 0, 4), (1, 2, 4, 0, 4)], "'j0'", "receives 4 of its 8"),
    ([D, D], [(0, 0, 3, 0, 4), (1, 3, 5, 0, 4)], "'j0'", "one minute less"),  # too much
    ([D, D], [(0, 0, 2, 0, 4), (1, 2, 5, 0, 4)], "'j1'", "one minute less"),
    ([D, D], [(0, 0, 2, 0, 4)], "'j1'", "is not scheduled"),
    ([D, -1], [(0, 0, 2, 0, 4)], "'j1'", "is not scheduled"),
    ([D, D], [(0, 0, 2, 0, 4), (1, 4, 4, 0, 4), (1, 2, 4, 0, 4)], "'j1'",
     "not after its start"),  # end == start
    ([D, D], [(0, 0, 2, 0, 4), (1, 5, 3, 0, 4), (1, 2, 4, 0, 4)], "'j1'",
     "not after its start"),  # end < start
])
def test_each_violation_names_the_job(resource: list[int], pieces: list, job: str | None,
                                      words: str | None) -> None:
    problems = check(TWO, from_pieces(2, resource, pieces))
    if words is None:
        assert problems == []
        return
    assert problems, "no violation found"
    assert any(words in p and job in p for p in problems), problems


def test_a_job_with_work_one_minute_too_long_on_an_allocated_cluster_is_refused() -> None:
    instance = make([(6, 0, 10, 100.0)])
    assert check(instance, from_pieces(1, [A], [(0, 0, 3, 0, 2)])) == []
    assert any("one minute less" in p and "'j0'" in p
               for p in check(instance, from_pieces(1, [A], [(0, 0, 4, 0, 2)])))
    # A partial last minute is fine: 7 units on 2 CPUs need 4 minutes (8 units).
    partial = make([(7, 0, 10, 100.0)])
    assert check(partial, from_pieces(1, [A], [(0, 0, 4, 0, 2)])) == []
    assert check(partial, from_pieces(1, [A], [(0, 0, 3, 0, 2)]))


def test_a_schedule_of_the_wrong_length_is_refused() -> None:
    problems = check(TWO, from_pieces(1, [D], [(0, 0, 2, 0, 4)]))
    assert problems == ["the schedule does not match the instance's jobs"]


# -- Amdahl and malleable jobs --------------------------------------------------------------

def test_amdahl_rate_and_exact_boundaries() -> None:
    per_minute = rate(2, 1.0, 0.5)
    assert per_minute == pytest.approx(4 / 3)
    assert rate(1, 1.0, 0.5) == 1.0 and rate(4, 2.0, 0.0) == 8.0
    assert minutes_needed(4.0, per_minute) == 3            # 3 * 4/3 = 4 exactly
    assert minutes_needed(8 / 3, per_minute) == 2          # 2 * 4/3
    assert minutes_needed(4.0 + 1e-6, per_minute) == 4     # a hair above: one more
    assert minutes_needed(4.0 * (1 - 1e-12), per_minute) == 3  # within the tolerance
    assert minutes_needed(3 * per_minute, per_minute) == 3  # the float product itself
    assert minutes_needed(0.001, per_minute) == 1
    sizes = np.array([4.0, 8 / 3, 4.0 + 1e-6, 3 * per_minute, 0.5, 100.0])
    assert minutes_needed_array(sizes, per_minute).tolist() == \
        [minutes_needed(s, per_minute) for s in sizes]


@pytest.mark.parametrize("size, minutes, valid, words", [
    (4.0, 3, True, None),                      # 4 units in exactly 3 minutes
    (4.0, 2, False, "receives 2.66666667"),    # 8/3 < 4
    (4.0, 4, False, "one minute less"),        # 16/3 - 4/3 = 4 is already enough
    (4.0 + 1e-6, 3, False, "receives 4 of"),
    (4.0 + 1e-6, 4, True, None),
    (8 / 3, 2, True, None),
    (8 / 3, 3, False, "one minute less"),
    (8 / 3 + 1e-6, 3, True, None),
])
def test_amdahl_boundaries_in_the_checker(size: float, minutes: int, valid: bool,
                                          words: str | None) -> None:
    instance = make([(size, 0, 10, 100.0)], serial=0.5)
    problems = check(instance, from_pieces(1, [A], [(0, 0, minutes, 0, 2)]))
    assert (problems == []) is valid, problems
    if words:
        assert any(words in p and "'j0'" in p for p in problems), problems
    assert minutes_needed(size, rate(2, 1.0, 0.5)) == minutes or not valid


def test_a_malleable_job_in_two_widths_with_exact_work_is_valid() -> None:
    # Linear: 4 CPUs for 2 minutes (8) then 2 CPUs for 1 minute (2) = 10.
    instance = make([(10, 0, 10, 0.0)])
    assert check(instance, from_pieces(1, [D], [(0, 0, 2, 0, 4), (0, 2, 3, 0, 2)])) == []
    assert check(instance, from_pieces(1, [D], [(0, 0, 2, 0, 4), (0, 2, 4, 0, 2)]))
    # Amdahl f = 0.5: 2 CPUs for 2 minutes (8/3) then 1 CPU for 1 minute (1) = 11/3.
    amdahl = make([(11 / 3, 0, 10, 0.0)], serial=0.5)
    solution = from_pieces(1, [D], [(0, 0, 2, 0, 2), (0, 2, 3, 0, 1)])
    assert check(amdahl, solution) == []
    assert job_work(amdahl, solution)[0][0] == pytest.approx(11 / 3)


def test_concurrent_pieces_of_one_job_add_processors_not_rates() -> None:
    # Two 1-CPU pieces side by side are one 2-CPU stretch: 4/3 per minute, not 2.
    solution = from_pieces(1, [D], [(0, 0, 2, 0, 1), (0, 0, 2, 1, 1)])
    assert check(make([(8 / 3, 0, 10, 0.0)], serial=0.5), solution) == []
    problems = check(make([(4, 0, 10, 0.0)], serial=0.5), solution)
    assert any("receives 2.66666667 of its 4" in p for p in problems), problems


def test_performance_scales_the_work() -> None:
    fast = Resource("fast", ResourceType.ALLOCATED, 2, performance=2.0, price=1.0)
    instance = make([(12, 0, 10, 100.0)], resources=(fast,))
    m = metrics(instance, from_pieces(1, [0], [(0, 0, 3, 0, 2)]))
    assert m["cost"] == pytest.approx(6)  # processor-minutes used, not work
    assert check(instance, from_pieces(1, [0], [(0, 0, 4, 0, 2)]))


# -- property: the simulator's schedules pass, and clouds get the least bill -----------------

def least_cloud_bill(instance: Instance, solution: Solution, index: int) -> float:
    """Sum over clock hours of hour_cost(max VMs busy at one minute of the hour)."""
    r = instance.resources[index]
    busy: dict[int, set[int]] = {}
    for k in range(solution.n_pieces):
        if solution.resource[solution.job[k]] != index:
            continue
        first = int(solution.cpu[k]) // r.cpus
        last = (int(solution.cpu[k]) + int(solution.count[k]) - 1) // r.cpus
        for minute in range(int(solution.start[k]), int(solution.end[k])):
            busy.setdefault(minute, set()).update(range(first, last + 1))
    per_hour: dict[int, int] = {}
    for minute, vms in busy.items():
        hour = minute // billing.HOUR
        per_hour[hour] = max(per_hour.get(hour, 0), len(vms))
    return float(sum(billing.hour_cost(r, n) for n in per_hour.values()))


@st.composite
def small_instances(draw: st.DrawFn) -> Instance:
    resources = []
    if draw(st.booleans()):
        resources.append(Resource("ded", ResourceType.DEDICATED, draw(st.integers(1, 6))))
    if draw(st.booleans()):
        resources.append(Resource("alloc", ResourceType.ALLOCATED, draw(st.integers(1, 6)),
                                  performance=draw(st.sampled_from([1.0, 1.5, 2.0])),
                                  price=draw(st.sampled_from([0.5, 1.0, 2.0]))))
    for c in range(draw(st.integers(0 if resources else 1, 2))):
        max_vms = draw(st.integers(1, 4))
        price = draw(st.sampled_from([30.0, 60.0, 120.0]))
        resources.append(Resource(f"cloud-{c}", ResourceType.CLOUD, draw(st.integers(1, 3)),
                                  price=price, max_vms=max_vms,
                                  spot_vms=draw(st.integers(0, max_vms)),
                                  on_demand_price=price * draw(st.sampled_from([1.0, 1.5]))))
    n = draw(st.integers(1, 7))
    gaps = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    arrival = np.cumsum(gaps).astype(np.int64)
    size = np.array(draw(st.lists(st.sampled_from([1.0, 7.0, 30.0, 61.0, 90.0, 250.0, 1200.0]),
                                  min_size=n, max_size=n)))
    slack = np.array(draw(st.lists(st.integers(0, 300), min_size=n, max_size=n)))
    budget = np.array(draw(st.lists(st.sampled_from([0.0, 10.0, 100.0, 5000.0]), min_size=n,
                                    max_size=n)))
    serial = np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 0.1, 0.5, 0.9]), min_size=n,
                                    max_size=n)))
    priority = np.array(draw(st.lists(st.integers(1, 20), min_size=n, max_size=n)),
                        dtype=np.int64)
    return Instance("random", tuple(f"j{k}" for k in range(n)), size, priority,
                    arrival + slack, budget, arrival, serial, tuple(resources))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances())
def test_simulated_schedules_pass_and_clouds_get_the_least_bill(instance: Instance) -> None:
    for scheduler in ("tree", "flat", "round-robin"):
        for policy in ("A", "B"):
            solution, _ = simulate(instance, scheduler, policy, 0)
            assert check(instance, solution) == [], (scheduler, policy)
            _, bill, _ = costs(instance, solution)
            for i, r in enumerate(instance.resources):
                if r.is_cloud:
                    assert bill[i] == pytest.approx(least_cloud_bill(instance, solution, i)), \
                        (scheduler, policy, r.id)
