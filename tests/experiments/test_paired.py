"""Paired effects (``hybridsched effects``): means, intervals and win counts on paired runs."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from hybridsched.errors import InputError
from hybridsched.experiments.paired import paired_effects, setting_of, t_quantile_975


def _runs(values: dict[str, list[float]], *, settings: list[str] | None = None) -> pd.DataFrame:
    """Rows of a store: one run per (method, instance); instance k is shared by all methods."""
    rows = []
    for method, column in values.items():
        for k, value in enumerate(column):
            setting = settings[k] if settings else "gen n=5"
            rows.append({"method": method, "instance_hash": f"h{k}", "replication": 0,
                         "instance_source": f"{setting} seed={k}", "objective": value,
                         "metric_fairness": value / 10, "status": "feasible"})
    return pd.DataFrame(rows)


def test_t_quantiles_are_scipys_and_match_the_printed_tables():
    assert [t_quantile_975(df) for df in (1, 4, 9, 50, 1000)] == [
        stats.t.ppf(0.975, df) for df in (1, 4, 9, 50, 1000)]
    # The printed tables, to their three decimals; far out, the normal quantile.
    assert t_quantile_975(4) == pytest.approx(2.776, abs=5e-4)
    assert t_quantile_975(9) == pytest.approx(2.262, abs=5e-4)
    assert t_quantile_975(10**6) == pytest.approx(stats.norm.ppf(0.975), abs=1e-5)
    with pytest.raises(ValueError):
        t_quantile_975(0)


def test_paired_interval_is_scipys_t_interval():
    base = np.array([100.0, 200.0, 50.0, 80.0, 120.0, 90.0, 70.0])
    other = np.array([110.0, 190.0, 55.0, 100.0, 132.0, 91.0, 64.0])
    row = paired_effects(_runs({"a": list(base), "b": list(other)}), "a",
                         relative=False).iloc[0]
    diff = other - base
    low, high = stats.t.interval(0.95, len(diff) - 1, loc=diff.mean(), scale=stats.sem(diff))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), rel=1e-12)


def test_mean_interval_and_wins_are_those_of_the_differences():
    base = [100.0, 200.0, 50.0, 80.0, 120.0]
    other = [110.0, 190.0, 50.0, 100.0, 132.0]
    table = paired_effects(_runs({"a": base, "b[x=1]": other}), "a")
    row = table.iloc[0]
    diff = (np.array(other) - base) / base * 100
    half = stats.t.ppf(0.975, 4) * diff.std(ddof=1) / math.sqrt(5)
    assert row["method"] == "b[x=1]" and row["pairs"] == 5 and row["unit"] == "%"
    assert row["mean"] == pytest.approx(diff.mean())
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((diff.mean() - half,
                                                             diff.mean() + half))
    # smaller wins: b is better on instance 1 only, ties on instance 2
    assert (row["wins"], row["losses"], row["ties"]) == (1, 3, 1)


def test_larger_is_better_and_absolute_differences():
    table = paired_effects(_runs({"a": [1.0, 2.0, 3.0], "b": [2.0, 2.0, 5.0]}), "a",
                           measure="metric_fairness", larger_is_better=True, relative=False)
    row = table.iloc[0]
    assert row["mean"] == pytest.approx((0.1 + 0.0 + 0.2) / 3)
    assert (row["wins"], row["losses"], row["ties"]) == (2, 0, 1)
    assert row["unit"] == "metric_fairness"


def test_unpaired_and_failed_runs_are_left_out():
    runs = _runs({"a": [10.0, 20.0, 30.0], "b": [11.0, math.nan, 33.0]})
    runs = pd.concat([runs, pd.DataFrame([{"method": "b", "instance_hash": "h9",
                                           "replication": 0, "instance_source": "g seed=9",
                                           "objective": 1.0, "status": "feasible"}])])
    row = paired_effects(runs, "a").iloc[0]
    assert row["pairs"] == 2 and row["mean"] == pytest.approx(10.0)
    single = paired_effects(_runs({"a": [10.0], "b": [12.0]}), "a").iloc[0]
    assert single["pairs"] == 1 and math.isnan(single["ci_low"])


def test_zero_baseline_values_pair_only_with_zero():
    row = paired_effects(_runs({"a": [0.0, 0.0, 10.0], "b": [0.0, 5.0, 5.0]}), "a").iloc[0]
    assert row["pairs"] == 2 and row["mean"] == pytest.approx(-25.0)


def test_settings_pair_within_each_setting():
    settings = ["g rate=5", "g rate=5", "g rate=9", "g rate=9"]
    runs = _runs({"a": [10.0, 10.0, 10.0, 10.0], "b": [9.0, 9.0, 12.0, 12.0]},
                 settings=settings)
    table = paired_effects(runs, "a", by_setting=True).set_index("setting")
    assert table.loc["g rate=5", "mean"] == pytest.approx(-10.0)
    assert table.loc["g rate=9", "mean"] == pytest.approx(20.0)
    assert setting_of("gang jobs=20 seed=12 rate=5") == "gang jobs=20 rate=5"
    runs = _runs({"a": [1.0, 1.0, 1.0], "b": [2.0, 2.0, 2.0]},
                 settings=["g jobs=200", "g jobs=1600", "g jobs=30"])
    ordered = paired_effects(runs, "a", by_setting=True)["setting"].tolist()
    assert ordered == ["g jobs=30", "g jobs=200", "g jobs=1600"]


def test_a_method_name_with_one_label_serves_as_baseline():
    table = paired_effects(_runs({"a[k=1]": [1.0, 2.0], "b": [1.0, 3.0]}), "a")
    assert table.iloc[0]["baseline"] == "a[k=1]"


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"baseline": "zzz"}, "no run has method 'zzz'"),
    ({"baseline": "a", "measure": "status"}, "measure 'status' is not a numeric column"),
])
def test_bad_baseline_or_measure_is_one_line_input_error(kwargs, words):
    runs = _runs({"a[k=1]": [1.0, 2.0], "a[k=2]": [1.0, 3.0]})
    with pytest.raises(InputError, match=words):
        paired_effects(runs, **kwargs)
    with pytest.raises(InputError, match="has 2 labels"):
        paired_effects(runs, "a")
    with pytest.raises(InputError, match="no runs"):
        paired_effects(runs.iloc[:0], "a")


def test_effects_command_on_a_campaign_store(tmp_path):
    spec = tmp_path / "c.toml"
    spec.write_text("\n".join([
        "[campaign]", 'name = "paired"', "", "[[instances]]", 'generator = "hybrid-deadline"',
        "seeds = { start = 0, stop = 4 }", "[instances.options]", "tasks = 8", "",
        '[[methods]]', 'name = "ffd"', '[[methods]]', 'name = "cdf"', ""]))
    store = tmp_path / "store"
    command = [sys.executable, "-m", "hybridsched"]
    ran = subprocess.run([*command, "campaign", str(spec), "-o", str(store), "--serial"],
                         capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    shown = subprocess.run([*command, "effects", str(store), "--baseline", "ffd", "--json"],
                           capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    records = json.loads(shown.stdout)
    assert [r["method"] for r in records] == ["cdf"] and records[0]["pairs"] == 4
    plotted = subprocess.run([*command, "effects", str(store), "--baseline", "ffd", "--plot",
                              str(tmp_path / "e.png")], capture_output=True, text=True)
    assert plotted.returncode == 0 and "cdf" in plotted.stdout
    assert (tmp_path / "e.png").read_bytes()[:4] == b"\x89PNG"
    bad = subprocess.run([*command, "effects", str(store), "--baseline", "nope"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and not bad.stdout
    assert bad.stderr.count("\n") == 1 and "no run has method 'nope'" in bad.stderr


def test_objectives_of_different_names_never_pair():
    runs = _runs({"rr": [10.0, 20.0], "tree[policy=A]": [5.0, 10.0], "tree[policy=B]": [1.0, 2.0]})
    runs["objective_name"] = ["penalised_a"] * 4 + ["penalised_b"] * 2
    table = paired_effects(runs, "rr")
    assert table["method"].tolist() == ["tree[policy=A]"]
    both = paired_effects(runs, "rr", measure="metric_fairness")
    assert sorted(both["method"]) == ["tree[policy=A]", "tree[policy=B]"]


def test_forest_plot_marks_the_paper_figures():
    from hybridsched.plots.effects import plot_effects

    table = paired_effects(_runs({"a": [10.0, 20.0, 30.0], "b": [11.0, 22.0, 30.0],
                                  "c": [9.0, 18.0, 27.0]}), "a")
    axes = plot_effects(table, paper={"b": 17.0}, title="t").axes[0]
    assert sorted(t.get_text() for t in axes.get_yticklabels()) == ["b", "c"]
    crosses = [line for line in axes.get_lines() if line.get_marker() == "x"]
    assert len(crosses) == 1 and crosses[0].get_xdata()[0] == 17.0
    empty = plot_effects(table.iloc[:0])
    assert "no paired runs" in empty.axes[0].texts[0].get_text()


@pytest.mark.parametrize(("low", "high", "paper", "expected"), [
    (2.0, 9.0, 5.0, "reproduced"),
    (2.35, 9.16, 17.65, "direction only"),
    (-1.1, 4.45, 12.86, "not reproduced"),
    (-9.0, -2.0, 5.0, "contradicted"),
    (-40.0, -30.0, -32.73, "reproduced"),
    (-20.0, -10.0, -32.73, "direction only"),
    (-1.43, 1.35, 1.21, "inconclusive"),
    (math.nan, math.nan, 1.0, "inconclusive"),
])
def test_verdict_places_the_paper_figure_against_the_interval(low, high, paper, expected):
    # The rule lives in verdicts.py (issue 34); tests/experiments/test_verdicts.py covers it.
    from hybridsched.experiments.verdicts import classify

    assert classify(low, high, paper) == expected
