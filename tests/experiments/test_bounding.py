"""``hybridsched bound``: bounds recomputed from their proofs, recorded without getting worse."""

from __future__ import annotations

import dataclasses
import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from hybridsched import memory
from hybridsched.bound_proof import (
    BoundCertificate,
    BoundProofError,
    Row,
    floor_float,
    weak_duality_bound,
)
from hybridsched.cli import run
from hybridsched.errors import InputError
from hybridsched.experiments.bounding import (
    CHEAP,
    check_recorded,
    compute_bound,
    record_bound,
)
from hybridsched.storage import load_instance

LIBRARY = Path(__file__).resolve().parents[2] / "instances"
TINY = sorted((LIBRARY / "hybrid-deadline" / "tiny").glob("*.json"))
EVERY_TINY = sorted(LIBRARY.glob("*/tiny/*.json"))


def _optimum(instance) -> float | None:
    reference = instance.reference or {}
    found = [v for k, v in reference.items() if k.startswith("optimal_")]
    return float(found[0]) if found else None


@pytest.mark.parametrize("path", EVERY_TINY, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_every_family_bound_is_verified_and_below_the_recorded_optimum(path: Path):
    family, instance = load_instance(path)
    run_ = compute_bound(family, instance, name=path.name, time_limit=10)
    assert run_.error is None, run_.error
    optimum = _optimum(instance)
    if optimum is not None:
        assert run_.value <= optimum + 1e-9 * max(1.0, optimum)


def test_bound_prints_one_json_document_and_records_the_proof(tmp_path: Path, capsys):
    copies = []
    for path in TINY[:2]:
        copies.append(tmp_path / path.name)
        shutil.copy(path, copies[-1])
    code = run(["bound", *map(str, copies), "--json", "--record", "--proof-dir",
                str(tmp_path / "proofs"), "--time-limit", "5"])
    out = capsys.readouterr().out
    assert code == 0
    document = json.loads(out)  # exactly one document
    assert [item["verified"] for item in document["bounds"]] == [True, True]
    for item, path in zip(document["bounds"], copies, strict=True):
        proof = json.loads((tmp_path / "proofs" / f"{path.stem}.bound.json").read_text())
        assert proof["value"] == item["bound"]
        recorded = json.loads(path.read_text())["reference"]
        if item["bound"] > 0:
            assert recorded["bound_proof"]["value"] == item["bound"]


def test_a_record_never_gets_worse_and_a_solver_bound_is_demoted(tmp_path: Path):
    path = tmp_path / "instance.json"
    shutil.copy(LIBRARY / "hybrid-deadline" / "large" / "large-400-s1.json", path)
    document = json.loads(path.read_text())
    document["reference"] = {"lower_bound": 1e9, "upper_bound": 2e9}  # a solver's word
    path.write_text(json.dumps(document))
    family, instance = load_instance(path)
    run_ = compute_bound(family, instance, name="x", time_limit=5)
    run_.verified = max(run_.value or 0.0, 0.5)  # pretend a proof of 0.5 at least
    run_.certificate = BoundCertificate(run_.verified, CHEAP, {})
    assert record_bound(path, run_, "test")
    reference = json.loads(path.read_text())["reference"]
    assert reference["lower_bound"] == run_.verified
    assert reference["solver_lower_bound"] == 1e9
    weaker = BoundCertificate(0.1, CHEAP, {})
    run_.verified, run_.certificate = 0.1, weaker
    assert not record_bound(path, run_, "test")
    assert json.loads(path.read_text())["reference"]["lower_bound"] >= 0.5


def test_a_recorded_proof_that_proves_less_is_named(tmp_path: Path):
    family, instance = load_instance(TINY[0])
    cheap = compute_bound(family, instance, name="x", time_limit=0).certificate.value
    def with_reference(reference):
        return dataclasses.replace(instance, reference=reference)

    problem = check_recorded(family, with_reference(
        {"bound_proof": {"value": cheap + 1.0, "method": CHEAP, "proof": {}}}))
    assert problem is not None and "below the claimed" in problem
    assert "exceeds what its proof recomputes" in check_recorded(family, with_reference(
        {"bound_proof": {"value": cheap, "method": CHEAP, "proof": {}},
         "lower_bound": cheap + 1.0}))
    assert "field 'value'" in check_recorded(family, with_reference(
        {"bound_proof": {"value": "x", "method": CHEAP}}))


def test_weak_duality_is_exact_and_never_trusts_a_bad_dual():
    # min 3 x0 + 2 x1, x0 + x1 >= 1, x0 - x1 <= 0.5 (optimum 2 at x1 = 1)
    rows = [Row({0: 1, 1: 1}, ">=", 1), Row({0: 1, 1: -1}, "<=", 0.5)]
    assert weak_duality_bound([3, 2], [0, 0], [None, None], rows, [2, 0]) == 2
    # a dual too large makes x1's reduced cost negative: it proves nothing without a bound
    assert weak_duality_bound([3, 2], [0, 0], [None, None], rows, [2.5, 0]) is None
    # ... and only its correction with an upper bound on x1 (2.5 - 0.5 * 10)
    assert weak_duality_bound([3, 2], [0, 0], [None, 10], rows, [2.5, 0]) == Fraction(-5, 2)
    # wrong-signed duals are ignored, not trusted
    assert weak_duality_bound([3, 2], [0, 0], [None, None], rows, [2, 7]) == 2
    assert floor_float(Fraction(1, 3)) <= Fraction(1, 3)
    with pytest.raises(BoundProofError):
        weak_duality_bound([1], [0], [None], rows, [1])


def test_memory_budget_is_one_line_and_settable(monkeypatch, capsys):
    monkeypatch.setenv(memory.ENV, "0.001")
    with pytest.raises(memory.ModelTooLarge, match="over the memory budget"):
        memory.require("a model", 10 * memory.GIB)
    monkeypatch.setenv(memory.ENV, "-3")
    with pytest.raises(InputError, match="positive"):
        memory.available_bytes()
    monkeypatch.setenv(memory.ENV, "abc")  # a bad budget in the environment: bad input
    assert run(["methods"]) == 2
    assert "HYBRIDSCHED_MEMORY_GB: expected a number" in capsys.readouterr().err
    monkeypatch.delenv(memory.ENV)
    assert run(["--memory-limit", "zero", "methods"]) == 2
    assert "--memory-limit" in capsys.readouterr().err
    assert run(["methods", "--memory-limit=2"]) == 0
    assert memory.ENV not in __import__("os").environ  # restored after the command
