"""Summary tables, Dolan-Moré performance profiles and scaling exponents."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from hybridsched.errors import InputError
from hybridsched.experiments.profiles import (
    PROFILE_COLUMNS,
    SUMMARY_COLUMNS,
    performance_profile,
    performance_ratios,
    summary_table,
)
from hybridsched.plots.profiles import scaling_exponent

from .test_report import realistic_table

DEFAULTS = {"family": "f", "objective_name": "cost", "seed": 0, "replication": 0,
            "status": "feasible", "gap": math.nan, "runtime_s": 1.0}


def table(*rows: tuple) -> pd.DataFrame:
    """Rows ``(method, instance_hash, status, objective, gap, runtime_s)``."""
    fields = ("method", "instance_hash", "status", "objective", "gap", "runtime_s")
    return pd.DataFrame([{**DEFAULTS, **dict(zip(fields, row, strict=True))} for row in rows])


def hand_table() -> pd.DataFrame:
    """2 methods x 3 problems: a tie within 1e-9, a failure, an infinite gap."""
    return table(
        ("A", "p1", "optimal", 10.0, 0.0, 2.0),
        ("A", "p2", "feasible", 12.0, 0.2, 4.0),
        ("A", "p3", "failed", math.nan, math.nan, 6.0),
        ("B", "p1", "feasible", 11.0, 0.1, 1.0),
        ("B", "p2", "feasible", 12.0 * (1 + 1e-12), 0.2, 1.0),
        ("B", "p3", "feasible", 5.0, math.inf, 1.0),
    )


def test_summary_numbers_by_hand():
    summary = summary_table(hand_table())
    assert list(summary.columns) == SUMMARY_COLUMNS
    summary = summary.set_index("method")
    a, b = summary.loc["A"], summary.loc["B"]
    assert (a.runs, a.solved, a.failed, a.optimal, a.wins) == (3, 2, 1, 1, 2)
    assert (b.runs, b.solved, b.failed, b.optimal, b.wins) == (3, 3, 0, 0, 2)
    assert a.mean_gap == pytest.approx(0.1) and a.median_gap == pytest.approx(0.1)
    assert a.max_gap == pytest.approx(0.2) and a.inf_gaps == 0
    assert b.mean_gap == pytest.approx(0.15) and b.max_gap == pytest.approx(0.2)
    assert b.inf_gaps == 1
    assert a.mean_runtime_s == pytest.approx(4.0) and a.median_runtime_s == pytest.approx(4.0)
    assert b.mean_runtime_s == pytest.approx(1.0)


def test_summary_keeps_objectives_apart_and_handles_nan_gaps():
    df = pd.concat([hand_table(), hand_table().assign(objective_name="makespan", gap=np.nan,
                                                      method="C")])
    summary = summary_table(df)
    assert list(summary["method"]) == ["A", "B", "C"]
    c = summary.set_index("method").loc["C"]
    assert math.isnan(c.mean_gap) and c.inf_gaps == 0
    assert c.runs == 6 and c.solved == 5
    assert c.wins == 3        # alone on its objective: wins every problem it solves


def test_summary_and_profile_of_an_empty_table():
    empty = pd.DataFrame(columns=hand_table().columns)
    assert summary_table(empty).empty and list(summary_table(empty).columns) == SUMMARY_COLUMNS
    profile = performance_profile(empty)
    assert profile.empty and list(profile.columns) == PROFILE_COLUMNS


def test_ratios_with_zero_minimum_and_unsolved_problems():
    values = np.array([[2.0, 4.0, 2.0 * (1 + 1e-12)],
                       [0.0, 1.0, 0.0],
                       [np.inf, 3.0, 6.0],
                       [np.inf, np.inf, np.inf]])
    expected = np.array([[1.0, 2.0, 1.0],
                         [1.0, np.inf, 1.0],
                         [np.inf, 1.0, 2.0],
                         [np.inf, np.inf, np.inf]])
    np.testing.assert_array_equal(performance_ratios(values), expected)


def rho_at(profile: pd.DataFrame, method: str, tau: float) -> float:
    curve = profile[profile["method"] == method].sort_values("tau")
    return float(curve.loc[curve["tau"] <= tau, "rho"].iloc[-1])


def test_profile_at_one_is_the_share_of_wins_on_the_hand_table():
    profile = performance_profile(hand_table())
    assert set(profile["problems"]) == {3}
    assert rho_at(profile, "A", 1.0) == pytest.approx(2 / 3)
    assert rho_at(profile, "B", 1.0) == pytest.approx(2 / 3)
    assert rho_at(profile, "B", 1.1) == pytest.approx(1.0)       # p1: 11 / 10
    assert profile.loc[profile["method"] == "A", "rho"].max() == pytest.approx(2 / 3)


def test_profile_on_real_runs_wins_monotone_and_complete():
    df = realistic_table()
    profile = performance_profile(df, "objective")
    summary = summary_table(df).set_index(["family", "objective_name", "method"])
    # Problems a method never gets within a finite factor of: a best value of 0 it misses.
    best = df.groupby(["family", "instance_hash", "objective_name"])["objective"] \
        .transform("min")
    missed = df[(best == 0) & (df["objective"] > 0)].groupby("method").size()
    assert missed.get("ffd", 0) == 1                   # small-02: free optimum, ffd rents
    for (family, objective, method), curve in profile.groupby(
            ["family", "objective_name", "method"]):
        curve = curve.sort_values("tau")
        problems = int(curve["problems"].iloc[0])
        assert curve["tau"].iloc[0] == 1.0
        assert curve["rho"].iloc[0] == pytest.approx(
            summary.loc[(family, objective, method), "wins"] / problems)
        assert (np.diff(curve["rho"].to_numpy()) >= 0).all()
        if method.startswith("exact"):                 # solves everything, proven optimal
            assert curve["rho"].iloc[0] == 1.0
        assert curve["rho"].iloc[-1] == pytest.approx(1 - missed.get(method, 0) / problems)


def test_tau_grid_covers_every_finite_ratio():
    df = realistic_table()
    df = df[df["family"] == "hybrid-deadline"]
    profile = performance_profile(df, "runtime_s")
    taus = np.unique(profile["tau"])
    wide = df.pivot_table(index="instance_hash", columns="method", values="runtime_s")
    ratios = (wide.to_numpy() / wide.to_numpy().min(axis=1, keepdims=True)).ravel()
    assert taus.max() >= ratios.max()
    assert np.all(np.isin(np.round(ratios[ratios > 1 + 1e-9], 9), np.round(taus, 9)))
    assert np.log2(taus.max()) == int(np.log2(taus.max()))   # ends on a power of 2


def test_failed_runs_never_count_and_zero_best_values():
    df = table(("A", "p1", "feasible", 0.0, 0.0, 0.5),
               ("B", "p1", "feasible", 0.2, math.inf, 0.5),
               ("A", "p2", "no_solution", math.nan, math.nan, 0.1),
               ("B", "p2", "feasible", 3.0, 0.0, 0.2))
    objective = performance_profile(df, "objective")
    assert rho_at(objective, "A", 1e6) == pytest.approx(0.5)    # p2 unsolved: ratio inf
    assert rho_at(objective, "B", 1e6) == pytest.approx(0.5)    # p1: 0.2 / 0 = inf
    runtime = performance_profile(df, "runtime_s")
    assert rho_at(runtime, "A", 1.0) == pytest.approx(0.5)      # p1 tie; p2 unsolved
    assert rho_at(runtime, "B", 1.0) == pytest.approx(1.0)


def test_problems_missing_a_method_are_left_out():
    df = pd.concat([hand_table(), table(("A", "p4", "feasible", 1.0, 0.0, 1.0))])
    profile = performance_profile(df)
    assert set(profile["problems"]) == {3}
    assert summary_table(df).set_index("method").loc["A", "wins"] == 3   # p4 counts there


def test_duplicate_runs_of_a_problem_take_the_best_value():
    df = pd.concat([hand_table(), table(("A", "p3", "feasible", 4.0, 0.0, 1.0))])
    profile = performance_profile(df)
    assert set(profile["problems"]) == {3}
    assert rho_at(profile, "A", 1.0) == pytest.approx(1.0)
    assert summary_table(df).set_index("method").loc["A", "wins"] == 3


def test_explicit_taus_and_bad_arguments():
    profile = performance_profile(hand_table(), taus=[2.0, 1.0, 1.05])
    assert list(profile.loc[profile["method"] == "B", "tau"]) == [1.0, 1.05, 2.0]
    assert list(profile.loc[profile["method"] == "B", "rho"]) == pytest.approx([2 / 3, 2 / 3,
                                                                                1.0])
    with pytest.raises(ValueError, match="measure"):
        performance_profile(hand_table(), "cost")
    with pytest.raises(ValueError, match="negative"):
        performance_profile(hand_table().assign(objective=-1.0))
    with pytest.raises(InputError, match="missing column.*instance_hash"):
        summary_table(hand_table().drop(columns="instance_hash"))


def test_scaling_exponent_recovers_a_power_law():
    sizes = np.array([10, 20, 40, 80, 160, 320] * 3, dtype=float)
    b, a = scaling_exponent(sizes, 3e-4 * sizes ** 1.7)
    assert b == pytest.approx(1.7) and math.exp(a) == pytest.approx(3e-4)
    noise = np.exp(np.random.default_rng(1).normal(0, 0.05, sizes.size))
    b, _ = scaling_exponent(sizes, 2e-3 * sizes ** 1.2 * noise)
    assert b == pytest.approx(1.2, abs=0.05)
    runtimes = 3e-4 * sizes ** 1.7
    runtimes[:2] = [0.0, np.nan]                       # ignored, not fitted
    assert scaling_exponent(sizes, runtimes)[0] == pytest.approx(1.7)


def test_scaling_exponent_needs_two_sizes():
    assert all(math.isnan(v) for v in scaling_exponent([5, 5, 5], [1.0, 2.0, 3.0]))
    assert all(math.isnan(v) for v in scaling_exponent([5, 10], [1.0, 0.0]))
    assert all(math.isnan(v) for v in scaling_exponent([], []))
    with pytest.raises(ValueError, match="length"):
        scaling_exponent([1, 2], [1.0])
