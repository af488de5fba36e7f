"""Speed-up of a malleable job and the minutes it needs (one-minute granularity).

A job of ``size`` processor-minutes (at performance 1) running on ``n``
processors of performance ``v`` progresses at ``rate(n) = v / (f + (1 - f) / n)``
work units per minute, where ``f`` is its Amdahl serial fraction (0: linear
speed-up, ``rate = v * n``). Time is counted in whole minutes: a job on a
constant processor count runs for :func:`minutes_needed` minutes, the least
number of whole minutes whose work covers its size. The checker, the local
schedulers and the exact models all use these two functions, with the same
tolerance :data:`WORK_RTOL`.
"""

from __future__ import annotations

import math

import numpy as np

#: Relative tolerance on work: a job is complete when its work reaches
#: ``size * (1 - WORK_RTOL)`` (sums of float rates are not exact).
WORK_RTOL = 1e-9


def rate(n: int | np.ndarray, performance: float, serial_fraction: float
         ) -> float | np.ndarray:
    """Work per minute of ``n`` processors of ``performance`` (Amdahl's law)."""
    return performance / (serial_fraction + (1.0 - serial_fraction) / n)


def required_work(size: float | np.ndarray) -> float | np.ndarray:
    """The work that counts as complete for a job of ``size`` (see :data:`WORK_RTOL`)."""
    return size * (1.0 - WORK_RTOL)


def minutes_needed(size: float, work_per_minute: float) -> int:
    """Least whole number of minutes ``m`` with ``m * work_per_minute >= required_work(size)``."""
    need = required_work(size)
    m = max(1, math.ceil(need / work_per_minute))
    # The division may round either way: settle the boundary with the same products
    # that the checker computes.
    while m > 1 and (m - 1) * work_per_minute >= need:
        m -= 1
    while m * work_per_minute < need:
        m += 1
    return m


def minutes_needed_array(size: float | np.ndarray, work_per_minute: np.ndarray) -> np.ndarray:
    """Vectorised :func:`minutes_needed` (sizes and rates broadcast; same rule, same result)."""
    need, per_minute = np.broadcast_arrays(required_work(np.asarray(size, dtype=float)),
                                           np.asarray(work_per_minute, dtype=float))
    m = np.atleast_1d(np.maximum(1, np.ceil(need / per_minute)).astype(np.int64))
    need, per_minute = np.atleast_1d(need), np.atleast_1d(per_minute)
    m[(m > 1) & ((m - 1) * per_minute >= need)] -= 1
    m[m * per_minute < need] += 1
    return m
