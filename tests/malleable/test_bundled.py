"""Bundled batches: recorded optima re-proven, recorded bounds hold, no online method beats them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched import load_instance, run_method
from hybridsched.malleable.checker import check
from hybridsched.malleable.generator import batch_platform, generate
from hybridsched.result import Status
from tests.library_files import instance_files

BUNDLED = instance_files("malleable", "small")
ONLINE = ("tree", "flat", "round-robin")


def test_the_bundle_is_there() -> None:
    assert len(BUNDLED) >= 4


def _recorded(path: Path, objective: str) -> tuple[float, float, bool]:
    """``(lower, upper, proven)``: the recorded optimum twice, or the recorded bounds."""
    family, instance = load_instance(path)
    recorded = family.reference(instance)
    if f"optimum_{objective}" in recorded:
        return recorded[f"optimum_{objective}"], recorded[f"optimum_{objective}"], True
    return recorded[f"lower_bound_{objective}"], recorded[f"upper_bound_{objective}"], False


#: The recorded optimum HiGHS re-proves within about 2 s on 2 cores; the others take 4-80 s
#: each, so they run with ``-m slow`` (the default suite stays well under 10 minutes).
QUICK = {("batch-04", "a")}
PROVEN = [pytest.param(p, policy, marks=() if (p.stem, policy) in QUICK else pytest.mark.slow,
                       id=f"{p.stem}-{policy}")
          for p in BUNDLED for policy in ("a", "b") if _recorded(p, f"penalised_{policy}")[2]]
OPEN = [(p, policy) for p in BUNDLED for policy in ("a", "b")
        if not _recorded(p, f"penalised_{policy}")[2]]


@pytest.mark.parametrize("path, policy", PROVEN)
def test_recorded_optimum_is_reproven(path: Path, policy: str) -> None:
    _, instance = load_instance(path)
    objective = f"penalised_{policy}"
    recorded = _recorded(path, objective)[0]
    result = run_method("malleable", "exact", instance, objective=objective, time_limit=300)
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(recorded, abs=1e-6)
    assert check(instance, result.solution) == []


@pytest.mark.parametrize("path, policy", OPEN, ids=lambda v: getattr(v, "stem", v))
def test_recorded_bounds_hold(path: Path, policy: str) -> None:
    """Where no optimum is recorded, a short run stays between the recorded bounds' sides."""
    _, instance = load_instance(path)
    objective = f"penalised_{policy}"
    lower, upper = _recorded(path, objective)[:2]
    assert lower <= upper
    result = run_method("malleable", "exact", instance, objective=objective, time_limit=2)
    assert check(instance, result.solution) == []
    assert result.objective >= lower - 1e-6  # the recorded bound is a bound
    assert result.bound <= upper + 1e-6  # and so is this run's


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
@pytest.mark.parametrize("policy", ["a", "b"])
def test_no_online_method_beats_the_recorded_bound(path: Path, policy: str) -> None:
    _, instance = load_instance(path)
    objective = f"penalised_{policy}"
    lower = _recorded(path, objective)[0]
    for method in ONLINE:
        online = run_method("malleable", method, instance, objective=objective,
                            policy=policy.upper())
        assert online.objective >= lower - 1e-6


@settings(max_examples=8, deadline=None)
@given(jobs=st.integers(1, 4), seed=st.integers(0, 10**6), objective=st.sampled_from(
           ["penalised_a", "penalised_b", "total_delay", "total_time"]))
def test_no_online_method_beats_the_proven_offline_optimum(jobs: int, seed: int,
                                                          objective: str) -> None:
    instance = generate(jobs, "small", seed, resources=batch_platform())
    exact = run_method("malleable", "exact", instance, objective=objective, time_limit=3)
    assert exact.status.has_solution and check(instance, exact.solution) == []
    assert exact.bound is not None and exact.bound <= exact.objective + 1e-6
    for method in ONLINE:
        for policy in ("A", "B"):
            online = run_method("malleable", method, instance, objective=objective,
                                policy=policy, seed=seed)
            assert online.objective >= exact.bound - 1e-6
            if exact.status is Status.OPTIMAL:
                assert online.objective >= exact.objective - 1e-6
