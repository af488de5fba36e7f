"""PROMETHEE II net flows: the pairwise definition, and an exact O(n log n) fast path.

For ``n`` alternatives (rows) and criteria (columns), each with a target
(``"max"`` or ``"min"``), a weight (weights sum to 1) and a preference
function ``P`` of the deviation ``d`` (the better value minus the other):

``usual``     ``P = 1`` if ``d > 0``
``ushape``    ``P = 1`` if ``d > q`` (indifference up to ``q``)
``vshape``    ``P = d / p`` on ``(0, p]``, 1 above (Linear without indifference)
``linear``    ``P = (d - q) / (p - q)`` on ``(q, p]``, 1 above, 0 up to ``q``
``level``     ``P = 1/2`` on ``(q, p]``, 1 above, 0 up to ``q``
``gaussian``  ``P = 1 - exp(-d^2 / (2 s^2))`` if ``d > 0``

The positive flow of ``a`` is ``sum_b sum_c w_c P_c(d_c(a, b)) / (n - 1)``,
the negative flow the same with ``a`` and ``b`` swapped, and the net flow
their difference (the normalisation of pymcdm and pyrepo-mcda).

**Thresholds: one rule.** ``d`` is the float ``x_a - x_b`` of the two values
as given (oriented: negated for a ``min`` target, which is exact), and it is
compared exactly with the float thresholds: ``d <= q`` is indifference,
``d > p`` a full preference, ``q < d <= p`` the partial range. Nothing is
rounded to "what the decimal data meant": with values 1.1 and 1.0 and
``q = 0.1``, ``d`` is 0.10000000000000009 > 0.1, a preference, on both
paths (and in pymcdm and pyrepo-mcda, which compute ``d`` the same way).
A threshold taken from the data (``q = x_c - x_d``) makes every pair with
the same float deviation sit exactly on it.

**The pairwise path is the reference**: it evaluates ``P`` on every pair's
``d`` (chunked, each unordered pair once).

**Fast path** (Calders and Van Assche, *PROMETHEE is not quadratic*, 2018):
for the piecewise-linear functions (usual, ushape, vshape, linear, level)
each criterion's sums ``sum_b P(x_a - x_b)`` are counts and sums of the
sorted values in two ranges, found by binary search: O(n log n) per
criterion instead of O(n^2). What it computes, and how close to the
pairwise path (:mod:`.sorted_sums`):

- *which pairs* lie beyond ``q`` and ``p``: the pairwise path's own float
  comparisons ``x_a - x_b > t``, checked at each range's ends (a proof in
  :func:`~.sorted_sums.beaten_counts`): the same pairs on any data, not
  only where deviations are exact. Usual, ushape and level are counts and
  halves: their flows are identical, bit for bit;
- *linear and vshape* add ``(d - q) / (p - q)`` over the band
  ``q < d <= p`` from sums of the values that are exact but for a few
  ``n^2 2^-106`` spreads (:class:`~.sorted_sums.DeviationSums`): they miss
  only the rounding of each pair's ``x_a - x_b`` and ``d - q``, at most
  ``2^-52 p`` per pair, so the flows agree within ``2^-51 p / (p - q)``
  (at most ``2^-43``, about 1e-13), whatever the values' offset, spread or
  number. A band narrower than ``p / 256`` (:data:`NARROW_BAND`: linear
  with ``q`` close to ``p``, nearly a step, where that bound says nothing)
  is summed pair by pair with the pairwise path's very expressions, in
  O(n log n + pairs in the band).

Tested to 1e-12 (flows lie in [-1, 1]) on decimal grids, offsets up to
10^12 and thresholds equal to exact deviations of the data; the best
choices agree up to ties within that tolerance. The Gaussian's flows have
the pairwise path (vectorised in chunks of rows); :func:`bounded_sums` gives
them in O(n p) within a proven bound, with the pairwise path's own floats
for the rows a caller must settle (:mod:`.promethee_gaussian`).

**Thresholds from the spread.** ``p = None`` is the pull paper's Linear
threshold, sigma, "the standard deviation of the differences d for all
pairs of tasks" (Moca et al., section 6.3.2), which a criterion reads one of
two ways (``spread``): ``absolute-pairs``, the standard deviation of the
absolute deviations ``|x_a - x_b|`` over the ``n (n - 1) / 2`` pairs
(:func:`pairwise_deviation_std`, exact in O(n log n) from the same sort:
their sum is ``sum_k (2k - n + 1) s_k`` for the sorted values ``s``), or
``signed-pairs``, of the signed ``x_a - x_b`` over the ``n (n - 1)`` ordered
pairs (:func:`signed_deviation_std`, O(n)); ``relative`` thresholds are
multiples of sigma. Other thresholds (the scheduler's ``thresholds =
"absolute"``) are used as they are: no path above assumes any scale. An
unset ``p`` is never below ``q``: ``p = max(sigma, q)``, and where that is
``q`` (the spread is at most the indifference), linear and level read as
their limit, the U-shape at ``q`` (0 up to ``q``, 1 above). A vshape uses
``p`` only (``q`` is ignored) and with ``p = 0`` reads as its limit, the
usual criterion; so does every function with relative thresholds and sigma
0 (:func:`scaled`). Both paths take their thresholds from :func:`_resolved`,
on the same sorted values.

**Rounding of sigma.** ``sum_k (2k - n + 1) s_k`` and the squares work
on the values minus their median (:func:`_centred`), never on the raw
values: on raw values near 10^12 they round by about
``10^12 x n x 2^-53``, and the small differences they are used for drown
in that error. Centred, the errors scale with the spread of the values,
not with their offset (tested to 1e-9 relative against the pairs'
definition, 1e-12 on values at offsets up to 2^33).

**Level's closed thresholds.** Brans' Level (above) is 1/2 on ``(q, p]``;
the pull paper's is "0 if d < q, 1/2 if q <= d < p, 1 if d >= p" (Moca et
al., section 6.3.2): the equalities belong to the band above. They differ
only for deviations exactly at a threshold, which is every pair of two
values when ``p`` is the signed sigma (``sigma = |x_a - x_b|``).
``closed=True`` gives the paper's: both paths compare ``d > nextafter(t,
-inf)``, which for floats is ``d >= t`` (:func:`_closed`).

**Bad input**: NaN or infinite values, a spread that overflows, and NaN,
infinite or negative thresholds are one-line :class:`InputError`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from hybridsched.errors import InputError
from hybridsched.heuristics.pull.promethee_gaussian import pairwise_rows, series_sums, too_narrow
from hybridsched.heuristics.pull.sorted_sums import DeviationSums, beaten_counts, beating_starts

Function = Literal["usual", "ushape", "vshape", "linear", "level", "gaussian"]
#: What sigma is the standard deviation of (module doc, "Thresholds from the spread").
Spread = Literal["absolute-pairs", "signed-pairs"]
SPREADS: tuple[str, ...] = ("absolute-pairs", "signed-pairs")
FUNCTIONS: tuple[str, ...] = ("usual", "ushape", "vshape", "linear", "level", "gaussian")
FAST_FUNCTIONS = ("usual", "ushape", "vshape", "linear", "level")
#: Rows per chunk of the pairwise path (bounds its memory to chunk x n floats).
CHUNK_ROWS = 512
#: Tolerance of the weights' sum.
WEIGHT_TOL = 1e-9
#: A linear band narrower than ``p / NARROW_BAND`` is summed pair by pair (module doc).
NARROW_BAND = 256
#: Pairs per chunk of such a band.
BAND_CHUNK = 1 << 18


@dataclass(frozen=True)
class Criterion:
    """One criterion: target, weight, preference function and its thresholds.

    ``q`` (indifference) is used by ``ushape``, ``linear`` and ``level``;
    ``p`` (preference) by ``vshape``, ``linear`` and ``level`` (``None``:
    sigma, the standard deviation of the pairwise deviations of the
    criterion's values, the pull paper's Linear threshold, computed from the
    same sort, and never below ``q``: module doc); ``s`` by ``gaussian``.
    With ``relative``, ``q``, ``p`` and ``s`` are multiples of sigma
    (:func:`scaled`). ``spread`` says which deviations sigma is the standard
    deviation of: ``absolute-pairs`` (``|x_a - x_b|`` over unordered pairs)
    or ``signed-pairs`` (``x_a - x_b`` over ordered pairs, mean 0).
    ``closed`` puts a level's thresholds in the band above them, as the pull
    paper writes its Level (1/2 for ``q <= d < p``, 1 for ``d >= p``; module
    doc, "Level's closed thresholds").
    """

    target: Literal["min", "max"] = "max"
    weight: float = 1.0
    function: Function = "usual"
    q: float = 0.0
    p: float | None = 1.0
    s: float = 1.0
    relative: bool = False
    spread: Spread = "absolute-pairs"
    closed: bool = False


def scaled(c: Criterion, sigma: float) -> Criterion:
    """A relative criterion's absolute thresholds: ``q``, ``p`` and ``s`` times ``sigma``.

    With ``sigma`` 0 (all values equal, or two of them) every function reads
    as its limit, the usual criterion: any positive deviation is a full
    preference.
    """
    if sigma <= 0:
        return Criterion(c.target, c.weight, "usual")
    p = None if c.p is None else c.p * sigma
    return Criterion(c.target, c.weight, c.function, c.q * sigma, p, c.s * sigma,
                     closed=c.closed)


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
        check_criterion(c, f"{where}.{k}")


def check_criterion(c: Criterion, where: str = "criterion") -> None:
    """One-line :class:`InputError` for a target, function or threshold that is wrong."""
    if c.target not in ("min", "max"):
        raise InputError(f"{where}: target must be min or max, got {c.target!r}")
    if c.function not in FUNCTIONS:
        raise InputError(f"{where}: unknown preference function {c.function!r} "
                         f"(known: {', '.join(FUNCTIONS)})")
    for name, v in (("q", c.q), ("p", c.p), ("s", c.s)):
        # A bool is a number to Python, never a threshold; NaN fails every comparison below.
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real)
                              or not math.isfinite(v) or v < 0):
            raise InputError(f"{where}: threshold {name} must be a finite number >= 0, "
                             f"got {v!r}")
    if c.function == "gaussian" and c.s <= 0:
        raise InputError(f"{where}: gaussian needs s > 0")
    if c.p is None:
        return
    if c.function in ("linear", "level") and c.q > c.p:
        raise InputError(f"{where}: q ({c.q:g}) > p ({c.p:g})")
    if c.function == "linear" and c.q == c.p:
        raise InputError(f"{where}: linear needs q < p (use ushape for a step)")
    if c.function == "vshape" and c.p <= 0:
        raise InputError(f"{where}: vshape needs p > 0")


def preference(d: np.ndarray, c: Criterion) -> np.ndarray:
    """``P(d)`` of criterion ``c`` (element-wise), with absolute thresholds (module doc)."""
    c = _closed(c)
    if c.function == "usual":
        return (d > 0).astype(float)
    if c.function == "ushape":
        return (d > c.q).astype(float)
    if c.function == "vshape":
        return np.where(d <= 0, 0.0, np.where(d > c.p, 1.0, d / c.p))
    if c.function == "linear":
        return np.where(d <= c.q, 0.0, np.where(d > c.p, 1.0, (d - c.q) / (c.p - c.q)))
    if c.function == "level":
        return np.where(d <= c.q, 0.0, np.where(d > c.p, 1.0, 0.5))
    return np.where(d > 0, 1.0 - np.exp(-(d * d) / (2.0 * c.s * c.s)), 0.0)


def _oriented(column: np.ndarray, c: Criterion) -> np.ndarray:
    """Values such that larger is better (negation is exact: deviations keep their floats)."""
    return column if c.target == "max" else -column


def _with_p(c: Criterion, sigma: float) -> Criterion:
    """``c`` with an unset ``p`` resolved to ``max(sigma, q)`` (module doc).

    A vshape has no ``q``: ``p = sigma``, and with sigma 0 its limit, the
    usual criterion. Linear and level with ``p = q`` are the U-shape at ``q``.
    """
    if c.function == "vshape":
        return replace(c, p=sigma) if sigma > 0 else Criterion(c.target, c.weight, "usual")
    if c.function in ("linear", "level"):
        return replace(c, p=sigma) if sigma > c.q else replace(c, function="ushape", p=c.q)
    return c  # usual, ushape, gaussian: no p


def _closed(c: Criterion) -> Criterion:
    """A closed level's thresholds moved one float down (module doc, "Level's closed ...").

    For floats, ``d >= t`` is ``d > nextafter(t, -inf)``, the comparison both
    paths make. ``q = 0`` stays: at ``d = 0`` (a tie) the closed level gives
    1/2 both ways, which adds nothing to the net flows.
    """
    if not c.closed or c.function != "level" or c.p is None:
        return c
    q = math.nextafter(c.q, -math.inf) if c.q > 0 else c.q
    p = math.nextafter(c.p, -math.inf) if c.p > 0 else c.p
    return replace(c, q=q, p=max(p, q), closed=False)


def _resolved(c: Criterion, s: np.ndarray) -> Criterion:
    """``c`` with thresholds in absolute units, sigma taken (once) from the sorted values ``s``.

    Both paths call this on the same sorted values, so they use the same floats.
    """
    if c.relative or c.p is None:
        c = _resolved_open(c, s)
    if c.function == "gaussian" and too_narrow(c.s):  # its limit s -> 0, the usual criterion
        c = Criterion(c.target, c.weight, "usual")
    return _closed(c)


def _resolved_open(c: Criterion, s: np.ndarray) -> Criterion:
    """:func:`_resolved` before a closed level's thresholds move."""
    sigma = (_sorted_deviation_std(s) if c.spread == "absolute-pairs"
             else _signed_deviation_std(s))
    if c.relative:
        c = scaled(c, sigma)
    if c.p is None:
        return _with_p(c, sigma)
    # q < p and p > 0 times sigma can round to q = p or underflow to p = 0: the same limits.
    if c.function == "linear" and c.p <= c.q:
        return replace(c, function="ushape")
    if c.function == "vshape" and c.p <= 0:
        return Criterion(c.target, c.weight, "usual")
    return c


