"""PROMETHEE II net flows: the pairwise definition, and an exact O(n log n) fast path.

For ``n`` alternatives (rows) and criteria (columns), each with a target
(``"max"`` or ``"min"``), a weight (weights sum to 1) and a preference
function ``P`` of the deviation ``d`` (the better value minus the other):

``usual``     ``P = 1`` if ``d > 0``
``vshape``    ``P = d / p`` on ``(0, p]``, 1 above (Linear without indifference)
``linear``    ``P = (d - q) / (p - q)`` on ``(q, p]``, 1 above, 0 up to ``q``
``level``     ``P = 1/2`` on ``(q, p]``, 1 above, 0 up to ``q``
``gaussian``  ``P = 1 - exp(-d^2 / (2 s^2))`` if ``d > 0``

The positive flow of ``a`` is ``sum_b sum_c w_c P_c(d_c(a, b)) / (n - 1)``,
the negative flow the same with ``a`` and ``b`` swapped, and the net flow
their difference (the normalisation of pymcdm and pyrepo-mcda).

**Fast path** (Calders and Van Assche, *PROMETHEE is not quadratic*, 2018):
for the piecewise-linear functions (usual, vshape, linear, level) each
criterion's sums ``sum_b P(x_a - x_b)`` are counts and sums of the sorted
values in two ranges, found by binary search and prefix sums: O(n log n)
per criterion instead of O(n^2). The Gaussian keeps the pairwise path,
vectorised in chunks of rows. Both paths give the same flows (tested to
1e-9 on random and tie-heavy matrices).

**The paper's Linear threshold**: :func:`pairwise_deviation_std` is the
standard deviation of the absolute deviations ``|x_a - x_b|`` over the
``n (n - 1) / 2`` pairs, also exact in O(n log n) (the sum of ``|x_a - x_b|``
over pairs is ``sum_k (2k - n + 1) s_k`` for the sorted values ``s``).

**Rounding.** The sorted-sum formulas and the fast path's thresholds work
on the values minus their median (:func:`_centred`), never on the raw
values. The results are translation-invariant, but on raw values near 10^6
with a spread of 10^-3 a prefix sum or ``sum_k (2k - n + 1) s_k`` rounds by
about ``10^6 x n x 2^-53``, and ``x_a - p`` by ``10^6 x 2^-53``: the small
differences these are used for drown in that error. Centred, the errors
scale with the spread of the values, not with their offset.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from hybridsched.errors import InputError

Function = Literal["usual", "vshape", "linear", "level", "gaussian"]
FUNCTIONS: tuple[str, ...] = ("usual", "vshape", "linear", "level", "gaussian")
FAST_FUNCTIONS = ("usual", "vshape", "linear", "level")
#: Rows per chunk of the pairwise path (bounds its memory to chunk x n floats).
CHUNK_ROWS = 512
#: Tolerance of the weights' sum.
WEIGHT_TOL = 1e-9


@dataclass(frozen=True)
class Criterion:
    """One criterion: target, weight, preference function and its thresholds.

    ``q`` (indifference) is used by ``linear`` and ``level``; ``p``
    (preference) by ``vshape``, ``linear`` and ``level`` (``None``: the
    standard deviation of the pairwise deviations of the criterion's values,
    the pull paper's Linear threshold, computed from the same sort); ``s`` by
    ``gaussian``. With ``relative``, ``q``, ``p`` and ``s`` are multiples of
    that standard deviation (:func:`scaled`), also taken from the same sort.
    """

    target: Literal["min", "max"] = "max"
    weight: float = 1.0
    function: Function = "usual"
    q: float = 0.0
    p: float | None = 1.0
    s: float = 1.0
    relative: bool = False


def scaled(c: Criterion, sigma: float) -> Criterion:
    """A relative criterion's absolute thresholds: ``q``, ``p`` and ``s`` times ``sigma``.

    With ``sigma`` 0 (all values equal, or two of them) every function reads
    as its limit, the usual criterion: any positive deviation is a full
    preference.
    """
    if sigma <= 0:
        return Criterion(c.target, c.weight, "usual")
    p = None if c.p is None else c.p * sigma
    return Criterion(c.target, c.weight, c.function, c.q * sigma, p, c.s * sigma)


def check_criteria(criteria: Sequence[Criterion], where: str = "criteria") -> None:
    """One-line :class:`InputError` for weights, targets, functions or thresholds that are wrong."""
    if not criteria:
        raise InputError(f"{where}: at least one criterion is needed")
    weights = [c.weight for c in criteria]
    if any(not math.isfinite(w) or w < 0 for w in weights):
        raise InputError(f"{where}: weights must be finite and >= 0, got {weights}")
    if abs(sum(weights) - 1.0) > WEIGHT_TOL:
        raise InputError(f"{where}: weights must sum to 1, got {sum(weights):g}")
    for k, c in enumerate(criteria):
        if c.target not in ("min", "max"):
            raise InputError(f"{where}.{k}: target must be min or max, got {c.target!r}")
        if c.function not in FUNCTIONS:
            raise InputError(f"{where}.{k}: unknown preference function {c.function!r} "
                             f"(known: {', '.join(FUNCTIONS)})")
        values = (c.q, 1.0 if c.p is None else c.p, c.s)
        if any(not math.isfinite(v) or v < 0 for v in values):
            raise InputError(f"{where}.{k}: thresholds must be finite and >= 0")
        if c.p is None:
            continue
        if c.function in ("linear", "level") and c.q > c.p:
            raise InputError(f"{where}.{k}: q ({c.q:g}) > p ({c.p:g})")
        if c.function == "linear" and c.q == c.p:
            raise InputError(f"{where}.{k}: linear needs q < p (use level for a step)")
        if c.function == "vshape" and c.p <= 0:
            raise InputError(f"{where}.{k}: vshape needs p > 0")
        if c.function == "gaussian" and c.s <= 0:
            raise InputError(f"{where}.{k}: gaussian needs s > 0")


def preference(d: np.ndarray, c: Criterion) -> np.ndarray:
    """``P(d)`` of criterion ``c`` (element-wise)."""
    if c.function == "usual":
        return (d > 0).astype(float)
    if c.function == "vshape":
        return np.where(d <= 0, 0.0, np.where(d > c.p, 1.0, d / c.p))
    if c.function == "linear":
        return np.where(d <= c.q, 0.0, np.where(d > c.p, 1.0, (d - c.q) / (c.p - c.q)))
    if c.function == "level":
        return np.where(d <= c.q, 0.0, np.where(d > c.p, 1.0, 0.5))
    return np.where(d > 0, 1.0 - np.exp(-(d * d) / (2.0 * c.s * c.s)), 0.0)


def _oriented(column: np.ndarray, c: Criterion) -> np.ndarray:
    """Values such that larger is better."""
    return column if c.target == "max" else -column


def _with_p(c: Criterion, p: float) -> Criterion:
    """``c`` with its ``p`` resolved (values all equal: no spread, a step just above ``q``)."""
    return replace(c, p=max(p, c.q + 1e-12) if c.function in ("linear", "vshape") else p)


def _resolved(c: Criterion, s: np.ndarray) -> Criterion:
    """``c`` with thresholds in absolute units, sigma taken (once) from the sorted values ``s``."""
    if not c.relative and c.p is not None:
        return c
    sigma = _sorted_deviation_std(s)
    if c.relative:
        c = scaled(c, sigma)
    return _with_p(c, sigma) if c.p is None else c


def _pairwise_sums(x: np.ndarray, c: Criterion) -> tuple[np.ndarray, np.ndarray]:
    """``sum_b P(x_a - x_b)`` and ``sum_b P(x_b - x_a)`` by the definition (chunked).

    Every function has ``P(d) = 0`` for ``d <= 0``, so over the sorted values
    only the pairs ``a < b`` (``d = s_b - s_a >= 0``) are evaluated, once each:
    ``P`` adds to ``b``'s positive sum and ``a``'s negative sum.
    """
    n = len(x)
    order = np.argsort(x, kind="stable")
    s = x[order]
    c = _resolved(c, s)
    given_sorted, taken_sorted = np.zeros(n), np.zeros(n)
    for first in range(0, n, CHUNK_ROWS):
        last = min(first + CHUNK_ROWS, n)
        beaten = s[None, first:] - s[first:last, None]  # rows a, columns b: d = s_b - s_a
        if c.function == "gaussian":  # in place: the chunk is the memory-bound part
            beaten *= beaten
            beaten *= -0.5 / (c.s * c.s)
            np.exp(beaten, out=beaten)
            np.subtract(1.0, beaten, out=beaten)
            size = last - first
            beaten[:, :size][np.tril_indices(size, -1)] = 0.0  # b < a: d < 0 or a tie
        else:
            beaten = preference(beaten, c)
        taken_sorted[first:last] += beaten.sum(axis=1)
        given_sorted[first:] += beaten.sum(axis=0)
    given, taken = np.empty(n), np.empty(n)
    given[order] = given_sorted
    taken[order] = taken_sorted
    return given, taken


def _fast_sums(x: np.ndarray, c: Criterion) -> tuple[np.ndarray, np.ndarray]:
    """The same sums in O(n log n): counts and prefix sums over the sorted values.

    The work is done in sorted order (monotone queries make the binary searches
    cache-friendly) and scattered back to the rows' order at the end.
    """
    order = np.argsort(x, kind="stable")
    s = x[order]
    n = len(s)
    c = _resolved(c, s)
    if c.function == "usual":
        # P(x_a - x_b) = 1 iff x_b < x_a; P(x_b - x_a) = 1 iff x_b > x_a.
        given_sorted = np.searchsorted(s, s, side="left").astype(float)
        taken_sorted = (n - np.searchsorted(s, s, side="right")).astype(float)
    else:
        # Centred values (module doc): the thresholds and the sums of deviations then round
        # at the scale of the values' spread, not of their offset (at 10^9 the raw x_a - p
        # rounds by 10^-7 and misplaces pairs that the definition's exact x_a - x_b does not).
        s = _centred(s)
        q = 0.0 if c.function == "vshape" else c.q
        p = c.p
        # Given: d = x_a - x_b, full when x_b < x_a - p, partial when x_a - p <= x_b < x_a - q.
        full_lo = np.searchsorted(s, s - p, side="left")
        part_lo = np.searchsorted(s, s - q, side="left")
        # Taken: d = x_b - x_a, full when x_b > x_a + p, partial when x_a + q < x_b <= x_a + p.
        upper = np.searchsorted(s, s + p, side="right")  # end of the partial range above
        lower = np.searchsorted(s, s + q, side="right")
        full_hi = n - upper
        if c.function == "level":
            given_sorted = full_lo + 0.5 * (part_lo - full_lo)
            taken_sorted = full_hi + 0.5 * (upper - lower)
        else:
            prefix = np.concatenate([[0.0], np.cumsum(s)])
            width = p - q
            given_sorted = full_lo + ((part_lo - full_lo) * (s - q)
                                      - (prefix[part_lo] - prefix[full_lo])) / width
            taken_sorted = full_hi + ((prefix[upper] - prefix[lower])
                                      - (upper - lower) * (s + q)) / width
    given, taken = np.empty(n), np.empty(n)
    given[order] = given_sorted
    taken[order] = taken_sorted
    return given, taken


def flows(matrix: np.ndarray, criteria: Sequence[Criterion], method: str = "auto"
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positive, negative and net flows of the rows of ``matrix``.

    ``method``: ``"fast"`` (usual, vshape, linear, level only), ``"pairwise"``,
    or ``"auto"`` (fast where it applies, pairwise for the Gaussian).
    """
    matrix = np.asarray(matrix, dtype=float)
    n = matrix.shape[0]
    plus, minus = np.zeros(n), np.zeros(n)
    if n < 2:
        return plus, minus, plus - minus
    for k, c in enumerate(criteria):
        given, taken = criterion_sums(matrix[:, k], c, method)
        plus += c.weight * given
        minus += c.weight * taken
    plus /= n - 1
    minus /= n - 1
    return plus, minus, plus - minus


def criterion_sums(column: np.ndarray, c: Criterion, method: str = "auto"
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``sum_b P(d(a, b))`` and ``sum_b P(d(b, a))`` of one criterion, unweighted, unnormalised.

    ``d`` is oriented by the criterion's target; ``method`` as in :func:`flows`.
    """
    x = _oriented(np.asarray(column, dtype=float), c)
    fast = method == "fast" or (method == "auto" and c.function in FAST_FUNCTIONS)
    if fast and c.function not in FAST_FUNCTIONS:
        raise ValueError(f"no fast path for the {c.function} preference function")
    return _fast_sums(x, c) if fast else _pairwise_sums(x, c)


def pairwise_deviation_std(values: np.ndarray) -> float:
    """Standard deviation of ``|x_a - x_b|`` over the pairs ``a < b``, in O(n log n)."""
    return _sorted_deviation_std(np.sort(np.asarray(values, dtype=float)))


def _centred(s: np.ndarray) -> np.ndarray:
    """Sorted values minus their median element.

    Exact for values within a factor 2 of the median (Sterbenz), and for values
    on a common binary grid; otherwise rounded at the scale of the spread.
    Rounding is monotone, so the result stays sorted.
    """
    return s - s[len(s) // 2]


def _sorted_deviation_std(x: np.ndarray) -> float:
    """:func:`pairwise_deviation_std` of already sorted values (O(n)).

    The variance is ``mean(d^2) - mean(d)^2``, which cancels only when it is
    small beside ``mean(d)^2``. That happens for two values alone (one
    pair: no spread, returned exactly). From three values on, each triple
    of values has deviations ``u``, ``v`` and ``u + v``, whose variance is at
    least ``1/8`` of their squared mean, and the pairs' variance is at least
    the mean of its triples' (law of total variance, Jensen): it is never
    below ``mean(d)^2 / 8``, so the subtraction loses at most 3 bits. The two
    means are sums of non-negative terms over centred values (module doc).
    """
    n = len(x)
    if n < 3:
        return 0.0
    pairs = n * (n - 1) / 2
    centred = _centred(x)
    # A weight 2k - n + 1 is < 0 only below the middle index, where centred values are <= 0,
    # and > 0 only above it, where they are >= 0: no term is negative, nothing cancels.
    mean_abs = float(np.sum((2 * np.arange(n) - n + 1) * centred)) / pairs
    centred -= centred.mean()  # sum over pairs of d^2 = n * sum (x - mean)^2
    mean_square = n * float(np.sum(centred * centred)) / pairs
    return math.sqrt(max(mean_square - mean_abs * mean_abs, 0.0))
