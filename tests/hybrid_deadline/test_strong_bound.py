"""The certified strong bound of the rent cost: valid, checked exactly, within its budgets."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched import get_family
from hybridsched.bound_proof import BoundCertificate, BoundProofError
from hybridsched.hybrid_deadline.bound_check import round_up_exact, verify_bound
from hybridsched.hybrid_deadline.bounds import lower_bound
from hybridsched.hybrid_deadline.files import instance_from_dict
from hybridsched.hybrid_deadline.generator import tiny_instance
from hybridsched.models.hybrid_deadline.bound import CHEAP, ENERGETIC, strong_bound
from hybridsched.result import Status

from .helpers import PM, VMType, make_instance, solve_checked
from .test_exact_soundness import brute_force, tiny_instances

LIBRARY = Path(__file__).resolve().parents[2] / "instances" / "hybrid-deadline"


def _load(path: Path):
    return instance_from_dict(json.loads(path.read_text()), str(path))


def _best_known(instance) -> float | None:
    reference = instance.reference or {}
    certificate = reference.get("certificates", {}).get("cost", {})
    known = [v for v in (reference.get("optimal_cost"), reference.get("upper_bound"),
                         certificate.get("best_known")) if v is not None]
    return min(known, default=None)


def _library(tiers: tuple[str, ...]) -> list[Path]:
    paths = []
    for tier in tiers:
        paths += sorted((LIBRARY / tier).glob("*.json"))
        paths += sorted(LIBRARY.glob(f"{tier}-*.json"))  # small files sit at the top
    return paths


def _assert_sound(instance) -> None:
    certificate = strong_bound(instance, time_limit=20)
    assert certificate.value >= lower_bound(instance)
    assert verify_bound(instance, certificate) == certificate.value
    optimum = brute_force(instance)
    if optimum is not None:
        assert certificate.value <= optimum + 1e-9, (certificate, optimum)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_instances())
def test_the_bound_never_exceeds_the_brute_force_optimum(instance):
    _assert_sound(instance)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000))
def test_the_bound_is_valid_on_the_generators_tiny_and_awkward_instances(seed):
    _assert_sound(tiny_instance(seed))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(120))
def test_the_bound_is_valid_on_the_first_generator_seeds(seed):
    _assert_sound(tiny_instance(seed))


def test_tight_tasks_sharing_few_cores_raise_the_bound_above_the_cheap_one():
    # Three tasks of 0.6 h due at 1 h all run at 0.5 h, wherever they start; two PM
    # cores hold the work (1.8 <= 2 core-hours) but not the three at once: one rents.
    instance = make_instance([0.6, 0.6, 0.6], 1.0, pms=[PM("p", 2, 1.0)],
                             vm_types=[VMType("v", 2, 1.0, 0.105)])
    assert lower_bound(instance) == 0.0
    certificate = strong_bound(instance)
    assert certificate.method == ENERGETIC
    assert certificate.value == pytest.approx(0.105)
    assert brute_force(instance) == pytest.approx(0.105)


@pytest.mark.parametrize("path", _library(("tiny", "small", "medium")), ids=lambda p: p.stem)
def test_the_bound_never_exceeds_a_recorded_optimum_or_best_known(path):
    instance = _load(path)
    certificate = strong_bound(instance, time_limit=20)
    best = _best_known(instance)
    assert best is not None
    assert certificate.value <= best + 1e-9
    assert verify_bound(instance, certificate) == certificate.value


@pytest.mark.slow
@pytest.mark.parametrize("path", _library(("large",)), ids=lambda p: p.stem)
def test_the_bound_never_exceeds_the_best_known_at_400_tasks(path):
    instance = _load(path)
    certificate = strong_bound(instance, time_limit=120)
    assert certificate.value <= _best_known(instance) + 1e-9
    assert verify_bound(instance, certificate) == certificate.value


@pytest.fixture(scope="module")
def medium_s5():
    return _load(LIBRARY / "medium" / "medium-100-s5.json")


def test_the_lp_closes_a_medium_gap_the_cheap_bound_leaves(medium_s5):
    certificate = strong_bound(medium_s5, time_limit=20)
    assert certificate.method == ENERGETIC
    assert lower_bound(medium_s5) < certificate.value <= _best_known(medium_s5) + 1e-9


def test_a_raised_claim_is_refused(medium_s5):
    certificate = strong_bound(medium_s5, time_limit=20)
    raised = BoundCertificate(certificate.value + 0.105, certificate.method, certificate.proof)
    with pytest.raises(BoundProofError, match="claimed"):
        verify_bound(medium_s5, raised)


def test_scaled_up_duals_are_refused(medium_s5):
    certificate = strong_bound(medium_s5, time_limit=20)
    duals = [[*entry[:-1], 3.0 * entry[-1]] for entry in certificate.proof["duals"]]
    tampered = BoundCertificate(certificate.value, certificate.method,
                                {**certificate.proof, "duals": duals})
    with pytest.raises(BoundProofError):
        verify_bound(medium_s5, tampered)


@pytest.mark.parametrize("bad, match", [
    ({"kind": "other", "duals": []}, "unknown proof kind"),
    ({"kind": "energetic-lp", "duals": [["x", 1, 0.5]]}, "unknown row tag"),
    ({"kind": "energetic-lp", "duals": [["p", 99, 0.0, 1.0, -0.5]]}, "no such class"),
    ({"kind": "energetic-lp", "duals": [["a", 0, "1"]]}, "bad dual value"),
])
def test_malformed_proofs_are_refused_in_one_line(medium_s5, bad, match):
    with pytest.raises(BoundProofError, match=match) as error:
        verify_bound(medium_s5, BoundCertificate(1.0, ENERGETIC, bad))
    assert "\n" not in str(error.value)


def test_time_limit_zero_returns_the_cheap_bound_at_once(medium_s5):
    start = time.perf_counter()
    certificate = strong_bound(medium_s5, time_limit=0)
    assert time.perf_counter() - start < 1.0
    assert certificate.method == CHEAP
    assert certificate.value == lower_bound(medium_s5)
    assert verify_bound(medium_s5, certificate) == certificate.value


def test_the_same_seed_gives_the_same_certificate(medium_s5):
    first = strong_bound(medium_s5, time_limit=20, seed=3)
    assert strong_bound(medium_s5, time_limit=20, seed=3) == first


def test_over_the_memory_budget_the_cheap_bound_is_returned(medium_s5, monkeypatch):
    monkeypatch.setenv("HYBRIDSCHED_MEMORY_GB", "0.001")
    certificate = strong_bound(medium_s5, time_limit=20)
    assert certificate.method.startswith(CHEAP)
    assert "memory budget" in certificate.method
    assert certificate.value == lower_bound(medium_s5)
    result = solve_checked(medium_s5, "bound", time_limit=20)
    assert result.solution is not None
    assert "memory budget" in result.message
    assert result.bound == lower_bound(medium_s5)


def test_the_bound_method_returns_a_checked_schedule_with_the_certified_bound(medium_s5):
    result = solve_checked(medium_s5, "bound", time_limit=20)
    assert result.solution is not None
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert result.bound == strong_bound(medium_s5, time_limit=20).value
    assert result.metrics["bound_method"] == ENERGETIC
    assert result.bound <= result.objective + 1e-9


def test_the_bound_method_proves_optimality_when_the_heuristic_meets_the_bound():
    instance = make_instance([0.6, 0.6, 0.6], 1.0, pms=[PM("p", 2, 1.0)],
                             vm_types=[VMType("v", 2, 1.0, 0.105)])
    result = solve_checked(instance, "bound")
    assert result.objective == pytest.approx(0.105)
    assert result.status is Status.OPTIMAL


def test_the_family_exposes_the_strong_bound_and_its_checker(medium_s5):
    from hybridsched.catalogue import resolve

    family = get_family("hybrid-deadline")
    certificate = resolve(family.strong_bound)(medium_s5, time_limit=20, seed=0)
    assert family.verify_bound(medium_s5, certificate) == certificate.value


def test_rounding_up_to_an_achievable_cost_is_exact():
    from fractions import Fraction

    prices = [Fraction("0.105"), Fraction("0.2")]
    assert round_up_exact(Fraction("0.3"), prices) == Fraction("0.305")  # 0.105 + 0.2
    assert round_up_exact(Fraction("0.21"), prices) == Fraction("0.21")
    assert round_up_exact(Fraction(0), prices) == 0
