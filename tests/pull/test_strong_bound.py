"""The pull strong bound (window LP), its exact check, the bound method and the memory guard.

The bound never exceeds the brute-force offline optimum nor any checked
schedule's makespan (online policies, the clairvoyant greedy), nor any
recorded optimum of the library; ``verify_bound`` recomputes it exactly and
refuses tampered proofs; time limit 0 gives the cheap bound; the memory
budget makes ``exact`` and ``bound`` fall back with a one-line reason.
"""

from __future__ import annotations

import copy
import json
import math
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched.bound_proof import BoundCertificate, BoundProofError
from hybridsched.heuristics.pull.clairvoyant import best_clairvoyant, clairvoyant
from hybridsched.heuristics.pull.policies import Fcfs, PrometheeScheduler, strategy
from hybridsched.heuristics.pull.simulation import simulate
from hybridsched.models.pull.bound import strong_bound
from hybridsched.pull.bound_check import verify_bound
from hybridsched.pull.bound_units import closed_form_bound, earliest_completion_bound
from hybridsched.pull.bounds import makespan_lower_bound
from hybridsched.pull.checker import check, evaluate
from hybridsched.pull.files import instance_from_dict
from hybridsched.pull.generator import generate, small_instance, tiny_instance
from hybridsched.registry import run_method
from hybridsched.result import Status
from tests.pull.helpers import instances
from tests.pull.pull_brute import brute_makespan

LIBRARY = Path(__file__).resolve().parents[2] / "instances" / "pull"
#: Makespans are compared with this relative and absolute slack (checker's rounding).
SLACK = 1e-9


def _makespans(instance) -> list[float]:
    """Makespans of every checked schedule the heuristics give (each schedule checked)."""
    out = []
    for policy in (PrometheeScheduler(strategy(), np.random.default_rng(0)),
                   Fcfs(np.random.default_rng(0), "random")):
        solution = simulate(instance, policy)[0]
        assert check(instance, solution) == []
        out.append(evaluate(instance, solution).objective)
    origin = instance.first_schedule()
    lower = makespan_lower_bound(instance)
    for factor in (1.0, 1.1, math.inf):
        for small in (False, True):
            target = origin + lower * factor if math.isfinite(factor) else math.inf
            found = clairvoyant(instance, target, small)
            if found is not None:
                assert check(instance, found) == [], check(instance, found)[:3]
                out.append(evaluate(instance, found).objective)
    return [v for v in out if math.isfinite(v)]


def _below(bound: float, value: float) -> bool:
    return bound <= value + SLACK * max(1.0, abs(value))


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
def test_strong_bound_never_exceeds_the_brute_force_optimum(seed: int) -> None:
    instance = tiny_instance(seed)  # a third are awkward: ties, exact fits, 3e-7 s slack
    certificate = strong_bound(instance, time_limit=20)
    assert _below(certificate.value, brute_makespan(instance))
    assert certificate.value >= closed_form_bound(instance) >= makespan_lower_bound(instance)
    assert verify_bound(instance, certificate) >= certificate.value


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
def test_earliest_completion_bound_never_exceeds_the_optimum(seed: int) -> None:
    """On tiny and small instances, where it binds (a third are awkward: exact fits)."""
    instance = tiny_instance(seed) if seed % 2 else small_instance(seed)
    optimum = brute_makespan(instance) if seed % 2 else None
    values = _makespans(instance) + ([optimum] if optimum is not None else [])
    bound = earliest_completion_bound(instance)
    assert all(_below(bound, v) for v in values)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(instances(max_units=8, max_hosts=4))
def test_strong_bound_never_exceeds_a_checked_schedule(instance) -> None:
    values = _makespans(instance)
    certificate = strong_bound(instance, time_limit=20)
    for value in values:
        assert _below(certificate.value, value)
    assert verify_bound(instance, certificate) >= certificate.value


def test_strong_bound_beats_the_cheap_one_where_windows_bind() -> None:
    """Generated instances (40 and 120 units): the LP proves more, below every schedule."""
    gains = 0
    for units, capacity, seed in ((40, 400.0, 0), (40, 300.0, 2), (120, 1000.0, 0)):
        instance = generate(units, seed=seed, capacity=capacity)
        values = _makespans(instance)
        certificate = strong_bound(instance, time_limit=30)
        assert all(_below(certificate.value, v) for v in values)
        assert verify_bound(instance, certificate) == certificate.value
        gains += certificate.value > makespan_lower_bound(instance) * (1 + 1e-6)
    assert gains >= 2


def _library(tier: str) -> list:
    """``(file name, instance)`` of a tier: ``instances/pull/<tier>/`` or ``<tier>-*.json``."""
    paths = sorted((LIBRARY / tier).glob("*.json")) + sorted(LIBRARY.glob(f"{tier}-*.json"))
    return [(p.name, instance_from_dict(json.loads(p.read_text()))) for p in paths]


