"""Gaussian PROMETHEE sums in O(n p) with a proven error bound, and the pairwise path's own rows.

The Gaussian preference ``P(d) = 1 - K(d / s)``, ``K(z) = exp(-z^2 / 2)``,
for ``d > 0`` (:mod:`.promethee`) has no sort-and-count form like the
piecewise-linear ones. Over the sorted values ``x_0 <= ... <= x_{n-1}``
the sums :mod:`.promethee` needs are, with ``t = x / s``::

    given_j = sum_{i < j} P(x_j - x_i) = j - sum_{i < j} K(t_j - t_i)
    taken_i = sum_{j > i} P(x_j - x_i) = (n - 1 - i) - sum_{j > i} K(t_j - t_i)

(a tie, ``d = 0``, adds ``1 - K(0) = 0`` on either side, so which of two
equal values counts as "below" does not matter).

**The series** (the improved fast Gauss transform of Yang et al., 2003, one
sided). The values are cut into bins of width at most ``s`` (one bin when
they span at most :data:`ONE_BIN` ``s``), each bin ``B`` with a centre
``c_B``. For ``u = (x_a - c_B) / s`` and ``v = (x_b - c_B) / s``::

    K(u - v) = exp(-u^2/2) exp(-v^2/2) exp(u v)
             = exp(-u^2/2) sum_{k < p} u^k [exp(-v^2/2) v^k / k!] + remainder

so a bin's one-sided sum up to any row is ``exp(-u^2/2)`` times a
polynomial in ``u`` whose coefficients are prefix sums, over the sorted
values, of ``exp(-v^2/2) v^k / k!``: O(n p) per bin, no pair.

**Evaluation.** Two sums of the series per row ``j``: ``below_j``, over
the values before ``j`` (its own bin through the prefix sums just before
``j``, less those before the bin; every lower bin whole, through its
totals), and ``full_j``, over all the values (every bin whole, ``j``
itself included). Then, as ``K(0) = 1``::

    given_j = j - below_j        taken_j = (n - j) - full_j + below_j

The series of a pair is the same in both sums, so in exact arithmetic
``full_j - below_j`` is the series of the pairs ``i >= j`` alone: each of
``given_j`` and ``taken_j`` carries the truncation of at most ``n`` pairs.
The powers ``v^k`` are products by doubling (``v^k`` a product tree of
``k`` factors), the polynomials sums of ``p`` products (``einsum``, a
matrix product for the totals), and the prefix sums one ``cumsum`` per
term, the bulk of the cost: numpy's running sums add one number at a
time, at about ten times the cost of an element-wise product.

**The bound, per pair** (Lagrange's remainder of ``exp(z)``, ``z = u v``:
``|remainder| <= e^|z| |z|^p / p!``). With ``|v| <= r`` (the bin's
half-width) and ``|u| <= U`` (the farthest value from the centre)::

    |error| <= exp(-(|u| - |v|)^2 / 2) (|u| |v|)^p / p! <= E(p, r, U)

where ``E = r^(2p) / p!`` for ``U <= r``, and otherwise ``exp(-(a - r)^2 / 2)
(a r)^p / p!`` at ``a = min(U, a*)``, ``a* = (r + sqrt(r^2 + 4p)) / 2``: for
``|u| >= |v|`` both factors grow with ``|v|``, so ``|v| = r`` is the worst,
and ``log`` of the rest is concave in ``|u|`` with its maximum at ``a*``;
for ``|u| < r`` the bound is at most ``(r r)^p / p!``
(:func:`truncation_bound`). ``p`` is the fewest terms with ``E <=``
:data:`PAIR_TOL`. Bins farther than :data:`REACH` ``s`` from a row are
left out, each pair of them adding at most ``exp(-(REACH - r)^2 / 2)``
(about 1e-300).

**How tight.** The bound decides no choice: it only tells the scheduler
which rows it must settle with the pairwise floats (those within twice the
bound of the best, :meth:`~.policies.PrometheeScheduler.best_gaussian`),
so :data:`PAIR_TOL` trades terms of the series against rows to settle.
With 1e-6, flows are within about 1e-6 (``n`` pairs over ``n - 1``). On
the run of issue 35 (``generate(2000, ("idg", "cloud", "beg"), seed=1)``,
seed 1; mostly one bin, ``r`` about 1.2) the series takes 12 terms where
1e-10 took 16, and 7 of the 3,240 decisions settle rows where 1 did (207
of 3,298 where 177 did with the strategy s3,1, whose ties settle at any
tolerance): the terms saved cost far more than the rows settled
(``benchmarks/bench_pull.py`` times the run).

**Rounding** (standard model, unit round-off ``2^-53 <= eps = 2^-52``),
added to the bound per sum so that it covers the floats, not only the
mathematics:

- *this path*: a moment ``exp(-v^2/2) v^k / k!`` is within a relative
  ``(p + 4) eps`` (``k - 1`` products for ``v^k``; ``exp`` within 4 ulp
  of an argument at most ``r^2 / 2 <= 1.2``, itself rounded; the
  factorial, two products) and at most ``r^k / k!``; a prefix sum, or the
  difference of two, is within ``(2n + 2p + 9) eps n r^k / k!``; the
  polynomial (powers within ``p eps``, products, a sum of ``p`` terms) adds
  a relative ``2p eps`` of the sum of its terms' magnitudes, and
  ``exp(-u^2/2)`` (``|u| <= REACH``) a relative ``(REACH^2 + 4) eps``. As
  ``exp(-u^2/2) sum_k (|u| r)^k / k! <= exp(r^2/2)``, a bin's part of
  ``below_j`` or ``full_j`` is within ``(2n + 4p + REACH^2 + 16) eps n
  exp(r^2/2)``, and the sum of the bins' parts adds ``bins eps`` of the
  same. ``taken_j`` carries the errors of both sums: with the last
  subtractions, ``2 bins (2n + 4p + bins + REACH^2 + 16) eps n exp(r^2/2)
  + 2n eps`` per sum. And ``u``, ``v`` themselves are relative ``2 eps``
  off, moving each ``K`` by at most ``4 eps (1 + r)``;
- *the pairwise path*: each ``1 - exp(...)`` is within ``16 eps`` (the
  deviation, its square and the scale round, ``exp`` within 4 ulp), and
  the sum of ``n`` terms in ``[0, 1]`` within ``n^2 eps``.

The sum of these, :attr:`SeriesSums.error`, bounds ``|series - pairwise|``
on every ``given`` and ``taken`` of the floats, whatever the data.
tests/pull/test_gaussian_flows.py checks it with hypothesis on ties, equal
values, huge spreads, one value, ``s`` tiny or huge, many bins and bins
left out.

**Exact rows.** :func:`pairwise_rows` recomputes the pairwise path's
``given`` and ``taken`` of a few rows with that path's very operations
(chunks, in-place ``exp``, row sums, column sums added row after row), so
the floats are the same bit for bit (tested): the scheduler settles near
ties with them, and picks what the pairwise path picks.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

import numpy as np

#: ``eps`` of the rounding bound (twice the unit round-off: generous).
EPS = 2.0 ** -52
#: Truncation error per pair the number of terms is chosen for (module doc, "How tight").
PAIR_TOL = 1e-6
#: Most terms of a series; beyond, the pairwise path is used.
MAX_TERMS = 40
#: Values spanning at most this many ``s`` form one bin (then ``|u|, |v| <= ONE_BIN / 2``).
ONE_BIN = 3.0
#: Bin width, in ``s``, when there are several.
BIN_WIDTH = 1.0
#: Bins farther than this many ``s`` from a row are left out (module doc).
REACH = 38.0
#: The series is used when ``bins x terms`` is below ``n`` over this (else pairs are cheaper).
PAIRS_PER_TERM = 4


@dataclass(frozen=True)
class SeriesSums:
    """``given`` and ``taken`` of sorted values, each within ``error`` of the pairwise path's."""

    given: np.ndarray
    taken: np.ndarray
    error: float
    terms: int
    bins: int


