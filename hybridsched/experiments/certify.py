"""Cross-certification: one instance, both exact backends, and what their answers prove together.

A proof is only as good as one model: a wrong cut, a big-M too small or a
tolerance in the wrong direction gives a wrong "optimal" that the model
alone cannot reveal. ``certify`` solves an instance with each backend's
``exact`` method (HiGHS's MILP and the independent CP-SAT model) and
judges the pair (all values are minimised, each objective recomputed by the
family's checker, each bound proven by its own backend):

* **defect** — one backend's proven bound lies above a schedule the other
  found and the checker accepted (this covers two different "optimal"
  values), or one proves the instance infeasible while the other holds a
  checked schedule. Something is wrong in a model, a solver or the checker;
  never a tie to break.
* **certified** — both prove the same optimum (or both prove infeasibility).
* **proven** — one backend proves the optimum, the other neither proves nor
  contradicts it (stopped by its time limit).
* **open** — no proof; the best incumbent and the best bound of either are
  reported, with their gap.

Two values are "the same" within :data:`AGREEMENT_TOL` (relative) plus
:data:`ABSOLUTE_TOL`: the backends' integrality tolerance scale, far below
any difference that matters (1 unfinished job, 1 cent, 1 second).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hybridsched.backends import BACKENDS
from hybridsched.provenance import provenance
from hybridsched.registry import run_method
from hybridsched.result import Result, Status, relative_gap

#: Relative difference under which two objective values or bounds agree.
AGREEMENT_TOL = 1e-6

#: Absolute difference under which two values agree (objectives near zero).
ABSOLUTE_TOL = 1e-9

#: Verdicts, from the worst.
DEFECT, CERTIFIED, PROVEN, OPEN = "defect", "certified", "proven", "open"

#: Which library's version each backend's proof depends on.
BACKEND_LIBRARY = {"highs": "highspy", "cpsat": "ortools"}


@dataclass
class Certificate:
    """Both backends' results on one instance, and the verdict they support."""

    instance: str
    family: str
    objective: str
    verdict: str
    reason: str
    best_known: float | None
    best_bound: float | None
    runs: dict[str, Result] = field(default_factory=dict)
    infeasible: bool = False
    #: Whether ``--record`` wrote it into the file (``None``: not asked).
    recorded: bool | None = None

    @property
    def gap(self) -> float | None:
        """Relative gap between the best schedule and the best bound of either backend."""
        return relative_gap(self.best_known, self.best_bound)

    def proven_by(self) -> list[str]:
        """Backends that proved the optimum (or the infeasibility)."""
        return [name for name, run in self.runs.items()
                if run.status in (Status.OPTIMAL, Status.INFEASIBLE)]

    def summary(self) -> dict[str, Any]:
        """JSON-ready record, one entry per backend with the version that produced it."""
        versions = provenance()
        return {
            "instance": self.instance, "family": self.family, "objective": self.objective,
            "verdict": self.verdict, "reason": self.reason, "infeasible": self.infeasible,
            "best_known": self.best_known, "best_bound": self.best_bound, "gap": self.gap,
            "proven_by": self.proven_by(),
            "backends": {
                name: {"status": run.status.value, "objective": run.objective,
                       "bound": run.bound, "runtime_s": run.runtime_s,
                       "version": versions.get(BACKEND_LIBRARY[name]), "message": run.message}
                for name, run in self.runs.items()},
            "hybridsched": versions["hybridsched"],
        }


def same(a: float, b: float) -> bool:
    """Whether two values agree within the certification tolerance."""
    return abs(a - b) <= ABSOLUTE_TOL + AGREEMENT_TOL * max(abs(a), abs(b))


def crosses(bound: float | None, incumbent: float | None) -> bool:
    """Whether a proven lower ``bound`` lies above a checked ``incumbent`` (beyond tolerance)."""
    if bound is None or incumbent is None:
        return False
    return bound > incumbent and not same(bound, incumbent)


def judge(runs: dict[str, Result]) -> tuple[str, str]:
    """The verdict and its reason for results of the same instance from different backends."""
    names = list(runs)
    infeasible = [n for n in names if runs[n].status is Status.INFEASIBLE]
    scheduled = [n for n in names if runs[n].status.has_solution]
    if infeasible and scheduled:
        return DEFECT, (f"{infeasible[0]} proves the instance infeasible, {scheduled[0]} holds "
                        f"a checked schedule of value {runs[scheduled[0]].objective:g}")
    for prover in names:
        for other in names:
            bound, value = _bound(runs[prover]), runs[other].objective
            if prover != other and crosses(bound, value):
                return DEFECT, (f"{prover} proves a bound of {bound:g}, above the checked "
                                f"schedule of value {value:g} that {other} found")
    if len(infeasible) == len(names):
        return CERTIFIED, "every backend proves the instance infeasible"
    optimal = [n for n in names if runs[n].status is Status.OPTIMAL]
    if len(optimal) == len(names):
        return CERTIFIED, f"every backend proves the optimum {runs[optimal[0]].objective:g}"
    if optimal or infeasible:
        proof = "the optimum" if optimal else "infeasibility"
        others = ", ".join(f"{n} {runs[n].status.value}" for n in names
                           if n not in optimal + infeasible)
        return PROVEN, f"{(optimal or infeasible)[0]} proves {proof}; {others}"
    return OPEN, "no backend proved the optimum within its time limit"


def _bound(run: Result) -> float | None:
    """A run's proven lower bound: its bound, or its objective when it proves optimality."""
    if run.status is Status.OPTIMAL and run.bound is None:
        return run.objective
    return run.bound


def certify(family: str, instance: Any, *, name: str, time_limit: float | None,
            backends: tuple[str, ...] = tuple(BACKENDS), objective: str | None = None,
            options: dict[str, Any] | None = None) -> Certificate:
    """Solve ``instance`` with ``exact`` on every backend and judge the answers."""
    from hybridsched.catalogue import get_family

    extra = dict(options or {})
    if objective is not None:
        extra["objective"] = objective
    runs = {backend: run_method(family, "exact", instance, seed=0, time_limit=time_limit,
                                backend=backend, **extra)
            for backend in backends}
    verdict, reason = judge(runs)
    values = [r.objective for r in runs.values() if r.objective is not None]
    bounds = [b for b in (_bound(r) for r in runs.values()) if b is not None]
    metric = (objective or next((r.metrics.get("optimised") for r in runs.values()
                                 if r.metrics.get("optimised")), None)
              or get_family(family).objective_metric)
    return Certificate(
        instance=name, family=family, objective=str(metric), verdict=verdict, reason=reason,
        best_known=min(values) if values else None,
        best_bound=max(bounds) if bounds else None, runs=runs,
        infeasible=any(r.status is Status.INFEASIBLE for r in runs.values()))
