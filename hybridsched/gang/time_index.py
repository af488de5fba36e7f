"""The time-indexed relaxation behind the gang family's strong bound, decided exactly.

Every schedule the checker accepts finishes at most as many jobs as the
linear programme below allows (a relaxation, so its LP optimum, or any dual
vector of it, bounds the unfinished jobs from below). Time is cut into
buckets ``[g_i, g_{i+1})`` of a grid ``g_k = origin + k x step``; the VMs
are split into *classes* (any partition is valid; :func:`default_classes`).

Columns (all with lower bound 0):

- ``z_j <= 1``: job ``j`` finishes (only jobs :func:`could_finish` lets run);
- ``w_ji <= 1``: job ``j`` (really) starts in bucket ``i``;
- ``x_jci <= u_jc``: tasks of ``j`` on class ``c`` when it starts in bucket
  ``i``, ``u_jc = min(parallelism, e_jc)`` with ``e_jc`` the VMs of ``c`` that
  may run a task of ``j`` (:func:`could_finish`).

Rows (all ``<=``, objective ``min -sum z``):

- ``start[j]``: ``z_j - sum_i w_ji <= 0``;
- ``gang[j, i]``: ``q_j w_ji - sum_c x_jci <= 0`` (all ``q_j`` tasks start together);
- ``room[j, c, i]``: ``x_jci - e_jc w_ji <= 0``, only where ``e_jc < q_j``;
- ``point[c, k]``: ``sum x_jci <= m_c`` over the columns whose task surely
  runs at instant ``g_k``: at most ``m_c`` VMs of class ``c`` run a task then.

Why every accepted schedule is a point of it, tolerances included
(:mod:`hybridsched.gang.checker`). A job's real start ``s`` (binary64) is at
least its arrival ``r``, exactly. With ``H`` the :func:`largest_time` and
``delta`` the :func:`rounding_slack` (``16 EPS H``, over eight roundings of
``H``): the checker's end ``fl(s + fl(I / S))`` is within ``3 u H`` of the
exact ``s + I / S``, and its deadline ``fl(due + TIME_TOL)`` within ``u H`` of
``due + TIME_TOL``; so in exact arithmetic every task of an accepted schedule
has ``s + I / S <= D = due + TIME_TOL + delta``, and the next task on its VM
starts at least at ``s + I / S - delta``. Its *occupied* interval ``[s, s +
I / S - delta)`` is therefore disjoint from every other on its VM. With
``p_jc = min_v I / S_v - delta`` over the VMs ``v`` of class ``c`` that may run
``j``, the job's start lies in ``[r, D - p_jc]`` and each of its tasks on ``c``
occupies ``[s, s + p_jc)`` at least: when ``s`` lies in ``[lo, hi]`` (bucket
``i`` met with that range) the task surely covers every ``g_k`` with ``hi <=
g_k < lo + p_jc``. At an instant, a VM holds at most one occupied interval,
so those tasks number at most ``m_c``.

All boundaries are decided in exact rational arithmetic on the instance's
binary64 values (the grid's origin and step are binary64 numbers too), so
the structure here is the one ``verify_bound`` rebuilds, independently of the
floating-point LP a solver was given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from hybridsched.gang.checker import TIME_TOL, could_finish, rounding_slack
from hybridsched.gang.instance import Instance

#: Most classes :func:`default_classes` forms (identical VMs first, else speed bands).
MAX_CLASSES = 8


@dataclass(frozen=True)
class TimeIndex:
    """The relaxation's columns for one grid and class partition (module docstring).

    Attributes
    ----------
    jobs:
        The jobs with a ``z`` column (those the cheap bound does not rule out).
    classes:
        VM indices of each class.
    capacity:
        ``m_c``: VMs per class.
    w_job, w_bucket:
        Job and bucket of each ``w`` column (sorted by job, then bucket).
    x_job, x_class, x_bucket, x_first, x_last:
        Each ``x`` column's job, class and bucket, and the points it surely
        covers: ``x_first <= k <= x_last`` (empty when ``x_first > x_last``).
    x_upper:
        ``u_jc`` of each ``x`` column.
    room:
        ``e_jc`` where a ``room`` row exists (``e_jc < q_j``), else 0.
    points:
        How many grid points the ``point`` rows span (``k = 0 .. points - 1``).
    """

    jobs: np.ndarray
    classes: tuple[np.ndarray, ...]
    capacity: np.ndarray
    w_job: np.ndarray
    w_bucket: np.ndarray
    x_job: np.ndarray
    x_class: np.ndarray
    x_bucket: np.ndarray
    x_first: np.ndarray
    x_last: np.ndarray
    x_upper: np.ndarray
    room: np.ndarray
    points: int


def default_classes(instance: Instance, most: int = MAX_CLASSES) -> list[list[int]]:
    """VMs grouped by identical speed, memory, bandwidth and disk; speed bands if too many.

    Identical VMs lose nothing in the relaxation (table 2: two speeds, two
    classes). With more than ``most`` kinds (table 1 draws every VM apart),
    the VMs sorted by speed are cut into ``most`` bands of equal size; a
    class's task time is then its fastest eligible VM's, still a valid bound.
    """
    keys = list(zip(instance.speed.tolist(), instance.vm_memory.tolist(),
                    instance.vm_bandwidth.tolist(), instance.vm_disk.tolist(), strict=True))
    kinds = sorted(set(keys))
    if len(kinds) <= most:
        return [[v for v, key in enumerate(keys) if key == kind] for kind in kinds]
    order = np.argsort(instance.speed, kind="stable")
    return [sorted(part.tolist()) for part in np.array_split(order, most) if part.size]


def grid_origin(instance: Instance, step: float) -> float:
    """The grid's origin: the earliest arrival rounded down to a multiple of ``step``."""
    return math.floor(float(instance.arrival.min()) / step) * step if instance.n_jobs else 0.0


