"""Summary statistics and performance profiles of a campaign's results table.

Pure functions on the table :func:`hybridsched.experiments.store.load_results`
returns (one row per run); nothing here plots.

Conventions
-----------
* A *problem* is one ``(family, instance_hash, objective_name, seed,
  replication)``: methods are compared on the same instance content, the same
  criterion, seed and replication. Everything is minimised.
* A run is *solved* when it has a schedule (status ``optimal``, ``feasible``
  or ``time_limit``); *failed* when its status is ``failed`` or
  ``no_solution``.
* A method's value on a problem is its best (smallest) value over its solved
  runs of that problem (a problem normally has one run per method; duplicates
  come from the same instance content listed twice).
* Two values tie when they differ by at most :data:`TIE_RTOL` relative to the
  best one; ties count as wins for every tied method, and as a ratio of
  exactly 1 in the profiles, so that ``rho(1)`` is the share of wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from hybridsched.errors import InputError
from hybridsched.result import Status

#: Columns that identify a problem.
PROBLEM = ["family", "instance_hash", "objective_name", "seed", "replication"]

#: Statuses of runs that have a schedule (:attr:`hybridsched.result.Status.has_solution`):
#: ``optimal``, ``feasible``, ``time_limit``.
SOLVED = tuple(status.value for status in Status if status.has_solution)

#: Statuses counted as failures in :func:`summary_table`.
FAILED = ("failed", "no_solution")

#: Relative tolerance under which two values are the same (ties).
TIE_RTOL = 1e-9

#: Grid points per doubling of tau in :func:`performance_profile`.
TAUS_PER_DOUBLING = 8

#: Columns of :func:`summary_table`, in order.
SUMMARY_COLUMNS = [
    "family", "objective_name", "method", "runs", "solved", "failed", "optimal",
    "mean_gap", "median_gap", "max_gap", "inf_gaps", "wins", "mean_runtime_s",
    "median_runtime_s",
]

#: Columns of :func:`performance_profile`, in order.
PROFILE_COLUMNS = ["family", "objective_name", "method", "tau", "rho", "problems"]

Measure = Literal["objective", "runtime_s"]

_GROUP = ["family", "objective_name", "method"]


def require_columns(df: pd.DataFrame, columns: Sequence[str], what: str = "results table"
                    ) -> None:
    """Raise a one-line :class:`InputError` naming the columns ``df`` lacks."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(f"{what}: missing column(s) {', '.join(missing)}")


def solved_mask(df: pd.DataFrame) -> pd.Series:
    """Whether each run has a schedule (see the module docstring)."""
    return df["status"].isin(SOLVED)


def _wins(df: pd.DataFrame) -> pd.Series:
    """Number of problems each ``(family, objective_name, method)`` wins (ties win)."""
    objective = pd.to_numeric(df["objective"], errors="coerce")
    ok = solved_mask(df) & np.isfinite(objective)
    runs = df.loc[ok, PROBLEM + ["method"]].assign(objective=objective[ok])
    if runs.empty:
        return pd.Series(dtype="int64")
    best = runs.groupby(PROBLEM, dropna=False, sort=False)["objective"].transform("min")
    winners = runs.loc[runs["objective"] <= best + TIE_RTOL * best.abs(), PROBLEM + ["method"]]
    return winners.drop_duplicates().groupby(_GROUP, dropna=False, sort=False).size()


def summary_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per ``(family, objective_name, method)``: counts, gaps, wins and run times.

    Columns (:data:`SUMMARY_COLUMNS`): ``runs``; ``solved`` (with a schedule);
    ``failed`` (status ``failed`` or ``no_solution``); ``optimal`` (proven);
    ``mean_gap``, ``median_gap``, ``max_gap`` over the runs with a finite gap
    (relative, NaN when there is none); ``inf_gaps``: runs whose gap is
    infinite (a reference of 0 beaten by a positive value), counted apart so
    that one of them does not make the mean infinite; ``wins``: problems
    where the method's value is the best of every method's (ties count for
    all, see the module docstring); ``mean_runtime_s`` and
    ``median_runtime_s`` over every run.

    Rows come in the order the methods first appear in ``df``.

    Examples
    --------
    >>> df = pd.DataFrame({"family": "f", "instance_hash": ["a", "a"],
    ...     "objective_name": "cost", "seed": 0, "replication": 0, "method": ["x", "y"],
    ...     "status": ["optimal", "feasible"], "objective": [1.0, 2.0], "gap": [0.0, 1.0],
    ...     "runtime_s": [1.0, 0.1]})
    >>> summary_table(df)[["method", "solved", "optimal", "mean_gap", "wins"]]
      method  solved  optimal  mean_gap  wins
    0      x       1        1       0.0     1
    1      y       1        0       1.0     0
    """
    require_columns(df, PROBLEM + ["method", "status", "objective", "gap", "runtime_s"])
    if df.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    gap = pd.to_numeric(df["gap"], errors="coerce").astype(float)
    status = df["status"]
    flags = pd.DataFrame({
        **{c: df[c] for c in _GROUP},
        "runs": 1,
        "solved": status.isin(SOLVED).astype(int),
        "failed": status.isin(FAILED).astype(int),
        "optimal": (status == "optimal").astype(int),
        "finite_gap": gap.where(np.isfinite(gap)),
        "inf_gaps": np.isinf(gap).astype(int),
        "runtime_s": pd.to_numeric(df["runtime_s"], errors="coerce").astype(float),
    })
    table = flags.groupby(_GROUP, dropna=False, sort=False).agg(
        runs=("runs", "sum"), solved=("solved", "sum"), failed=("failed", "sum"),
        optimal=("optimal", "sum"), mean_gap=("finite_gap", "mean"),
        median_gap=("finite_gap", "median"), max_gap=("finite_gap", "max"),
        inf_gaps=("inf_gaps", "sum"), mean_runtime_s=("runtime_s", "mean"),
        median_runtime_s=("runtime_s", "median"))
    table["wins"] = _wins(df).reindex(table.index, fill_value=0).astype(int)
    return table.reset_index()[SUMMARY_COLUMNS]


def _values(df: pd.DataFrame, measure: Measure) -> pd.DataFrame:
    """Problems x methods: each method's best solved value (inf: unsolved, NaN: no run)."""
    value = pd.to_numeric(df[measure], errors="coerce").astype(float)
    value = value.where(solved_mask(df) & np.isfinite(value), np.inf)
    if (value < 0).any():
        raise ValueError(f"performance_profile: negative {measure} values; ratios need "
                         "non-negative measures")
    keyed = df[PROBLEM + ["method"]].assign(value=value)
    return keyed.groupby(PROBLEM + ["method"], dropna=False, sort=False)["value"].min() \
        .unstack("method")


