"""The verdicts of cross-certification, on results made by hand (every branch can fail)."""

from __future__ import annotations

import pytest

from hybridsched.experiments.certify import (
    CERTIFIED,
    DEFECT,
    OPEN,
    PROVEN,
    crosses,
    judge,
    same,
)
from hybridsched.result import Result, Status


def run(status: Status, objective: float | None = None, bound: float | None = None) -> Result:
    return Result("exact", "toy", status, solution=object() if status.has_solution else None,
                  objective=objective, bound=bound)


def test_both_optimal_with_the_same_value_is_certified():
    verdict, reason = judge({"highs": run(Status.OPTIMAL, 5.0, 5.0),
                             "cpsat": run(Status.OPTIMAL, 5.0 + 1e-12, 5.0)})
    assert verdict == CERTIFIED and "5" in reason


def test_two_different_optima_are_a_defect():
    verdict, reason = judge({"highs": run(Status.OPTIMAL, 8.03, 8.03),
                             "cpsat": run(Status.OPTIMAL, 5.873, 5.873)})
    assert verdict == DEFECT
    assert "highs proves a bound of 8.03" in reason and "cpsat" in reason


def test_a_bound_above_the_other_backends_schedule_is_a_defect():
    verdict, _ = judge({"highs": run(Status.TIME_LIMIT, 12.0, 10.5),
                        "cpsat": run(Status.TIME_LIMIT, 10.0, 9.0)})
    assert verdict == DEFECT


def test_an_optimum_without_a_stated_bound_still_bounds_the_other():
    verdict, _ = judge({"highs": run(Status.OPTIMAL, 7.0, None),
                        "cpsat": run(Status.TIME_LIMIT, 6.0, 5.0)})
    assert verdict == DEFECT


def test_infeasible_against_a_schedule_is_a_defect():
    verdict, reason = judge({"highs": run(Status.INFEASIBLE),
                             "cpsat": run(Status.FEASIBLE, 3.0)})
    assert verdict == DEFECT and "infeasible" in reason


def test_both_infeasible_is_certified():
    assert judge({"highs": run(Status.INFEASIBLE), "cpsat": run(Status.INFEASIBLE)})[0] \
        == CERTIFIED


def test_one_proof_and_a_consistent_time_limit_is_proven():
    verdict, reason = judge({"highs": run(Status.TIME_LIMIT, 6.0, 4.0),
                             "cpsat": run(Status.OPTIMAL, 5.0, 5.0)})
    assert verdict == PROVEN and reason.startswith("cpsat proves the optimum")


def test_no_proof_is_open():
    assert judge({"highs": run(Status.TIME_LIMIT, 6.0, 4.0),
                  "cpsat": run(Status.TIME_LIMIT, 5.5, 4.5)})[0] == OPEN
    assert judge({"highs": run(Status.NO_SOLUTION), "cpsat": run(Status.NO_SOLUTION)})[0] \
        == OPEN


@pytest.mark.parametrize(("a", "b", "expected"), [
    (1.0, 1.0 + 1e-7, True), (1.0, 1.001, False), (0.0, 1e-10, True), (0.0, 1e-6, False),
    (1e6, 1e6 + 0.5, True), (1e6, 1e6 + 2, False),
])
def test_same_is_relative_and_absolute(a, b, expected):
    assert same(a, b) is expected


def test_crossing_needs_both_values_and_a_real_difference():
    assert not crosses(None, 1.0) and not crosses(1.0, None)
    assert not crosses(5.0 + 1e-9, 5.0)
    assert crosses(5.1, 5.0)
