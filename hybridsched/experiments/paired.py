"""Paired effects: each method against a baseline on the same instances, with confidence intervals.

A campaign runs every method on the same instances (the same generator
seeds), so the fair comparison of two methods is paired: the difference on
each instance, then the mean difference with a Student-t interval and the
count of instances each side wins. This is how the issue-19 fidelity
campaigns compare a paper's readings (``hybridsched effects``).

Pairs are keyed by ``(instance_hash, replication)``; a method's label is the
store's ``method`` column (name and options, e.g.
``promethee[preference=level,spread=signed-pairs]``). On ``objective``, runs
pair only when they measure the same objective (``objective_name``: a
malleable run under policy B reports ``penalised_b``). Runs without a finite
value of the measure (failed, no solution) are left out of the pairs they
belong to, and the table says how many pairs each comparison has.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from hybridsched.errors import InputError

#: Two-sided 95% Student-t quantiles (0.975) by degrees of freedom; larger ones are
#: interpolated in 1/df towards the normal 1.959964 (error below 1e-3 past 30).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
         9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
         16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074,
         23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045,
         30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}
_Z975 = 1.959964
#: Relative difference below which two values tie.
TIE_TOL = 1e-9
#: The columns of :func:`paired_effects`' table.
COLUMNS = ("setting", "method", "baseline", "measure", "unit", "pairs", "mean", "ci_low",
           "ci_high", "wins", "losses", "ties", "baseline_mean", "method_mean")
_SEED = re.compile(r"\s*\bseed=\d+")


def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (``df >= 1``)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df in _T975:
        return _T975[df]
    known = sorted(_T975)
    lower = max(k for k in known if k < df) if df < known[-1] else known[-1]
    upper = min((k for k in known if k > df), default=math.inf)
    t_low, t_up = _T975[lower], _T975.get(upper, _Z975)
    # Linear in 1/df between the tabulated points (1/inf = 0 gives the normal quantile).
    w = (1 / lower - 1 / df) / (1 / lower - (0 if math.isinf(upper) else 1 / upper))
    return t_low + w * (t_up - t_low)


def measures(runs: pd.DataFrame) -> list[str]:
    """Columns a paired comparison can use: ``objective``, ``gap`` and the ``metric_*`` ones."""
    return [c for c in runs.columns
            if (c in ("objective", "gap") or c.startswith("metric_"))
            and pd.api.types.is_numeric_dtype(runs[c])]


def setting_of(source: str) -> str:
    """An instance's generator settings without its seed (instances of one setting pair up)."""
    return _SEED.sub("", str(source)).strip()


def paired_effects(runs: pd.DataFrame, baseline: str, *, measure: str = "objective",
                   larger_is_better: bool = False, relative: bool = True,
                   by_setting: bool = False) -> pd.DataFrame:
    """Each method against ``baseline`` on paired runs: mean difference, 95% CI, wins.

    Parameters
    ----------
    runs:
        A result store's rows (:func:`~hybridsched.experiments.store_read.load_results`).
    baseline:
        A ``method`` label of ``runs``, or a method name that has a single label.
    measure:
        The compared column (see :func:`measures`).
    larger_is_better:
        Whether a larger value wins (fairness, completed tasks); otherwise a smaller one.
    relative:
        Differences in percent of the baseline's value on the same instance
        (pairs whose baseline is 0 are left out unless the method's is 0 too);
        otherwise in the measure's own unit.
    by_setting:
        One block per instance setting (the instance source without its seed,
        e.g. one per arrival rate), besides pairing within it.

    Returns
    -------
    pandas.DataFrame
        One row per (setting, method): ``pairs``, ``mean`` difference
        (method minus baseline), ``ci_low``/``ci_high`` (95% t-interval;
        empty with fewer than 2 pairs), ``wins``/``losses``/``ties`` of the
        method against the baseline, and both sides' mean values.
    """
    if runs.empty:
        raise InputError("the result store has no runs to compare")
    usable = measures(runs)
    if measure not in usable:
        raise InputError(f"measure {measure!r} is not a numeric column of the results "
                         f"(choose from: {', '.join(usable)})")
    label = _baseline_label(runs, baseline)
    table = runs.assign(
        setting=[setting_of(s) for s in runs["instance_source"]] if by_setting else "all",
        value=pd.to_numeric(runs[measure], errors="coerce"))
    table = table[np.isfinite(table["value"].to_numpy(dtype=float))]
    names = table["objective_name"] if "objective_name" in table else pd.Series("", table.index)
    table = table.assign(objective_name=names.fillna("").astype(str))
    # Objectives of different names (a policy choosing its own) never pair.
    keys = ["instance_hash", "replication"] + (["objective_name"] if measure == "objective"
                                               else [])
    rows = []
    for setting, part in sorted(table.groupby("setting"), key=lambda item: _natural(item[0])):
        wide = part.pivot_table(index=keys, columns="method", values="value",
                                aggfunc="first")
        if label not in wide:
            continue
        for method in [m for m in wide.columns if m != label]:
            pair = wide[[label, method]].dropna()
            if pair.empty:
                continue
            rows.append(_effect(str(setting), method, label, measure, pair[label].to_numpy(),
                                pair[method].to_numpy(), larger_is_better, relative))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _natural(text: object) -> list[object]:
    """Sort key reading the numbers in ``text`` as numbers (``jobs=200`` before ``jobs=1600``)."""
    return [(0, float(part), "") if re.fullmatch(r"\d+(\.\d+)?", part) else (1, 0.0, part)
            for part in re.split(r"(\d+(?:\.\d+)?)", str(text)) if part]