def performance_ratios(values: np.ndarray) -> np.ndarray:
    """``r[p, s] = m[p, s] / min_s m[p, s]`` for a problems x methods array.

    Unsolved entries are ``inf`` (so is their ratio). A minimum of 0 gives
    ratio 1 to the methods at 0 (0/0) and ``inf`` to the others (x/0); ratios
    within :data:`TIE_RTOL` of 1 are exactly 1.

    Examples
    --------
    >>> performance_ratios(np.array([[2.0, 4.0], [0.0, 1.0], [np.inf, 3.0]]))
    array([[ 1.,  2.],
           [ 1., inf],
           [inf,  1.]])
    """
    best = values.min(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = values / best
    ratio = np.where(values == best, 1.0, ratio)       # 0/0, and inf/inf on unsolved rows
    ratio = np.where(np.isinf(best) | np.isnan(ratio), np.inf, ratio)
    return np.where(ratio <= 1.0 + TIE_RTOL, 1.0, ratio)


def _tau_grid(ratios: np.ndarray) -> np.ndarray:
    """A log2 grid from 1 past the largest finite ratio, plus every finite ratio."""
    finite = ratios[np.isfinite(ratios)]
    top = float(np.log2(finite.max())) if finite.size else 0.0
    doublings = max(1, int(np.ceil(top - 1e-12)))
    grid = 2.0 ** np.linspace(0.0, doublings, doublings * TAUS_PER_DOUBLING + 1)
    return np.unique(np.concatenate((grid, finite)))


def performance_profile(df: pd.DataFrame, measure: Measure = "objective",
                        taus: Sequence[float] | np.ndarray | None = None) -> pd.DataFrame:
    """Dolan-Moré performance profiles of the methods, per family and objective.

    For each problem ``p`` (see the module docstring) and method ``s``, the
    ratio ``r[p, s] = m[p, s] / min_s m[p, s]`` of ``measure`` (the objective
    or the run time) to the best method's; an unsolved problem has ratio
    ``inf``; a best value of 0 gives ratio 1 to the methods that reach 0 and
    ``inf`` to the others (:func:`performance_ratios`). ``rho_s(tau)`` is the
    share of problems with ``r[p, s] <= tau``: ``rho_s(1)`` is the share of
    problems ``s`` wins, and ``rho_s(tau)`` for large ``tau`` the share it
    solves.

    The methods compared in a ``(family, objective_name)`` group are every
    method with a run in it, and only problems where *each* of them has a run
    count (a problem a method never ran on would otherwise count as a loss);
    ``problems`` says how many remain.

    Parameters
    ----------
    df:
        The results table (one row per run).
    measure:
        ``"objective"`` or ``"runtime_s"`` (minimised, non-negative).
    taus:
        Where to evaluate ``rho``; default: a log2 grid from 1 up to the
        first power of 2 at or above the largest finite ratio
        (:data:`TAUS_PER_DOUBLING` points per doubling, at least up to 2),
        plus every finite ratio, so that the step plot is exact.

    Returns
    -------
    DataFrame
        Long format, columns :data:`PROFILE_COLUMNS`: ``family``,
        ``objective_name``, ``method``, ``tau``, ``rho``, ``problems``.

    Raises
    ------
    ValueError
        For another ``measure`` or negative values.
    """
    if measure not in ("objective", "runtime_s"):
        raise ValueError(f"measure must be 'objective' or 'runtime_s', got {measure!r}")
    require_columns(df, PROBLEM + ["method", "status", measure])
    if df.empty:
        return pd.DataFrame(columns=PROFILE_COLUMNS)
    parts = []
    for (family, objective_name), group in df.groupby(["family", "objective_name"],
                                                      dropna=False, sort=False):
        table = _values(group, measure).dropna(axis="index", how="any")
        if table.empty:
            continue
        ratios = performance_ratios(table.to_numpy(dtype=float))
        grid = (np.sort(np.asarray(taus, dtype=float)) if taus is not None
                else _tau_grid(ratios))
        ordered = np.sort(ratios, axis=0)
        counts = np.stack([np.searchsorted(ordered[:, s], grid, side="right")
                           for s in range(ordered.shape[1])])
        n_methods, n_problems = ordered.shape[1], ordered.shape[0]
        parts.append(pd.DataFrame({
            "family": family,
            "objective_name": objective_name,
            "method": np.repeat(table.columns.to_numpy(dtype=object), len(grid)),
            "tau": np.tile(grid, n_methods),
            "rho": counts.ravel() / n_problems,
            "problems": n_problems,
        }))
    if not parts:
        return pd.DataFrame(columns=PROFILE_COLUMNS)
    return pd.concat(parts, ignore_index=True)[PROFILE_COLUMNS]
