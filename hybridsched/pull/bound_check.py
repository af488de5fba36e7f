"""Exact check of a ``pull`` strong-bound certificate (no solver: fractions only).

A certificate of :func:`hybridsched.models.pull.bound.strong_bound` is either
closed-form (empty proof: the capacity and largest-unit bound of
:mod:`.bounds` and the earliest-completion bound of :mod:`.bound_units`,
recomputed; every certificate is worth at least that) or a dual vector of the window LP
(:mod:`.bound_lp`) at a run end ``T``: ``{"end": T, "rho": ..., "cover":
[...], "capacity": {window key: dual}, "waste": {class key: [slope, dual]}}``.
:func:`verify_bound` rebuilds every row from the instance's data with exact
arithmetic; by weak duality (:func:`~hybridsched.bound_proof.weak_duality_bound`)
the duals prove a lower bound on the LP's minimum whatever the solver's
rounding. A positive one proves that no accepted schedule ends by ``T``,
so the makespan exceeds ``T`` minus the first schedule.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from hybridsched.bound_proof import (
    BoundCertificate,
    BoundProofError,
    exact,
    floor_float,
    weak_duality_bound,
)
from hybridsched.pull.bound_lp import exact_rows, structure
from hybridsched.pull.bound_units import closed_form_bound
from hybridsched.pull.instance import Instance

#: Relative slack of a claimed value against the recomputed one.
CLAIM_RTOL = 1e-9


def _number(proof: dict[str, Any], key: str) -> float:
    value = proof.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BoundProofError(f"bound proof: field {key!r} must be a finite number")
    return float(value)


def lp_bound(instance: Instance, proof: dict[str, Any]) -> float:
    """The makespan bound the window-LP proof proves (rounded down); ``BoundProofError`` if none."""
    end = _number(proof, "end")
    rho = _number(proof, "rho")
    if rho < 0:
        raise BoundProofError("bound proof: field 'rho' must be >= 0")
    s = structure(instance, end, rho)
    cover = proof.get("cover", [])
    capacity = proof.get("capacity", {})
    waste = proof.get("waste", {})
    if not (isinstance(cover, list) and isinstance(capacity, dict) and isinstance(waste, dict)):
        raise BoundProofError("bound proof: 'cover' must be a list, 'capacity' and 'waste' "
                              "objects")
    if len(cover) != len(s.classes.count):
        raise BoundProofError(f"bound proof: {len(cover)} cover duals for "
                              f"{len(s.classes.count)} unit classes")
    slopes, waste_duals = {}, {}
    for k in range(len(s.host_classes)):
        entry = waste.get(s.class_key(k))
        if entry is None or not s.waste[k]:
            continue
        if not (isinstance(entry, list) and len(entry) == 2):
            raise BoundProofError(f"bound proof: waste entry {s.class_key(k)!r} must be "
                                  "[slope, dual]")
        slopes[k] = exact(entry[0])
        waste_duals[f"waste:{s.class_key(k)}"] = entry[1]
    costs, lower, upper, rows, keys = exact_rows(s, slopes)
    duals = []
    for key in keys:
        kind, name = key.split(":", 1)
        if kind == "cover":
            duals.append(cover[int(name)])
        elif kind == "cap":
            duals.append(capacity.get(name, 0))
        else:
            duals.append(waste_duals[key])
    try:
        proven = weak_duality_bound(costs, lower, upper, rows, duals)
    except (TypeError, ValueError) as error:
        raise BoundProofError(f"bound proof: a dual is not a number ({error})") from None
    if proven is None or proven <= 0:
        raise BoundProofError(f"bound proof: the duals do not prove that no schedule ends by "
                              f"{end!r} (LP bound {float(proven or 0):.3g}, not positive)")
    return floor_float(Fraction(end) - Fraction(instance.first_schedule()))


def verify_bound(instance: Instance, certificate: BoundCertificate) -> float:
    """The bound ``certificate`` proves, recomputed exactly (rounded down).

    Raises
    ------
    BoundProofError
        The proof proves nothing, or less than the claimed value (beyond
        :data:`CLAIM_RTOL`, relative).
    """
    value = closed_form_bound(instance)  # inf: no host ever completes some unit
    if certificate.proof:
        value = max(value, lp_bound(instance, certificate.proof))
    claimed = certificate.value
    if claimed > value + CLAIM_RTOL * max(1.0, abs(value)):
        raise BoundProofError(f"bound proof: claims {claimed!r}, but proves only {value!r}")
    return value
