"""Checking a gang bound certificate: exact weak duality on the time-indexed relaxation.

A certificate of :mod:`hybridsched.models.gang.bound` carries the grid
(``origin``, ``step``), the VM ``classes`` and a dual value per row of the
relaxation (:mod:`hybridsched.gang.time_index`), keyed by what the row is:
``start`` ``[j, y]``, ``gang`` ``[j, i, y]``, ``room`` ``[j, c, i, y]`` and
``point`` ``[c, k, y]``. :func:`verify_bound` rebuilds the relaxation's
columns from the instance (exactly, :func:`~hybridsched.gang.time_index.build_index`)
and evaluates weak duality in exact arithmetic: the bound of
:func:`hybridsched.bound_proof.weak_duality_bound`, ``b y + sum_x min over the
column's bounds of (c - A^T y)_x x``, computed column by column from the
dual values (the ``point`` rows of a column are a run of consecutive points,
summed by prefix sums), since the relaxation at paper scale has millions of
nonzeros. Every row is ``<=``: a positive dual is taken as 0, like there.
Any dual vector proves *something*; the check is that it proves the value
claimed. The duals are binary64 numbers, so the whole computation runs in
integers over their common power-of-two denominator.

A certificate with an empty proof is the family's cheap bound
(:func:`hybridsched.gang.bounds.lower_bound`), recomputed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from hybridsched.bound_proof import BoundCertificate, BoundProofError, exact
from hybridsched.gang.bounds import lower_bound
from hybridsched.gang.instance import Instance
from hybridsched.gang.time_index import TimeIndex, build_index

#: Relative tolerance of a claimed value over the recomputed one (the contract's).
CLAIM_RTOL = 1e-9
#: Most grid points a proof may ask for (a guard against a step that would never finish).
MAX_POINTS = 10**7
#: Row kinds of a proof and the length of each entry (keys, then the dual value).
ROW_KINDS = {"start": 2, "gang": 3, "room": 4, "point": 3}


def _entries(duals: Mapping[str, Any], kind: str) -> list[tuple[tuple[int, ...], Fraction]]:
    """The ``kind`` entries of a proof as (integer key, exact dual); ``BoundProofError`` if bad."""
    raw = duals.get(kind, [])
    if not isinstance(raw, list):
        raise BoundProofError(f"bound proof: duals.{kind} must be a list")
    size = ROW_KINDS[kind]
    found = []
    for entry in raw:
        if (not isinstance(entry, list | tuple) or len(entry) != size
                or any(isinstance(k, bool) or not isinstance(k, int) for k in entry[:-1])
                or isinstance(entry[-1], bool) or not isinstance(entry[-1], int | float)):
            raise BoundProofError(f"bound proof: duals.{kind} entries must be "
                                  f"{size - 1} integers and a number, got {entry!r}")
        found.append((tuple(entry[:-1]), exact(entry[-1])))
    return found


def _scale(values: Iterable[Fraction]) -> int:
    """The common denominator of ``values`` (powers of two for binary64 duals)."""
    denominator = 1
    for value in values:
        denominator = math.lcm(denominator, value.denominator)
    return denominator


def dual_value(instance: Instance, index: TimeIndex, duals: Mapping[str, Any]) -> Fraction:
    """The exact bound on ``min -sum z`` that ``duals`` prove for ``index``'s relaxation."""
    kinds = {kind: _entries(duals, kind) for kind in ROW_KINDS}
    scale = _scale(y for entries in kinds.values() for _, y in entries)

    def scaled(kind: str) -> dict[tuple[int, ...], int]:
        # <= rows: a positive dual is the wrong sign and counts as 0 (weak duality).
        table: dict[tuple[int, ...], int] = {}
        for key, y in kinds[kind]:
            if y < 0:
                table[key] = table.get(key, 0) + int(y * scale)
        return table

    start, gang, room, point = (scaled(kind) for kind in ROW_KINDS)
    q = instance.parallelism.tolist()
    n_classes = len(index.classes)
    capacity = index.capacity.tolist()
    total = 0
    # b y: only the point rows have a nonzero right-hand side (m_c).
    prefix = [[0] * (index.points + 1) for _ in range(n_classes)]
    for (c, k), y in point.items():
        if 0 <= c < n_classes and 0 <= k < index.points:
            total += capacity[c] * y
            prefix[c][k + 1] += y
    for c in range(n_classes):
        run = prefix[c]
        for k in range(index.points):
            run[k + 1] += run[k]
    # z_j in [0, 1], cost -1: reduced cost -1 - y_start.
    for j in index.jobs.tolist():
        total += min(0, -scale - start.get((j,), 0))
    # w_ji in [0, 1], cost 0: y_start - q y_gang + sum_c e_jc y_room.
    room_e = index.room.tolist()
    room_of: dict[tuple[int, int], int] = {}
    for (j, c, i), y in room.items():
        if 0 <= c < n_classes and 0 <= j < instance.n_jobs and room_e[j][c] > 0:
            room_of[j, i] = room_of.get((j, i), 0) + room_e[j][c] * y
    for j, i in zip(index.w_job.tolist(), index.w_bucket.tolist(), strict=True):
        reduced = start.get((j,), 0) - q[j] * gang.get((j, i), 0) + room_of.get((j, i), 0)
        total += min(0, reduced)
    # x_jci in [0, u_jc], cost 0: y_gang - y_room - (point duals of the points it covers).
    for j, c, i, k1, k2, upper in zip(index.x_job.tolist(), index.x_class.tolist(),
                                      index.x_bucket.tolist(), index.x_first.tolist(),
                                      index.x_last.tolist(), index.x_upper.tolist(),
                                      strict=True):
        reduced = gang.get((j, i), 0)
        if room_e[j][c] > 0:
            reduced -= room.get((j, c, i), 0)
        lo, hi = max(k1, 0), min(k2, index.points - 1)
        if lo <= hi:
            reduced -= prefix[c][hi + 1] - prefix[c][lo]
        total += upper * min(0, reduced)
    return Fraction(total, scale)


