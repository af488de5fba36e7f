"""Real-data sets of the library: recipes validated, instances built from the shared data only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hybridsched.cli import run
from hybridsched.errors import InputError
from hybridsched.experiments.real_sets import load_real_set, materialise, real_set_files
from hybridsched.io.shared_data import BRAUN_FOLDER, NASA_TRACE, shared_data_path
from hybridsched.storage import load_instance

ROOT = Path(__file__).resolve().parents[2]
RECIPES = sorted(ROOT.glob("instances/*/real/*.json"))


def test_the_library_has_real_sets_for_three_families():
    assert {p.parents[1].name for p in RECIPES} == {"bot-sites", "hybrid-deadline", "gang"}
    braun = load_real_set(ROOT / "instances" / "bot-sites" / "real" / "braun.json")
    assert len(braun.instances) == 12 and {i.kind for i in braun.instances} == {"braun"}
    for recipe in RECIPES:
        assert real_set_files(recipe.parents[1]) == [recipe]


def test_a_bad_recipe_is_a_one_line_error(tmp_path: Path):
    bad = tmp_path / "real-bad.json"
    bad.write_text(json.dumps({"format": "hybridsched-real-set", "version": 1,
                               "family": "bot-sites",
                               "instances": [{"name": "x", "kind": "excel"}]}))
    with pytest.raises(InputError, match=r"real-bad.json.*instances.0.kind"):
        load_real_set(bad)


def test_without_the_data_it_says_where_to_put_it(tmp_path: Path, monkeypatch):
    monkeypatch.setattr("hybridsched.experiments.real_sets.shared_data_path", lambda _: None)
    with pytest.raises(InputError, match="HYBRIDSCHED_DATA.*never bundled"):
        materialise(ROOT / "instances" / "gang" / "real" / "nasa-gang.json", tmp_path)


@pytest.mark.skipif(shared_data_path(BRAUN_FOLDER) is None,
                    reason="the Braun ETC matrices are not here ($HYBRIDSCHED_DATA)")
def test_braun_instances_carry_their_recorded_references(tmp_path: Path):
    (first, *_) = materialise(ROOT / "instances" / "bot-sites" / "real" / "braun.json",
                              tmp_path)
    family, instance = load_instance(first)
    assert instance.reference["tier"] == "real"
    assert instance.reference["best_known_makespan"] == pytest.approx(7358942.8)
    assert family.reference(instance)["upper_bound"] == pytest.approx(7358942.8)


@pytest.mark.skipif(shared_data_path(NASA_TRACE) is None,
                    reason="the NASA iPSC trace is not here ($HYBRIDSCHED_DATA)")
def test_bench_on_the_real_tier_builds_the_instances(tmp_path: Path, capsys):
    code = run(["bench", "gang", "--tier", "real", "-o", str(tmp_path / "b"), "--methods",
                "fifo,cplmt", "--serial", "--json", "-q"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and {r["method"] for r in document["leaderboard"]} == {"fifo", "cplmt"}
    assert sorted(p.name for p in (tmp_path / "b" / "instances").iterdir()) == [
        "nasa-gang-40.json", "nasa-gang-80.json"]
