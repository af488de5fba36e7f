"""The malleable checker on hand-built schedules: rules, bills and metrics by hand."""

from __future__ import annotations

import numpy as np
import pytest

from hybridsched.malleable.billing import POLICY_WEIGHTS
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.solution import from_pieces
from hybridsched.malleable.speedup import minutes_needed, rate

DED = Resource("ded", ResourceType.DEDICATED, 4)
ALLOC = Resource("alloc", ResourceType.ALLOCATED, 2, price=1.5)
CLOUD = Resource("cloud", ResourceType.CLOUD, 2, price=60.0, max_vms=3, spot_vms=1,
                 on_demand_price=90.0)


def make(jobs: list[tuple[float, int, int, float]], serial: float = 0.0) -> Instance:
    """Jobs as ``(size, arrival, deadline, budget)`` on (dedicated, allocated, cloud)."""
    arr = np.array(jobs, dtype=float).reshape(-1, 4)
    n = len(jobs)
    return Instance("hand", tuple(f"j{k}" for k in range(n)), arr[:, 0], np.ones(n, np.int64),
                    arr[:, 2].astype(np.int64), arr[:, 3], arr[:, 1].astype(np.int64),
                    np.full(n, serial), (DED, ALLOC, CLOUD))


def test_bills_and_metrics_by_hand() -> None:
    # j0 on the allocated cluster 0..5 (2 CPUs x 5 min x 1.5 = 15); j1 on VM 0 at 10..20 and
    # j2 on VM 0 at 30..40 (one VM-hour, reused); j3 on VMs 1, 2 at 50..70 (straddles
    # minute 60: hour 0 bills VMs 0, 1, 2 = 60 + 90 + 90, hour 1 bills VMs 1, 2 = 60 + 90).
    instance = make([(10, 0, 4, 10.0), (20, 5, 30, 100.0), (20, 30, 40, 100.0),
                     (80, 50, 60, 10.0)])
    solution = from_pieces(4, [1, 2, 2, 2], [(0, 0, 5, 0, 2), (1, 10, 20, 0, 2),
                                            (2, 30, 40, 0, 2), (3, 50, 70, 2, 4)])
    assert check(instance, solution) == []
    m = evaluate(instance, solution).metrics
    cloud = 240 + 150
    assert m["cost"] == pytest.approx(15 + cloud)
    assert m["cost_cloud"] == pytest.approx(cloud) and m["cost_allocated"] == 15
    assert m["total_time"] == 5 + 15 + 10 + 20
    assert m["total_delay"] == 1 + 10 and m["late_jobs"] == 2
    # shares: j0 15 (budget 10: +5); j3 2 VMs x 20 min x 1/min = 40 (budget 10: +30)
    assert m["overspend"] == pytest.approx(5 + 30)
    w_delay, w_over = POLICY_WEIGHTS["A"]
    assert m["penalised_a"] == pytest.approx(m["cost"] + w_delay * 11 + w_over * 35)
    assert evaluate(instance, solution).objective == m["penalised_a"]


@pytest.mark.parametrize("pieces, resource, words", [
    ([(0, 0, 4, 0, 4), (1, 3, 6, 0, 4)], [0, 0], "serves job"),           # overlap
    ([(0, 0, 3, 0, 4), (1, 0, 3, 1, 4)], [0, 0], "uses processors"),      # cpu 4 missing
    ([(0, 0, 3, 0, 4), (1, 3, 6, 6, 2)], [0, 2], "uses processors"),      # VM 3 missing
    ([(0, 0, 3, 0, 4), (1, 1, 4, 0, 4)], [0, 1], "before its arrival"),
    ([(0, 0, 2, 0, 4), (1, 3, 6, 0, 4)], [0, 0], "receives 8"),           # too little work
    ([(0, 0, 4, 0, 4), (1, 3, 6, 0, 4)], [0, 0], "one minute less"),      # too much work
    ([(0, 0, 3, 0, 4)], [0, 0], "is not scheduled"),
    ([(0, 3, 3, 0, 4), (1, 3, 6, 0, 4)], [0, 0], "not after its start"),
])
def test_each_rule_is_enforced(pieces, resource, words) -> None:
    instance = make([(12, 0, 10, 0.0), (12, 3, 10, 0.0)])
    problems = check(instance, from_pieces(2, resource, pieces))
    assert problems and any(words in p for p in problems), problems


def test_amdahl_boundaries_and_a_malleable_job_in_two_widths() -> None:
    # f = 0.5 on 2 CPUs: 4/3 per minute; 4 units need exactly 3 minutes.
    assert rate(2, 1.0, 0.5) == pytest.approx(4 / 3)
    assert minutes_needed(4.0, rate(2, 1.0, 0.5)) == 3
    instance = make([(4, 0, 10, 0.0)], serial=0.5)
    assert check(instance, from_pieces(1, [1], [(0, 0, 3, 0, 2)])) == []
    assert check(instance, from_pieces(1, [1], [(0, 0, 2, 0, 2)]))  # 8/3 < 4
    # Linear: 2 CPUs for 2 minutes then 1 CPU for 2 minutes = 6 units exactly.
    linear = make([(6, 0, 10, 0.0)])
    assert check(linear, from_pieces(1, [1], [(0, 0, 4, 0, 1), (0, 0, 2, 1, 1)])) == []
    # A size a hair below the work of 3 minutes still needs 3 minutes (tolerance 1e-9).
    assert minutes_needed(3 * (1 - 1e-12), 1.0) == 3
    assert minutes_needed(3 * (1 + 1e-6), 1.0) == 4


def test_stated_cost_is_checked() -> None:
    instance = make([(8, 0, 10, 0.0)])
    solution = from_pieces(1, [1], [(0, 0, 4, 0, 2)])
    evaluate(instance, solution)
    from dataclasses import replace

    lying = replace(solution, reported={"cost": 1.0})
    assert any("reported cost" in p for p in check(instance, lying))
