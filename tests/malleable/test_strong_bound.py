"""The malleable strong bound (time-bucket LP, proven by its duals) and the memory guards.

- brute force and random schedules: no schedule the checker accepts lies
  below the bound (clusters with Amdahl jobs: the speed-up chords; a cloud:
  the hourly VM rows);
- the exact optimum of random tiny batches, and every recorded optimum or
  best-known value of the library, stays above it;
- :func:`~hybridsched.malleable.bound_check.verify_bound` recomputes it, and
  refuses a raised value or scaled duals;
- time limit 0, determinism, the memory budget (``exact`` on both backends
  and ``bound`` fall back to the warm start with one line naming the budget).
"""

from __future__ import annotations

import dataclasses
import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.bound_proof import BoundCertificate, BoundProofError
from hybridsched.malleable.bound_check import verify_bound
from hybridsched.malleable.bounds import lower_bound
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.generator import batch_platform, generate, tiny_instance
from hybridsched.malleable.instance import Resource, ResourceType
from hybridsched.malleable.relaxation import Grid, build
from hybridsched.models.malleable.bound import strong_bound
from hybridsched.result import Status
from tests.library_files import instance_files
from tests.malleable.test_malleable_problem import _random_schedule, brute_force, make

TOL = 1e-6
OBJECTIVES = ["penalised_a", "penalised_b", "total_time", "cost", "total_delay"]


def _certified(instance, objective: str) -> BoundCertificate:
    certificate = strong_bound(instance, time_limit=10, objective=objective)
    assert verify_bound(instance, certificate) == pytest.approx(certificate.value, rel=1e-12)
    return certificate


CLUSTERS = st.builds(
    lambda kind, cpus, perf, price: Resource(
        "c", kind, cpus, performance=perf,
        price=price if kind is ResourceType.ALLOCATED else 0.0),
    st.sampled_from([ResourceType.DEDICATED, ResourceType.ALLOCATED]), st.integers(1, 3),
    st.sampled_from([1.0, 2.0]), st.sampled_from([0.5, 1.0]))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs=st.lists(st.tuples(st.sampled_from([1.0, 2.0, 3.0, 3.0000001, 4.0]),
                               st.integers(0, 1), st.integers(0, 3),
                               st.sampled_from([0.0, 1.0, 2.5]), st.sampled_from([0.0, 0.5])),
                     min_size=1, max_size=2),
       clusters=st.lists(CLUSTERS, min_size=1, max_size=2),
       objective=st.sampled_from(["penalised_a", "penalised_b", "total_time", "cost"]))
def test_no_brute_force_schedule_beats_the_bound(jobs, clusters, objective) -> None:
    resources = tuple(Resource(f"c{k}", r.type, r.cpus, r.performance, r.price)
                      for k, r in enumerate(clusters))
    instance = make([(s, a, a + d, b, f) for s, a, d, b, f in jobs], resources)
    certificate = _certified(instance, objective)
    # The brute force's value is that of a schedule the checker's rules accept.
    assert certificate.value <= brute_force(instance, objective, 5) + TOL
    assert certificate.value >= lower_bound(instance, objective) - TOL


CLOUD = Resource("v", ResourceType.CLOUD, 2, price=30.0, max_vms=2, spot_vms=1,
                 on_demand_price=45.0)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(),
       jobs=st.lists(st.tuples(st.sampled_from([1.0, 2.0, 3.0, 5.0]), st.integers(0, 2),
                               st.integers(0, 4), st.sampled_from([0.0, 0.5, 3.0]),
                               st.sampled_from([0.0, 0.25])), min_size=1, max_size=3),
       objective=st.sampled_from(OBJECTIVES))
def test_no_random_accepted_schedule_beats_the_bound(data, jobs, objective) -> None:
    resources = (Resource("a", ResourceType.ALLOCATED, 2, price=0.5), CLOUD)
    instance = make([(s, a, a + d, b, f) for s, a, d, b, f in jobs], resources)
    certificate = _certified(instance, objective)
    for _ in range(8):
        schedule = _random_schedule(instance, data.draw)
        if check(instance, schedule):
            continue
        assert evaluate(instance, schedule).metrics[objective] >= certificate.value - TOL


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), objective=st.sampled_from(OBJECTIVES))
def test_bound_stays_below_the_exact_optimum_of_tiny_batches(seed: int, objective: str) -> None:
    instance = tiny_instance(seed)
    certificate = _certified(instance, objective)
    result = run_method("malleable", "exact", instance, objective=objective, time_limit=20)
    assert result.status is Status.OPTIMAL and check(instance, result.solution) == []
    assert certificate.value <= result.objective + TOL * max(1.0, result.objective)


