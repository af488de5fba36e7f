"""``hybridsched soft``: the study as a campaign, the selections, and bad specs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hybridsched.errors import InputError
from hybridsched.experiments.soft import strategies
from hybridsched.experiments.soft_spec import SoftSpec, StudyTable, campaign_text, load_soft_spec
from hybridsched.experiments.soft_study import run_soft

SMALL = """
[study]
name = "tiny-soft"
units = 30
dci = "cloud,beg"
families = [1, 4, 8]
weights = [1, 26]

[filters]
q1 = [0.5]
q2 = [0.5]
p = 1
q3 = 0.5
"""


def test_the_campaign_has_one_labelled_run_per_strategy() -> None:
    text = campaign_text(SoftSpec())
    assert text.count("[[methods]]") == 224 == len(strategies())
    assert 'label = "s4,26"' in text
    assert 'targets = "max,max,max", weights = "0.6,0.1,0.3"' in text


def test_a_small_study_runs_selects_and_resumes(tmp_path: Path, cli) -> None:
    spec = tmp_path / "soft.toml"
    spec.write_text(SMALL)
    out = tmp_path / "results"
    code, stdout, err = cli("soft", spec, "-o", out, "--serial", "--json")
    assert code == 0, err
    found = json.loads(stdout)
    assert found["strategies"] == 6 and not found["failed"]
    assert found["s1"] and set(found["s2"]) <= set(found["s1"])
    labels = {f"s{f},{i}" for f in (1, 4, 8) for i in (1, 26)}
    assert set(found["s1"]) <= labels
    theta = (out / "theta.csv").read_text().splitlines()
    assert len(theta) == 1 + 6 * 10  # every strategy x profile
    assert json.loads((out / "selected.json").read_text())["s2"] == found["s2"]
    # Run again: every run is already stored, the selection is the same.
    report = run_soft(load_soft_spec(spec), out, mode="serial")
    assert list(report.s2) == found["s2"]
    code, stdout, err = cli("soft", spec, "-o", out, "--serial")
    assert code == 0 and "Table 10 shape" in stdout and "Table 13 shape" in stdout, err


def test_identical_schedules_give_identical_satisfaction(tmp_path: Path) -> None:
    # Family 4 (every target max) picks the largest task whatever the weights.
    spec = SoftSpec(study=StudyTable(units=20, dci="cloud", families=[4], weights=[1, 2, 26]))
    report = run_soft(spec, tmp_path / "r", mode="serial")
    assert report.results["makespan"].nunique() == 1


@pytest.mark.parametrize("text, words", [
    ("[study]\nunits = 0\n", "soft.toml:2: study.units"),
    ("[study]\ndci = \"idg,grid\"\n", "soft.toml:2: study.dci: choose among"),
    ("[study]\nfamilies = [9]\n", "study.families"),
    ("[study]\nweights = [1, 1]\n", "study.weights: 1 is given twice"),
    ("[filters]\nq1 = [1.5]\n", "filters.q1"),
    ("[filters]\nq3 = 0\n", "filters.q3"),
    ("[filters]\np = 0\n", "filters.p"),
    ("[studies]\n", "studies"),
    ("[study\n", "invalid TOML"),
])
def test_bad_specs(text, words, tmp_path: Path, cli) -> None:
    spec = tmp_path / "soft.toml"
    spec.write_text(text)
    with pytest.raises(InputError) as error:
        load_soft_spec(spec)
    assert words in str(error.value), str(error.value)
    code, _, err = cli("soft", spec, "-o", tmp_path / "out")
    assert code == 2 and words in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing is made for a bad spec


@pytest.mark.parametrize("options, words", [
    ('{ preference = "level", q = 2.0, p = 3.0 }', None),
    ('{ preference = "level", q = [0.5, 2.0], p = 3.0 }', None),
    ('{ preference = "level", q = 2.0 }', "q (2) must not exceed p (1)"),
    ('{ weights = ["0.5,0.3,0.2", "0.5,0.5,0.5"] }', "weights must sum to 1"),
])
def test_campaign_specs_check_option_values_together(options, words, tmp_path: Path) -> None:
    from hybridsched.experiments.spec import load_spec

    spec = tmp_path / "c.toml"
    spec.write_text('[[instances]]\ngenerator = "pull"\noptions = { units = 5 }\n\n'
                    f'[[methods]]\nname = "promethee"\noptions = {options}\n')
    if words is None:
        assert load_spec(spec).methods
    else:
        with pytest.raises(InputError, match=r"c\.toml:7: methods\[0\]\.options") as error:
            load_spec(spec)
        assert words in str(error.value)
