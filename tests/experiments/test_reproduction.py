"""scripts/reproduce.py's engine: reading sets, labels, the sequential seed rule, the record."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hybridsched.errors import InputError
from hybridsched.experiments.paired import paired_differences
from hybridsched.experiments.reproduction import best_joint, comparisons, reproduce
from hybridsched.experiments.reproduction_spec import load_paper
from hybridsched.experiments.store_read import load_results
from hybridsched.experiments.verdicts import ClaimRule, classify, interval, until_all_stable

ROOT = Path(__file__).resolve().parents[2]

TINY = """
[paper]
id = "t"
family = "malleable"
title = "tiny"
data = "synthetic"
scale = "tiny"
time_limit = 30
seeds = { start = 3, step = 2, cap = 5 }

[settings.small]
generator = "malleable"
options = { mix = "big", jobs = [12, 16] }

[methods]
tree = { name = "tree" }
round-robin = { name = "round-robin" }

[[readings]]
name = "policy"
values = ["A", "B"]
quote = "policy A or B"
methods = { tree = { policy = ["A", "B"] } }

[[claims]]
id = "time"
text = "less total time, 12 jobs"
figure = -10.0
method = "tree"
baseline = "round-robin"
setting = "small"
where = { jobs = 12 }
measure = "metric_total_time"

[[claims]]
id = "cost"
text = "less cost, 16 jobs"
figure = -1.0
kind = "direction"
method = "tree"
baseline = "round-robin"
setting = "small"
where = { jobs = 16 }
measure = "metric_cost"
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "paper.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("paper", ["000", "001", "002", "003", "004"])
def test_every_bundled_reproduction_file_loads_and_has_a_literal_reading_set(paper):
    loaded = load_paper(ROOT / "examples" / "reproduction" / f"{paper}.toml")
    sets = loaded.reading_sets()
    assert sets[0] == loaded.literal() and len(set(sets)) == len(sets)
    assert loaded.paper.id == paper and loaded.paper.data and loaded.paper.scale


def test_a_reading_that_cannot_change_a_claim_gives_one_comparison(tmp_path):
    text = TINY.replace('[[claims]]\nid = "time"', '''[[readings]]
name = "rr"
values = ["x", "y"]
quote = "a reading of a method no claim names"
methods = { other = { policy = ["A", "B"] } }

[methods.other]
name = "flat"

[[claims]]
id = "time"''', 1)
    paper = load_paper(_write(tmp_path, text))
    assert len(paper.reading_sets()) == 4
    found = comparisons(paper)
    # each claim sees the policy reading only: 2 claims x 2 policies
    assert len(found) == 4
    assert {c.method for c in found.values()} == {"tree[policy=A]", "tree[policy=B]"}
    assert {c.baseline for c in found.values()} == {"round-robin"}


