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

The rule that places an interval against a paper's figure (reproduced,
inconclusive, ...) is :mod:`hybridsched.experiments.verdicts`.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from hybridsched.errors import InputError, ParameterError

#: Relative difference below which two values tie.
TIE_TOL = 1e-9
#: The columns of :func:`paired_effects`' table.
COLUMNS = ("setting", "method", "baseline", "measure", "unit", "pairs", "mean", "ci_low",
           "ci_high", "wins", "losses", "ties", "baseline_mean", "method_mean")
_SEED = re.compile(r"\s*\bseed=\d+")


def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (``df >= 1``).

    The half-width of a two-sided 95% interval is this times the standard
    error; ``scipy.stats.t.ppf`` computes it.

    Examples
    --------
    >>> round(t_quantile_975(9), 4)
    2.2622
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    from scipy.stats import t

    return float(t.ppf(0.975, df))


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
    table, keys = _paired_values(runs, measure, by_setting)
    label = _label(runs, baseline)
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


def paired_differences(runs: pd.DataFrame, baseline: str, method: str, *,
                       measure: str = "objective", relative: bool = True) -> pd.DataFrame:
    """The differences one row of :func:`paired_effects` averages, pair by pair.

    For the seed rule of :func:`hybridsched.experiments.verdicts.until_stable`,
    whose halves are taken in seed order. ``runs`` should hold one setting
    (filter it first, e.g. by ``instance_source``): pairs are not split by
    setting here.

    Returns
    -------
    pandas.DataFrame
        One row per pair of ``method`` and ``baseline`` (labels or names with a
        single label): ``instance_source``, ``setting``, ``instance_hash``,
        ``replication`` and ``difference`` (method minus baseline, as in
        :func:`paired_effects`), in the natural order of the instance source
        (``seed=2`` before ``seed=10``), then of the replication.
    """
    table, keys = _paired_values(runs, measure, False)
    base_label, label = _label(runs, baseline), _label(runs, method, "method")
    columns = ["instance_source", "setting", "instance_hash", "replication", "difference"]
    wide = table.pivot_table(index=keys, columns="method", values="value", aggfunc="first")
    if base_label not in wide or label not in wide:
        return pd.DataFrame(columns=columns)
    pair = wide[[base_label, label]].dropna()
    keep, diff = difference_values(pair[base_label].to_numpy(), pair[label].to_numpy(), relative)
    index = pair.index[keep]
    sources = table.groupby(keys)["instance_source"].first().reindex(index).astype(str)
    out = pd.DataFrame({"instance_source": sources.to_numpy(),
                        "setting": [setting_of(s) for s in sources],
                        "instance_hash": index.get_level_values("instance_hash"),
                        "replication": index.get_level_values("replication"),
                        "difference": diff})
    order = sorted(range(len(out)), key=lambda k: (_natural(out["instance_source"].iat[k]),
                                                   _natural(out["replication"].iat[k])))
    return out.iloc[order].reset_index(drop=True)[columns]


def _paired_values(runs: pd.DataFrame, measure: str,
                   by_setting: bool) -> tuple[pd.DataFrame, list[str]]:
    """The runs with a finite ``value`` of ``measure`` and their ``setting``; the pairing keys."""
    if runs.empty:
        raise InputError("the result store has no runs to compare")
    usable = measures(runs)
    if measure not in usable:
        raise InputError(f"measure {measure!r} is not a numeric column of the results "
                         f"(choose from: {', '.join(usable)})")
    table = runs.assign(
        setting=[setting_of(s) for s in runs["instance_source"]] if by_setting else "all",
        value=pd.to_numeric(runs[measure], errors="coerce"))
    table = table[np.isfinite(table["value"].to_numpy(dtype=float))]
    names = table["objective_name"] if "objective_name" in table else pd.Series("", table.index)
    table = table.assign(objective_name=names.fillna("").astype(str))
    # Objectives of different names (a policy choosing its own) never pair.
    keys = ["instance_hash", "replication"] + (["objective_name"] if measure == "objective"
                                               else [])
    return table, keys


def difference_values(base: np.ndarray, other: np.ndarray,
                      relative: bool) -> tuple[np.ndarray, np.ndarray]:
    """Which pairs count, and their differences *other - base* (relative: in % of ``base``).

    A 0 baseline pairs only with a 0 (a difference of 0), since a relative
    change from 0 has no size.
    """
    if not relative:
        return np.ones(len(base), dtype=bool), other - base
    keep = (base != 0) | (other == 0)
    base, other = base[keep], other[keep]
    diff = np.where(base != 0, (other - base) / np.abs(np.where(base != 0, base, 1)), 0.0)
    return keep, diff * 100.0


def _natural(text: object) -> list[object]:
    """Sort key reading the numbers in ``text`` as numbers (``jobs=200`` before ``jobs=1600``)."""
    return [(0, float(part), "") if re.fullmatch(r"\d+(\.\d+)?", part) else (1, 0.0, part)
            for part in re.split(r"(\d+(?:\.\d+)?)", str(text)) if part]


def _label(runs: pd.DataFrame, name: str, parameter: str = "baseline") -> str:
    """The ``method`` label ``name`` is: itself, or the one label of a method of that name."""
    labels = list(dict.fromkeys(runs["method"].astype(str)))
    if name in labels:
        return name
    named = [m for m in labels if m.split("[", 1)[0] == name]
    if len(named) == 1:
        return named[0]
    why = (f"method {name!r} has {len(named)} labels, give one" if named
           else f"no run has method {name!r}")
    raise ParameterError(parameter, f"{why} (labels: {', '.join(labels)})")


def _effect(setting: str, method: str, baseline: str, measure: str, base: np.ndarray,
            other: np.ndarray, larger_is_better: bool, relative: bool) -> dict[str, object]:
    keep, diff = difference_values(base, other, relative)
    base, other = base[keep], other[keep]
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