def truncation_bound(terms: int, radius: float, reach: float) -> float:
    """``E(p, r, U)`` of the module doc: the series' error per pair, ``p`` = ``terms``."""
    return math.exp(_log_bound(terms, radius, reach))


def _log_bound(terms: int, radius: float, reach: float) -> float:
    """``log E(p, r, U)`` (``-inf`` for ``r = 0``: no error)."""
    if radius <= 0:
        return -math.inf
    a = min(max((radius + math.sqrt(radius * radius + 4 * terms)) / 2, radius),
            max(reach, radius))
    # log a + log r, not log(a r): the product underflows to 0 when s dwarfs the values.
    return (-(a - radius) ** 2 / 2 + terms * (math.log(a) + math.log(radius))
            - _LOG_FACTORIALS[terms])


def _fewest_terms(radius: float, reach: float) -> int:
    """The fewest terms with ``E <= PAIR_TOL`` (0 if :data:`MAX_TERMS` do not reach it).

    ``E(p, r, U)`` is at least ``E(p, r, r) = r^(2p) / p!`` (a maximum over
    ``|u| <= U``), which is at most ``PAIR_TOL`` for ``r`` up to
    ``_ONE_BIN_RADII[p - 1]``: the search starts at the fewest terms for ``U = r``.
    """
    for terms in range(bisect.bisect_left(_ONE_BIN_RADII, radius) + 1, MAX_TERMS + 1):
        if _log_bound(terms, radius, reach) <= _LOG_PAIR_TOL:
            return terms
    return 0