def _recorded(path) -> list[float]:
    reference = json.loads(path.read_text()).get("reference") or {}
    values = [reference.get(key) for key in ("optimal_penalised_a", "upper_bound")]
    for certificate in (reference.get("certificates") or {}).values():
        values.append(certificate.get("best_known"))
    return [float(v) for v in values if v is not None]


LIBRARY = instance_files("malleable", "tiny", "small", "medium")


def _read(path):
    from hybridsched.malleable import files

    return files.instance_from_dict(json.loads(path.read_text()))


@pytest.mark.parametrize("path", [
    p if "tiny" in str(p) else pytest.param(p, marks=pytest.mark.slow) for p in LIBRARY],
    ids=lambda p: p.name)
def test_bound_stays_below_recorded_values(path) -> None:
    instance = _read(path)
    recorded = _recorded(path)
    if not recorded:
        pytest.skip("no recorded value (batch-10)")
    certificate = _certified(instance, "penalised_a")
    assert certificate.value <= min(recorded) + TOL * max(1.0, min(recorded))


@pytest.mark.slow
def test_medium_batches_get_a_bound_above_the_per_job_one() -> None:
    path = next(p for p in LIBRARY if "medium-batch-8-s20" in str(p))
    instance = _read(path)
    certificate = _certified(instance, "penalised_a")
    assert "LP" in certificate.method
    assert certificate.value > 2 * lower_bound(instance, "penalised_a")


def _lp_certificate() -> tuple[object, BoundCertificate]:
    instance = generate(2, "small", seed=3, resources=batch_platform(), serial_fraction=0.3)
    certificate = strong_bound(instance, time_limit=30)
    assert "LP" in certificate.method and certificate.proof["duals"]
    return instance, certificate


def test_verify_recomputes_and_refuses_tampered_proofs() -> None:
    instance, certificate = _lp_certificate()
    assert verify_bound(instance, certificate) == pytest.approx(certificate.value, rel=1e-12)
    raised = dataclasses.replace(certificate, value=certificate.value * 1.01 + 1)
    with pytest.raises(BoundProofError):
        verify_bound(instance, raised)
    scaled = dict(certificate.proof)
    scaled["duals"] = {key: 3.0 * value for key, value in certificate.proof["duals"].items()}
    with pytest.raises(BoundProofError):
        verify_bound(instance, dataclasses.replace(certificate, proof=scaled))
    unknown = dict(certificate.proof)
    unknown["duals"] = {**certificate.proof["duals"], "cap:99:0": 1.0}
    with pytest.raises(BoundProofError, match="unknown row"):
        verify_bound(instance, dataclasses.replace(certificate, proof=unknown))
    round_trip = BoundCertificate.from_dict(json.loads(json.dumps(certificate.to_dict())))
    assert verify_bound(instance, round_trip) == pytest.approx(certificate.value, rel=1e-12)


def test_a_proof_naming_a_huge_grid_is_refused_before_it_is_listed() -> None:
    instance = generate(2, "small", seed=1, resources=batch_platform())
    proof = {"objective": "penalised_a", "horizon": 10**9 - 1, "bucket": 1, "duals": {}}
    began = time.perf_counter()
    with pytest.raises(BoundProofError, match="buckets"):
        verify_bound(instance, BoundCertificate(1.0, "forged", proof))
    assert time.perf_counter() - began < 1.0


def test_cheap_certificate_is_recomputed() -> None:
    instance = generate(5, "small", seed=1, resources=batch_platform())
    certificate = strong_bound(instance, time_limit=0)
    assert certificate.value == lower_bound(instance, "penalised_a")
    assert verify_bound(instance, certificate) == certificate.value
    with pytest.raises(BoundProofError):
        verify_bound(instance, dataclasses.replace(certificate, value=certificate.value + 1))


