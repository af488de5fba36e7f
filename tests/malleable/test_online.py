"""Online simulation: valid schedules, determinism, tree = flat = MILP selection."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.heuristics.malleable.cloud_scheduler import CloudScheduler
from hybridsched.heuristics.malleable.cluster_scheduler import ClusterScheduler
from hybridsched.heuristics.malleable.simulation import simulate
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.generator import generate
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.tree_config import load_platform
from hybridsched.models.malleable.milp_select import select_by_milp

TREES = Path(__file__).parents[2] / "examples" / "trees"


def _instance(jobs: list[tuple[float, int, int, float, int]], resources: tuple[Resource, ...],
              serial: float = 0.0) -> Instance:
    """Jobs as ``(size, priority, deadline, budget, arrival)``."""
    arr = np.array(jobs, dtype=float).reshape(-1, 5)
    return Instance("hand", tuple(f"j{k}" for k in range(len(jobs))), arr[:, 0],
                    arr[:, 1].astype(np.int64), arr[:, 2].astype(np.int64), arr[:, 3],
                    arr[:, 4].astype(np.int64), np.full(len(jobs), serial), resources)


@pytest.mark.parametrize("mix", ["small", "big", "mixed"])
@pytest.mark.parametrize("scheduler", ["tree", "flat", "round-robin"])
@pytest.mark.parametrize("policy", ["A", "B"])
def test_every_schedule_passes_the_checker(mix: str, scheduler: str, policy: str) -> None:
    instance = generate(80, mix, seed=5, serial_fraction=0.2)
    solution, stats = simulate(instance, scheduler, policy, seed=1)
    assert check(instance, solution) == []
    assert stats.decisions >= instance.n_jobs
    assert evaluate(instance, solution).metrics["makespan"] > 0


def test_same_seed_same_event_log_and_other_seed_other_round_robin() -> None:
    instance = generate(120, "mixed", seed=3)
    for scheduler in ("tree", "round-robin"):
        first, _ = simulate(instance, scheduler, "B", seed=7)
        again, _ = simulate(instance, scheduler, "B", seed=7)
        assert first.events == again.events
        assert np.array_equal(first.start, again.start)
    one, _ = simulate(instance, "round-robin", "A", seed=1)
    two, _ = simulate(instance, "round-robin", "A", seed=2)
    assert not np.array_equal(one.resource, two.resource)


@pytest.mark.parametrize("config", ["paper.toml", "hundred-leaves.toml"])
@pytest.mark.parametrize("policy", ["A", "B"])
def test_a_tree_realises_the_same_schedule_as_the_flat_broadcast(config: str,
                                                                   policy: str) -> None:
    platform = load_platform(TREES / config)
    instance = generate(150, "mixed", seed=11, resources=platform.resources,
                        tree=platform.tree)
    tree, tree_stats = simulate(instance, "tree", policy)
    flat, flat_stats = simulate(instance, "flat", policy)
    assert np.array_equal(tree.resource, flat.resource)
    assert np.array_equal(tree.start, flat.start) and np.array_equal(tree.cpu, flat.cpu)
    edges = len(platform.tree.edges)
    assert tree_stats.metrics()["messages_per_decision"] >= 2 * edges
    assert flat_stats.metrics()["messages_per_decision"] >= 2 * len(platform.resources)


@pytest.mark.parametrize("policy", ["A", "B"])
def test_the_selection_milp_chooses_what_the_tree_chooses_at_every_decision(policy: str) -> None:
    instance = generate(60, "mixed", seed=4)
    _, stats = simulate(instance, "tree", policy, keep_choices=True)
    assert len(stats.choices) >= instance.n_jobs
    for offers, chosen in stats.choices:
        job = chosen.job
        assert select_by_milp(offers, policy, float(instance.budget[job]),
                              int(instance.deadline[job])) == chosen


def test_rescheduled_jobs_never_go_back_to_the_host_they_left() -> None:
    instance = generate(300, "mixed", seed=2)
    solution, stats = simulate(instance, "tree", "B")
    assert stats.reschedulings > 0
    left: dict[str, str] = {}
    for event in solution.events:
        if event["event"] == "reschedule":
            left[event["job"]] = event["resource"]
        elif event["event"] == "decision" and event["job"] in left:
            assert event["resource"] != left.pop(event["job"])
    assert check(instance, solution) == []


def test_dca_takes_out_the_lower_priority_job_whose_deadline_breaks() -> None:
    dedicated = Resource("d", ResourceType.DEDICATED, 4)
    # j0 runs 0..5; j1 (low priority) waits, due at 12; j2 (high priority) arrives at 1.
    instance = _instance([(20, 5, 100, 0, 0), (24, 1, 12, 0, 0), (28, 9, 20, 0, 1)],
                         (dedicated,))
    dca = ClusterScheduler(0, dedicated, instance)
    dca.queue = [dca.order[1]]
    dca.busy_until, dca.running = 5, 0
    (candidate,) = dca.candidates(2, now=1)
    assert (candidate.start, candidate.end, candidate.cost) == (5, 12, 0.0)
    assert candidate.migrate == (1,) and candidate.good
    # A smaller new job may not displace a bigger one: the scheduler declines.
    small = _instance([(20, 5, 100, 0, 0), (24, 1, 12, 0, 0), (8, 9, 20, 0, 1)], (dedicated,))
    dca = ClusterScheduler(0, dedicated, small)
    dca.queue = [dca.order[1]]
    dca.busy_until = 5
    assert dca.candidates(2, now=1) == []
    assert dca.candidates(2, now=1, migrate=False)[0].migrate == ()


def test_aca_prices_processor_minutes_and_checks_the_budget() -> None:
    allocated = Resource("a", ResourceType.ALLOCATED, 8, price=1.5)
    instance = _instance([(60, 3, 100, 80.0, 0)], (allocated,))
    (candidate,) = ClusterScheduler(0, allocated, instance).candidates(0, now=0)
    assert candidate.end == 8 and candidate.cost == 1.5 * 8 * 8
    assert not candidate.good  # 96 > 80


def test_cca_reuses_paid_hours_and_offers_a_budget_candidate() -> None:
    cloud = Resource("c", ResourceType.CLOUD, 2, price=60.0, max_vms=4, spot_vms=1,
                     on_demand_price=90.0)
    instance = _instance([(20, 1, 30, 1000.0, 0), (20, 1, 40, 1000.0, 20),
                          (400, 1, 30, 100.0, 25)], (cloud,))
    cca = CloudScheduler(0, cloud, instance)
    (first,) = cca.candidates(0, now=0)   # one VM: 10 minutes, one spot hour
    assert (first.width, first.end, first.cost, first.good) == (2, 10, 60.0, True)
    cca.accept(first)
    (second,) = cca.candidates(1, now=20)  # reuses the VM billed in hour 0: free
    assert second.cost == 0.0 and second.end == 30
    cca.accept(second)
    offers = cca.candidates(2, now=25)     # 400 units by minute 30: too dear for 100
    assert len(offers) == 2 and not any(c.good for c in offers)
    deadline_first, budget_second = offers
    assert deadline_first.end > 30 and deadline_first.width == 6  # the 3 free VMs, still late
    assert budget_second.cost <= deadline_first.cost
    assert budget_second.option == 1


def test_create_schedules_gives_the_cheapest_and_the_fastest() -> None:
    cloud = Resource("c", ResourceType.CLOUD, 2, price=60.0, max_vms=4)
    dedicated = Resource("d", ResourceType.DEDICATED, 4)
    instance = _instance([(150, 1, 30, 10.0, 0)], (cloud, dedicated))
    p_cost, p_perf = CloudScheduler(0, cloud, instance).create_schedules(0, now=0)
    # 150 units: 1 VM = 75 min (2 hours: 120), 2 VMs = 38 min (120), 4 VMs = 19 min (240).
    assert (p_cost.width, p_cost.cost) == (4, 120.0) and p_cost.end == 38
    assert (p_perf.width, p_perf.end, p_perf.cost) == (8, 19, 240.0)
    same = ClusterScheduler(1, dedicated, instance).create_schedules(0, now=0)
    assert same[0] == same[1] and same[0].end == 38


def _least_bill(instance: Instance, solution) -> float:
    """Sum over clock hours of the bill of the most VMs busy at one minute of that hour."""
    from hybridsched.malleable.billing import hour_cost

    total = 0.0
    for i, r in enumerate(instance.resources):
        if not r.is_cloud:
            continue
        mask = solution.resource[solution.job] == i
        if not mask.any():
            continue
        busy = np.zeros(int(solution.end[mask].max()) + 1, dtype=np.int64)
        for s, e, c in zip(solution.start[mask], solution.end[mask], solution.count[mask],
                           strict=True):
            busy[s:e] += c // r.cpus
        hours = -(-len(busy) // 60)
        padded = np.zeros(hours * 60, dtype=np.int64)
        padded[: len(busy)] = busy
        total += float(np.sum(hour_cost(r, padded.reshape(hours, 60).max(axis=1))))
    return total


@settings(max_examples=25, deadline=None)
@given(jobs=st.integers(1, 40), seed=st.integers(0, 10**6),
       scheduler=st.sampled_from(["tree", "flat", "round-robin"]),
       policy=st.sampled_from(["A", "B"]))
def test_clouds_bill_the_least_their_busy_vms_allow(jobs: int, seed: int, scheduler: str,
                                                      policy: str) -> None:
    cloud = Resource("c", ResourceType.CLOUD, 2, price=60.0, max_vms=6, spot_vms=2,
                     on_demand_price=90.0)
    small = Resource("d", ResourceType.DEDICATED, 2)
    instance = generate(jobs, "small", seed, resources=(small, cloud))
    solution, _ = simulate(instance, scheduler, policy, seed=seed)
    assert check(instance, solution) == []
    metrics = evaluate(instance, solution).metrics
    assert metrics["cost"] == pytest.approx(_least_bill(instance, solution))
