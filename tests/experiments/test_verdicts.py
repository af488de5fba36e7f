"""The verdict rule (issue 34, item 1) and the seed rule (item 2): classes, stability, CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from hybridsched.errors import ParameterError
from hybridsched.experiments.paired import paired_differences, paired_effects
from hybridsched.experiments.verdicts import (
    CLASSES,
    CONTRADICTED,
    DIRECTION_ONLY,
    INCONCLUSIVE,
    KINDS,
    NOT_REPRODUCED,
    REPRODUCED,
    classify,
    interval,
    legend,
    stability,
    until_stable,
    with_verdicts,
)

NAN = math.nan

# -- classify ---------------------------------------------------------------------------------

DIFFERENCE_CASES = [
    # every class, for a positive and a negative figure
    (2.0, 9.0, 5.0, REPRODUCED), (-9.0, -2.0, -5.0, REPRODUCED),
    (-1.0, 9.0, 5.0, INCONCLUSIVE), (-9.0, 1.0, -5.0, INCONCLUSIVE),
    (1.0, 4.0, 5.0, DIRECTION_ONLY), (-4.0, -1.0, -5.0, DIRECTION_ONLY),
    (6.0, 9.0, 5.0, DIRECTION_ONLY), (-9.0, -6.0, -5.0, DIRECTION_ONLY),  # overshooting
    (-1.0, 4.0, 5.0, NOT_REPRODUCED), (-4.0, 1.0, -5.0, NOT_REPRODUCED),
    (-9.0, -2.0, 5.0, CONTRADICTED), (2.0, 9.0, -5.0, CONTRADICTED),
    # the issue's cases
    (-35.8, -29.8, -32.73, REPRODUCED), (-32.0, -23.0, -32.73, DIRECTION_ONLY),
    (-1.43, 1.35, 1.21, INCONCLUSIVE), (27.6, 31.2, 19.68, DIRECTION_ONLY),
    # boundaries: the interval is closed
    (0.0, 9.0, 5.0, INCONCLUSIVE), (-9.0, 0.0, -5.0, INCONCLUSIVE),
    (-9.0, 0.0, 5.0, NOT_REPRODUCED), (0.0, 9.0, -5.0, NOT_REPRODUCED),
    (5.0, 9.0, 5.0, REPRODUCED), (1.0, 5.0, 5.0, REPRODUCED), (-5.0, -1.0, -5.0, REPRODUCED),
    (0.0, 5.0, 5.0, INCONCLUSIVE), (-5.0, 0.0, -5.0, INCONCLUSIVE),
    (0.0, 0.0, 5.0, NOT_REPRODUCED), (5.0, 5.0, 5.0, REPRODUCED),
    (math.nextafter(5.0, 6.0), 9.0, 5.0, DIRECTION_ONLY),
    (math.nextafter(0.0, 1.0), 9.0, -5.0, CONTRADICTED),
]
LEVEL_CASES = [
    (0.989, 0.996, 0.99, REPRODUCED), (0.978, 0.989, 0.99, NOT_REPRODUCED),
    (0.99, 0.995, 0.99, REPRODUCED), (0.98, 0.99, 0.99, REPRODUCED),
    (-1.43, 1.35, 0.0, REPRODUCED), (0.5, 2.0, 0.0, NOT_REPRODUCED),
    (-2.0, -0.5, 0.0, NOT_REPRODUCED), (-3.0, -1.0, 5.0, NOT_REPRODUCED),
    (-1.0, 9.0, 5.0, REPRODUCED),  # a level claim does not care about 0
]
DIRECTION_CASES = [
    (-15.4, -11.7, -1.0, REPRODUCED), (-15.4, -11.7, -50.0, REPRODUCED),
    (1.0, 3.0, 2.0, REPRODUCED), (-1.0, 1.0, -1.0, INCONCLUSIVE),
    (0.0, 3.0, -1.0, INCONCLUSIVE), (-3.0, 0.0, -1.0, INCONCLUSIVE),
    (1.0, 3.0, -1.0, CONTRADICTED), (-3.0, -1.0, 1.0, CONTRADICTED),
]


@pytest.mark.parametrize(("low", "high", "figure", "expected"), DIFFERENCE_CASES)
def test_difference_claims(low, high, figure, expected):
    assert classify(low, high, figure) == expected
    assert classify(low, high, figure, kind="difference") == expected


@pytest.mark.parametrize(("low", "high", "figure", "expected"), LEVEL_CASES)
def test_level_claims_hold_the_figure_or_not(low, high, figure, expected):
    assert classify(low, high, figure, kind="level") == expected


@pytest.mark.parametrize(("low", "high", "figure", "expected"), DIRECTION_CASES)
def test_direction_claims_read_only_the_sign(low, high, figure, expected):
    assert classify(low, high, figure, kind="direction") == expected


def test_every_class_is_reached_and_levels_know_only_two():
    assert {c[3] for c in DIFFERENCE_CASES} == set(CLASSES)
    assert {c[3] for c in LEVEL_CASES} == {REPRODUCED, NOT_REPRODUCED}
    assert {c[3] for c in DIRECTION_CASES} == {REPRODUCED, INCONCLUSIVE, CONTRADICTED}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("low", "high"), [(NAN, NAN), (NAN, 3.0), (-3.0, NAN)])
def test_no_interval_is_inconclusive(kind, low, high):
    assert classify(low, high, 5.0, kind=kind) == INCONCLUSIVE


@pytest.mark.parametrize(("args", "kind", "words"), [
    ((1.0, 2.0, 0.0), "difference", "needs a figure other than 0"),
    ((1.0, 2.0, 0.0), "direction", "needs a figure other than 0"),
    ((1.0, 2.0, NAN), "level", "finite"),
    ((1.0, 2.0, math.inf), "difference", "finite"),
    ((1.0, 2.0, 1.0), "shape", "unknown kind of claim 'shape'"),
    ((3.0, 2.0, 1.0), "difference", "low end 3.0 is above its high end 2.0"),
])
def test_bad_claims_are_refused(args, kind, words):
    with pytest.raises(ValueError, match=words):
        classify(*args, kind=kind)


ENDS = st.floats(-100, 100, allow_nan=False)
FIGURES = st.floats(-100, 100, allow_nan=False).filter(lambda f: f != 0)


@settings(max_examples=300)
@given(a=ENDS, b=ENDS, figure=FIGURES, kind=st.sampled_from(KINDS),
       zero_figure=st.booleans(), nan=st.booleans())
def test_swapping_method_and_baseline_with_negated_figure_keeps_the_class(
        a, b, figure, kind, zero_figure, nan):
    low, high = min(a, b), max(a, b)
    if nan:
        low = high = NAN
    if zero_figure and kind == "level":
        figure = 0.0
    # baseline - method: the interval [-high, -low], the paper's effect -figure.
    assert classify(-high, -low, -figure, kind=kind) == classify(low, high, figure, kind=kind)


@settings(max_examples=300)
@given(a=ENDS, b=ENDS, figure=FIGURES)
def test_difference_class_is_the_issues_wording(a, b, figure):
    low, high = min(a, b), max(a, b)
    holds_figure, holds_zero = low <= figure <= high, low <= 0 <= high
    paper_side = (low > 0) if figure > 0 else (high < 0)
    expected = {(True, False): REPRODUCED, (True, True): INCONCLUSIVE,
                (False, True): NOT_REPRODUCED}.get(
        (holds_figure, holds_zero), DIRECTION_ONLY if paper_side else CONTRADICTED)
    assert classify(low, high, figure) == expected


def test_the_documented_examples_hold():
    import doctest

    from hybridsched.experiments import verdicts

    result = doctest.testmod(verdicts, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 15 and result.failed == 0


def test_legend_names_every_class_of_its_kind():
    for kind, classes in (("difference", CLASSES), ("level", (REPRODUCED, NOT_REPRODUCED)),
                          ("direction", (REPRODUCED, INCONCLUSIVE, CONTRADICTED))):
        line = legend(kind, -32.73)
        assert all(f"{c} =" in line for c in classes) and "F = -32.73" in line
        assert line.count("\n") == 0
    assert "F = " not in legend("level")
    with pytest.raises(ValueError, match="unknown kind"):
        legend("shape")


# -- intervals and paired differences ---------------------------------------------------------

def _runs(values: dict[str, list[float]]) -> pd.DataFrame:
    rows = [{"method": method, "instance_hash": f"h{k}", "replication": 0,
             "instance_source": f"gen n=5 seed={k}", "objective": value, "status": "feasible"}
            for method, column in values.items() for k, value in enumerate(column)]
    return pd.DataFrame(rows)


def test_interval_is_the_one_paired_effects_prints():
    rng = np.random.default_rng(3)
    base = rng.uniform(50, 150, 12)
    other = base * rng.uniform(0.6, 1.1, 12)
    runs = _runs({"a": list(base), "b[x=1]": list(other)})
    row = paired_effects(runs, "a").iloc[0]
    diffs = paired_differences(runs, "a", "b")["difference"].to_numpy()
    assert interval(diffs) == pytest.approx((row["mean"], row["ci_low"], row["ci_high"]),
                                            rel=1e-12)
    low, high = stats.t.interval(0.95, 11, loc=diffs.mean(), scale=stats.sem(diffs))
    assert interval(diffs)[1:] == pytest.approx((low, high), rel=1e-12)
    assert interval([NAN, 2.0, 4.0, math.inf]) == pytest.approx(
        (3.0, 3.0 - stats.t.ppf(0.975, 1) * math.sqrt(2) / math.sqrt(2),
         3.0 + stats.t.ppf(0.975, 1)))
    one = interval([7.0])
    assert one[0] == 7.0 and math.isnan(one[1]) and math.isnan(one[2])
    assert all(math.isnan(v) for v in interval([]))


def test_paired_differences_come_in_seed_order():
    runs = _runs({"a": [10.0] * 12, "b": [10.0 + k for k in range(12)]})
    runs = runs.sample(frac=1.0, random_state=1)  # stores hold runs in any order
    table = paired_differences(runs, "a", "b", relative=False)
    assert table["difference"].tolist() == [float(k) for k in range(12)]
    assert table["instance_source"].iloc[:3].tolist() == [
        "gen n=5 seed=0", "gen n=5 seed=1", "gen n=5 seed=2"]
    assert set(table["setting"]) == {"gen n=5"}
    assert paired_differences(runs, "a", "b")["difference"].iloc[2] == pytest.approx(20.0)
    with pytest.raises(ParameterError, match="no run has method 'zzz'") as error:
        paired_differences(runs, "a", "zzz")
    assert error.value.parameter == "method"


def test_table_gains_verdicts_from_one_figure_or_one_per_method():
    effects = pd.DataFrame({"method": ["x", "y"], "ci_low": [-40.0, -20.0],
                            "ci_high": [-30.0, -10.0]})
    one = with_verdicts(effects, -32.73)
    assert one["verdict"].tolist() == [REPRODUCED, DIRECTION_ONLY]
    assert one["paper_figure"].tolist() == [-32.73, -32.73]
    assert set(one["claim_kind"]) == {"difference"}
    each = with_verdicts(effects, {"y": -15.0}, kind="level")
    assert pd.isna(each["verdict"].iloc[0]) and each["verdict"].iloc[1] == REPRODUCED
    assert pd.isna(each["paper_figure"].iloc[0]) and each["paper_figure"].iloc[1] == -15.0
    assert effects.columns.size == 3  # the table given is left as it was


# -- the seed rule ----------------------------------------------------------------------------

def _standard(n: int, seed: int) -> np.ndarray:
    """``n`` seeded normal draws, rescaled to mean 0 and sample deviation 1 exactly."""
    z = np.random.default_rng(seed).normal(size=n)
    return (z - z.mean()) / z.std(ddof=1)


def test_a_class_that_flips_between_halves_is_not_stable():
    rng = np.random.default_rng(7)
    sample = np.concatenate([rng.normal(-32.73, 4.0, 10), rng.normal(-18.0, 4.0, 10)])
    check = stability(sample, -32.73)
    assert check.halves[0] == REPRODUCED and check.halves[1] == DIRECTION_ONLY
    assert check.half_width > check.width_limit  # so the width does not settle it
    assert not check.stable and check.reason == ""
    assert check.pairs == 20 and check.verdict == classify(check.ci_low, check.ci_high, -32.73)


def test_a_narrow_interval_is_stable_whatever_its_halves_say():
    sample = np.concatenate([-31.9 + 2 * _standard(20, 1), -30.9 + 2 * _standard(20, 2)])
    check = stability(sample, -32.73)
    assert check.verdict == DIRECTION_ONLY and check.halves[0] == REPRODUCED
    assert check.half_width < 0.1 * 32.73 == pytest.approx(check.width_limit)
    assert check.stable and check.reason == "narrow"
    assert not stability(sample, -32.73, narrow=None).stable
    assert stability(sample, -32.73, narrow=0.01).reason == ""


def test_agreeing_halves_make_a_class_stable_but_not_an_inconclusive_one():
    agreeing = np.concatenate([-32.0 + 2 * _standard(10, 3), -33.0 + 2 * _standard(10, 4)])
    check = stability(agreeing, -32.73, narrow=None)
    assert (check.verdict, check.halves, check.reason) == (
        REPRODUCED, (REPRODUCED, REPRODUCED), "halves agree")
    vague = 0.5 + 10 * _standard(20, 5)
    check = stability(vague, 5.0)
    assert check.verdict == INCONCLUSIVE and check.halves == (INCONCLUSIVE, INCONCLUSIVE)
    assert not check.stable


def test_width_limits_by_kind_and_scale():
    sample = 0.99 + 0.0001 * _standard(10, 6)
    assert stability(sample, 0.99, kind="level").width_limit is None
    level = stability(sample, 0.99, kind="level", scale=0.01)
    assert level.width_limit == pytest.approx(0.001) and level.stable
    assert stability(sample, -1.0, kind="direction").width_limit is None
    assert stability(sample, -5.0, scale=2.0).width_limit == pytest.approx(0.2)
    with pytest.raises(ValueError, match="narrow must be"):
        stability(sample, 5.0, narrow=0.0)
    with pytest.raises(ValueError, match="scale must be"):
        stability(sample, 5.0, scale=-1.0)


def test_failed_pairs_are_left_out_and_tiny_samples_are_never_stable():
    check = stability([NAN, -32.0, math.inf, -33.0, -32.5, -31.0], -32.73)
    assert check.pairs == 4
    for few in ([], [-32.0], [-32.0, -33.0, -32.5]):
        check = stability(few, -32.73, narrow=None)
        assert check.pairs == len(few) and not check.stable
        assert INCONCLUSIVE in check.halves
    with pytest.raises(ValueError, match="1-D"):
        stability(np.zeros((3, 2)), 5.0)


class Recorder:
    """A ``draw_batch`` over a fixed sequence of differences (one per seed) that logs its calls."""

    def __init__(self, values: np.ndarray):
        self.values = values
        self.calls: list[range] = []

    def __call__(self, seeds: range) -> np.ndarray:
        self.calls.append(seeds)
        return self.values[seeds.start:seeds.stop]


def test_until_stable_stops_at_the_cap_and_says_so():
    # Every block of 10 seeds has mean 2.5 and deviation 12: inconclusive at every check.
    draw = Recorder(np.concatenate([2.5 + 12 * _standard(10, k) for k in range(10)]))
    found = until_stable(draw, 5.0)
    assert draw.calls == [range(0, 10), range(10, 20), range(20, 30), range(30, 40)]
    assert (found.stable, found.reason, found.seeds, found.pairs) == (
        False, "cap reached", range(0, 40), 40)
    assert [seeds for seeds, _ in found.history] == [10, 20, 30, 40]
    assert found.verdict == INCONCLUSIVE == found.history[-1][1]
    record = found.to_dict()
    assert record["seeds"] == [0, 40] and record["reason"] == "cap reached"
    assert json.loads(json.dumps(record))["history"][-1] == [40, INCONCLUSIVE]


def test_until_stable_stops_as_soon_as_the_class_is_stable():
    values = np.concatenate([np.full(20, NAN), -32.0 + 2 * _standard(80, 9)])
    draw = Recorder(values)
    found = until_stable(draw, -32.73, first_seed=20)
    assert draw.calls == [range(20, 30)]
    assert (found.verdict, found.stable, found.reason) == (REPRODUCED, True, "halves agree")
    assert found.seeds == range(20, 30) and found.figure == -32.73 and found.kind == "difference"


def test_until_stable_draws_more_seeds_while_the_halves_disagree_and_cuts_the_last_batch():
    # Seeds 0-9 sit low (direction only), later ones around the figure: the halves disagree.
    values = np.concatenate([-27.5 + 6 * _standard(10, 10), -32.8 + 4 * _standard(50, 11)])
    draw = Recorder(values)
    found = until_stable(draw, -32.73, start=10, step=15, cap=30, narrow=None)
    assert draw.calls == [range(0, 10), range(10, 25), range(25, 30)]
    assert found.history == ((10, DIRECTION_ONLY), (25, DIRECTION_ONLY), (30, DIRECTION_ONLY))
    assert found.halves == (DIRECTION_ONLY, REPRODUCED)
    assert (found.stable, found.reason, found.seeds) == (False, "cap reached", range(0, 30))
    # With the default width rule, 20 seeds pin the effect to within a tenth of the figure.
    narrow = until_stable(Recorder(values), -32.73)
    assert (narrow.stable, narrow.reason, narrow.seeds) == (True, "narrow", range(0, 20))
    assert narrow.half_width < narrow.width_limit == pytest.approx(3.273)


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"start": 1}, "start"), ({"start": 50, "cap": 40}, "start"), ({"step": 0}, "step")])
def test_until_stable_refuses_bad_schedules(kwargs, words):
    with pytest.raises(ValueError, match=words):
        until_stable(Recorder(np.zeros(100)), 5.0, **kwargs)
    with pytest.raises(ValueError, match="1-D"):
        until_stable(lambda seeds: np.zeros((len(seeds), 2)), 5.0)
    with pytest.raises(ValueError, match="other than 0"):
        until_stable(Recorder(np.zeros(100)), 0.0)


# -- the command line -------------------------------------------------------------------------

COMMAND = [sys.executable, "-m", "hybridsched"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A small campaign store: ffd and cdf on 6 hybrid-deadline instances."""
    folder = tmp_path_factory.mktemp("verdicts")
    spec = folder / "c.toml"
    spec.write_text("\n".join([
        "[campaign]", 'name = "verdicts"', "", "[[instances]]", 'generator = "hybrid-deadline"',
        "seeds = { start = 0, stop = 6 }", "[instances.options]", "tasks = 30", "",
        '[[methods]]', 'name = "ffd"', '[[methods]]', 'name = "cdf"', ""]))
    ran = subprocess.run([*COMMAND, "campaign", str(spec), "-o", str(folder / "store"),
                          "--serial"], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    return folder / "store"


def _effects(store, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*COMMAND, "effects", str(store), "--baseline", "ffd", *args],
                          capture_output=True, text=True)


