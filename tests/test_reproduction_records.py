"""The committed reproduction records say what their stores and the verdict rule give.

``docs/reproduction.md`` is rendered from ``results/reproduction/<paper>/summary.json``
(tests/test_published_numbers.py checks that); here each record's every claim under every
reading set is recomputed from the paper's committed result store, and its verdict from
``verdicts.classify``, so that no record can say more than its runs (issue 34).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hybridsched.experiments.reproduction import comparisons, differences, with_settings
from hybridsched.experiments.reproduction_spec import load_paper
from hybridsched.experiments.store_read import load_results, newest_runs
from hybridsched.experiments.verdicts import classify, interval

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ("000", "001", "002", "003", "004")


def _nan(value):
    return float("nan") if value is None else value


@pytest.mark.parametrize("paper_id", PAPERS)
def test_every_recorded_verdict_is_the_rule_s_on_the_store_s_runs(paper_id):
    folder = ROOT / "results" / "reproduction" / paper_id
    record = json.loads((folder / "summary.json").read_text())
    paper = load_paper(ROOT / "examples" / "reproduction" / f"{paper_id}.toml")
    assert record["paper"] == paper.paper.model_dump()
    assert len(record["reading_sets"]) == len(paper.reading_sets())
    runs = with_settings(newest_runs(load_results(folder / "store")), paper)
    assert record["runs"] == len(runs) and record["failed_runs"] == 0
    found = comparisons(paper)
    claims = {claim["id"]: claim for claim in record["claims"]}
    for reading_set in record["reading_sets"]:
        for row in reading_set["claims"]:
            claim = claims[row["claim"]]
            values = differences(runs, found[row["claim"], tuple(row["reading"])],
                                 range(*row["seeds"]))
            mean, low, high = interval(values)
            assert row["pairs"] == int((values == values).sum())
            assert _nan(row["mean"]) == pytest.approx(mean, nan_ok=True)
            assert _nan(row["ci_low"]) == pytest.approx(low, nan_ok=True)
            figure = tuple(claim["figure"]) if isinstance(claim["figure"], list) \
                else claim["figure"]
            assert row["verdict"] == classify(_nan(row["ci_low"]), _nan(row["ci_high"]),
                                              figure, kind=claim["kind"])
        assert reading_set["reproduced"] == sum(r["verdict"] == "reproduced"
                                                for r in reading_set["claims"])
    best = max(entry["reproduced"] for entry in record["reading_sets"])
    assert record["best_joint"]["reproduced"] == best
    assert record["literal"]["readings"] == list(paper.literal())