_LOG_FACTORIALS = [math.lgamma(p + 1) for p in range(MAX_TERMS + 1)]
_LOG_PAIR_TOL = math.log(PAIR_TOL)
_INVERSE_FACTORIALS = np.array([1.0 / math.factorial(k) for k in range(MAX_TERMS)])
#: Largest ``r`` with ``r^(2p) / p! <= PAIR_TOL``, ``p = 1 .. MAX_TERMS`` (increasing), a
#: hair below, so that the search in :func:`_fewest_terms` never starts past the fewest.
_ONE_BIN_RADII = [math.exp((_LOG_PAIR_TOL + _LOG_FACTORIALS[p]) / (2 * p)) * (1 - 1e-9)
                  for p in range(1, MAX_TERMS + 1)]


def too_narrow(width: float) -> bool:
    """Whether ``1 / (2 s^2)`` overflows (``s = width`` below about 1e-154).

    As ``s -> 0``, ``1 - exp(-d^2 / (2 s^2))`` tends to 1 for every ``d > 0``:
    the usual criterion, which is what a float ``s`` that small means (the
    pairwise path's ``-0.5 / (s * s)`` would divide by 0, or give ``0 x inf``
    at ties); :mod:`.promethee` reads it so.
    """
    square = width * width
    return square == 0 or not math.isfinite(0.5 / square)


def pairwise_rounding(n: int) -> float:
    """Bound on the rounding of one of the pairwise path's sums (module doc)."""
    return n * (n + 16) * EPS


def series_sums(s: np.ndarray, width: float) -> SeriesSums | None:
    """The series of the module doc on sorted values ``s``; ``None`` where pairs are cheaper.

    ``width`` is the Gaussian's ``s`` (> 0). The values' spread over ``width``
    decides the bins; ``None`` also when :data:`MAX_TERMS` do not reach
    :data:`PAIR_TOL`. A row's own bin enters its sums through the prefix
    sums at the row, every other bin whole, through its totals (module doc,
    "Evaluation").
    """
    n = len(s)
    starts, centres = _bins(s, width)
    bins = len(starts)
    if bins == 1:  # v is sorted: its largest magnitude is at an end
        scaled = (s - centres[0]) / width
        radius = max(-float(scaled[0]), float(scaled[-1])) * (1 + 8 * EPS)
        reach = radius
    else:
        sizes = np.diff(starts, append=n)
        scaled = (s - np.repeat(centres, sizes)) / width
        radius = float(np.max(np.abs(scaled))) * (1 + 8 * EPS)
        reach = min(max(float(s[-1] - centres[0]), float(centres[-1] - s[0])) / width
                    * (1 + 8 * EPS), REACH)
    terms = _fewest_terms(radius, reach)
    if not terms or bins * terms * PAIRS_PER_TERM > n:
        return None
    # Powers v^k (one row per k), moments exp(-v^2/2) v^k / k! and their prefix sums.
    gauss = np.exp(-0.5 * scaled * scaled)
    powers = _powers(scaled, terms)
    prefix = np.empty((terms, n + 1))
    prefix[:, 0] = 0.0
    moments = np.multiply(powers, gauss, out=prefix[:, 1:])
    moments *= _INVERSE_FACTORIALS[:terms, None]
    np.cumsum(moments, axis=1, out=moments)
    # Below row j: the prefix sums before it; full: the whole bin's sums.
    below = np.einsum("kn,kn->n", powers, prefix[:, :n])
    if bins == 1:
        full = prefix[:, n] @ powers
    else:  # the row's own bin only: its prefix sums less those before it; its totals
        own, rows = np.repeat(np.arange(bins), sizes), np.arange(n)
        first, totals = prefix[:, starts], prefix[:, starts + sizes] - prefix[:, starts]
        below -= (first.T @ powers)[own, rows]
        full = (totals.T @ powers)[own, rows]
    below *= gauss
    full *= gauss
    if bins > 1:  # the other bins, whole: those below the row's bin into below, all into full
        u = (s[None, :] - centres[:, None]) / width
        far = np.abs(u) > REACH
        np.clip(u, -REACH, REACH, out=u)  # no overflow of u^k where the bin is left out
        whole = np.einsum("kb,kbn->bn", totals, _powers(u, terms))
        factor = np.exp(-0.5 * u * u)
        factor[far] = 0.0
        whole *= factor
        other = np.arange(bins)[:, None]
        below += np.sum(whole, axis=0, where=other < own)
        full += np.sum(whole, axis=0, where=other != own)
    # given_j = j - below_j; taken_j = (n - 1 - j) - (full_j - below_j - K(0)), K(0) = 1.
    given = np.arange(n, dtype=float) - below
    taken = np.arange(n, 0, -1, dtype=float) - full
    taken += below
    per_pair = (truncation_bound(terms, radius, reach)
                + math.exp(-max(REACH - radius, 0.0) ** 2 / 2) + 4 * EPS * (1 + radius))
    rounding = (2 * bins * (2 * n + 4 * terms + bins + REACH ** 2 + 16) * EPS * n
                * math.exp(radius * radius / 2) + 2 * n * EPS)
    error = (n * per_pair + rounding + pairwise_rounding(n)) * (1 + 1e-6)
    return SeriesSums(given, taken, error, terms, bins)