def _finite(x: np.ndarray, where: str) -> None:
    """One-line :class:`InputError` for NaN or infinite values, or a spread that overflows."""
    finite = np.isfinite(x)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raise InputError(f"{where}: value {float(x[bad[0]])!r} in row {bad[0]} is not a "
                         f"finite number")
    # The fast path's prefix sums add up to n spreads: that must not overflow either.
    if x.size and not math.isfinite(x.size * (float(x.max()) - float(x.min()))):
        raise InputError(f"{where}: the values' spread overflows (n x (largest - smallest) "
                         f"is inf)")


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
            with np.errstate(over="ignore"):  # -inf for d >> s: exp gives 0, P = 1, exactly
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


def _band_sums(s: np.ndarray, lo: np.ndarray, hi: np.ndarray, c: Criterion, below: bool
               ) -> np.ndarray:
    """``sum P(d)`` over each row's band ``[lo, hi)``, pair by pair, as the pairwise path does.

    ``below``: row ``j`` beats the ``i`` of its band, ``d = s_j - s_i``;
    otherwise row ``i`` is beaten by the ``j`` of its band, ``d = s_j - s_i``.
    In chunks of about :data:`BAND_CHUNK` pairs.
    """
    count = hi - lo
    out = np.zeros(len(s))
    rows = np.flatnonzero(count)
    while rows.size:
        ends = np.cumsum(count[rows])
        take = max(1, int(np.searchsorted(ends, BAND_CHUNK, side="right")))
        chunk, rows = rows[:take], rows[take:]
        sizes = count[chunk]
        row = np.repeat(chunk, sizes)
        first = np.repeat(np.cumsum(sizes) - sizes, sizes)
        other = lo[row] + (np.arange(len(row)) - first)
        d = s[row] - s[other] if below else s[other] - s[row]
        out[chunk] = np.add.reduceat(preference(d, c), np.cumsum(sizes) - sizes)
    return out


