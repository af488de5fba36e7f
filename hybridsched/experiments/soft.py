"""SOFT, Satisfaction Oriented FilTering of scheduling strategies (Moca et al. 2016, sec. 4).

Pure functions over pandas tables (no simulation): Eq. 1 (:func:`satisfaction`), Filter1
with Win_abs / Win_freq (:func:`filter1`, :func:`table10`) and Filter2 (:func:`filter2`).
A strategy ``s{i},{j}`` is family ``i`` (Table 7 targets) with weight vector ``j`` (Table 8).

Readings of the paper (its text is ambiguous in places):

* Table 9 prints ``l9 = (0, 1/3, 1/3)``, which sums to 2/3; the paper requires
  ``gamma_M + gamma_C + gamma_E = 1`` and l5..l10 are otherwise the six permutations of
  (2/3, 1/3, 0), so ``l9 = (0, 1/3, 2/3)`` here.
* "Top q" (e.g. q = 0.25 for "top 25%") is the (1 - q) quantile with linear interpolation
  (``numpy.quantile``), and "above" means ``>=``: so q = 1 keeps everything, and of 28 distinct
  values q = 0.25 keeps 7.
* Filter1 Step 1: the percentile is taken over the *finite* u/sigma of the strategy's family.
  A strategy is flat when ``sigma <= 1e-12 * max(1, |u|)`` (rounding of equal Thetas); a flat
  one with u > 0 (u/sigma = +inf) is always kept and left out of the distribution; a flat one
  with u <= 0 has no ratio (NaN) and is never kept.
* Win_abs: the p largest u of S', ties broken by family then index (ascending); places 1..p.
* Win_freq: Q = strategies of S' whose u is in the top q2 of the u of S'. Families are ranked
  by their count in Q (dense rank, as Table 10 shows two 1st places); the families with the p
  highest counts are kept (all families tied on a count). Among the strategies of Q in these
  families, the weight indices with the highest count (all indices tied on it) are kept; S1 is
  those strategies of Q, placed by their family's rank. So S1 is a subset of Q and of S'.
* Filter2: the mean over the DCIs skips a DCI on which the strategy ran nothing (NaN); the
  Table 11 tests compare a strategy with the *other* strategies of its family in ``results``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hybridsched.errors import InputError

_3, _6 = 1 / 3, 2 / 3
#: Table 7, families s1..s8: targets of (ECT, price, EEI) (the paper's rows are price, ECT, EEI).
FAMILIES: tuple[tuple[str, str, str], ...] = (
    ("min", "max", "min"), ("min", "max", "max"), ("max", "max", "min"), ("max", "max", "max"),
    ("min", "min", "max"), ("max", "min", "max"), ("max", "min", "min"), ("min", "min", "min"))
#: Table 8, weight vectors 1..28 of (ECT, price, EEI) at position j-1; each sums to 1 (1e-12).
WEIGHTS: tuple[tuple[float, float, float], ...] = (
    (_3, _3, _3), (_6, 0.0, _3), (_6, _3, 0.0), (0.0, _6, _3), (_3, _6, 0.0), (0.0, _3, _6),
    (_3, 0.0, _6), (0.5, 0.5, 0.0), (0.5, 0.0, 0.5), (0.0, 0.5, 0.5), (0.1, 0.45, 0.45),
    (0.45, 0.1, 0.45), (0.45, 0.45, 0.1), (0.2, 0.4, 0.4), (0.4, 0.2, 0.4), (0.4, 0.4, 0.2),
    (0.1, 0.2, 0.7), (0.1, 0.7, 0.2), (0.2, 0.1, 0.7), (0.7, 0.1, 0.2), (0.2, 0.7, 0.1),
    (0.7, 0.2, 0.1), (0.1, 0.3, 0.6), (0.1, 0.6, 0.3), (0.3, 0.1, 0.6), (0.6, 0.1, 0.3),
    (0.3, 0.6, 0.1), (0.6, 0.3, 0.1))
#: Table 9, user profiles l1..l10 as (gamma_M, gamma_C, gamma_E); l9 corrected (module doc).
PROFILES: tuple[tuple[float, float, float], ...] = (
    (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (_3, _3, _3), (_6, _3, 0.0),
    (_6, 0.0, _3), (0.0, _6, _3), (_3, _6, 0.0), (0.0, _3, _6), (_3, 0.0, _6))
METRICS = ("makespan", "cost", "efficiency")
KEYS = ["family", "index"]
FLAT_TOL = 1e-12


@dataclass(frozen=True)
class Strategy:
    """One SOFT strategy: targets and weights of (ECT, price, EEI)."""

    family: int
    index: int
    targets: tuple[str, str, str]
    weights: tuple[float, float, float]

    @property
    def label(self) -> str:
        """The paper's name, ``s{family},{index}``."""
        return f"s{self.family},{self.index}"