def _powers(x: np.ndarray, terms: int) -> np.ndarray:
    """``x^k`` for ``k < terms`` along a new first axis, by doubling (``k - 1`` products each).

    Rows ``f .. 2f - 1`` are rows ``0 .. f - 1`` times ``x^f``, itself the
    square of row ``f / 2``: each ``x^k`` is a product tree of ``k`` factors.
    """
    powers = np.empty((terms, *x.shape))
    powers[0] = 1.0
    if terms > 1:
        powers[1] = x
    filled = 2
    while filled < terms:
        step = min(filled, terms - filled)
        top = powers[filled // 2] * powers[filled // 2]
        np.multiply(powers[:step], top, out=powers[filled:filled + step])
        filled += step
    return powers


def _bins(s: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray]:
    """First index and centre of each occupied bin of the sorted values ``s``.

    A centre is the midpoint of its bin's smallest and largest value, so
    every ``|v|`` is at most half the bin's spread.
    """
    n = len(s)
    if float(s[-1] - s[0]) <= ONE_BIN * width:
        return np.zeros(1, dtype=np.int64), np.array([s[0] + (s[-1] - s[0]) / 2])
    # floor is monotone over sorted values, so each bin is a run of indices.
    index = np.floor((s - s[0]) / (BIN_WIDTH * width))
    starts = np.flatnonzero(np.concatenate([[True], index[1:] != index[:-1]]))
    last = np.append(starts[1:], n) - 1
    return starts, s[starts] + (s[last] - s[starts]) / 2


def pairwise_rows(s: np.ndarray, width: float, rows: np.ndarray, chunk_rows: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The pairwise path's ``given`` and ``taken`` of the sorted positions ``rows``, bit for bit.

    The path (:func:`.promethee._pairwise_sums`) takes chunks of
    ``chunk_rows`` rows ``a`` over the columns ``b`` from the chunk's first
    row on, ``d = s_b - s_a``; a row's ``taken`` is its row sum, a
    column's ``given`` the column sums of the chunks up to it, added chunk
    after chunk, each summed row after row (as numpy sums over the first
    axis). Here the same elements are computed by the same operations and
    added in the same order, for the asked rows and columns only: O(n) each.
    """
    n = len(s)
    rows = np.asarray(rows, dtype=np.int64)
    scale = -0.5 / (width * width)
    given, taken = np.zeros(len(rows)), np.zeros(len(rows))
    for first in range(0, int(rows.max()) + 1, chunk_rows):
        last = min(first + chunk_rows, n)
        mine = np.flatnonzero((rows >= first) & (rows < last))
        if mine.size:  # the rows' own row sums
            block = _preference(s[None, first:] - s[rows[mine], None], scale)
            block[np.arange(first, n)[None, :] < rows[mine, None]] = 0.0  # b < a
            taken[mine] = block.sum(axis=1)
        later = np.flatnonzero(rows >= first)  # columns this chunk adds to
        block = _preference(s[None, rows[later]] - s[first:last, None], scale)
        block[np.arange(first, last)[:, None] > rows[None, later]] = 0.0  # a > b
        given[later] += np.cumsum(block, axis=0)[-1]
    return given, taken


def _preference(d: np.ndarray, scale: float) -> np.ndarray:
    """``1 - exp(scale d^2)`` in place, as the pairwise path computes it."""
    d *= d
    with np.errstate(over="ignore"):  # -inf for d >> s: exp gives 0, as the pairwise path
        d *= scale
    np.exp(d, out=d)
    np.subtract(1.0, d, out=d)
    return d