def _fast_sums(x: np.ndarray, c: Criterion) -> tuple[np.ndarray, np.ndarray]:
    """The same sums in O(n log n): counts and sums over ranges of the sorted values.

    The work is done in sorted order (monotone queries make the binary searches
    cache-friendly) and scattered back to the rows' order at the end.
    """
    order = np.argsort(x, kind="stable")
    s = x[order]
    n = len(s)
    c = _resolved(c, s)
    if c.function in ("usual", "ushape"):
        q = p = 0.0 if c.function == "usual" else c.q
    else:
        q, p = (0.0 if c.function == "vshape" else c.q), c.p
    # Centred values (module doc) only place the first guesses of the searches.
    centred = _centred(s)
    # d = s_j - s_i > p (a full preference) for i < full[j], i.e. for j >= upper[i].
    full = beaten_counts(s, p, np.searchsorted(centred, centred - p, side="left"))
    upper = beating_starts(full)
    given_sorted = full.astype(float)
    taken_sorted = (n - upper).astype(float)
    if p > q:
        # d > q for i < part[j], j >= lower[i]: the band q < d <= p is full <= i < part.
        part = beaten_counts(s, q, np.searchsorted(centred, centred - q, side="left"))
        lower = beating_starts(part)
        if c.function == "level":
            given_sorted += 0.5 * (part - full)
            taken_sorted += 0.5 * (upper - lower)
        elif p > NARROW_BAND * (p - q):  # linear, nearly a step: pair by pair (module doc)
            given_sorted += _band_sums(s, full, part, c, below=True)
            taken_sorted += _band_sums(s, lower, upper, c, below=False)
        else:  # linear, vshape: sum (d - q) / (p - q) over the band
            sums = DeviationSums(s)
            given_sorted += sums.below(full, part, q) / (p - q)
            taken_sorted += sums.above(lower, upper, q) / (p - q)
    given, taken = np.empty(n), np.empty(n)
    given[order] = given_sorted
    taken[order] = taken_sorted
    return given, taken


