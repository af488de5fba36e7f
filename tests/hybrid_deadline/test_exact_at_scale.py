"""The exact method at scale: it counts its model before building, and falls back in one line.

Issue 32: 20,000 tasks grew to 24 GB and were killed, 200,000 tasks overran a
10 s limit by 68 s (FFD in the warm start), 5,000 tasks under a 4 GB cap ended
in 165 chained ``MemoryError`` lines. Fast tests: the counts against built
models, the memory and time guards of both backends, ``MemoryError`` while
building, the warm start and local search under short budgets. Slow tests:
the command line at 5,000 and 20,000 tasks under a 4 GB address-space cap.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

import pyomo.environ as pyo
import pytest

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.heuristics.hybrid_deadline import ffd as ffd_module
from hybridsched.heuristics.hybrid_deadline.lns import improve
from hybridsched.hybrid_deadline import check
from hybridsched.hybrid_deadline.adapters import best_heuristic_solution, cdf_ra
from hybridsched.hybrid_deadline.bounds import lower_bound
from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.hybrid_deadline.generator import generate
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.models.hybrid_deadline import milp, milp_build, sizing
from hybridsched.result import Status

from .helpers import solve_checked


def _has_ortools() -> bool:
    try:
        import ortools  # noqa: F401
    except ImportError:
        return False
    return True


BACKENDS = ["highs"] + (["cpsat"] if _has_ortools() else [])


@pytest.fixture(scope="module")
def mid() -> object:
    """A mid-size generated instance (its models have tens of thousands of pairs)."""
    return generate(200, seed=1)


def _one_line(message: str) -> bool:
    return bool(message) and "\n" not in message and "Traceback" not in message


@pytest.mark.parametrize("n, seed", [(12, 0), (40, 3), (90, 5)])
def test_milp_counts_match_the_built_model(n, seed):
    instance = generate(n, seed=seed)
    start = best_heuristic_solution(instance)
    size = sizing.milp_size(instance, rent_cost(instance, start))
    built = milp_build.build_model(instance, start)
    rows = sum(1 for _ in built.model.component_data_objects(pyo.Constraint, active=True))
    assert size.pairs == len(built.pairs)
    assert size.rows == rows


@pytest.mark.skipif(not _has_ortools(), reason="OR-Tools not installed")
@pytest.mark.parametrize("n, seed", [(12, 0), (40, 3)])
def test_cpsat_pairs_are_counted_from_above(n, seed):
    instance = generate(n, seed=seed)
    start = best_heuristic_solution(instance)
    from hybridsched.models.hybrid_deadline.cpsat import build

    built = build(instance, start)
    size = sizing.cpsat_size(instance, rent_cost(instance, start))
    # The CP-SAT builder rounds deadlines and slots in integer units: never more pairs.
    assert len(built.x) <= size.pairs <= 1.1 * len(built.x) + 10


@pytest.mark.parametrize("backend", BACKENDS)
def test_over_the_memory_budget_the_warm_start_returns_in_one_line(backend, mid, monkeypatch):
    monkeypatch.setenv("HYBRIDSCHED_MEMORY_GB", "0.001")
    built = []
    monkeypatch.setattr(milp, "build_model", lambda *a, **k: built.append(1))
    if _has_ortools():
        from hybridsched.models.hybrid_deadline import cpsat

        monkeypatch.setattr(cpsat, "build_model", lambda *a, **k: built.append(1))
    result = solve_checked(mid, "exact", backend=backend, time_limit=30)
    assert built == []  # refused before building anything
    assert result.status is Status.FEASIBLE
    assert "memory budget" in result.message and _one_line(result.message)
    assert result.bound == pytest.approx(lower_bound(mid))
    assert result.objective <= rent_cost(mid, best_heuristic_solution(mid)) + 1e-9


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_model_too_slow_to_build_in_time_is_not_built(backend, mid, monkeypatch):
    # The model takes 1e4 times longer to build than measured: no time limit leaves enough.
    monkeypatch.setattr(sizing, "MILP_SECONDS_PER_PAIR", 0.2)
    monkeypatch.setattr(sizing, "CPSAT_SECONDS_PER_PAIR", 0.2)
    started = time.perf_counter()
    result = solve_checked(mid, "exact", backend=backend, time_limit=4)
    assert time.perf_counter() - started < 4.5
    assert result.status is Status.TIME_LIMIT
    assert "more than the" in result.message and _one_line(result.message)


@pytest.mark.parametrize("backend", BACKENDS)
def test_memory_error_while_building_falls_back_in_one_line(backend, monkeypatch):
    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(milp, "build_model", exhausted)
    if _has_ortools():
        from hybridsched.models.hybrid_deadline import cpsat

        monkeypatch.setattr(cpsat, "build_model", exhausted)
    instance = generate(60, seed=2)  # its model takes well under a second to build
    result = solve_checked(instance, "exact", backend=backend, time_limit=20)
    assert result.status is Status.FEASIBLE
    assert result.message.startswith("out of memory") and _one_line(result.message)
    assert result.bound is not None and result.bound <= result.objective


def test_a_model_that_fits_is_still_solved():
    instance = generate(30, seed=2)
    result = solve_checked(instance, "exact", time_limit=60)
    assert result.status is Status.OPTIMAL


def test_ffd_within_a_spent_budget_gives_up():
    instance = generate(300, seed=1)
    with pytest.raises(BudgetExpired):
        ffd_module.ffd_within(instance, TimeBudget(0.0))
    within, plain = ffd_module.ffd_within(instance, TimeBudget(None)), ffd_module.ffd(instance)
    assert within.notes == plain.notes  # the same placements, in the same order


def test_the_warm_start_skips_ffd_when_it_cannot_fit(monkeypatch):
    instance = generate(300, seed=1)
    unlimited = best_heuristic_solution(instance)
    assert best_heuristic_solution(instance, TimeBudget(None)).notes == unlimited.notes
    # FFD estimated at an hour: a 10 s budget keeps CDF+RA alone, without running FFD.
    monkeypatch.setattr(ffd_module, "SECONDS_PER_TASK", 12.0)
    ran = []
    real = ffd_module.ffd_within
    monkeypatch.setattr("hybridsched.hybrid_deadline.adapters.ffd_within",
                        lambda *a, **k: ran.append(1) or real(*a, **k))
    quick = best_heuristic_solution(instance, TimeBudget(10.0))
    assert ran == []
    assert check(instance, quick) == []
    assert rent_cost(instance, quick) == pytest.approx(rent_cost(instance, cdf_ra(instance)))


def test_improve_returns_at_once_when_its_cap_cannot_cover_the_setup():
    instance = generate(2000, seed=1)
    start = cdf_ra(instance)
    started = time.perf_counter()
    same = improve(instance, start, seed=0, max_seconds=1e-4)
    assert time.perf_counter() - started < 0.05
    assert same is start
    capped = improve(instance, start, seed=0, max_seconds=0.3)
    assert isinstance(capped, Solution) and check(instance, capped) == []


# --- the command line at scale, under a 4 GB address-space cap (slow) ---------------

CAP_BYTES = 4_000_000 * 1024
#: Seconds the command line may take beyond the time limit at 20,000 tasks: start-up,
#: reading and validating the instance, checking and writing the schedule (measured
#: about 1.5-2 s; 9 s at 200,000 tasks).
OVERHEAD_S = 6.0


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [5_000, 20_000])
def test_the_command_line_at_scale_under_a_4gb_cap(n, backend, tmp_path):
    instance_path, out = tmp_path / "instance.json", tmp_path / "solution.json"
    cli = [sys.executable, "-m", "hybridsched"]
    subprocess.run(cli + ["generate", "hybrid-deadline", "--tasks", str(n), "--seed", "1",
                          "-o", str(instance_path)], check=True, capture_output=True)
    limit = 5.0
    started = time.perf_counter()
    run = subprocess.run(cli + ["solve", str(instance_path), "--method", "exact", "--backend",
                                backend, "--time-limit", str(limit), "--json", "-o", str(out)],
                         capture_output=True, text=True, preexec_fn=_capped, timeout=120)
    wall = time.perf_counter() - started
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and "MemoryError" not in run.stderr
    document = json.loads(run.stdout)
    result = document.get("result", document)
    assert _one_line(result["message"])
    assert result["runtime_s"] <= limit + 0.5
    assert wall <= limit + OVERHEAD_S
    valid = subprocess.run(cli + ["validate", str(instance_path), str(out)],
                           capture_output=True, text=True)
    assert valid.returncode == 0, valid.stdout