@pytest.mark.parametrize("tier", ["tiny", "small", "medium"])
def test_strong_bound_is_below_every_recorded_optimum(tier: str) -> None:
    found = _library(tier)
    if not found:
        assert tier == "medium", f"no {tier} pull files"
        pytest.skip("no medium pull tier in the library yet")
    checked = 0
    for name, instance in found:
        reference = instance.reference or {}
        best = reference.get("optimal_makespan", reference.get("upper_bound"))
        if best is None:
            continue
        certificate = strong_bound(instance, time_limit=20)
        assert _below(certificate.value, float(best)), name
        checked += 1
    assert checked


def _certificate():
    instance = generate(40, seed=0, capacity=400.0)
    certificate = strong_bound(instance, time_limit=30)
    assert certificate.proof, certificate.method  # the LP beats the cheap bound here
    return instance, certificate


def test_verify_recomputes_and_refuses_tampered_proofs() -> None:
    instance, certificate = _certificate()
    document = json.loads(json.dumps(certificate.to_dict()))  # JSON round trip
    again = BoundCertificate.from_dict(document)
    assert verify_bound(instance, again) == certificate.value
    raised = BoundCertificate(certificate.value * 1.01, certificate.method, certificate.proof)
    with pytest.raises(BoundProofError):
        verify_bound(instance, raised)
    later = copy.deepcopy(certificate.proof)
    later["end"] = certificate.proof["end"] * 1.2  # the same duals prove nothing there
    with pytest.raises(BoundProofError):
        verify_bound(instance, BoundCertificate(certificate.value, certificate.method, later))
    scaled = copy.deepcopy(certificate.proof)
    scaled["cover"] = [10 * y for y in scaled["cover"]]  # cover duals up, capacities not
    with pytest.raises(BoundProofError):
        verify_bound(instance, BoundCertificate(certificate.value, certificate.method, scaled))
    short = copy.deepcopy(certificate.proof)
    short["cover"] = short["cover"][:-1]
    with pytest.raises(BoundProofError):
        verify_bound(instance, BoundCertificate(certificate.value, certificate.method, short))


def test_time_limit_zero_and_determinism() -> None:
    instance = generate(40, seed=0, capacity=400.0)
    started = time.perf_counter()
    cheap = strong_bound(instance, time_limit=0)
    assert time.perf_counter() - started < 1.0
    assert cheap.value == closed_form_bound(instance) and not cheap.proof
    assert verify_bound(instance, cheap) == cheap.value
    first = strong_bound(instance, time_limit=30, seed=3)
    second = strong_bound(instance, time_limit=30, seed=3)
    assert first.to_dict() == second.to_dict()


def test_bound_method_returns_a_checked_schedule_and_the_bound() -> None:
    instance = generate(40, seed=0, capacity=400.0)
    result = run_method("pull", "bound", instance, time_limit=60)
    assert result.solution is not None and check(instance, result.solution) == []
    assert result.metrics["bound_method"]
    assert _below(result.bound, result.objective)
    assert result.objective <= min(_makespans(instance)) * (1 + SLACK)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)


def test_memory_budget_makes_exact_and_bound_fall_back(monkeypatch) -> None:
    monkeypatch.setenv("HYBRIDSCHED_MEMORY_GB", "0.001")
    instance = small_instance(2)  # within the offline model's sizes
    result = run_method("pull", "exact", instance, time_limit=30)
    assert result.solution is not None and check(instance, result.solution) == []
    assert "memory budget" in result.message and "\n" not in result.message
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT, Status.OPTIMAL)
    assert _below(result.bound, result.objective)
    big = generate(120, seed=0, capacity=1000.0)
    fallen = run_method("pull", "bound", big, time_limit=30)
    assert fallen.solution is not None and check(big, fallen.solution) == []
    assert "memory budget" in fallen.message
    assert fallen.bound == closed_form_bound(big)


def test_clairvoyant_schedules_pass_the_checker_at_scale() -> None:
    instance = generate(300, seed=1)
    found = best_clairvoyant(instance, instance.first_schedule()
                             + makespan_lower_bound(instance))
    assert found is not None and check(instance, found) == []
    online = simulate(instance, PrometheeScheduler(strategy(), np.random.default_rng(0)))[0]
    assert evaluate(instance, found).objective < evaluate(instance, online).objective


@pytest.mark.slow
def test_large_instance_bound_within_its_time_limit() -> None:
    instance = generate(500, seed=0)
    started = time.perf_counter()
    certificate = strong_bound(instance, time_limit=120)
    assert time.perf_counter() - started < 150
    assert verify_bound(instance, certificate) == certificate.value
    assert certificate.value > makespan_lower_bound(instance)
