"""One rule for what gaps are measured against (compare, campaigns, reports)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from hybridsched.experiments.tables import add_gaps, relative_gaps
from hybridsched.result import relative_gap


def _rows(*rows):
    base = {"family": "f", "instance_hash": "h", "objective_name": "cost",
            "recorded_optimum": np.nan, "recorded_lower_bound": np.nan,
            "family_bound": np.nan, "bound": np.nan, "objective": np.nan, "status": "feasible"}
    return pd.DataFrame([{**base, **row} for row in rows])


def test_recorded_optimum_wins_then_a_proven_one_then_the_best_bound():
    table = add_gaps(_rows({"objective": 12.0, "recorded_optimum": 10.0, "status": "optimal"},
                           {"objective": 15.0}))
    assert list(table["reference_kind"]) == ["optimum (recorded)"] * 2
    assert list(table["gap"]) == [0.2, 0.5]
    table = add_gaps(_rows({"objective": 12.0, "status": "optimal", "bound": 12.0},
                           {"objective": 15.0, "family_bound": 11.0}))
    assert list(table["reference"]) == [12.0, 12.0] and table["reference_kind"][0] == "optimum"
    table = add_gaps(_rows({"objective": 12.0, "status": "time_limit", "bound": 10.0},
                           {"objective": 15.0, "family_bound": 11.0}))
    assert list(table["reference"]) == [11.0, 11.0]
    assert set(table["reference_kind"]) == {"lower bound"}
    table = add_gaps(_rows({"objective": 12.0}))
    assert table["reference_kind"][0] == "none" and math.isnan(table["gap"][0])


def test_groups_are_instance_and_objective():
    table = add_gaps(_rows({"objective": 5.0, "status": "optimal"},
                           {"objective": 9.0, "instance_hash": "other", "bound": 3.0},
                           {"objective": 7.0, "objective_name": "makespan"}))
    assert list(table["reference_kind"]) == ["optimum", "lower bound", "none"]


def test_vectorised_gap_equals_the_scalar_rule():
    values = pd.Series([1.0, 0.0, 2.0, 1 + 1e-12, np.nan, 3.0])
    refs = pd.Series([1.0, 0.0, 0.0, 1.0, 1.0, np.nan])
    got = relative_gaps(values, refs)
    for value, ref, gap in zip(values, refs, got, strict=True):
        expected = relative_gap(None if math.isnan(value) else value,
                                None if math.isnan(ref) else ref)
        assert (math.isnan(gap) and expected is None) or gap == expected
