"""SOFT selection (Moca et al. 2016, sec. 3.3, 4.2, 6.3.5-6.3.6) on hand-made tables."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.errors import InputError
from hybridsched.experiments import soft
from hybridsched.experiments.soft import (
    FAMILIES,
    PROFILES,
    WEIGHTS,
    filter1,
    filter2,
    satisfaction,
    strategies,
    table10,
)

# --------------------------------------------------------------------------- constants


def test_224_strategies_with_unique_labels_family_major():
    all_s = strategies()
    assert len(all_s) == 224
    assert len({s.label for s in all_s}) == 224
    assert all_s[0].label == "s1,1" and all_s[27].label == "s1,28" and all_s[-1].label == "s8,28"
    for s in all_s:
        assert s.targets == FAMILIES[s.family - 1] and s.weights == WEIGHTS[s.index - 1]
    s426 = next(s for s in all_s if s.label == "s4,26")  # the paper's final winner
    assert s426.targets == ("max", "max", "max") and s426.weights == (0.6, 0.1, 0.3)


def test_strategy_is_frozen():
    s = strategies()[0]
    with pytest.raises(AttributeError):
        s.family = 2


def test_table7_rows_reordered_to_ect_price_eei():
    # Table 7 rows as printed (Price, ECT, EEI), families s1..s8.
    x, n = "max", "min"
    price = [x, x, x, x, n, n, n, n]
    ect = [n, n, x, x, n, x, x, n]
    eei = [n, x, n, x, x, x, n, n]
    assert len(FAMILIES) == 8
    assert [f[0] for f in FAMILIES] == ect
    assert [f[1] for f in FAMILIES] == price
    assert [f[2] for f in FAMILIES] == eei
    assert set(FAMILIES) == set(itertools.product(("min", "max"), repeat=3))


def test_table8_weights_sum_to_one_and_are_distinct():
    assert len(WEIGHTS) == 28
    assert len(set(WEIGHTS)) == 28
    for w in WEIGHTS:
        assert len(w) == 3 and min(w) >= 0
        assert abs(sum(w) - 1.0) <= 1e-12
    assert WEIGHTS[0] == (1 / 3, 1 / 3, 1 / 3)
    assert WEIGHTS[1] == (2 / 3, 0.0, 1 / 3)
    assert WEIGHTS[19] == (0.7, 0.1, 0.2)  # s_{i,20}
    assert WEIGHTS[25] == (0.6, 0.1, 0.3)  # s_{i,26}
    assert WEIGHTS[26] == (0.3, 0.6, 0.1)  # s_{i,27}


def test_table9_profiles_sum_to_one():
    assert len(PROFILES) == 10
    assert len(set(PROFILES)) == 10
    for g in PROFILES:
        assert min(g) >= 0 and abs(sum(g) - 1.0) <= 1e-12
    assert PROFILES[:3] == ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    assert PROFILES[8] == (0.0, 1 / 3, 2 / 3)  # printed (0, 1/3, 1/3): sums to 2/3


def test_ordinal():
    assert [soft.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]


# --------------------------------------------------------------------------- Eq. 1


def three():
    """Three strategies; s1,1 has two replications (makespans 8 and 12: mean 10)."""
    return pd.DataFrame({
        "family": [1, 1, 1, 2], "index": [1, 1, 2, 1],
        "makespan": [8.0, 12.0, 20.0, 30.0], "cost": [5.0, 5.0, 1.0, 3.0],
        "efficiency": [0.5, 0.5, 1.0, 0.75]})


def theta_of(table, label):
    rows = table[[f"s{f},{i}" == label for f, i in zip(table.family, table["index"], strict=True)]]
    return rows.set_index("profile")["theta"]


def test_eq1_hand_computed():
    # normalised (M, C, E) terms: s1,1 (1, 0, 0); s1,2 (0.5, 1, 1); s2,1 (0, 0.5, 0.5)
    t = satisfaction(three())
    assert list(t.columns) == ["family", "index", "profile", "theta"]
    assert len(t) == 3 * 10
    assert list(t["profile"][:10]) == list(range(1, 11))
    assert theta_of(t, "s1,1")[1] == pytest.approx(1.0)
    assert theta_of(t, "s1,2")[1] == pytest.approx(0.5)
    assert theta_of(t, "s2,1")[1] == pytest.approx(0.0)
    assert theta_of(t, "s1,1")[2] == pytest.approx(0.0)
    assert theta_of(t, "s1,2")[2] == pytest.approx(1.0)
    assert theta_of(t, "s2,1")[3] == pytest.approx(0.5)
    assert theta_of(t, "s1,2")[4] == pytest.approx(2.5 / 3)
    assert theta_of(t, "s2,1")[5] == pytest.approx(2 / 3 * 0 + 1 / 3 * 0.5)
    assert theta_of(t, "s1,1")[10] == pytest.approx(1 / 3)


def test_eq1_custom_profiles():
    t = satisfaction(three(), profiles=[(0.5, 0.5, 0.0), (0.0, 0.0, 1.0)])
    assert len(t) == 6
    assert theta_of(t, "s1,2").tolist() == pytest.approx([0.75, 1.0])


def test_eq1_max_equals_min_gives_zero_term_not_nan():
    df = three().assign(cost=7.0, efficiency=0.9)
    t = satisfaction(df)
    assert not t["theta"].isna().any()
    assert theta_of(t, "s1,2")[2] == 0.0  # cost-only profile: nobody differs on cost
    assert theta_of(t, "s1,1")[3] == 0.0  # efficiency-only profile
    assert theta_of(t, "s1,1")[1] == pytest.approx(1.0)  # makespan still normalised
    single = satisfaction(three().iloc[[2]])
    assert (single["theta"] == 0.0).all()


# --------------------------------------------------------------------------- Filter1


def flat_table(us, profiles=2):
    """A theta table where every strategy has the same theta for every profile."""
    return pd.DataFrame([{"family": f, "index": i, "profile": k, "theta": u}
                         for (f, i), u in us.items() for k in range(1, profiles + 1)])


def pairs_table(pairs):
    return pd.DataFrame([{"family": f, "index": i, "profile": k + 1, "theta": v}
                         for (f, i), vals in pairs.items() for k, v in enumerate(vals)])


STEP1 = {
    (1, 1): (0.2, 0.4),    # ratio 0.3 / 0.1414 = 2.12
    (1, 2): (0.5, 0.7),    # 4.24
    (1, 3): (0.8, 0.9),    # 12.0
    (1, 4): (0.1, 0.9),    # 0.88
    (1, 5): (0.4, 0.4),    # flat positive: kept
    (1, 6): (0.0, 0.0),    # flat zero: never kept
    (2, 1): (0.9, 0.95),   # 26.2 (= the family median: kept, ">=")
    (2, 2): (0.3, 0.31),   # 43.1
    (2, 3): (0.6, 1.0),    # 2.83
}


def test_filter1_step1_per_family_percentile_and_flat_strategies():
    res = filter1(pairs_table(STEP1), q1=0.5, method="abs", p=2)
    assert set(res.s_prime) == {"s1,2", "s1,3", "s1,5", "s2,1", "s2,2"}
    st_ = res.stats.set_index("label")
    assert st_.loc["s1,1", "u"] == pytest.approx(0.3)
    assert st_.loc["s1,1", "sigma"] == pytest.approx(np.std([0.2, 0.4], ddof=1))
    assert st_.loc["s1,5", "ratio"] == math.inf and st_.loc["s1,5", "flat"]
    assert np.isnan(st_.loc["s1,6", "ratio"]) and not st_.loc["s1,6", "kept"]
    # family 1's threshold is the median of its four finite ratios (2.12, 4.24, 12.0, 0.88)
    r = [0.3 / np.std([0.2, 0.4], ddof=1), 0.6 / np.std([0.5, 0.7], ddof=1)]
    assert st_.loc["s1,1", "threshold"] == pytest.approx(sum(r) / 2)
    assert st_.loc["s2,1", "ratio"] == pytest.approx(st_.loc["s2,1", "threshold"])
    # Win_abs: largest u of S'
    assert list(res.selected["label"]) == ["s2,1", "s1,3"]
    assert list(res.selected["place"]) == [1, 2]


def test_filter1_q1_one_keeps_every_finite_ratio():
    res = filter1(pairs_table(STEP1), q1=1.0)
    assert set(res.s_prime) == {f"s{f},{i}" for f, i in STEP1} - {"s1,6"}


def test_win_abs_ties_broken_by_family_then_index():
    t = flat_table({(2, 1): 0.8, (1, 5): 0.8, (1, 2): 0.8, (3, 1): 0.5})
    assert list(filter1(t, 0.25, "abs", p=2).selected["label"]) == ["s1,2", "s1,5"]
    assert list(filter1(t, 0.25, "abs", p=10).selected["label"]) == [
        "s1,2", "s1,5", "s2,1", "s3,1"]


FREQ = {(1, 1): 0.9, (1, 2): 0.8, (2, 1): 0.85, (2, 2): 0.7, (3, 1): 0.95, (3, 3): 0.2,
        (1, 3): 0.1, (2, 3): 0.15}


def test_win_freq_families_by_dense_frequency_rank_and_top_weights():
    # q2 = 0.5: Q = {s1,1, s1,2, s2,1, s3,1}; family counts 1: 2, 2: 1, 3: 1
    # weight counts in Q: index 1 three times, index 2 once
    res = filter1(flat_table(FREQ), q1=0.25, method="freq", q2=0.5, p=2)
    assert len(res.s_prime) == 8  # all flat positive
    assert list(res.selected["label"]) == ["s1,1", "s2,1", "s3,1"]
    assert list(res.selected["place"]) == [1, 2, 2]
    # p = 1: family 1 only; in it indices 1 and 2 tie on count 1, both kept
    res1 = filter1(flat_table(FREQ), q1=0.25, method="freq", q2=0.5, p=1)
    assert list(res1.selected["label"]) == ["s1,1", "s1,2"]
    assert list(res1.selected["place"]) == [1, 1]
    # q2 = 1: everything; families 1, 2 tie (3 each) for 1st, family 3 2nd (2);
    # index counts over all three families: 1 -> 3, 2 -> 2, 3 -> 3
    res_all = filter1(flat_table(FREQ), q1=0.25, method="freq", q2=1.0, p=2)
    assert list(res_all.selected["label"]) == ["s1,1", "s1,3", "s2,1", "s2,3", "s3,1", "s3,3"]
    assert list(res_all.selected["place"]) == [1, 1, 1, 1, 2, 2]


def test_win_abs_on_freq_table():
    res = filter1(flat_table(FREQ), q1=0.25, method="abs", p=2)
    assert list(res.selected["label"]) == ["s3,1", "s1,1"]


def test_filter1_empty_s_prime_gives_empty_selection():
    t = flat_table({(1, 1): 0.0, (1, 2): 0.0})
    for method in ("abs", "freq"):
        res = filter1(t, 0.25, method, q2=0.25)
        assert res.s_prime == () and res.selected.empty


def test_table10_shape_and_places():
    t = table10(flat_table(FREQ), q1_values=(0.25, 0.05), q2_values=(0.5, 1.0), p=2)
    assert list(t.columns) == ["q1", "method", "q2", "strategy", "place"]
    abs_rows = t[t["method"] == "Win_abs"]
    assert list(abs_rows["strategy"]) == ["s3,1", "s1,1"] * 2
    assert list(abs_rows["place"]) == ["1st", "2nd"] * 2
    assert abs_rows["q2"].isna().all()
    freq = t[(t["method"] == "Win_freq") & (t["q1"] == 0.25) & (t["q2"] == 0.5)]
    assert list(freq["strategy"]) == ["s1,1", "s2,1", "s3,1"]
    assert list(freq["place"]) == ["1st", "2nd", "2nd"]
    assert len(t) == 2 * (2 + 3 + 6)


# --------------------------------------------------------------------------- Filter2


def eff_table():
    rows = [{"family": 1, "index": i, "efficiency_a": a, "efficiency_b": 0.5}
            for i, a in zip(range(1, 6), (0.1, 0.2, 0.3, 0.4, 0.5), strict=True)]
    rows += [{"family": 2, "index": 1, "efficiency_a": 0.6, "efficiency_b": 0.2},
             {"family": 2, "index": 2, "efficiency_a": 0.7, "efficiency_b": math.nan},
             {"family": 2, "index": 3, "efficiency_a": 0.8, "efficiency_b": math.nan}]
    return pd.DataFrame(rows)


def test_filter2_threshold_selection_and_ranking():
    res = filter2(eff_table(), ["s1,5", "s1,1", "s2,3"], q3=0.5, dcis=["a", "b"])
    assert list(res.epsilon["label"]) == ["s2,3", "s1,5", "s1,1"]
    assert res.epsilon["epsilon_bar"].tolist() == pytest.approx([0.8, 0.5, 0.3])
    assert res.threshold == pytest.approx(0.5)
    assert res.selected == ("s2,3", "s1,5")
    assert list(res.epsilon["kept"]) == [True, True, False]


def test_filter2_table11_uses_other_strategies_of_the_family():
    t11 = filter2(eff_table(), ["s1,5", "s1,1", "s2,3"], q3=0.5, dcis=["a", "b"]).table11
    assert t11.shape == (3, 3 + 2 * 5 + 1)
    assert list(t11.columns[:4]) == ["family", "index", "label", "efficiency_a"]
    row = t11.set_index("label")
    assert row.loc["s1,5", "top_a"] == pytest.approx(0.325)  # others .1 .2 .3 .4
    assert row.loc["s1,5", "median_a"] == pytest.approx(0.25)
    assert row.loc["s1,1", "top_a"] == pytest.approx(0.425)  # others .2 .3 .4 .5
    assert (row.loc["s1,5", "top_test_a"], row.loc["s1,5", "median_test_a"]) == ("pass", "pass")
    assert (row.loc["s1,1", "top_test_a"], row.loc["s1,1", "median_test_a"]) == ("fail", "fail")
    assert row.loc["s1,5", "top_test_b"] == "pass"  # equal to the threshold
    assert row.loc["s2,3", "top_a"] == pytest.approx(0.675)
    assert row.loc["s2,3", "top_test_b"] == "n/a"  # ran nothing on b


def test_filter2_table13_max_per_family_and_dci():
    t13 = filter2(eff_table(), ["s1,5"], q3=0.25, dcis=["a", "b"]).table13
    assert t13.shape == (2, 2)
    assert list(t13.index) == ["a", "b"] and list(t13.columns) == [1, 2]
    assert t13.loc["a"].tolist() == pytest.approx([0.5, 0.8])
    assert t13.loc["b"].tolist() == pytest.approx([0.5, 0.2])


def test_filter2_accepts_filter1_result_and_averages_replications():
    df = pd.concat([eff_table(), eff_table().assign(efficiency_a=lambda d: d.efficiency_a + 0.1)])
    s1 = filter1(flat_table({(1, 5): 0.9, (2, 3): 0.8, (1, 1): 0.1}), 0.25, "abs", p=2)
    res = filter2(df, s1, q3=1.0, dcis=("a", "b"))
    assert list(res.epsilon["label"]) == ["s2,3", "s1,5"]
    assert res.epsilon["efficiency_a"].tolist() == pytest.approx([0.85, 0.55])
    assert res.selected == ("s2,3", "s1,5")


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("call, message", [
    (lambda: satisfaction(three().drop(columns="cost")), "missing column cost"),
    (lambda: satisfaction(three().iloc[:0]), "empty"),
    (lambda: satisfaction("x"), "DataFrame"),
    (lambda: satisfaction(three().assign(makespan=[1, math.nan, 2, 3])), "makespan"),
    (lambda: satisfaction(three().assign(family=[1.5, 1, 1, 2])), "integers"),
    (lambda: satisfaction(three(), profiles=[(0.5, 0.2, 0.2)]), "profiles"),
    (lambda: satisfaction(three(), profiles=[]), "profiles"),
    (lambda: satisfaction(three(), profiles=[(1.5, -0.5, 0.0)]), "profiles"),
    (lambda: filter1(flat_table(FREQ), 0.0), "q1"),
    (lambda: filter1(flat_table(FREQ), 1.5), "q1"),
    (lambda: filter1(flat_table(FREQ), math.nan), "q1"),
    (lambda: filter1(flat_table(FREQ), True), "q1"),
    (lambda: filter1(flat_table(FREQ), 0.25, "freq"), "q2"),
    (lambda: filter1(flat_table(FREQ), 0.25, "freq", q2=-0.1), "q2"),
    (lambda: filter1(flat_table(FREQ), 0.25, "best"), "method"),
    (lambda: filter1(flat_table(FREQ), 0.25, p=0), "p"),
    (lambda: filter1(flat_table(FREQ), 0.25, p=1.5), "p"),
    (lambda: filter1(flat_table(FREQ, profiles=1), 0.25), "at least 2 profiles"),
    (lambda: filter1(flat_table(FREQ).drop(columns="theta"), 0.25), "missing column theta"),
    (lambda: filter1(pd.concat([flat_table(FREQ)] * 2), 0.25), "repeated"),
    (lambda: filter1(flat_table(FREQ).iloc[:0], 0.25), "empty"),
    (lambda: table10(flat_table(FREQ), q1_values=()), "q1_values"),
    (lambda: table10(flat_table(FREQ), q2_values=(2.0,)), "q2"),
    (lambda: filter2(eff_table(), ["s1,1"], 0.25, ["a", "c"]), "missing column efficiency_c"),
    (lambda: filter2(eff_table(), ["s9,9"], 0.25, ["a"]), "s9,9"),
    (lambda: filter2(eff_table(), ["x"], 0.25, ["a"]), "'x'"),
    (lambda: filter2(eff_table(), [], 0.25, ["a"]), "S1 is empty"),
    (lambda: filter2(eff_table(), ["s1,1"], 0.0, ["a"]), "q3"),
    (lambda: filter2(eff_table(), ["s1,1"], 0.25, []), "dcis"),
    (lambda: filter2(eff_table(), ["s1,1"], 0.25, ["a", "a"]), "dcis"),
    (lambda: filter2(eff_table().iloc[:0], ["s1,1"], 0.25, ["a"]), "empty"),
])
def test_bad_input_is_one_line_input_error(call, message):
    with pytest.raises(InputError) as info:
        call()
    assert message in str(info.value)
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------- properties

metric = st.floats(0.0, 1e6, allow_nan=False, allow_infinity=False)


@st.composite
def results_tables(draw):
    keys = draw(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 6)), min_size=2,
                         max_size=20, unique=True))
    return pd.DataFrame([{"family": f, "index": i, "makespan": draw(metric),
                          "cost": draw(metric), "efficiency": draw(st.floats(0.0, 1.0))}
                         for f, i in keys])


@settings(max_examples=30, deadline=None)  # CI time; the nightly profile multiplies it
@given(results_tables(), st.sampled_from([0.05, 0.15, 0.25, 0.5, 1.0]),
       st.sampled_from([0.05, 0.25, 1.0]), st.integers(1, 4))
def test_properties(results, q1, q2, p):
    theta = satisfaction(results)
    assert ((theta["theta"] >= 0) & (theta["theta"] <= 1)).all()
    assert len(theta) == len(results) * len(PROFILES)
    win_abs = filter1(theta, q1, "abs", p=p)
    win_freq = filter1(theta, q1, "freq", q2=q2, p=p)
    for res in (win_abs, win_freq):
        assert set(res.selected["label"]) <= set(res.s_prime)
        assert set(res.s_prime) == set(res.stats.loc[res.stats["kept"], "label"])
    u = sorted(win_abs.stats.loc[win_abs.stats["kept"], "u"], reverse=True)
    assert sorted(win_abs.selected["u"], reverse=True) == u[:p]
    if win_freq.s_prime:
        assert 1 <= win_freq.selected["place"].max() <= p
