"""Bundled batches: recorded optima re-proven; no online method beats the offline optimum."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched import load_instance, run_method
from hybridsched.malleable.checker import check
from hybridsched.malleable.generator import batch_platform, generate
from hybridsched.result import Status

BUNDLED = sorted((Path(__file__).parents[2] / "instances" / "malleable").glob("*.json"))
ONLINE = ("tree", "flat", "round-robin")


def test_the_bundle_is_there() -> None:
    assert len(BUNDLED) >= 4


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
@pytest.mark.parametrize("policy", ["a", "b"])
def test_recorded_optimum_is_reproven(path: Path, policy: str) -> None:
    family, instance = load_instance(path)
    objective = f"penalised_{policy}"
    recorded = family.reference(instance)[f"optimum_{objective}"]
    result = run_method("malleable", "exact", instance, objective=objective, time_limit=60)
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(recorded, abs=1e-6)
    assert check(instance, result.solution) == []
    for method in ONLINE:
        online = run_method("malleable", method, instance, objective=objective,
                            policy=policy.upper())
        assert online.objective >= recorded - 1e-6


@settings(max_examples=8, deadline=None)
@given(jobs=st.integers(1, 4), seed=st.integers(0, 10**6), objective=st.sampled_from(
           ["penalised_a", "penalised_b", "total_delay", "total_time"]))
def test_no_online_method_beats_the_proven_offline_optimum(jobs: int, seed: int,
                                                          objective: str) -> None:
    instance = generate(jobs, "small", seed, resources=batch_platform())
    exact = run_method("malleable", "exact", instance, objective=objective, time_limit=10)
    assert exact.status.has_solution and check(instance, exact.solution) == []
    assert exact.bound is not None and exact.bound <= exact.objective + 1e-6
    for method in ONLINE:
        for policy in ("A", "B"):
            online = run_method("malleable", method, instance, objective=objective,
                                policy=policy, seed=seed)
            assert online.objective >= exact.bound - 1e-6
            if exact.status is Status.OPTIMAL:
                assert online.objective >= exact.objective - 1e-6
