"""The grid-start MIP (``grid`` method): checked schedules, never worse than the heuristics."""

from __future__ import annotations

from pathlib import Path

import pytest

from hybridsched import load_instance, run_method
from hybridsched.budget import TimeBudget
from hybridsched.gang.adapters import best_heuristic
from hybridsched.gang.checker import check, rank
from hybridsched.gang.generator import generate, tiny_instance
from hybridsched.models.gang import grid_schedule
from hybridsched.result import Status
from tests.gang.test_exact import brute_force

LIBRARY = Path(__file__).resolve().parents[2] / "instances" / "gang"


@pytest.mark.parametrize("seed", range(18))
def test_grid_schedules_pass_the_checker_and_respect_the_optimum(seed: int) -> None:
    instance = tiny_instance(seed)
    found, _ = grid_schedule.solve(instance, TimeBudget(10), step=0.25)
    if found is not None:
        assert check(instance, found) == []
        assert rank(instance, found)[0] >= brute_force(instance)[0]


def test_the_grid_method_on_a_medium_file() -> None:
    _, instance = load_instance(LIBRARY / "medium" / "medium-80-s2.json")
    result = run_method("gang", "grid", instance, time_limit=8)
    assert check(instance, result.solution) == []
    assert result.objective <= rank(instance, best_heuristic(instance)[1])[0]
    assert result.bound <= 36 <= result.objective  # the recorded optimum
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT)


def test_a_table1_instance_with_unlike_vms() -> None:
    """Speed bands hold unlike VMs: jobs the colouring cannot place are dropped, not wrong."""
    instance = generate(60, scenario="table1", seed=1)
    found, _ = grid_schedule.solve(instance, TimeBudget(5), step=0.125)
    assert found is not None and check(instance, found) == []


def test_too_large_a_grid_mip_is_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grid_schedule, "MAX_COLUMNS", 10)
    found, why = grid_schedule.solve(generate(40, scenario="table2", seed=0), TimeBudget(5))
    assert found is None and "not built" in why
