"""The benchmark library (instances/): tiers, certificates, and recorded optima that still hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from hybridsched.experiments.library import TIERS, tier_of
from hybridsched.io.jsonio import read_json
from hybridsched.registry import run_method
from hybridsched.result import Status
from hybridsched.storage import load_instance
from tests.library_files import instance_files

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "instances"
FILES = [p for family in sorted(d.name for d in LIBRARY.iterdir() if d.is_dir())
         for p in instance_files(family)]
TINY = [p for p in FILES if tier_of(p) == "tiny" and p.parent.name == "tiny"]


def test_every_file_has_a_tier_and_loads():
    assert len(FILES) >= 50
    for path in FILES:
        assert tier_of(path) in TIERS, path
        family, instance = load_instance(path)
        assert family.name == path.relative_to(LIBRARY).parts[0]


def test_certificates_record_who_proved_what():
    certified = 0
    for path in FILES:
        for metric, cert in (read_json(path)["reference"].get("certificates") or {}).items():
            assert cert["verdict"] in ("certified", "proven", "open"), (path, metric)
            assert set(cert["backends"]) == {"highs", "cpsat"}
            assert all(run["version"] for run in cert["backends"].values())
            if cert["verdict"] == "certified":
                certified += 1
                assert cert["proven_by"] == ["highs", "cpsat"]
                assert cert["best_bound"] <= cert["best_known"] * (1 + 1e-6) + 1e-9
    assert certified >= 40


def test_the_index_lists_every_file():
    index = (LIBRARY / "README.md").read_text()
    for path in FILES:
        family_dir = path.parents[1] if path.parent.name in TIERS else path.parent
        assert f"| {path.relative_to(family_dir)} |" in index, path


@pytest.mark.parametrize("path", TINY, ids=lambda p: f"{p.parents[1].name}/{p.name}")
# HiGHS's half runs with -m slow: the certify property test runs both backends on tiny
# instances of every family in the default suite.
@pytest.mark.parametrize("backend", [pytest.param("highs", marks=pytest.mark.slow), "cpsat"])
def test_tiny_optima_are_proven_again(path: Path, backend: str):
    family, instance = load_instance(path)
    recorded = family.reference(instance)["optimum"]
    result = run_method(family.name, "exact", instance, time_limit=60, backend=backend)
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(recorded, rel=1e-6, abs=1e-9)


LARGER = [p for p in FILES if tier_of(p) in ("medium", "large")]


@pytest.mark.parametrize("path", LARGER, ids=lambda p: f"{p.parents[1].name}/{p.name}")
def test_medium_and_large_files_carry_a_bound_whose_proof_holds(path: Path):
    """Every medium and large file has an optimum, or a lower bound with a proof that holds.

    The proof is recomputed from the file in exact arithmetic (never a solver's
    word), and the recorded bound lies below the recorded best schedule.
    """
    from hybridsched.experiments.bounding import check_recorded

    family, instance = load_instance(path)
    reference = instance.reference or {}
    if any(key.startswith("optimal_") for key in reference):
        return
    assert reference.get("bound_proof") is not None, f"{path.name}: no bound proof recorded"
    assert check_recorded(family, instance) is None
    lower, upper = reference["lower_bound"], reference.get("upper_bound")
    assert lower == reference["bound_proof"]["value"]
    if upper is not None:
        assert lower <= upper * (1 + 1e-9) + 1e-9
