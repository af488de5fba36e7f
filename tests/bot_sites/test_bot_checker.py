import numpy as np
import pytest

from hybridsched.bot_sites.checker import check, evaluate, jain_fairness, peak_usage
from hybridsched.bot_sites.generator import table2_inconsistent
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution


def optimal_table2():
    # S1: T2 on every processor (2, 2, 1 tasks), then T1 on the third; S2: T1 2 + 2.
    return Solution(bot=[1, 1, 1, 0, 0, 0], site=[0, 0, 0, 0, 1, 1], proc=[0, 1, 2, 2, 0, 1],
                    count=[2, 2, 1, 1, 2, 2], start=[0, 0, 0, 8, 0, 0])


def test_valid_schedule_and_metrics():
    inst = table2_inconsistent()
    sol = optimal_table2()
    assert check(inst, sol) == []
    ev = evaluate(inst, sol)
    assert ev.objective == 23.0
    assert ev.metrics["aggregated_makespan"] == 23.0 + 16.0
    assert ev.metrics["cost"] == 0.0
    assert ev.metrics["jain_fairness"] == pytest.approx((23 + 16) ** 2 / (2 * (23**2 + 16**2)))
    assert -1 <= ev.metrics["efficiency"] <= 1
    assert ev.metrics["bandwidth_ok"] and ev.metrics["storage_ok"]


def test_cost_uses_effective_time_and_price():
    inst = Instance("c", ("a",), ("s", "t"), [3], [1, 1], [2.0, 0.5], [[4.0, 1.0]],
                    data=[[10.0, 10.0]], bandwidth=[[5.0, 2.0]])
    assert inst.p.tolist() == [[4.0, 5.0]]          # max(compute, data / bandwidth)
    sol = Solution([0, 0], [0, 1], [0, 0], [2, 1], [0, 0])
    assert evaluate(inst, sol).metrics["cost"] == 2 * 4 * 2.0 + 1 * 5 * 0.5


@pytest.mark.parametrize("sol, fragment", [
    (Solution([1, 1, 1, 0, 0], [0, 0, 0, 1, 1], [0, 1, 2, 0, 1], [2, 2, 1, 2, 2],
              [0, 0, 0, 0, 0]), "4 tasks scheduled, it has 5"),
    (Solution([1, 1, 1, 0, 0, 0], [0, 0, 0, 0, 1, 1], [0, 1, 2, 2, 0, 1], [2, 2, 1, 1, 2, 2],
              [0, 0, 0, 7, 0, 0]), "overlap on site S1 processor 2"),
    (Solution([1, 1, 1, 0, 0, 0], [0, 0, 0, 0, 1, 1], [0, 1, 5, 2, 0, 1], [2, 2, 1, 1, 2, 2],
              [0, 0, 0, 8, 0, 0]), "processor 5 does not exist"),
    (Solution([1], [0], [0], [0], [0]), "count 0 < 1"),
    (Solution([1], [0], [0], [1], [-1]), "starts at -1"),
    (Solution([7], [0], [0], [1], [0]), "BoT index 7 does not exist"),
])
def test_violations(sol, fragment):
    problems = check(table2_inconsistent(), sol)
    assert any(fragment in p for p in problems), problems


def test_precedence():
    inst = Instance("d", ("a", "b"), ("s",), [1, 1], [2], [0.0], [[2.0], [3.0]], edges=[[0, 1]])
    assert check(inst, Solution([0, 1], [0, 0], [0, 1], [1, 1], [0, 2])) == []
    problems = check(inst, Solution([0, 1], [0, 0], [0, 1], [1, 1], [0, 1.5]))
    assert problems and "before its predecessor a" in problems[0]


def test_bandwidth_peak_over_time():
    inst = Instance("b", ("a", "b"), ("s",), [2, 1], [2], [0.0], [[2.0], [2.0]],
                    data=[[4.0], [2.0]], bandwidth=[[4.0], [4.0]], site_bandwidth=[2.5],
                    hard_limits=True)
    # rates: a uses 2 per busy processor, b uses 1.
    sequential = Solution([0, 1], [0, 0], [0, 0], [2, 1], [0, 4])
    parallel = Solution([0, 1], [0, 0], [0, 1], [2, 1], [0, 0])
    assert peak_usage(inst, sequential, "bandwidth").tolist() == [2.0]
    assert peak_usage(inst, parallel, "bandwidth").tolist() == [3.0]
    assert check(inst, sequential) == []
    assert any("peak bandwidth" in p for p in check(inst, parallel))
    soft = Instance("b", ("a", "b"), ("s",), [2, 1], [2], [0.0], [[2.0], [2.0]],
                    data=[[4.0], [2.0]], bandwidth=[[4.0], [4.0]], site_bandwidth=[2.5])
    assert check(soft, parallel) == []
    assert evaluate(soft, parallel).metrics["bandwidth_ok"] is False
    assert evaluate(soft, parallel).metrics["peak_bandwidth_ratio"] == pytest.approx(1.2)


def test_storage_back_to_back_blocks_do_not_overlap():
    inst = Instance("s", ("a", "b"), ("s",), [1, 1], [1], [0.0], [[1.0], [1.0]],
                    storage=[3.0, 3.0], storage_limit=[3.0], hard_limits=True)
    assert check(inst, Solution([0, 1], [0, 0], [0, 0], [1, 1], [0, 1])) == []


def test_jain():
    assert jain_fairness(np.array([5.0, 5.0])) == 1.0
    assert jain_fairness(np.array([1.0, 0.0])) == 0.5
