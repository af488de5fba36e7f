"""Checking a ``malleable`` bound certificate from the instance alone, in exact arithmetic.

A certificate (:class:`~hybridsched.bound_proof.BoundCertificate`) of
:mod:`hybridsched.models.malleable.bound` carries the objective, the grid
``(horizon, bucket)`` of the time-bucket relaxation
(:mod:`hybridsched.malleable.relaxation`) and a dual vector by row name; or
nothing but the objective for the per-job bound
(:func:`hybridsched.malleable.bounds.lower_bound`), which is recomputed, like
the fluid bound (:mod:`hybridsched.malleable.fluid_bound`) when the proof has
``"fluid": true``.
:func:`verify_bound` rebuilds the relaxation's rows from the instance with
:class:`~fractions.Fraction` coefficients and takes the weak-duality bound of
the duals (:func:`~hybridsched.bound_proof.weak_duality_bound`); no solver
is imported.

The proven value is ``max(per-job bound, LP bound * (1 - VALUE_SHAVE))``,
rounded down to a float: the shave keeps the bound below the checker's
float evaluation of any schedule (sums of a few thousand floats).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from hybridsched.bound_proof import (
    BoundCertificate,
    BoundProofError,
    floor_float,
    weak_duality_bound,
)
from hybridsched.malleable.bounds import WEIGHTS, lower_bound
from hybridsched.malleable.fluid_bound import fluid_bound
from hybridsched.malleable.instance import Instance
from hybridsched.malleable.lagrangian import lagrangian_bound
from hybridsched.malleable.relaxation import Grid, build

#: Relative shave of an LP bound (see the module docstring).
VALUE_SHAVE = Fraction(1, 10**12)
#: Largest horizon a proof may name (minutes; the schedule files' own limit is far below).
MAX_HORIZON = 10**9
#: Relative excess of a claimed value over the proven one that is still accepted.
CLAIM_RTOL = 1e-9


def _objective(proof: dict[str, Any]) -> str:
    objective = proof.get("objective", "penalised_a")
    if objective not in WEIGHTS:
        raise BoundProofError(f"bound proof: unknown objective {objective!r}")
    return str(objective)


def _grid(proof: dict[str, Any]) -> Grid:
    horizon, bucket = proof.get("horizon"), proof.get("bucket")
    fine = proof.get("fine_until", horizon)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1
               for v in (horizon, bucket)) or not isinstance(fine, int) or fine < 0:
        raise BoundProofError(f"bound proof: horizon and bucket must be whole numbers >= 1 "
                              f"and fine_until >= 0, got {horizon!r}, {bucket!r}, {fine!r}")
    if horizon > MAX_HORIZON:  # type: ignore[operator]
        raise BoundProofError(f"bound proof: horizon {horizon} exceeds {MAX_HORIZON}")
    try:
        return Grid(int(horizon), int(bucket), int(fine))  # type: ignore[arg-type]
    except ValueError as err:
        raise BoundProofError(f"bound proof: {err}") from None


def lp_bound(instance: Instance, proof: dict[str, Any]) -> Fraction:
    """The exact weak-duality bound of the proof's duals on its grid (``BoundProofError``)."""
    objective, grid = _objective(proof), _grid(proof)
    duals = proof.get("duals")
    if not isinstance(duals, dict):
        raise BoundProofError("bound proof: field 'duals' must be an object of row names")
    lp = build(instance, objective, grid, exact=True)
    known = set(lp.row_keys)
    unknown = next((key for key in duals if key not in known), None)
    if unknown is not None:
        raise BoundProofError(f"bound proof: dual for unknown row {unknown!r}")
    values = []
    for key in lp.row_keys:
        value = duals.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
                value):
            raise BoundProofError(f"bound proof: dual of row {key!r} is not a finite number")
        values.append(value)
    total = weak_duality_bound(lp.costs, lp.lower, lp.upper, lp.rows, values)
    if total is None:
        raise BoundProofError("bound proof: the duals leave a column of negative reduced "
                              "cost without an upper bound (they prove nothing)")
    return total


def shaved(total: Fraction) -> float:
    """``total`` less :data:`VALUE_SHAVE` of itself, rounded down to a float."""
    return floor_float(total * (1 - VALUE_SHAVE))


def proven_value(instance: Instance, proof: dict[str, Any]) -> float:
    """The bound the proof proves: the per-job bound, raised by the others it names.

    The fluid bound when the proof has ``"fluid": true``, the LP's when it has duals,
    and the Lagrangian one of those duals (:mod:`hybridsched.malleable.lagrangian`)
    when it has ``"lagrangian": true``.
    """
    objective = _objective(proof)
    value = lower_bound(instance, objective)
    if proof.get("fluid") is True:
        total = fluid_bound(instance, objective)
        if total > 0:
            value = max(value, shaved(total))
    if "duals" in proof:
        total = lp_bound(instance, proof)
        if total > 0:
            value = max(value, shaved(total))
        if proof.get("lagrangian") is True:
            relaxed = lagrangian_bound(instance, _objective(proof), _grid(proof),
                                       proof["duals"])
            if relaxed is not None and relaxed > 0:
                value = max(value, shaved(relaxed))
    return value


def verify_bound(instance: Instance, certificate: BoundCertificate) -> float:
    """Recompute the certificate's bound; ``BoundProofError`` when it proves less than claimed."""
    value = proven_value(instance, dict(certificate.proof))
    if certificate.value > value + CLAIM_RTOL * max(1.0, abs(value)):
        raise BoundProofError(f"bound proof: proves {value!r}, less than the claimed "
                              f"{certificate.value!r}")
    return value