def _baseline_label(runs: pd.DataFrame, baseline: str) -> str:
    labels = list(dict.fromkeys(runs["method"].astype(str)))
    if baseline in labels:
        return baseline
    named = [m for m in labels if m.split("[", 1)[0] == baseline]
    if len(named) == 1:
        return named[0]
    why = (f"method {baseline!r} has {len(named)} labels, give one" if named
           else f"no run has method {baseline!r}")
    raise InputError(f"--baseline: {why} (labels: {', '.join(labels)})")


def _effect(setting: str, method: str, baseline: str, measure: str, base: np.ndarray,
            other: np.ndarray, larger_is_better: bool, relative: bool) -> dict[str, object]:
    if relative:
        keep = (base != 0) | (other == 0)
        base, other = base[keep], other[keep]
        diff = np.where(base != 0, (other - base) / np.abs(np.where(base != 0, base, 1)), 0.0)
        diff = diff * 100.0
    else:
        diff = other - base
    scale = np.maximum(1.0, np.abs(base))
    tie = np.abs(other - base) <= TIE_TOL * scale
    better = (other > base) if larger_is_better else (other < base)
    n = len(diff)
    mean = float(diff.mean()) if n else math.nan
    half = (t_quantile_975(n - 1) * float(diff.std(ddof=1)) / math.sqrt(n)) if n > 1 else math.nan
    return {"setting": setting, "method": method, "baseline": baseline, "measure": measure,
            "unit": "%" if relative else measure, "pairs": n, "mean": mean,
            "ci_low": mean - half, "ci_high": mean + half,
            "wins": int((better & ~tie).sum()), "losses": int((~better & ~tie).sum()),
            "ties": int(tie.sum()),
            "baseline_mean": float(base.mean()) if n else math.nan,
            "method_mean": float(other.mean()) if n else math.nan}


#: Verdicts of :func:`verdict`, from the strongest.
VERDICTS = ("reproduced", "direction only", "not reproduced")


def verdict(ci_low: float, ci_high: float, paper: float) -> str:
    """How a paired effect's 95% interval stands to the figure a paper reports for it.

    ``reproduced``: the interval holds the paper's figure; ``direction
    only``: it excludes 0 on the paper's side but not the figure; ``not
    reproduced``: it holds 0 (no difference shown) or lies on the other side.
    An effect without an interval (one pair) is never reproduced.
    """
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        return "not reproduced"
    if ci_low <= paper <= ci_high:
        return "reproduced"
    if (paper > 0 and ci_low > 0) or (paper < 0 and ci_high < 0):
        return "direction only"
    return "not reproduced"