def strategies() -> list[Strategy]:
    """The 8 x 28 = 224 strategies, family-major (s1,1 .. s1,28, s2,1 .. s8,28)."""
    return [Strategy(i, j, FAMILIES[i - 1], WEIGHTS[j - 1])
            for i in range(1, len(FAMILIES) + 1) for j in range(1, len(WEIGHTS) + 1)]


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` ..."""
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{tail}"


def _label(family: int, index: int) -> str:
    return f"s{int(family)},{int(index)}"


def _labels(df: pd.DataFrame) -> list[str]:
    return [_label(f, i) for f, i in zip(df["family"], df["index"], strict=True)]


def _table(df: object, name: str, finite: Sequence[str], numeric: Sequence[str] = ()):
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"{name}: expected a pandas DataFrame, got {type(df).__name__}")
    if df.empty:
        raise InputError(f"{name}: the table is empty")
    missing = [c for c in [*finite, *numeric] if c not in df.columns]
    if missing:
        raise InputError(f"{name}: missing column {', '.join(missing)}")
    out = df.copy()
    for col in [*finite, *numeric]:
        values = pd.to_numeric(out[col], errors="coerce").astype(float)
        bad = ~np.isfinite(values) if col in finite else np.isinf(values)
        if bad.any() or (values.isna() & out[col].notna()).any():
            raise InputError(f"{name}: column {col} has a missing, infinite or non-numeric value")
        if col in KEYS and (values % 1 != 0).any():
            raise InputError(f"{name}: column {col} must hold integers")
        out[col] = values.astype(int) if col in KEYS else values
    return out


def _fraction(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise InputError(f"{name}: must be a 'top' fraction in (0, 1], got {value!r}")
    return float(value)


def _count(p: object) -> int:
    if isinstance(p, bool) or not isinstance(p, int | np.integer) or p < 1:
        raise InputError(f"p: must be an integer >= 1, got {p!r}")
    return int(p)


def _top(values: Iterable[float], q: float) -> float:
    """The threshold of the top ``q`` share: the (1 - q) linear quantile (NaN if no value)."""
    arr = np.asarray(list(values), dtype=float)
    arr = arr[np.isfinite(arr)]
    return float(np.quantile(arr, 1.0 - q)) if arr.size else float("nan")


def satisfaction(results: pd.DataFrame, profiles: Sequence[Sequence[float]] = PROFILES):
    """Eq. 1: the satisfaction Theta of every strategy for every user profile.

    ``results`` has columns ``family``, ``index``, ``makespan``, ``cost``, ``efficiency``; with
    several rows (replications) per strategy the three metrics are averaged per strategy
    first. M, C, E min and max are taken over all strategies of ``results``. When max == min
    for a metric its term is 0: no strategy differs on it, so it cannot make a user more or
    less satisfied (and no NaN arises). ``profiles`` are (gamma_M, gamma_C, gamma_E), each
    >= 0 and summing to 1, so Theta lies in [0, 1].

    Returns
    -------
    DataFrame
        Long table, one row per (strategy, profile): ``family``, ``index``, ``profile``
        (1-based position in ``profiles``), ``theta``; sorted by family, index, profile.
    """
    df = _table(results, "results", [*KEYS, *METRICS])
    gammas = np.asarray(profiles, dtype=float) if len(profiles) else np.empty((0, 3))
    if gammas.ndim != 2 or gammas.shape[1] != 3 or not len(gammas) or (gammas < 0).any() \
            or not (np.abs(gammas.sum(axis=1) - 1) <= 1e-9).all():
        raise InputError("profiles: give (gamma_M, gamma_C, gamma_E) triples, >= 0, summing to 1")
    means = df.groupby(KEYS, sort=True)[list(METRICS)].mean()
    terms = []
    for metric in METRICS:  # (max - v) / (max - min); E enters as 1 - that (0 if max == min)
        v = means[metric].to_numpy()
        lo, hi = v.min(), v.max()
        norm = (hi - v) / (hi - lo) if hi > lo else np.zeros_like(v)
        terms.append(1.0 - norm if metric == "efficiency" and hi > lo else norm)
    theta = np.clip(np.column_stack(terms) @ gammas.T, 0.0, 1.0)
    n, k = theta.shape
    return pd.DataFrame({
        "family": np.repeat(means.index.get_level_values("family"), k),
        "index": np.repeat(means.index.get_level_values("index"), k),
        "profile": np.tile(np.arange(1, k + 1), n), "theta": theta.ravel()})


@dataclass(frozen=True)
class Filter1Result:
    """Filter1 output.

    ``stats``: one row per strategy (``family``, ``index``, ``label``, ``u``, ``sigma``,
    ``ratio`` = u/sigma, ``flat``, ``threshold`` of its family, ``kept`` in S'); ``s_prime``:
    labels of S'; ``selected``: S1 (``family``, ``index``, ``label``, ``u``, ``place``, 1-based).
    """

    stats: pd.DataFrame
    s_prime: tuple[str, ...]
    selected: pd.DataFrame


def filter1(theta: pd.DataFrame, q1: float, method: str = "abs", q2: float | None = None,
            p: int = 2) -> Filter1Result:
    """Filter1 (sec. 4.2): Step 1 builds S' from u/sigma, Step 2 picks S1 by ``method``.

    ``theta`` is :func:`satisfaction`'s table (at least 2 profiles per strategy: sigma is the
    sample std, ddof=1). ``q1``, ``q2`` are "top" fractions; ``method`` is ``"abs"``
    (Win_abs; ``q2`` ignored) or ``"freq"`` (Win_freq; ``q2`` required). The readings of
    the percentiles, flat strategies, ties and Win_freq are in the module docstring.
    """
    q1 = _fraction(q1, "q1")
    p = _count(p)
    if method not in ("abs", "freq"):
        raise InputError(f"method: choose 'abs' or 'freq', got {method!r}")
    if method == "freq":
        if q2 is None:
            raise InputError("q2: Win_freq needs a q2 'top' fraction")
        q2 = _fraction(q2, "q2")
    df = _table(theta, "theta", [*KEYS, "profile", "theta"])
    if df.duplicated([*KEYS, "profile"]).any():
        raise InputError("theta: a (family, index, profile) row is repeated")
    g = df.groupby(KEYS, sort=True)["theta"]
    st = pd.DataFrame({"u": g.mean(), "sigma": g.std(ddof=1), "n": g.size()}).reset_index()
    if (st["n"] < 2).any():
        raise InputError("theta: every strategy needs at least 2 profiles (sample std, ddof=1)")
    u = st["u"].to_numpy()
    flat = st["sigma"].to_numpy() <= FLAT_TOL * np.maximum(1.0, np.abs(u))
    sigma = np.where(flat, 0.0, st["sigma"].to_numpy())
    ratio = np.where(flat, np.where(u > 0, np.inf, np.nan), u / np.where(flat, 1.0, sigma))
    st = st.drop(columns="n").assign(sigma=sigma, ratio=ratio, flat=flat)
    st.insert(2, "label", _labels(st))
    st["threshold"] = st.groupby("family")["ratio"].transform(lambda r: _top(r, q1))
    st["kept"] = (flat & (u > 0)) | (np.isfinite(ratio) & (st["ratio"] >= st["threshold"]))
    sp = st[st["kept"]]
    if method == "abs":
        chosen = sp.sort_values(["u", "family", "index"], ascending=[False, True, True],
                                kind="mergesort").head(p)
        chosen = chosen.assign(place=np.arange(1, len(chosen) + 1))
    else:
        pool = sp[sp["u"] >= _top(sp["u"], q2)]
        counts = pool["family"].value_counts()
        levels = sorted(set(counts), reverse=True)[:p]
        rank = {f: levels.index(c) + 1 for f, c in counts.items() if c in levels}
        pool = pool[pool["family"].isin(list(rank))]
        freq = pool["index"].value_counts()
        chosen = pool[pool["index"].isin(freq.index[freq == freq.max()])]
        chosen = chosen.assign(place=chosen["family"].map(rank)).sort_values(
            ["place", "family", "index"], kind="mergesort")
    selected = chosen[[*KEYS, "label", "u", "place"]].astype({"place": int}).reset_index(drop=True)
    return Filter1Result(st.reset_index(drop=True), tuple(sp["label"]), selected)


def table10(theta: pd.DataFrame, q1_values: Sequence[float] = (0.25, 0.15, 0.05),
            q2_values: Sequence[float] = (0.25, 0.15, 0.05), p: int = 2) -> pd.DataFrame:
    """Table 10: for each q1, the Win_abs winners, then the Win_freq winners for each q2.

    Returns a long table ``q1``, ``method`` (``Win_abs``/``Win_freq``), ``q2`` (NaN for
    Win_abs), ``strategy`` (label), ``place`` (``1st``, ``2nd`` ...).
    """
    if not len(q1_values) or not len(q2_values):
        raise InputError("q1_values, q2_values: give at least one 'top' fraction each")
    rows = []
    for q1 in q1_values:
        runs = [("Win_abs", float("nan"), filter1(theta, q1, "abs", p=p))]
        runs += [("Win_freq", float(q2), filter1(theta, q1, "freq", q2=q2, p=p))
                 for q2 in q2_values]
        for name, q2, res in runs:
            rows += [(float(q1), name, q2, lbl, ordinal(int(pl)))
                     for lbl, pl in zip(res.selected["label"], res.selected["place"], strict=True)]
    return pd.DataFrame(rows, columns=["q1", "method", "q2", "strategy", "place"])


@dataclass(frozen=True)
class Filter2Result:
    """Filter2 output.

    ``epsilon``: S1 rows ranked by ``epsilon_bar`` (``family``, ``index``, ``label``,
    ``efficiency_<dci>``..., ``epsilon_bar``, ``kept``); ``threshold``: the q3 cut of
    epsilon-bar; ``selected``: labels of S2; ``table11``: the compliancy table; ``table13``:
    max efficiency, one row per DCI, one column per family.
    """

    epsilon: pd.DataFrame
    threshold: float
    selected: tuple[str, ...]
    table11: pd.DataFrame
    table13: pd.DataFrame


def _keys(selected: object) -> list[tuple[int, int]]:
    if isinstance(selected, Filter1Result):
        selected = selected.selected
    if isinstance(selected, pd.DataFrame):
        if any(c not in selected.columns for c in KEYS):
            raise InputError("selected: missing column family or index")
        items = list(zip(selected["family"], selected["index"], strict=True))
    else:
        items = []
        for item in selected if isinstance(selected, Iterable) else [selected]:
            match = re.fullmatch(r"s(\d+),(\d+)", str(item).strip())
            if not match:
                raise InputError(f"selected: {item!r} is not a strategy label like 's4,26'")
            items.append((int(match[1]), int(match[2])))
    return list(dict.fromkeys((int(f), int(i)) for f, i in items))


def filter2(results: pd.DataFrame, selected: object, q3: float, dcis: Sequence[str], *,
            top: float = 0.25) -> Filter2Result:
    """Filter2 (sec. 4.2): keep the S1 strategies whose mean efficiency is in the top q3.

    ``results`` has ``family``, ``index`` and ``efficiency_<dci>`` for each of ``dcis``
    (replications are averaged per strategy; NaN where a DCI ran nothing). ``selected`` is S1:
    a :class:`Filter1Result`, a table with ``family``/``index`` or labels ``"s4,26"``.
    epsilon-bar is the mean over the DCIs present; S2 are the S1 strategies with epsilon-bar
    >= the (1 - q3) quantile of epsilon-bar over S1. Table 11 tests each S1 strategy per DCI
    against the ``top`` (Table 12: 25%) quantile and the median of the *other* strategies of
    its family (``pass``/``fail``, ``n/a`` without others); Table 13 is the max per family.
    """
    q3, top = _fraction(q3, "q3"), _fraction(top, "top")
    if isinstance(dcis, str) or not len(dcis) or len(set(dcis)) != len(dcis):
        raise InputError("dcis: give a non-empty list of distinct DCI names")
    cols = [f"efficiency_{d}" for d in dcis]
    means = _table(results, "results", KEYS, cols).groupby(KEYS)[cols].mean().reset_index()
    means.insert(2, "label", _labels(means))
    means["epsilon_bar"] = means[cols].mean(axis=1)
    keys = _keys(selected)
    if not keys:
        raise InputError("selected: S1 is empty; Filter2 needs at least one strategy")
    in_s1 = means["label"].isin([_label(*k) for k in keys])
    absent = sorted({_label(*k) for k in keys} - set(means["label"]))
    if absent:
        raise InputError(f"selected: {', '.join(absent)} has no row in results")
    s1 = means[in_s1].sort_values(["epsilon_bar", "family", "index"],
                                             ascending=[False, True, True], kind="mergesort")
    threshold = _top(s1["epsilon_bar"], q3)
    s1 = s1.assign(kept=s1["epsilon_bar"] >= threshold).reset_index(drop=True)
    rows = []
    for row in s1.to_dict("records"):
        out = {k: row[k] for k in (*KEYS, "label")}
        others = means[(means["family"] == row["family"]) & (means["index"] != row["index"])]
        for d, col in zip(dcis, cols, strict=True):
            vals, out[col] = others[col].dropna(), row[col]
            for name, cut in (("top", _top(vals, top)), ("median", _top(vals, 0.5))):
                out[f"{name}_{d}"] = cut
                out[f"{name}_test_{d}"] = ("n/a" if np.isnan(cut) or np.isnan(row[col])
                                           else "pass" if row[col] >= cut else "fail")
        rows.append(out | {"epsilon_bar": row["epsilon_bar"]})
    table13 = means.groupby("family")[cols].max().T
    table13.index = pd.Index(list(dcis), name="dci")
    return Filter2Result(s1, threshold, tuple(s1.loc[s1["kept"], "label"]),
                         pd.DataFrame(rows), table13)
