import numpy as np
import pytest

from hybridsched.heuristics.hybrid_deadline.cdf import cdf
from hybridsched.heuristics.hybrid_deadline.ffd import ffd
from hybridsched.heuristics.hybrid_deadline.reassign import reassign
from hybridsched.hybrid_deadline import PM, Solution, VMType, check
from hybridsched.hybrid_deadline.checker import vm_billed_hours
from hybridsched.result import Status

from .helpers import make_instance, solve_checked


def test_ra_reproduces_the_papers_figure_2():
    # Four unit tasks on a 2-core VM: tasks 1-3 on core 0, task 4 on core 1.
    inst = make_instance([1, 1, 1, 1], [3, 3, 3, 3])
    before = Solution((0,), [0, 0, 0, 0], [0, 0, 0, 1], [0, 1, 2, 0], [1, 2, 3, 1])
    assert check(inst, before) == []
    assert vm_billed_hours(inst, before) == [3]
    after = reassign(inst, before)
    assert check(inst, after) == []
    assert vm_billed_hours(inst, after) == [2]
    assert after.finish[2] == 2.0  # "Task 3 ... within second unit time"
    assert np.all(after.finish <= before.finish)


def test_cdf_assigns_the_tightest_task_first():
    # One 1-core PM at 1 GHz. Task 0 has slack 2 alone, task 1 slack 0: CDF takes
    # task 1 first, then task 0 still fits behind it (finish 2 <= 3).
    inst = make_instance([1.0, 1.0], [3.0, 1.0], pms=[PM("p", 1, 1.0)])
    sol = cdf(inst)
    assert check(inst, sol) == []
    assert list(sol.start) == [1.0, 0.0]
    assert sol.vm_types == ()


def test_cdf_beats_ffd_on_consolidation():
    # A long task and many short ones with late deadlines: FFD puts the long one first
    # and opens VMs for leftovers; CDF fills the idle billed hour.
    inst = make_instance([1.8, 0.1, 0.1, 0.1, 0.1], [2.0, 2.0, 2.0, 2.0, 2.0])
    assert solve_checked(inst, "cdf").objective <= solve_checked(inst, "ffd").objective


def test_pms_before_vms_most_capacity_first():
    pms = [PM("small", 1, 1.0), PM("big", 4, 2.0)]
    inst = make_instance([1.0] * 12, [1.0] * 12, pms=pms)
    for method in (cdf, ffd):
        order = method(inst).notes["machine_order"]
        assert order[:2] == (1, 0)  # "big" (8 GHz in all) before "small"
        assert all(m >= 2 for m in order[2:])


def test_vm_type_rules_c1_c2_c3():
    types = (
        VMType("slow-cheap", 2, 1.0, 0.5),   # 4 GHz/$ but cannot finish the task (C1)
        VMType("fast", 2, 3.0, 1.5),         # 4 GHz/$
        VMType("fast-cheap", 1, 3.0, 0.75),  # 4 GHz/$, cheaper (C3)
        VMType("pricey", 2, 3.0, 3.0),       # 2 GHz/$ (C2)
    )
    inst = make_instance([2.0], [1.0], vm_types=types)
    assert cdf(inst).vm_types == (2,)


def test_vm_limit_reached_is_no_solution_not_infeasible():
    inst = make_instance([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], max_vms=1)
    result = solve_checked(inst, "cdf")
    assert result.status is Status.NO_SOLUTION
    assert "limit" in result.message


def test_unplaceable_task_is_reported_infeasible_by_every_method():
    inst = make_instance([1.0, 5.0], [2.0, 1.0])
    for method in ("cdf", "cdf+ra", "ffd", "ffd+ra", "exact"):
        result = solve_checked(inst, method)
        assert result.status is Status.INFEASIBLE
        assert "t1" in result.message and "t0" not in result.message


@pytest.mark.parametrize("method", ["cdf", "cdf+ra", "ffd", "ffd+ra", "exact"])
def test_empty_instance(method):
    result = solve_checked(make_instance([], []), method)
    assert result.status.has_solution
    assert result.objective == 0.0
