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


def summary_legend(objective: str, tie_rtol: float = 1e-9) -> list[str]:
    """Lines that say what a summary table's columns mean, for the reader of a leaderboard.

    ``objective`` names what was compared, with its unit (``"rent cost ($)"``);
    ``tie_rtol`` is the relative difference under which two values tie
    (:data:`hybridsched.experiments.profiles.TIE_RTOL`).

    Examples
    --------
    >>> summary_legend("makespan (s)")[0][:60]
    "wins = problems (instance, seed) where the method's makespan"
    """
    tolerance = f"{tie_rtol:.0e}".replace("e-0", "e-")  # 1e-9, not 1e-09
    return [
        f"wins = problems (instance, seed) where the method's {objective} is the best of "
        f"every method's; values within a relative {tolerance} tie, and a tie is a win "
        "for every tied method (wins can add up to more than the problems)",
        "gap = (objective - reference) / |reference|, over the solved runs; infinite gaps "
        "(a reference of 0 beaten by a positive value) are counted apart, not averaged",
        "times = wall-clock seconds of the method alone over all its runs, rounded to the "
        "machine's timing noise (the CSV and JSON keep every digit)",
    ]


def objective_labels(table: pd.DataFrame) -> list[str]:
    """What the objectives of a results table are, with their units, in order of first run.

    One label per distinct ``(family, objective_name)`` of ``table`` (see
    :func:`hybridsched.io.display.objective_label`); empty for an empty table.
    """
    from hybridsched.io.display import objective_label

    if table.empty or "family" not in table:
        return []
    names = table["objective_name"] if "objective_name" in table else pd.Series(None,
                                                                                 table.index)
    pairs = dict.fromkeys(zip(table["family"], names.where(names.notna(), None), strict=True))
    return list(dict.fromkeys(objective_label(family, name) for family, name in pairs))
