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

**Rounding** (standard model, unit round-off ``2^-53 <= eps = 2^-52``),
added to the bound per sum so that it covers the floats, not only the
mathematics:

- *this path*: the prefix sums of ``n`` moments err by at most ``(n + p +
  4) eps`` times the sum of their magnitudes, at most ``n r^k / k!``; the
  polynomial adds a relative ``2p eps`` and ``exp(-u^2/2)`` a relative
  ``(u^2 + 4) eps``; as ``exp(-u^2/2) sum_k (|u| r)^k / k! <=
  exp(r^2/2)``, a bin adds at most ``(2n + 3p + REACH^2 + 16) eps n
  exp(r^2/2)``; and ``u``, ``v`` themselves are relative ``2 eps`` off,
  moving each ``K`` by at most ``4 eps (1 + r)``;
- *the pairwise path*: each ``1 - exp(...)`` is within ``16 eps`` (the
  deviation, its square and the scale round, ``exp`` within 4 ulp), and
  the sum of ``n`` terms in ``[0, 1]`` within ``n^2 eps``.

The sum of these, :attr:`SeriesSums.error`, bounds ``|series - pairwise|``
on every ``given`` and ``taken`` of the floats, whatever the data.
tests/pull/test_gaussian_flows.py checks it with hypothesis on ties, equal
values, huge spreads, one value, ``s`` tiny or huge.

**Exact rows.** :func:`pairwise_rows` recomputes the pairwise path's
``given`` and ``taken`` of a few rows with that path's very operations
(chunks, in-place ``exp``, row sums, column sums added row after row), so
the floats are the same bit for bit (tested): the scheduler settles near
ties with them, and picks what the pairwise path picks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: ``eps`` of the rounding bound (twice the unit round-off: generous).
EPS = 2.0 ** -52
#: Truncation error per pair the number of terms is chosen for.
PAIR_TOL = 1e-10
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
    return float(np.exp(_log_bounds(radius, reach)[terms - 1]))


def _log_bounds(radius: float, reach: float) -> np.ndarray:
    """``log E(p, r, U)`` for ``p = 1 .. MAX_TERMS`` (``-inf`` for ``r = 0``: no error)."""
    if radius <= 0:
        return np.full(MAX_TERMS, -np.inf)
    a = np.clip((radius + np.sqrt(radius * radius + 4 * _TERMS)) / 2, radius,
                max(reach, radius))
    return -(a - radius) ** 2 / 2 + _TERMS * np.log(a * radius) - _LOG_FACTORIALS


_TERMS = np.arange(1, MAX_TERMS + 1, dtype=float)
_LOG_FACTORIALS = np.array([math.lgamma(p + 1) for p in range(1, MAX_TERMS + 1)])


def pairwise_rounding(n: int) -> float:
    """Bound on the rounding of one of the pairwise path's sums (module doc)."""
    return n * (n + 16) * EPS


def series_sums(s: np.ndarray, width: float) -> SeriesSums | None:
    """The series of the module doc on sorted values ``s``; ``None`` where pairs are cheaper.

    ``width`` is the Gaussian's ``s`` (> 0). The values' spread over ``width``
    decides the bins; ``None`` also when :data:`MAX_TERMS` do not reach
    :data:`PAIR_TOL`.
    """
    n = len(s)
    starts, centres = _bins(s, width)
    ends = np.append(starts[1:], n)
    v = (s - np.repeat(centres, ends - starts)) / width
    radius = float(np.max(np.abs(v))) * (1 + 8 * EPS)
    reach = min(max(float(s[-1] - centres[0]), float(centres[-1] - s[0])) / width
                * (1 + 8 * EPS), REACH)
    log_bounds = _log_bounds(radius, reach)
    fit = np.flatnonzero(log_bounds <= math.log(PAIR_TOL))
    terms = int(fit[0]) + 1 if fit.size else 0
    if not terms or len(starts) * terms * PAIRS_PER_TERM > n:
        return None
    # Moments exp(-v^2/2) v^k / k! (one row per k), and their prefix sums over the values.
    moments = np.empty((terms, n))
    moments[0] = np.exp(-0.5 * v * v)
    for k in range(1, terms):
        np.multiply(moments[k - 1], v, out=moments[k])
        moments[k] *= 1.0 / k
    prefix = np.zeros((terms, n + 1))
    np.cumsum(moments, axis=1, out=prefix[:, 1:])
    # Per bin (second axis) and row: the bin's coefficients below and above the row.
    coefficients = np.empty((terms, 2, len(starts), n))
    if len(starts) == 1:  # all values in the bin: below row j, the first j; above, the rest
        coefficients[:, 0, 0] = prefix[:, :n]
        np.subtract(prefix[:, n:], prefix[:, 1:], out=coefficients[:, 1, 0])
    else:
        rows = np.arange(n)[None, :]
        low = np.clip(rows, starts[:, None], ends[:, None])
        high = np.clip(rows + 1, starts[:, None], ends[:, None])
        np.subtract(prefix[:, low], prefix[:, starts][:, :, None], out=coefficients[:, 0])
        np.subtract(prefix[:, ends][:, :, None], prefix[:, high], out=coefficients[:, 1])
    u = (s[None, :] - centres[:, None]) / width
    near = np.abs(u) <= REACH
    u = np.clip(u, -REACH, REACH)  # no overflow of u^k where the bin is left out anyway
    horner = coefficients[terms - 1].copy()
    for k in range(terms - 2, -1, -1):
        horner *= u
        horner += coefficients[k]
    horner *= np.where(near, np.exp(-0.5 * u * u), 0.0)
    kernel_below, kernel_above = horner.sum(axis=1)
    given = np.arange(n, dtype=float) - kernel_below
    taken = np.arange(n - 1, -1, -1, dtype=float) - kernel_above
    per_pair = (math.exp(log_bounds[terms - 1])
                + math.exp(-max(REACH - radius, 0.0) ** 2 / 2) + 4 * EPS * (1 + radius))
    rounding = (len(starts) * (2 * n + 3 * terms + REACH ** 2 + 16) * EPS * n
                * math.exp(radius * radius / 2) + 2 * n * EPS)
    error = (n * per_pair + rounding + pairwise_rounding(n)) * (1 + 1e-6)
    return SeriesSums(given, taken, error, terms, len(starts))


def _bins(s: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray]:
    """First index and centre of each occupied bin of the sorted values ``s``.

    A centre is the midpoint of its bin's smallest and largest value, so
    every ``|v|`` is at most half the bin's spread.
    """
    n = len(s)
    if float(s[-1] - s[0]) <= ONE_BIN * width:
        starts = np.zeros(1, dtype=np.int64)
    else:
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
    d *= scale
    np.exp(d, out=d)
    np.subtract(1.0, d, out=d)
    return d