def unfinished_bound(instance: Instance, value: Fraction) -> int:
    """Whole unfinished jobs proven by a bound ``value`` on ``min -sum z``."""
    return math.ceil(instance.n_jobs + value)


def recompute(instance: Instance, proof: Mapping[str, Any]) -> float:
    """The bound ``proof`` proves (at least the cheap bound); ``BoundProofError`` if malformed."""
    cheap = lower_bound(instance)
    if not proof:
        return cheap
    try:
        classes = [[int(v) for v in part] for part in proof["classes"]]
        origin, step = float(proof["origin"]), float(proof["step"])
        duals = proof["duals"]
    except (KeyError, TypeError, ValueError) as error:
        raise BoundProofError(f"bound proof: needs classes, origin, step and duals ({error})"
                              ) from None
    if not isinstance(duals, Mapping):
        raise BoundProofError("bound proof: duals must be an object")
    span = float(instance.due.max() - instance.arrival.min()) + 1.0
    if not step > 0 or span / step > MAX_POINTS:
        raise BoundProofError(f"bound proof: grid step {step!r} gives more than "
                              f"{MAX_POINTS:,} points")
    try:
        index = build_index(instance, classes, origin, step)
    except ValueError as error:
        raise BoundProofError(f"bound proof: {error}") from None
    return max(cheap, float(unfinished_bound(instance, dual_value(instance, index, duals))))


def verify_bound(instance: Instance, certificate: BoundCertificate) -> float:
    """The bound the certificate's proof proves, recomputed exactly from the instance.

    Raises :class:`~hybridsched.bound_proof.BoundProofError` (one line) when
    that is less than the claimed value (beyond ``1e-9`` relative).
    """
    value = recompute(instance, certificate.proof)
    if certificate.value > value + CLAIM_RTOL * max(1.0, abs(value)):
        raise BoundProofError(f"the proof proves {value:g} unfinished jobs, less than the "
                              f"claimed {certificate.value:g}")
    return value