def test_effects_gives_each_row_the_rules_verdict(store):
    plain = json.loads(_effects(store, "--json").stdout)
    assert "verdict" not in plain[0]
    row = plain[0]
    far = 10 * (abs(row["ci_low"]) + abs(row["ci_high"])) + 1.0
    for figure, kind in ((row["mean"] or 1.0, "difference"), (far, "difference"),
                         (-far, "difference"), (row["mean"], "level"), (-1.0, "direction")):
        shown = _effects(store, "--json", "--paper-figure", repr(figure), "--claim-kind", kind)
        assert shown.returncode == 0, shown.stderr
        record = json.loads(shown.stdout)[0]
        assert record["verdict"] == classify(row["ci_low"], row["ci_high"], figure, kind=kind)
        assert (record["paper_figure"], record["claim_kind"]) == (figure, kind)
    assert json.loads(_effects(store, "--json", "--paper-figure", repr(row["mean"]),
                               "--claim-kind", "level").stdout)[0]["verdict"] == REPRODUCED


def test_effects_table_shows_the_verdict_column_and_its_legend(store):
    row = json.loads(_effects(store, "--json").stdout)[0]
    shown = _effects(store, "--paper-figure", "-5")
    assert shown.returncode == 0, shown.stderr
    header = next(line for line in shown.stdout.splitlines() if line.startswith("method"))
    assert header.split()[-1] == "verdict"
    expected = classify(row["ci_low"], row["ci_high"], -5.0)
    assert any(line.startswith("cdf") and line.rstrip().endswith(expected)
               for line in shown.stdout.splitlines())
    assert legend("difference", -5.0) in shown.stdout
    csv = _effects(store, "--csv", "--paper-figure", "-5")
    assert csv.stdout.splitlines()[0].endswith("paper_figure,claim_kind,verdict")


@pytest.mark.parametrize(("args", "words"), [
    (["--paper-figure", "0"], "--paper-figure': a difference claim needs a figure other than 0"),
    (["--paper-figure", "0", "--claim-kind", "direction"], "needs a figure other than 0"),
    (["--paper-figure", "nan"], "--paper-figure': must be a finite number"),
    (["--paper-figure", "abc"], "--paper-figure"),
    (["--claim-kind", "level"], "--claim-kind': needs --paper-figure"),
    (["--paper-figure", "1", "--claim-kind", "shape"], "'shape' is not one of"),
])
def test_bad_claims_on_the_command_line_are_one_line_errors(store, args, words):
    bad = _effects(store, *args)
    assert bad.returncode == 2 and not bad.stdout
    assert bad.stderr.count("\n") == 1 and words in bad.stderr
