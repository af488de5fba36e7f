"""The result object every method returns, heuristic or exact."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    """Outcome of one method on one instance.

    ``TIME_LIMIT`` carries an incumbent (feasible, not proven optimal) with a
    bound; ``NO_SOLUTION`` means the method stopped without any schedule
    (time limit before an incumbent, or a heuristic that ran out of
    resources), which is *not* a proof of infeasibility.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    TIME_LIMIT = "time_limit"
    INFEASIBLE = "infeasible"
    NO_SOLUTION = "no_solution"

    @property
    def has_solution(self) -> bool:
        """Whether a result with this status carries a schedule."""
        return self in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT)


def relative_gap(value: float | None, reference: float | None) -> float | None:
    """Return ``(value - reference) / |reference|``; 0 when both are 0.

    A positive reference of 0 with a positive value gives ``inf``, which keeps
    "cost 0.2 where the optimum is free" visibly worse than any finite gap.
    """
    if value is None or reference is None:
        return None
    if math.isclose(value, reference, rel_tol=1e-9, abs_tol=1e-9):
        return 0.0
    if reference == 0:
        return math.inf
    return (value - reference) / abs(reference)


@dataclass
class Result:
    """What a method produced on an instance, with the proof it can offer.

    Attributes
    ----------
    method, family:
        Registry name of the method and of the problem family.
    status:
        See :class:`Status`.
    solution:
        The family's solution object (``None`` unless ``status.has_solution``).
    objective:
        Objective value recomputed by the family's checker, never the
        algorithm's own bookkeeping.
    bound:
        Proven lower bound (minimisation) when the method provides one.
    runtime_s:
        Wall-clock time of the algorithm alone (no file IO), in seconds.
    cpu_s:
        CPU time of this process during the algorithm (includes the solver).
    metrics:
        Further criteria recomputed by the checker (makespan, energy, ...).
    """

    method: str
    family: str
    status: Status
    solution: Any = None
    objective: float | None = None
    bound: float | None = None
    runtime_s: float = 0.0
    cpu_s: float = 0.0
    seed: int | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    message: str = ""

    @property
    def gap(self) -> float | None:
        """Relative gap between the objective and the method's own bound."""
        return relative_gap(self.objective, self.bound)

    def summary(self) -> dict[str, Any]:
        """JSON-ready summary (without the schedule itself)."""
        return {
            "method": self.method,
            "family": self.family,
            "status": self.status.value,
            "objective": self.objective,
            "bound": self.bound,
            "gap": self.gap,
            "runtime_s": self.runtime_s,
            "cpu_s": self.cpu_s,
            "seed": self.seed,
            "metrics": self.metrics,
            "message": self.message,
        }
