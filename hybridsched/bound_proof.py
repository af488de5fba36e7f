"""Lower bounds that carry their proof, and the exact arithmetic that checks one.

A bound recorded in the library must not rest on a solver's floating-point
word. So a family's strong bound is a :class:`BoundCertificate`: the value,
the method's name, and a JSON-ready ``proof`` from which the family's
``verify_bound(instance, proof)`` recomputes the value *from the instance's
data* with exact arithmetic, independently of the solver that found it.

For bounds from a linear programme (``min c x`` over ``A x (>=|<=|==) b``,
``lower <= x <= upper``) the proof is a dual vector ``y``: by weak duality
every ``y`` of the right signs proves ``b y + sum_j min_{x_j} (c - A^T y)_j x_j``,
whatever the solver's rounding (:func:`weak_duality_bound`). A dual that is
slightly infeasible only costs its violations times the variables' upper
bounds (the Neumaier-Shcherbina correction); against an unbounded variable it
proves nothing.

Example
-------
>>> rows = [Row({0: 1, 1: 1}, ">=", 3)]            # x0 + x1 >= 3
>>> float(weak_duality_bound([2, 5], [0, 0], [None, None], rows, [2.0]))
6.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from hybridsched.result import Result, Status

Number = int | float | Fraction

#: Senses a :class:`Row` may have.
SENSES = (">=", "<=", "==")


class BoundProofError(Exception):
    """A proof does not prove the bound it comes with (message: one line, what fails)."""


@dataclass(frozen=True)
class BoundCertificate:
    """A lower bound on a family's objective with what proves it.

    Attributes
    ----------
    value:
        The bound, already rounded down to a float that does not exceed the
        exactly recomputed value.
    method:
        What proves it, in words (``"deadline-interval flow LP, dual"``).
    proof:
        JSON-ready data from which the family's ``verify_bound`` recomputes
        ``value`` exactly (e.g. dual values); empty for closed-form bounds,
        which ``verify_bound`` recomputes from the instance alone.
    """

    value: float
    method: str
    proof: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The certificate as a JSON-ready document."""
        return {"value": self.value, "method": self.method, "proof": self.proof}

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], source: str = "bound proof") -> BoundCertificate:
        """A certificate from :meth:`to_dict`'s document; ``BoundProofError`` naming a bad field."""
        if not isinstance(doc, Mapping):
            raise BoundProofError(f"{source}: expected an object with value, method and proof")
        value = doc.get("value")
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise BoundProofError(f"{source}: field 'value' must be a number, got {value!r}")
        method = doc.get("method")
        if not isinstance(method, str) or not method:
            raise BoundProofError(f"{source}: field 'method' must be a non-empty string")
        proof = doc.get("proof", {})
        if not isinstance(proof, Mapping):
            raise BoundProofError(f"{source}: field 'proof' must be an object")
        return cls(float(value), method, dict(proof))


@dataclass(frozen=True)
class Row:
    """One constraint ``sum_j coefficients[j] x_j  sense  rhs`` of a minimisation LP."""

    coefficients: Mapping[int, Number]
    sense: str
    rhs: Number

    def __post_init__(self) -> None:
        if self.sense not in SENSES:
            raise ValueError(f"row sense must be one of {SENSES}, got {self.sense!r}")


def exact(value: Number) -> Fraction:
    """``value`` as an exact fraction (a float's exact binary value, not its decimal print)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise BoundProofError(f"not a finite number: {value!r}")
    return Fraction(value)


def floor_float(value: Fraction) -> float:
    """The largest float that does not exceed ``value`` (directed rounding down)."""
    nearest = float(value)
    if Fraction(nearest) > value:
        nearest = math.nextafter(nearest, -math.inf)
    return nearest


def weak_duality_bound(
    costs: Sequence[Number],
    lower: Sequence[Number | None],
    upper: Sequence[Number | None],
    rows: Sequence[Row],
    duals: Sequence[Number],
) -> Fraction | None:
    """The bound a dual vector proves for ``min costs x`` over ``rows`` and variable bounds.

    ``duals[i]`` belongs to ``rows[i]``; a dual of the wrong sign for its row
    (negative on ``>=``, positive on ``<=``) is taken as 0, so any vector is
    safe to pass. Returns the exact value, or ``None`` when the vector proves
    nothing (a reduced cost of the wrong sign on a variable without the
    matching finite bound). ``None`` in ``lower``/``upper`` means unbounded.
    """
    if len(duals) != len(rows):
        raise BoundProofError(f"{len(duals)} dual values for {len(rows)} rows")
    reduced = [exact(c) for c in costs]
    total = Fraction(0)
    for row, raw in zip(rows, duals, strict=True):
        y = exact(raw)
        if (row.sense == ">=" and y < 0) or (row.sense == "<=" and y > 0) or y == 0:
            continue
        total += y * exact(row.rhs)
        for j, a in row.coefficients.items():
            reduced[j] -= y * exact(a)
    for j, d in enumerate(reduced):
        if d == 0:
            continue
        end = lower[j] if d > 0 else upper[j]
        if end is None:
            return None
        total += d * exact(end)
    return total


def bounded_result(
    family: str,
    solution: Any,
    objective: float | None,
    certificate: BoundCertificate | None,
    message: str = "",
    *,
    method: str = "bound",
    rtol: float = 1e-9,
) -> Result:
    """The ``bound`` method's result: a checked schedule (or none) and the proven bound.

    ``objective`` is the schedule's objective as the family's checker computes
    it; the status is ``optimal`` when it meets the bound (within ``rtol``,
    relative and as much absolute: the gap rule of :mod:`hybridsched.result`),
    ``feasible`` otherwise, ``no solution`` without a schedule.
    """
    bound = None if certificate is None else certificate.value
    if solution is None:
        status = Status.NO_SOLUTION
    elif (bound is not None and objective is not None
          and objective <= bound + rtol * max(1.0, abs(bound))):
        status = Status.OPTIMAL
    else:
        status = Status.FEASIBLE
    metrics: dict[str, Any] = {}
    if certificate is not None:
        metrics["bound_method"] = certificate.method
        # What proves the bound travels with the run, so that a campaign's store keeps
        # it and the library build can record it without computing it again.
        metrics["bound_certificate"] = certificate.to_dict()
    return Result(method, family, status, solution=solution, objective=objective,
                  bound=bound, metrics=metrics, message=message)
