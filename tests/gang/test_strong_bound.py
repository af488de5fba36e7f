"""The gang strong bound (time-indexed LP, proven by its duals): valid, checked, guarded."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched import load_instance, run_method
from hybridsched.bound_proof import BoundCertificate, BoundProofError, Row, weak_duality_bound
from hybridsched.gang.bound_check import dual_value, verify_bound
from hybridsched.gang.bounds import lower_bound
from hybridsched.gang.checker import check
from hybridsched.gang.generator import generate, tiny_instance
from hybridsched.gang.instance import Instance
from hybridsched.gang.time_index import TimeIndex, build_index, default_classes, grid_origin
from hybridsched.models.gang.bound import strong_bound
from hybridsched.result import Status
from tests.gang.test_exact import brute_force, tiny
from tests.library_files import instance_files

LIBRARY = Path(__file__).resolve().parents[2] / "instances" / "gang"


def best_known(path: Path) -> float:
    """The recorded optimum, else the recorded upper bound (best known schedule)."""
    family, instance = load_instance(path)
    found = family.reference(instance)
    return found.get("optimum", found.get("upper_bound", math.inf))


def explicit_rows(instance: Instance, index: TimeIndex, duals: dict) -> tuple:
    """The relaxation as :func:`weak_duality_bound` takes it, with the duals in row order."""
    columns: dict[tuple, int] = {}
    for j in index.jobs.tolist():
        columns["z", j] = len(columns)
    for j, i in zip(index.w_job.tolist(), index.w_bucket.tolist(), strict=True):
        columns["w", j, i] = len(columns)
    xs = list(zip(index.x_job.tolist(), index.x_class.tolist(), index.x_bucket.tolist(),
                  index.x_first.tolist(), index.x_last.tolist(), index.x_upper.tolist(),
                  strict=True))
    for j, c, i, *_ in xs:
        columns["x", j, c, i] = len(columns)
    costs = [-1 if key[0] == "z" else 0 for key in columns]
    upper = [1] * (len(index.jobs) + len(index.w_job)) + [u for *_, u in xs]
    table = {(kind, *entry[:-1]): entry[-1] for kind, entries in duals.items()
             for entry in entries}
    rows, ys = [], []
    for j in index.jobs.tolist():
        coefficients = {columns["z", j]: 1}
        for (kind, *key), col in columns.items():
            if kind == "w" and key[0] == j:
                coefficients[col] = -1
        rows.append(Row(coefficients, "<=", 0))
        ys.append(table.get(("start", j), 0))
    for j, i in zip(index.w_job.tolist(), index.w_bucket.tolist(), strict=True):
        coefficients = {columns["w", j, i]: int(instance.parallelism[j])}
        for jj, c, ii, *_ in xs:
            if (jj, ii) == (j, i):
                coefficients[columns["x", j, c, i]] = -1
        rows.append(Row(coefficients, "<=", 0))
        ys.append(table.get(("gang", j, i), 0))
        for c in range(len(index.classes)):
            e = int(index.room[j, c])
            if e > 0 and ("x", j, c, i) in columns:
                rows.append(Row({columns["x", j, c, i]: 1, columns["w", j, i]: -e}, "<=", 0))
                ys.append(table.get(("room", j, c, i), 0))
    for c in range(len(index.classes)):
        for k in range(index.points):
            coefficients = {columns["x", j, cc, i]: 1 for j, cc, i, k1, k2, _ in xs
                            if cc == c and k1 <= k <= k2}
            if coefficients:
                rows.append(Row(coefficients, "<=", int(index.capacity[c])))
                ys.append(table.get(("point", c, k), 0))
    return costs, [0] * len(costs), upper, rows, ys


def assert_valid(instance: Instance, optimum: float, time_limit: float = 10) -> BoundCertificate:
    certificate = strong_bound(instance, time_limit=time_limit)
    assert lower_bound(instance) <= certificate.value <= optimum
    assert verify_bound(instance, certificate) == certificate.value
    if certificate.proof:  # the column-wise evaluation is weak duality on the explicit rows
        proof = certificate.proof
        index = build_index(instance, proof["classes"], proof["origin"], proof["step"])
        assert dual_value(instance, index, proof["duals"]) == weak_duality_bound(
            *explicit_rows(instance, index, proof["duals"]))
    return certificate


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_bound_never_exceeds_the_brute_force_optimum(data: st.DataObject) -> None:
    instance = data.draw(st.composite(tiny)())
    assert_valid(instance, brute_force(instance)[0])


@pytest.mark.parametrize("seed", range(24))
def test_awkward_tiny_instances(seed: int) -> None:
    """Ties, exact fits and deadlines within a few 1e-9 of one (``tiny_instance``)."""
    instance = tiny_instance(seed)
    assert_valid(instance, brute_force(instance)[0])


def test_a_chain_at_the_tolerance_keeps_every_job() -> None:
    """Ten jobs filling one deadline exactly: the LP must not drop one for rounding."""
    from hybridsched.gang.generator import chain_instance

    instance = chain_instance(10, "0", instructions="0.25")
    assert strong_bound(instance, time_limit=10).value == 0.0
    over = chain_instance(10, "0.1", instructions="0.25")  # one job too many
    assert assert_valid(over, 1).value <= 1


@pytest.mark.parametrize("path", instance_files("gang", "tiny", "small"), ids=lambda p: p.stem)
def test_the_bound_respects_the_library(path: Path) -> None:
    _, instance = load_instance(path)
    assert_valid(instance, best_known(path), time_limit=2)


@pytest.mark.slow
@pytest.mark.parametrize("path", instance_files("gang", "medium", "large"),
                         ids=lambda p: p.stem)
def test_the_bound_respects_the_larger_tiers(path: Path) -> None:
    _, instance = load_instance(path)
    certificate = strong_bound(instance, time_limit=60)
    assert certificate.value <= best_known(path)
    assert verify_bound(instance, certificate) == certificate.value


def test_it_proves_a_medium_optimum() -> None:
    """medium-80-s0: UFJ 40 proven by CP-SAT; the LP bound reaches it (the cheap one is 36)."""
    _, instance = load_instance(LIBRARY / "medium" / "medium-80-s0.json")
    certificate = strong_bound(instance, time_limit=20, upper=40)
    assert certificate.value == 40 > lower_bound(instance)
    assert verify_bound(instance, certificate) == 40


def test_a_tampered_certificate_is_refused() -> None:
    _, instance = load_instance(LIBRARY / "medium" / "medium-80-s0.json")
    certificate = strong_bound(instance, time_limit=20, upper=40)
    raised = BoundCertificate(certificate.value + 1, certificate.method, certificate.proof)
    with pytest.raises(BoundProofError, match="less than the claimed"):
        verify_bound(instance, raised)
    duals = {kind: [[*entry[:-1], 10 * entry[-1]] for entry in entries]
             for kind, entries in certificate.proof["duals"].items()}
    scaled = BoundCertificate(certificate.value, certificate.method,
                              {**certificate.proof, "duals": duals})
    with pytest.raises(BoundProofError):
        verify_bound(instance, scaled)
    with pytest.raises(BoundProofError, match="needs classes"):
        verify_bound(instance, BoundCertificate(1.0, "x", {"duals": {}}))
    with pytest.raises(BoundProofError, match="points"):
        verify_bound(instance, BoundCertificate(1.0, "x", {**certificate.proof, "step": 1e-12}))
    with pytest.raises(BoundProofError, match="partition"):
        verify_bound(instance, BoundCertificate(1.0, "x", {**certificate.proof,
                                                           "classes": [[0]]}))


def test_an_empty_proof_is_the_cheap_bound() -> None:
    instance = tiny_instance(1)
    cheap = lower_bound(instance)
    assert verify_bound(instance, BoundCertificate(cheap, "cheap", {})) == cheap
    with pytest.raises(BoundProofError):
        verify_bound(instance, BoundCertificate(cheap + 1, "cheap", {}))


def test_time_limit_zero_is_quick_and_cheap() -> None:
    instance = generate(2000, scenario="table2", seed=1)
    began = time.perf_counter()
    certificate = strong_bound(instance, time_limit=0)
    assert time.perf_counter() - began < 2
    assert certificate.value == lower_bound(instance) and certificate.proof == {}
    assert verify_bound(instance, certificate) == certificate.value


def test_same_seed_same_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    import hybridsched.models.gang.bound as bound

    monkeypatch.setattr(bound, "STEPS", (0.5, 0.25))  # no time limit: every grid is solved
    instance = generate(60, scenario="table2", seed=3)
    first = strong_bound(instance, seed=4)
    again = strong_bound(instance, seed=4)
    assert first.to_dict() == again.to_dict()


def test_the_classes_and_grid_are_any_valid_choice() -> None:
    """A coarser partition (all VMs in one class) proves a valid, weaker-or-equal bound."""
    instance = generate(40, scenario="table1", seed=2)
    index = build_index(instance, [list(range(instance.n_vms))], grid_origin(instance, 0.5),
                        0.5)
    assert len(index.classes) == 1
    assert len(default_classes(instance)) <= 8
    with pytest.raises(ValueError, match="origin"):
        build_index(instance, default_classes(instance), 10.0, 0.5)


def test_the_bound_method_returns_a_checked_schedule_and_the_bound() -> None:
    _, instance = load_instance(LIBRARY / "medium" / "medium-80-s0.json")
    result = run_method("gang", "bound", instance, time_limit=4)
    assert check(instance, result.solution) == []
    assert result.bound == 40 and result.objective >= 40
    assert result.metrics["bound_method"].startswith("time-indexed LP")
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)


@pytest.mark.parametrize("backend", ["highs", "cpsat"])
def test_the_exact_method_falls_back_under_a_tiny_memory_budget(
        monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    monkeypatch.setenv("HYBRIDSCHED_MEMORY_GB", "0.001")
    _, instance = load_instance(LIBRARY / "medium" / "medium-80-s1.json")
    result = run_method("gang", "exact", instance, time_limit=20, backend=backend)
    assert "memory budget" in result.message
    assert check(instance, result.solution) == []
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT)
    assert result.bound == lower_bound(instance)  # the LP does not fit either
    bounded = run_method("gang", "bound", instance, time_limit=20)
    assert "memory budget" in bounded.metrics["bound_method"]
    assert bounded.bound == lower_bound(instance)
    assert check(instance, bounded.solution) == []


def test_the_exact_fallback_uses_the_strong_bound_when_it_fits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget that holds the LP but not the MILP: the warm start with the LP bound."""
    import hybridsched.gang.adapters as adapters

    monkeypatch.setattr(adapters, "MILP_BYTES_PER_ELEMENT", 10**12)
    _, instance = load_instance(LIBRARY / "medium" / "medium-80-s0.json")
    result = run_method("gang", "exact", instance, time_limit=4)
    assert "memory budget" in result.message and check(instance, result.solution) == []
    assert result.bound == 40


def test_the_bound_grows_past_the_cheap_one_at_scale() -> None:
    instance = generate(300, scenario="table2", seed=0)
    certificate = strong_bound(instance, time_limit=3)
    assert certificate.value > lower_bound(instance)
    assert verify_bound(instance, certificate) == certificate.value
    assert np.isfinite(certificate.value)
