"""Regression tests on the bundled instances and their recorded optima."""

from pathlib import Path

import pytest

from hybridsched import load_instance
from hybridsched.result import Status
from tests.library_files import instance_files

from .helpers import solve_checked

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "hybrid-deadline"
FILES = instance_files("hybrid-deadline", "small")
#: Instances re-proven only with -m slow: small-11 takes 15-30 s (the others < 10 s), and the
#: default run must stay well under 10 minutes on 2 cores (its optimum is still asserted there).
HARD: set[str] = {"small-11"}


def test_the_bundle_is_there():
    assert len(FILES) >= 12
    optima = [load_instance(f)[1].reference["optimal_cost"] for f in FILES]
    assert sum(o > 0 for o in optima) > len(optima) / 2


@pytest.mark.parametrize(
    "path",
    [pytest.param(f, id=f.stem, marks=[pytest.mark.slow] if f.stem in HARD else [])
     for f in FILES],
)
def test_exact_reproduces_the_recorded_optimum(path):
    _, instance = load_instance(path)
    result = solve_checked(instance, "exact", time_limit=600)
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(instance.reference["optimal_cost"], abs=1e-9)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_heuristics_never_beat_the_recorded_optimum(path):
    _, instance = load_instance(path)
    optimum = instance.reference["optimal_cost"]
    for method in ("cdf", "cdf+ra", "ffd", "ffd+ra"):
        result = solve_checked(instance, method)
        assert result.status is Status.FEASIBLE
        assert result.objective >= optimum - 1e-9


def test_time_limit_returns_incumbent_with_bound_and_gap():
    # Not a bundled instance: small-07 is proven in about 2.4 s, so that a limit of 0.5 s
    # binds only on a machine not 5 times faster (issue 17). Unlimited, this one runs for
    # minutes; under load the limit may expire earlier (while building), with the same
    # kind of result.
    from hybridsched.hybrid_deadline.generator import generate

    instance = generate(300, "mixed", 1, pms=3)
    result = solve_checked(instance, "exact", time_limit=0.5)
    assert result.status is Status.TIME_LIMIT
    assert result.solution is not None
    assert result.bound is not None and 0 < result.bound <= result.objective
    assert result.gap is not None and result.gap > 0
    # On small-07, whether 0.5 s binds depends on the machine; the result is sound either way.
    _, small = load_instance(FOLDER / "small-07.json")
    result = solve_checked(small, "exact", time_limit=0.5)
    assert result.status.has_solution
    assert result.bound is not None and result.bound <= small.reference["optimal_cost"]
    assert result.objective >= small.reference["optimal_cost"] - 1e-9
    assert result.gap is not None and result.gap >= 0


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_the_generator_still_reproduces_each_bundled_instance(path):
    import numpy as np

    from hybridsched.hybrid_deadline.generator import generate

    _, instance = load_instance(path)
    p = instance.provenance
    again = generate(p["n_tasks"], p["alpha"], p["seed"], pms=p["pms"],
                     local_share=p["local_share"])
    assert np.array_equal(again.work, instance.work)
    assert np.array_equal(again.deadline, instance.deadline)
    assert again.pms == instance.pms and again.task_job == instance.task_job