def test_time_limit_zero_returns_quickly() -> None:
    instance = generate(300, "mixed", seed=2)
    began = time.perf_counter()
    certificate = strong_bound(instance, time_limit=0)
    assert time.perf_counter() - began < 2.0
    assert "time limit 0" in certificate.method
    assert certificate.value == lower_bound(instance, "penalised_a")


def test_same_seed_same_result() -> None:
    instance = generate(3, "small", seed=5, resources=batch_platform())
    first = strong_bound(instance, time_limit=60, seed=4)
    second = strong_bound(instance, time_limit=60, seed=4)
    assert first.to_dict() == second.to_dict()


def test_fluid_srpt_sum_on_a_known_case() -> None:
    from fractions import Fraction

    from hybridsched.malleable.fluid_bound import srpt_completion_sum

    # Speed 2: job 0 (work 4) from 0, job 1 (work 1) from 1 preempts it: ends 1.5, job 0 at 2.5.
    assert srpt_completion_sum([0, 1], [Fraction(4), Fraction(1)], Fraction(2)) == Fraction(4)
    # Job 1 arriving later than job 0's end does not wait.
    assert srpt_completion_sum([0, 5], [Fraction(2), Fraction(2)], Fraction(1)) == 9


def test_grid_buckets_cover_the_horizon() -> None:
    grid = Grid(1000, 5, 200)
    assert grid.cuts[0] == 0 and grid.cuts[-1] == 1000
    assert all(b - a == 5 for a, b in zip(grid.cuts, grid.cuts[1:], strict=False) if b <= 200)
    assert all(b > a for a, b in zip(grid.cuts, grid.cuts[1:], strict=False))
    assert grid.bucket_of(0) == 0 and grid.bucket_of(999) == grid.n_buckets - 1
    instance = generate(3, "small", seed=1, resources=batch_platform())
    exact, floats = build(instance, "penalised_a", grid, exact=True), build(
        instance, "penalised_a", grid)
    assert exact.row_keys == floats.row_keys and len(exact.costs) == len(floats.costs)


@pytest.mark.parametrize("backend", ["highs", "cpsat"])
def test_memory_budget_gives_the_warm_start(monkeypatch, backend: str) -> None:
    monkeypatch.setenv("HYBRIDSCHED_MEMORY_GB", "0.001")
    instance = generate(8, "small", seed=20, resources=batch_platform())
    result = run_method("malleable", "exact", instance, backend=backend, time_limit=20)
    assert result.status in (Status.TIME_LIMIT, Status.FEASIBLE)
    assert check(instance, result.solution) == []
    assert "memory budget" in result.message and "\n" not in result.message
    closed_form = strong_bound(instance, time_limit=20, upper=0.0)  # no LP: horizon 0
    assert lower_bound(instance, "penalised_a") <= result.bound <= result.objective + TOL
    assert result.bound == pytest.approx(max(closed_form.value,
                                             lower_bound(instance, "penalised_a")))
    bound = run_method("malleable", "bound", instance, time_limit=20)
    assert check(instance, bound.solution) == []
    assert "memory budget" in bound.message
    assert "LP" not in bound.metrics["bound_method"].split(";")[0]


def test_bound_method_schedule_and_bound() -> None:
    instance = generate(3, "small", seed=7, resources=batch_platform())
    result = run_method("malleable", "bound", instance, time_limit=30)
    assert check(instance, result.solution) == []
    assert result.objective == pytest.approx(evaluate(instance, result.solution).metrics[
        "penalised_a"])
    assert lower_bound(instance, "penalised_a") <= result.bound <= result.objective + TOL
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert result.metrics["bound_method"].startswith(("time-bucket", "per-job"))


@pytest.mark.slow
def test_hundred_job_batch_is_bounded_within_its_time_limit() -> None:
    instance = generate(100, "mixed", seed=1)
    began = time.perf_counter()
    result = run_method("malleable", "bound", instance, time_limit=120)
    assert time.perf_counter() - began < 130
    assert check(instance, result.solution) == []
    assert "LP" in result.metrics["bound_method"]
    assert result.bound > lower_bound(instance, "penalised_a")
