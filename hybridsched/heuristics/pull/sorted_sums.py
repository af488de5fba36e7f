"""Counts and sums of deviations over sorted values, as exact as the pairwise loop's.

The O(n log n) PROMETHEE path (:mod:`hybridsched.heuristics.pull.promethee`)
replaces the n^2 deviations ``d = s_j - s_i`` of sorted values ``s`` by
two questions per row, answered here:

- :func:`beaten_counts`: how many ``i`` have ``s_j - s_i > t``, decided by
  that very float comparison, so the counts are those of the pairwise loop
  on any data (:func:`beating_starts` transposes them);
- :class:`DeviationSums`: ``sum_i (s_j - s_i)`` over a range of ``i`` (or
  of ``j``), with an error that depends on neither the values' offset,
  their spread, nor ``n`` (a few ``n^2 2^-106`` spreads): the sums are
  split into a part on a coarse binary grid, whose prefix sums are exact,
  and a remainder too small to matter.
"""

from __future__ import annotations

import math

import numpy as np


def beaten_counts(s: np.ndarray, t: float, guess: np.ndarray) -> np.ndarray:
    """For each ``j``, the number of ``i`` with ``s[j] - s[i] > t`` (``s`` sorted, ``t >= 0``).

    The test is the pairwise path's (``d = s_b - s_a``, larger index minus
    smaller, on the same floats). Why a count says where it holds: float
    subtraction rounds monotonically, so ``i -> s[j] - s[i]`` is
    non-increasing over sorted ``s``, and the test holds on a prefix
    ``[0, k)`` of the indices. A candidate ``k`` is that prefix's end if and
    only if the test holds at ``k - 1`` (or ``k = 0``) and fails at ``k``
    (or ``k = n``). ``guess`` (a ``searchsorted`` of shifted values, which
    round differently and can be off near ``t``) is checked that way, and
    the rows where it fails are bisected with the same test.
    """
    n = len(s)
    # Sentinels for k = 0 and k = n: s_j + inf > t holds, s_j - inf > t fails (s is finite).
    padded = np.concatenate([[-np.inf], s, [np.inf]])
    ok = (s - padded[guess] > t) & ~(s - padded[guess + 1] > t)
    bad = np.flatnonzero(~ok)
    if not bad.size:
        return guess
    k = guess.copy()
    lo, hi = np.zeros(bad.size, dtype=k.dtype), np.full(bad.size, n, dtype=k.dtype)
    while (active := lo < hi).any():
        mid = (lo + hi) // 2  # < n on every active row
        holds = (s[bad] - s[np.minimum(mid, n - 1)] > t) & active
        lo = np.where(holds, mid + 1, lo)
        hi = np.where(active & ~holds, mid, hi)
    k[bad] = lo
    return k


def beating_starts(counts: np.ndarray) -> np.ndarray:
    """For each ``i``, the first ``j`` with ``s[j] - s[i] > t`` (``n`` if none).

    The same pairs as :func:`beaten_counts` (``counts``), seen from the other
    side: ``(i, j)`` is one iff ``i < counts[j]``, and ``counts`` is
    non-decreasing (``s[j] - s[i]`` grows with ``j``), so for a fixed ``i``
    the ``j`` that are not form a prefix, of length ``#{j : counts[j] <= i}``:
    integers counted, no float compared again.
    """
    return np.cumsum(np.bincount(counts, minlength=len(counts) + 1))[:len(counts)]


def _two_diff(a: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """``a - b`` as ``x + e`` exactly (Knuth's TwoSum): ``x`` rounded, ``e`` its error."""
    x = a - b
    z = x - a
    return x, (a - (x - z)) - (b + z)


class DeviationSums:
    """``sum (s_j - s_i)`` over ranges of sorted values, nearly exact (module doc).

    The values are first centred exactly (``s - r = c + e``, ``r`` the
    median element) and ``c`` split into ``h``, a multiple of a power of two
    ``2^E`` chosen with ``n max|c| < 2^51 2^E``, and the rest ``l = c - h``
    (exact: both are multiples of ``c``'s last bit, or ``l = 0``). Every
    prefix sum of ``h`` and every ``count x h_j`` is then an integer times
    ``2^E`` below ``2^53 2^E``: exact, and so is their difference. Only the
    remainders ``l + e``, below ``2^(E-1)`` plus a rounding of ``c``, are
    summed in floating point, with errors of order ``n^2 2^-106 max|c|``.
    """

    def __init__(self, s: np.ndarray) -> None:
        c, e = _two_diff(s, float(s[len(s) // 2]))
        largest = max(-float(c[0]), float(c[-1]))  # c is sorted: rounding is monotone
        # n * largest < 2^top; grids finer than 2^-1000 would be subnormal and are not needed.
        top = math.frexp(largest)[1] + len(c).bit_length() if largest > 0 else -1000
        grid = max(top - 51, -1000)
        # Powers of two between 2^-1000 and 2^1000: the scalings are exact.
        self.h = np.rint(c * math.ldexp(1.0, -grid)) * math.ldexp(1.0, grid)
        self.rest = (c - self.h) + e
        self.h_prefix = np.concatenate([[0.0], np.cumsum(self.h)])
        self.rest_prefix = np.concatenate([[0.0], np.cumsum(self.rest)])

    def below(self, lo: np.ndarray, hi: np.ndarray, q: float) -> np.ndarray:
        """For each ``j``: ``sum (s_j - s_i - q)`` over ``lo[j] <= i < hi[j]``."""
        count = hi - lo
        exact = count * self.h - (self.h_prefix[hi] - self.h_prefix[lo])
        small = count * self.rest - (self.rest_prefix[hi] - self.rest_prefix[lo])
        return (exact - count * q) + small

    def above(self, lo: np.ndarray, hi: np.ndarray, q: float) -> np.ndarray:
        """For each ``i``: ``sum (s_j - s_i - q)`` over ``lo[i] <= j < hi[i]``."""
        count = hi - lo
        exact = (self.h_prefix[hi] - self.h_prefix[lo]) - count * self.h
        small = (self.rest_prefix[hi] - self.rest_prefix[lo]) - count * self.rest
        return (exact - count * q) + small
