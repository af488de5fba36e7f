"""What a bot-sites exact solve may claim: checked candidates, proven bounds, the Result.

Tolerances. The models state the constraints exactly (no tolerance on time):
bounds and "optimal" refer to schedules that respect processors and
precedence exactly, and those are exactly the schedules the checker accepts:
it judges the *real* times (:mod:`hybridsched.bot_sites.checker`'s rule), in
which its ``1e-9`` relative window only snaps a stated start onto the time it
must respect or decides a violation, so no accepted schedule is shorter than
the same blocks run exactly back to back (binary64 rounding of the
recomputed sums aside, far below :data:`CLAIM_RTOL`). Limits use the
checker's rule and constant ``LIMIT_TOL``, over the real times. Every
schedule read back is re-timed exactly
(:func:`~hybridsched.bot_sites.limits.retime`, which also enforces the limits
over time) and checked by the family checker before anything is claimed
(:func:`checked_candidate`); a result is ``optimal`` only when its
checker-recomputed objective meets a bound valid for the real problem within
:data:`CLAIM_RTOL` (relative, with a floor of 1 in absolute value), plus,
when that bound is HiGHS's, the solver's absolute feasibility tolerance along
the critical chain (:func:`solver_slack`: HiGHS's bound is valid, but may
undercut the optimum by that much). Such a result reports its objective as
its bound. A restricted model's (static hard limits,
:func:`~hybridsched.models.bot_sites.milp_build.restricted`) infeasibility and
bound prove nothing. :class:`Proof` holds these rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hybridsched.bot_sites.bounds import lower_bound, min_cost
from hybridsched.bot_sites.checker import check, completion_times, schedule_cost
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import (
    allowed_pairs,
    cheapest_schedule,
    cheapest_sites,
    limited,
    repair,
)
from hybridsched.bot_sites.solution import Solution
from hybridsched.errors import InputError
from hybridsched.models.bot_sites.milp_build import BotModel, restricted
from hybridsched.models.solvers.highs import MIP_FEASIBILITY_TOL, SolveOutcome
from hybridsched.result import Result, Status

#: Relative tolerance (with a floor of 1 in absolute value) for claiming that an
#: objective meets a proven bound.
CLAIM_RTOL = 1e-9


def _meets(value: float, bound: float, absolute: float = 0.0) -> bool:
    """Whether ``value`` is within :data:`CLAIM_RTOL` (plus ``absolute``) of ``bound``."""
    return value <= bound + CLAIM_RTOL * max(1.0, abs(bound)) + absolute


def solver_slack(bm: BotModel) -> float:
    """Time by which HiGHS's bound may undercut the optimum through its tolerances.

    HiGHS accepts rows violated by up to its MIP feasibility tolerance
    (:data:`~hybridsched.models.solvers.highs.MIP_FEASIBILITY_TOL`, absolute; kept at
    1e-6 by the driver), so its bound on ``C`` is valid but may sit that much
    below the optimum per row on the critical chain: one row without a DAG,
    ``B_k + 3`` rows per BoT on a path with one.
    """
    rows = 1 if bm.blocks is None else int(np.sum(bm.blocks + 3))
    return MIP_FEASIBILITY_TOL * rows


@dataclass
class Candidate:
    """A checked schedule with its recomputed makespan and cost."""

    solution: Solution
    makespan: float
    cost: float
    origin: str


def checked_candidate(instance: Instance, solution: Solution | None, origin: str
               ) -> Candidate | None:
    """``solution`` if the checker accepts it (repaired over time when it does not)."""
    if solution is None:
        return None
    if check(instance, solution):
        solution = repair(instance, solution)
        if solution is None or check(instance, solution):
            return None
        origin += " (re-timed)"
    return Candidate(solution, float(completion_times(instance, solution).max(initial=0.0)),
                      schedule_cost(instance, solution), origin)


class Proof:
    """What is proven about one instance and objective, and the result it supports."""

    def __init__(self, instance: Instance, objective: str):
        self.instance = instance
        self.objective = objective
        if objective == "makespan":
            self.makespan_bound = lower_bound(instance)
            self.cost_bound = math.nan
        else:
            self.cost_bound = min_cost(instance)
            # Min-cost schedules use cheapest sites only: the bounds restricted to them.
            self.makespan_bound = lower_bound(instance, sites=cheapest_sites(instance))

    def key(self, c: Candidate) -> tuple[float, float]:
        """Lexicographic order: (makespan, cost) or (cost at claim resolution, makespan)."""
        if self.objective == "makespan":
            return (c.makespan, c.cost)
        at_min = _meets(c.cost, self.cost_bound)
        return (self.cost_bound if at_min else c.cost, c.makespan)

    def best(self, candidates: list[Candidate]) -> Candidate | None:
        """The best candidate (the MILP's on ties)."""
        if not candidates:
            return None
        return min(candidates, key=lambda c: (*self.key(c), c.origin != "MILP"))

    def result(self, candidates: list[Candidate], bm: BotModel | None,
               outcome: SolveOutcome | None, message: str, timed_out: bool = False
               ) -> Result:
        """The result for the best candidate, claiming only what the bounds prove."""
        instance = self.instance
        model_bound = None
        notes: list[str] = [message] if message else []
        if outcome is not None and bm is not None:
            if outcome.status is Status.INFEASIBLE:
                notes.append("the restricted model is infeasible (proves nothing)"
                             if restricted(instance) else
                             "HiGHS reported the model infeasible although a valid schedule "
                             "is known (numerical trouble)")
            elif (outcome.bound is not None and not restricted(instance)
                  and outcome.status in (Status.OPTIMAL, Status.TIME_LIMIT)):
                model_bound = float(outcome.bound)
            elif restricted(instance) and outcome.status is Status.OPTIMAL:
                notes.append("MILP optimal under the static limit rule only (a restriction): "
                             "makespans are certified by the fluid/critical-path bound")
        span_bound = self.makespan_bound
        if model_bound is not None:
            span_bound = max(span_bound, model_bound)
        slack = solver_slack(bm) if model_bound is not None and bm is not None else 0.0
        best = self.best(candidates)
        if best is None:
            return Result("exact", "bot-sites", Status.NO_SOLUTION,
                          bound=span_bound if self.objective == "makespan" else self.cost_bound,
                          message="; ".join(notes) or "no schedule found")
        span_proven = _meets(best.makespan, self.makespan_bound) or (
            model_bound is not None and _meets(best.makespan, model_bound, slack))
        metrics: dict[str, Any] = {"schedule_from": best.origin}
        if self.objective == "makespan":
            proven = span_proven
            bound = min(span_bound, best.makespan)
        else:
            proven = _meets(best.cost, self.cost_bound)
            bound = min(self.cost_bound, best.cost)
            metrics["makespan_bound"] = min(span_bound, best.makespan)
            metrics["makespan_proven_minimal"] = bool(span_proven)
            metrics["optimised"] = "cost, then makespan"
            notes.append("cost proven minimal" if proven else "cost not proven minimal")
            notes.append("makespan proven minimal among min-cost schedules" if span_proven
                         else "makespan among min-cost schedules not proven minimal")
        status = (Status.OPTIMAL if proven
                  else Status.TIME_LIMIT if timed_out else Status.FEASIBLE)
        if proven:   # proven within CLAIM_RTOL: report the optimum as its own bound
            bound = best.makespan if self.objective == "makespan" else best.cost
        if best.origin != "MILP" and bm is not None:
            notes.append(f"schedule is the {best.origin}")
        return Result("exact", "bot-sites", status, solution=best.solution, bound=bound,
                      message="; ".join(n for n in notes if n), metrics=metrics)


def open_proof(instance: Instance, objective: str, start: Solution | None
               ) -> tuple[Proof, list[Candidate]] | Result:
    """What both exact backends start from: the proof's bounds and the checked candidates.

    ``start`` (checked, repaired over time when it breaks hard limits) is the
    first candidate; the cheapest-site schedule is one too for the cost
    objective, or under hard limits when ``start`` is unusable. An instance
    where some task alone breaks a hard limit on every site is infeasible:
    that is returned as the result.
    """
    if objective not in ("makespan", "cost"):
        raise InputError(f"--objective: must be 'makespan' or 'cost', got {objective!r}")
    allowed = allowed_pairs(instance)
    if not allowed.any(axis=1).all():
        names = [instance.bot_ids[k] for k in np.flatnonzero(~allowed.any(axis=1))]
        return Result("exact", "bot-sites", Status.INFEASIBLE,
                      message="infeasible: one task alone breaks a hard limit on every site: "
                      + ", ".join(names))
    candidates = [c for c in (checked_candidate(instance, start, "warm start"),) if c is not None]
    if objective == "cost" or (limited(instance) and not candidates):
        cheap = checked_candidate(instance, cheapest_schedule(instance), "cheapest-site schedule")
        if cheap is not None:
            candidates.append(cheap)
    return Proof(instance, objective), candidates
