"""Exact upper bounds on a site's best configuration: bounded knapsacks, no solver involved.

The configuration-LP proof (:mod:`hybridsched.bot_sites.bound_check`) needs,
for each site, an *upper* bound on ``max sum a_k v_k`` over task counts
``0 <= a_k <= n_k`` with ``sum a_k p_k <= capacity``; :func:`site_value`
computes one exactly (enumeration, fractional knapsack, or an integer dynamic
program on weights rounded down), and :func:`exact_knapsack` /
:func:`dp_pieces` are shared with the column generation that prices the same
knapsacks (:mod:`hybridsched.models.bot_sites.bound_config`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np


def _grid_weight(p: Fraction, capacity: Fraction, grid: int) -> int:
    """``floor(p * grid / capacity)``: rounding *down* keeps every configuration within ``grid``."""
    return math.floor(p * grid / capacity)


#: Up to this many task copies on a site, :func:`site_value` solves the knapsack exactly by
#: enumeration instead of on a grid (tiny instances: optimality proofs need it).
EXACT_COPIES = 14


def exact_knapsack(p: Sequence[Fraction], values: Sequence[Fraction | float],
                   counts: Sequence[int], capacity: Fraction) -> tuple[Fraction, list[int]]:
    """Best bounded knapsack by enumeration with exact weights: (value, count per item).

    Depth-first over items, each count from its largest down, pruned by the
    fractional bound; meant for at most :data:`EXACT_COPIES` copies.
    """
    vals = [Fraction(v) for v in values]
    order = sorted((j for j in range(len(p)) if vals[j] > 0 and counts[j] > 0
                    and p[j] <= capacity), key=lambda j: vals[j] / p[j], reverse=True)
    best: list = [Fraction(0), [0] * len(p)]
    chosen = [0] * len(p)

    def relaxed(pos: int, room: Fraction) -> Fraction:
        total = Fraction(0)
        for j in order[pos:]:
            take = min(Fraction(counts[j]), room / p[j])
            total += take * vals[j]
            room -= take * p[j]
            if room <= 0:
                break
        return total

    def visit(pos: int, room: Fraction, value: Fraction) -> None:
        if value > best[0]:
            best[0], best[1] = value, list(chosen)
        if pos == len(order) or value + relaxed(pos, room) <= best[0]:
            return
        j = order[pos]
        for n in range(min(counts[j], math.floor(room / p[j])), -1, -1):
            chosen[j] = n
            visit(pos + 1, room - n * p[j], value + n * vals[j])
        chosen[j] = 0

    visit(0, capacity, Fraction(0))
    return best[0], best[1]


#: Above this many binary-split pieces on a site, :func:`site_value` skips the dynamic
#: program and keeps the fractional bound (many copies of small tasks: the grid's
#: rounding would cost more than integrality gains, and the table would be slow; a
#: Braun matrix has 512 pieces a machine).
MAX_DP_PIECES = 600


def dp_pieces(counts: Sequence[int]) -> int:
    """Pieces of the binary splitting of bounded counts (``ceil(log2(n + 1))`` each)."""
    return sum(int(n).bit_length() for n in counts if n > 0)


def site_value(p: Sequence[Fraction], values: Sequence[Fraction], counts: Sequence[int],
               capacity: Fraction, grid: int) -> Fraction:
    """Exact upper bound on the best configuration value (bounded knapsack).

    The knapsack: ``max sum a_k v_k`` s.t. ``sum a_k p_k <= capacity`` and
    integers ``0 <= a_k <= n_k``.

    Items of value ``<= 0`` or longer than ``capacity`` never help and are
    dropped. Up to :data:`EXACT_COPIES` copies in all it is solved exactly
    (:func:`exact_knapsack`); above :data:`MAX_DP_PIECES` pieces it is the
    fractional knapsack; otherwise the smaller of two valid upper bounds: the
    fractional knapsack (greedy by value per time, exact) and an integer
    dynamic program over weights ``floor(p * grid / capacity)`` (so every
    feasible configuration stays within ``grid``) with values rounded up to a
    common power-of-two denominator.
    """
    items = [(pk, vk, min(int(nk), math.floor(capacity / pk)))
             for pk, vk, nk in zip(p, values, counts, strict=True)
             if vk > 0 and pk <= capacity]
    items = [it for it in items if it[2] > 0]
    if not items:
        return Fraction(0)
    if sum(mk for _, _, mk in items) <= EXACT_COPIES:
        return exact_knapsack([it[0] for it in items], [it[1] for it in items],
                              [it[2] for it in items], capacity)[0]
    # Fractional knapsack.
    room, frac = capacity, Fraction(0)
    for pk, vk, mk in sorted(items, key=lambda it: it[1] / it[0], reverse=True):
        take = min(Fraction(mk), room / pk)
        frac += take * vk
        room -= take * pk
        if room <= 0:
            break
    if dp_pieces([mk for _, _, mk in items]) > MAX_DP_PIECES:
        return frac                         # many small tasks: the fractional bound is tight
    # Integer dynamic program (bounded knapsack by binary splitting), values in int64.
    total = sum(mk * vk for _, vk, mk in items)
    units = sum(mk for _, _, mk in items)
    scale = 1
    while (scale * 2) * total + units <= (1 << 62):
        scale *= 2
    if scale == 1 and total + units > (1 << 62):
        return frac
    table = np.zeros(grid + 1, dtype=np.int64)
    free_value = 0
    for pk, vk, mk in items:
        weight = _grid_weight(pk, capacity, grid)
        value = math.ceil(vk * scale)
        if weight == 0:
            free_value += mk * value
            continue
        left, piece = mk, 1
        while left > 0:
            n = min(piece, left)
            w, v = n * weight, n * value
            if w <= grid:
                shifted = table[:grid + 1 - w] + v
                np.maximum(table[w:], shifted, out=table[w:])
            left -= n
            piece *= 2
    dp = Fraction(int(table.max()) + free_value, scale)
    return min(frac, dp)
