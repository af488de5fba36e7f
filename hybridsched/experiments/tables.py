"""Result tables: what each run's gap is measured against, and metric columns.

One rule for ``compare``, campaigns and reports. Runs are grouped by
(family, instance content, objective measured); the reference of a group is,
in order of preference:

1. an optimum recorded with the instance (``optimum (recorded)``);
2. an optimum proven by a run of the group (``optimum``): the smallest
   objective among its ``optimal`` runs;
3. the largest proven lower bound known (``lower bound``): the runs' bounds,
   a bound recorded with the instance, and the family's cheap bound (the last
   two only for the family's main objective);
4. nothing (``none``): the gap is then unknown (NaN). A best bound of 0
   is no reference either (every positive objective would be infinitely far
   from it): ``no bound (best bound 0)``, gap NaN.

The gap is ``(objective - reference) / |reference|``, 0 when both agree to
1e-9, and ``inf`` when the reference is 0 and the objective is not
(:func:`hybridsched.result.relative_gap`, vectorised).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

#: Columns that identify the runs sharing one reference value.
GROUP = ["family", "instance_hash", "objective_name"]

#: What ``reference_kind`` says for each rule of the module docstring.
RECORDED, PROVEN, BOUND, NONE = "optimum (recorded)", "optimum", "lower bound", "none"
ZERO_BOUND = "no bound (best bound 0)"


def relative_gaps(values: pd.Series, reference: pd.Series) -> pd.Series:
    """:func:`hybridsched.result.relative_gap` on whole columns (NaN where unknown)."""
    value = values.to_numpy(dtype=float)
    ref = reference.to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = (value - ref) / np.abs(ref)
    gap = np.where(ref == 0, np.inf, gap)
    gap = np.where(np.isclose(value, ref, rtol=1e-9, atol=1e-9), 0.0, gap)
    gap = np.where(np.isnan(value) | np.isnan(ref), np.nan, gap)
    return pd.Series(gap, index=values.index, dtype=float)


def add_gaps(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with ``reference``, ``reference_kind`` and ``gap`` columns (module rule)."""
    table = table.copy()
    if table.empty:
        for column, dtype in (("reference", float), ("reference_kind", object),
                              ("gap", float)):
            table[column] = pd.Series(dtype=dtype)
        return table
    keys = table[GROUP].fillna("")
    groups = table.groupby([keys[c] for c in GROUP], sort=False, dropna=False)
    recorded = groups["recorded_optimum"].transform("min")
    optimal = table["objective"].where(table["status"] == "optimal")
    proven = optimal.groupby([keys[c] for c in GROUP], sort=False, dropna=False
                             ).transform("min")
    bounds = table[["bound", "recorded_lower_bound", "family_bound"]].max(axis=1)
    bound = bounds.groupby([keys[c] for c in GROUP], sort=False, dropna=False
                           ).transform("max")
    useless = recorded.isna() & proven.isna() & (bound <= 0)
    reference = recorded.fillna(proven).fillna(bound.where(~useless))
    kind = np.select([recorded.notna(), proven.notna(), useless, bound.notna()],
                     [RECORDED, PROVEN, ZERO_BOUND, BOUND], default=NONE)
    table["reference"] = reference.astype(float)
    table["reference_kind"] = kind
    table["gap"] = relative_gaps(table["objective"], table["reference"])
    return table


def expand_metrics(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with one ``metric_<name>`` column per numeric metric of its JSON ``metrics``."""
    if table.empty or "metrics" not in table:
        return table
    parsed = [json.loads(text) if isinstance(text, str) else {} for text in table["metrics"]]
    numeric = pd.DataFrame.from_records(
        [{k: v for k, v in m.items() if isinstance(v, int | float) and not isinstance(v, bool)}
         for m in parsed], index=table.index)
    numeric = numeric.reindex(sorted(numeric.columns), axis=1).add_prefix("metric_")
    return pd.concat([table, numeric.astype(float)], axis=1)