@pytest.mark.parametrize(("old", "new", "fragment"), [
    ('baseline = "round-robin"\nsetting = "small"\nwhere = { jobs = 12 }',
     'baseline = "nope"\nsetting = "small"\nwhere = { jobs = 12 }', "unknown method role 'nope'"),
    ("where = { jobs = 12 }", 'where = { mix = "big" }', "where may fix only options"),
    ("figure = -10.0", "figure = [-5.0, 5.0]", "one side of 0"),
    ("figure = -10.0", "figure = 0.0", "other than 0"),
    ('values = ["A", "B"]', 'values = ["A"]', "claims"),
])
def test_a_bad_reproduction_file_is_one_line_naming_the_file(tmp_path, old, new, fragment):
    path = _write(tmp_path, TINY.replace(old, new, 1))
    with pytest.raises(InputError) as info:
        load_paper(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    if fragment != "claims":
        assert fragment in message


def test_claims_stable_early_draw_no_more_seeds():
    asked: list[tuple[range, tuple[str, ...]]] = []

    def draw(seeds, keys):
        asked.append((seeds, tuple(keys)))
        steady = np.array([-32.0 + (s % 3 - 1) for s in seeds])
        noisy = np.array([(-1.0) ** s * 30.0 for s in seeds])
        return {"steady": steady, "noisy": noisy}

    found = until_all_stable(draw, {"steady": ClaimRule(-32.0), "noisy": ClaimRule(-32.0)},
                             start=4, step=2, cap=8)
    assert asked[0] == (range(0, 4), ("steady", "noisy"))
    assert all(keys == ("noisy",) for _, keys in asked[1:])
    assert found["steady"].stable and found["steady"].seeds == range(0, 4)
    assert found["noisy"].seeds == range(0, 8) and found["noisy"].reason == "cap reached"


def test_best_joint_takes_the_most_reproduced_then_the_nearest_the_literal(tmp_path):
    paper = load_paper(_write(tmp_path, TINY))
    sets = [{"departures": [], "reproduced": 1}, {"departures": ["a=b"], "reproduced": 2},
            {"departures": ["c=d"], "reproduced": 2}]
    assert best_joint(paper, sets) is sets[1]
    assert best_joint(paper, sets[:1] + [{"departures": ["a=b"], "reproduced": 1}]) is sets[0]


def test_reproduce_records_verdicts_that_the_store_s_runs_give_again(tmp_path):
    paper = load_paper(_write(tmp_path, TINY))
    record = reproduce(paper, tmp_path / "out", folder=ROOT, mode="serial")
    saved = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert saved == json.loads(json.dumps(record))
    assert len(record["reading_sets"]) == 2 and record["literal"]["readings"] == ["A"]
    runs = load_results(tmp_path / "out" / "store")
    assert set(runs["status"]) <= {"feasible", "optimal"}
    for reading_set in record["reading_sets"]:
        for row in reading_set["claims"]:
            claim = next(c for c in record["claims"] if c["id"] == row["claim"])
            jobs = claim["where"]["jobs"]
            seed = runs["instance_source"].str.extract(r"seed=(\d+)$")[0].astype(int)
            part = runs[runs["instance_source"].str.contains(f"jobs={jobs} ")
                        & seed.isin(list(range(*row["seeds"])))]
            diffs = paired_differences(part, row["baseline"], row["method"],
                                       measure=claim["measure"])["difference"].to_numpy()
            mean, low, high = interval(diffs)
            assert len(diffs) == row["pairs"]
            assert mean == pytest.approx(row["mean"]) and low == pytest.approx(row["ci_low"])
            assert row["verdict"] == classify(low, high, claim["figure"], kind=claim["kind"])
            assert row["seeds"][1] in (3, 5)
    assert record["claims"][0]["readings_tried"] == 2
    assert record["commit"] is None or len(record["commit"]) == 40
    assert "hybridsched" in record["versions"]


def test_reproduce_again_runs_nothing_new(tmp_path):
    paper = load_paper(_write(tmp_path, TINY))
    first = reproduce(paper, tmp_path / "out", folder=ROOT, mode="serial")
    second = reproduce(paper, tmp_path / "out", folder=ROOT, mode="serial")
    assert first["runs"] == second["runs"]
    assert first["reading_sets"] == second["reading_sets"]


def test_a_run_made_again_replaces_the_old_one():
    import pandas as pd

    from hybridsched.experiments.store_read import newest_runs

    key = {"instance_hash": "h", "method": "m", "options": "{}", "seed": 0, "replication": 0}
    table = pd.DataFrame([{**key, "timestamp": "2026-11-28T09:00:00", "objective": 2.0},
                          {**key, "timestamp": "2026-11-28T08:00:00", "objective": 1.0},
                          {**key, "seed": 1, "timestamp": "2026-11-28T07:00:00",
                           "objective": 5.0}])
    kept = newest_runs(table)
    assert sorted(kept["objective"]) == [2.0, 5.0]