def flows(matrix: np.ndarray, criteria: Sequence[Criterion], method: str = "auto"
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positive, negative and net flows of the rows of ``matrix``.

    ``method``: ``"fast"`` (usual, ushape, vshape, linear, level only),
    ``"pairwise"`` (the reference), or ``"auto"`` (fast where it applies,
    pairwise for the Gaussian). Bad criteria or values: one-line
    :class:`InputError`.
    """
    check_criteria(criteria)
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2 or matrix.shape[1] != len(criteria):
        raise InputError(f"matrix: expected {len(criteria)} column(s), one per criterion, "
                         f"got shape {matrix.shape}")
    n = matrix.shape[0]
    plus, minus = np.zeros(n), np.zeros(n)
    for k, c in enumerate(criteria):
        given, taken = criterion_sums(matrix[:, k], c, method, f"matrix column {k}")
        plus += c.weight * given
        minus += c.weight * taken
    if n < 2:
        return plus, minus, plus - minus
    plus /= n - 1
    minus /= n - 1
    return plus, minus, plus - minus


def criterion_sums(column: np.ndarray, c: Criterion, method: str = "auto",
                   where: str = "values") -> tuple[np.ndarray, np.ndarray]:
    """``sum_b P(d(a, b))`` and ``sum_b P(d(b, a))`` of one criterion, unweighted, unnormalised.

    ``d`` is oriented by the criterion's target; ``method`` as in :func:`flows`;
    ``where`` names the values in a one-line :class:`InputError`.
    """
    check_criterion(c)
    column = np.asarray(column, dtype=float)
    _finite(column, where)
    x = _oriented(column, c)
    fast = method == "fast" or (method == "auto" and c.function in FAST_FUNCTIONS)
    if fast and c.function not in FAST_FUNCTIONS:
        raise ValueError(f"no fast path for the {c.function} preference function")
    if len(x) < 2:
        return np.zeros(len(x)), np.zeros(len(x))
    return _fast_sums(x, c) if fast else _pairwise_sums(x, c)


@dataclass(frozen=True)
class BoundedSums:
    """:func:`criterion_sums` within ``error`` of the pairwise path's; ``exact`` gives its rows.

    ``exact(rows)`` is ``(given[rows], taken[rows])`` of the pairwise path,
    the same floats bit for bit.
    """

    given: np.ndarray
    taken: np.ndarray
    error: float
    exact: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def bounded_sums(column: np.ndarray, c: Criterion, where: str = "values") -> BoundedSums:
    """A Gaussian's sums by the series of :mod:`.promethee_gaussian`, with their bound.

    Exact (``error`` 0) where the series would cost more than the pairs, and
    for a criterion read as its limit, the usual one (whose fast path is the
    pairwise path bit for bit). Arguments as in :func:`criterion_sums`.
    """
    check_criterion(c)
    if c.function != "gaussian":
        raise ValueError(f"bounded sums are for the gaussian, not {c.function}")
    column = np.asarray(column, dtype=float)
    _finite(column, where)
    x, n = _oriented(column, c), len(column)
    order = np.argsort(x, kind="stable")
    s = x[order]
    resolved = _resolved(c, s) if n >= 2 else replace(c, function="usual")
    series = series_sums(s, resolved.s) if resolved.function == "gaussian" else None
    if series is None:
        given, taken = ((np.zeros(n), np.zeros(n)) if n < 2 else _fast_sums(x, c)
                        if resolved.function == "usual" else _pairwise_sums(x, c))
        return BoundedSums(given, taken, 0.0, lambda rows: (given[rows], taken[rows]))
    place = np.empty(n, dtype=np.int64)
    place[order] = np.arange(n)
    return BoundedSums(series.given[place], series.taken[place], series.error,
                       lambda rows: pairwise_rows(s, resolved.s, place[rows], CHUNK_ROWS))


def pairwise_deviation_std(values: np.ndarray) -> float:
    """Standard deviation of ``|x_a - x_b|`` over the pairs ``a < b``, in O(n log n)."""
    x = np.asarray(values, dtype=float)
    _finite(x, "values")
    return _sorted_deviation_std(np.sort(x))


def signed_deviation_std(values: np.ndarray) -> float:
    """Standard deviation of ``x_a - x_b`` over the ordered pairs ``a != b``.

    O(n) on sorted values (the flows' paths have them); the sort here only
    gives the centring its median (:func:`_centred`).

    The deviations have mean 0 and ``sum over ordered pairs of d^2 = 2 n sum (x -
    mean)^2``, so sigma is ``sqrt(2 sum (x - mean)^2 / (n - 1))``: ``sqrt(2)``
    times the sample standard deviation of the values (about 1.7 times the
    ``absolute-pairs`` sigma for uniform values).
    """
    x = np.asarray(values, dtype=float)
    _finite(x, "values")
    return _signed_deviation_std(np.sort(x))


def _signed_deviation_std(x: np.ndarray) -> float:
    """:func:`signed_deviation_std` of sorted values (0 for fewer than two)."""
    n = len(x)
    if n < 2:
        return 0.0
    centred = _centred(x)
    centred -= centred.mean()
    return math.sqrt(2.0 * float(np.sum(centred * centred)) / (n - 1))


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