def _floor(value: Fraction) -> int:
    return math.floor(value)


def _ceil(value: Fraction) -> int:
    return math.ceil(value)


def _covered(g0: Fraction, dt: Fraction, i: int, r: Fraction, p: Fraction,
             latest: Fraction) -> tuple[int, int]:
    """First and last point a task of length ``p`` surely covers when it starts in bucket ``i``.

    The start lies in ``[lo, hi]`` (bucket ``i`` met with ``[r, latest]``); the
    points are the ``g_k`` with ``hi <= g_k < lo + p``.
    """
    g_i = g0 + i * dt
    lo, hi = max(g_i, r), min(g_i + dt, latest)
    return _ceil((hi - g0) / dt), _ceil((lo + p - g0) / dt) - 1


def build_index(instance: Instance, classes: list[list[int]], origin: float,
                step: float) -> TimeIndex:
    """The columns of the relaxation on the grid ``origin + k x step`` (module docstring).

    Raises ``ValueError`` when ``classes`` is not a partition of the VMs or
    ``step`` is not positive, or the origin is after an arrival.
    """
    m = instance.n_vms
    flat = sorted(v for part in classes for v in part)
    if flat != list(range(m)) or any(not part for part in classes):
        raise ValueError("the classes must partition the VMs into non-empty sets")
    if not (math.isfinite(step) and step > 0 and math.isfinite(origin)):
        raise ValueError(f"grid: need a finite origin and a step > 0, got {origin}, {step}")
    ok = could_finish(instance)
    q = instance.parallelism
    jobs = np.flatnonzero(ok.sum(axis=1) >= q)
    if jobs.size and origin > float(instance.arrival[jobs].min()):
        raise ValueError("grid: the origin must not be after an arrival")
    g0, dt = Fraction(origin), Fraction(step)
    delta = Fraction(rounding_slack(instance))
    tol = Fraction(TIME_TOL)
    parts = [np.asarray(part, dtype=np.int64) for part in classes]
    capacity = np.array([len(part) for part in parts], dtype=np.int64)
    count = np.stack([ok[:, part].sum(axis=1) for part in parts], axis=1)
    room = np.where(count < q[:, None], count, 0)
    w_job: list[np.ndarray] = []
    w_bucket: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    last_point = 0
    for j in jobs.tolist():
        r = Fraction(float(instance.arrival[j]))
        due = Fraction(float(instance.due[j])) + tol + delta
        work = Fraction(float(instance.instructions[j]))
        first_bucket = _floor((r - g0) / dt)
        spans: list[tuple[int, Fraction, Fraction, int, int]] = []
        for c, part in enumerate(parts):
            eligible = part[ok[j, part]]
            if eligible.size == 0:
                continue
            fastest = Fraction(float(instance.speed[eligible].max()))
            p = work / fastest - delta
            latest = due - p
            if latest < r:
                continue
            spans.append((c, p, latest, _floor((latest - g0) / dt),
                          int(min(q[j], count[j, c]))))
        if not spans:
            continue
        buckets = np.arange(first_bucket, max(span[3] for span in spans) + 1)
        w_job.append(np.full(buckets.size, j))
        w_bucket.append(buckets)
        for c, p, latest, last_bucket, upper in spans:
            # Inside the range (first_bucket < i < last_bucket) the bucket is whole:
            # lo = g_i, hi = g_{i+1}, so the task surely covers g_{i+1} .. g_{i + ceil(p/dt) - 1}.
            inner = np.arange(first_bucket + 1, last_bucket)
            reach = _ceil(p / dt) - 1
            edges = sorted({first_bucket, last_bucket})
            found = [(i, *_covered(g0, dt, i, r, p, latest)) for i in edges]
            rows = np.empty((inner.size + len(found), 6), dtype=np.int64)
            rows[:inner.size] = np.column_stack([
                np.full(inner.size, j), np.full(inner.size, c), inner, inner + 1,
                inner + reach, np.full(inner.size, upper)])
            rows[inner.size:] = [(j, c, i, k1, k2, upper) for i, k1, k2 in found]
            cols.append(rows)
            last_point = max(last_point, int(rows[:, 4].max()) + 1)
    x = (np.concatenate(cols) if cols else np.zeros((0, 6), dtype=np.int64))
    wj = np.concatenate(w_job) if w_job else np.zeros(0, dtype=np.int64)
    return TimeIndex(
        jobs=np.unique(wj), classes=tuple(parts), capacity=capacity,
        w_job=wj.astype(np.int64),
        w_bucket=(np.concatenate(w_bucket) if w_bucket else wj).astype(np.int64),
        x_job=x[:, 0], x_class=x[:, 1],
        x_bucket=x[:, 2], x_first=x[:, 3], x_last=x[:, 4], x_upper=x[:, 5],
        room=room.astype(np.int64), points=int(last_point))
