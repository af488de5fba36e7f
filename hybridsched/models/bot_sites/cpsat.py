"""Exact bot-sites scheduling with OR-Tools CP-SAT: the solve driver and what it may claim.

The second, independent exact backend (``--backend cpsat``). The model is
written from the problem's definition (:mod:`~hybridsched.models.bot_sites.cpsat_build`,
whose docstring says how data are scaled and why the model is exact or a
relaxation), solved by :func:`~hybridsched.models.solvers.cpsat.solve_with_cpsat`
within the method's time budget, and read back as ordinary schedules
(:mod:`~hybridsched.models.bot_sites.cpsat_extract`) that the family checker judges.

Claims follow the family's rule, shared with the HiGHS path
(:mod:`~hybridsched.models.bot_sites.claims`): the best *checked*
schedule (CP-SAT's, the warm start, or the cheapest-site schedule) is
``optimal`` only when its checker-recomputed objective meets a bound valid
for the real problem within ``CLAIM_RTOL`` (relative, floor 1). The bounds
are the fluid/critical-path bound and CP-SAT's proven bound, which is valid
for the real problem whether the scaling was exact (the model's optimum is
the real one) or rounded (a relaxation: its bound is below the real
optimum). ``infeasible`` is claimed only when some BoT has no site where one
task fits the hard limits (otherwise one task at a time always fits).

Objectives: ``makespan``; or ``cost``, lexicographic like the HiGHS path:
minimum cost (known exactly, reached by the cheapest-site schedule), then
minimum makespan among minimum-cost schedules, which use only each BoT's
cheapest allowed sites; the model is restricted to those sites, status and
``bound`` refer to the cost, and the makespan's proof goes to
``metrics["makespan_bound"]`` and ``metrics["makespan_proven_minimal"]``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import cheapest_sites, limited
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.models.bot_sites import cpsat_assign
from hybridsched.models.bot_sites.claims import (
    CLAIM_RTOL,
    Candidate,
    Proof,
    checked_candidate,
    open_proof,
)
from hybridsched.models.bot_sites.cpsat_build import build
from hybridsched.models.bot_sites.cpsat_extract import extract
from hybridsched.models.bot_sites.cpsat_limits_solve import solve_phased
from hybridsched.models.solvers.cpsat import solve_with_cpsat
from hybridsched.result import Result, Status

#: Where the schedules read back from CP-SAT say they come from.
ORIGIN = "CP-SAT"

#: Seconds kept back from CP-SAT for reading its schedule back and checking it.
EXTRACT_RESERVE_S = 0.05


def solve(instance: Instance, *, objective: str = "makespan", start: Solution | None = None,
          budget: TimeBudget | None = None, time_limit: float | None = None, threads: int = 1,
          seed: int = 0, parameters: dict[str, Any] | None = None) -> Result:
    """Solve ``instance`` with CP-SAT (or until the time limit) and return a :class:`Result`.

    Parameters
    ----------
    instance:
        The instance.
    objective:
        ``"makespan"`` or ``"cost"`` (module docstring).
    start:
        A schedule to start from (checked, repaired over time when it breaks
        hard limits, ignored when invalid): CP-SAT's hint, and a candidate.
    budget, time_limit:
        The method's time budget (``time_limit`` makes one when ``budget``
        is not given); ``0``: no model, the best warm start with its bound.
    threads, seed:
        CP-SAT's search workers and random seed (one worker repeats exactly).
    parameters:
        Further CP-SAT parameters (benchmarks).
    """
    opening = open_proof(instance, objective, start)
    if isinstance(opening, Result):
        return opening
    proof, candidates = opening
    budget = budget if budget is not None else TimeBudget(time_limit)
    if budget.warm_start_only:
        return claim(proof, candidates, None, ["time limit 0: warm start only, no model built"],
                     timed_out=True)
    best = proof.best(candidates)
    if best is None:   # cannot happen: the cheapest-site schedule always fits
        return claim(proof, candidates, None, ["no valid starting schedule"])
    if objective == "makespan" and cpsat_assign.eligible(instance):
        # Large assignment models: CP-SAT on processor subsets first (a better hint).
        better = checked_candidate(instance, cpsat_assign.improve(
            instance, best.solution, horizon=best.makespan, seed=seed, budget=budget),
            "neighbourhood search")
        if better is not None:
            candidates.append(better)
            best = proof.best(candidates)
    sites = cheapest_sites(instance) if objective == "cost" else None
    notes: list[str] = []
    try:
        if limited(instance):   # hard limits: the task-interval model in two phases
            return _phased(instance, proof, candidates, best, sites, budget, threads, seed,
                           parameters)
        bm = build(instance, horizon=best.makespan, lower=proof.makespan_bound, sites=sites,
                   hint=best.solution, budget=budget)
        budget.check("building the CP-SAT model")
        remaining = budget.remaining()
        solver_budget = (budget if remaining is None
                         else TimeBudget(max(1e-3, remaining - EXTRACT_RESERVE_S)))
        outcome = solve_with_cpsat(bm.model, budget=solver_budget, threads=threads, seed=seed,
                                   parameters=parameters)
    except BudgetExpired as exc:
        return claim(proof, candidates, None, [f"time limit expired while {exc.stage}"],
                     timed_out=True)
    notes.append(bm.scaling.describe())
    if outcome.message:
        notes.append(outcome.message)
    if outcome.has_incumbent:
        for solution in extract(bm, outcome.solver):
            found = checked_candidate(instance, solution, ORIGIN)
            if found is not None:
                candidates.append(found)
    model_bound = None
    if outcome.status is Status.INFEASIBLE:
        notes.append("CP-SAT reported the model infeasible although a valid schedule is "
                     "known (a model bug)")
    elif outcome.bound is not None:
        # The model's optimum is at most the horizon (a known schedule is in it).
        value = min(float(outcome.bound), float(bm.upper))
        model_bound = _real_down(value, bm.scaling.factor)
    return claim(proof, candidates, model_bound, notes,
                 timed_out=outcome.status is Status.TIME_LIMIT,
                 metrics={"backend": "cpsat", "scale": bm.scaling.factor,
                          "scale_exact": bm.scaling.exact,
                          "cpsat_status": outcome.status.value})


def _phased(instance: Instance, proof: Proof, candidates: list[Candidate], best: Candidate,
            sites: np.ndarray | None, budget: TimeBudget, threads: int, seed: int,
            parameters: dict[str, Any] | None) -> Result:
    """Hard limits: :func:`~hybridsched.models.bot_sites.cpsat_limits_solve.solve_phased`."""
    found = solve_phased(instance, start=best.solution, horizon=best.makespan,
                         lower=proof.makespan_bound, sites=sites, budget=budget,
                         threads=threads, seed=seed, parameters=parameters)
    for solution in found.solutions:
        candidate = checked_candidate(instance, solution, ORIGIN)
        if candidate is not None:
            candidates.append(candidate)
    return claim(proof, candidates, found.bound, found.notes, timed_out=found.timed_out,
                 metrics={"backend": "cpsat", **found.metrics})


def _real_down(value: float, factor: int) -> float:
    """``value / factor`` rounded down (a bound stays a bound in floating point)."""
    return math.nextafter(float(value) / factor, -math.inf)


def _meets(value: float, bound: float) -> bool:
    """The family's claim rule: ``value`` within ``CLAIM_RTOL`` (floor 1) of ``bound``."""
    return value <= bound + CLAIM_RTOL * max(1.0, abs(bound))


def claim(proof: Proof, candidates: list[Candidate], model_bound: float | None,
          notes: list[str], *, timed_out: bool = False,
          metrics: dict[str, Any] | None = None) -> Result:
    """The result for the best candidate, claiming only what the bounds prove.

    ``model_bound`` is CP-SAT's bound on the makespan (among min-cost
    schedules with ``objective="cost"``) in real units, or ``None``.
    """
    span_bound = proof.makespan_bound
    if model_bound is not None:
        span_bound = max(span_bound, model_bound)
    best = proof.best(candidates)
    if best is None:
        return Result("exact", "bot-sites", Status.NO_SOLUTION,
                      bound=span_bound if proof.objective == "makespan" else proof.cost_bound,
                      message="; ".join(notes) or "no schedule found")
    span_proven = _meets(best.makespan, span_bound)
    extra: dict[str, Any] = {"schedule_from": best.origin, **(metrics or {})}
    if proof.objective == "makespan":
        proven = span_proven
        bound = best.makespan if proven else min(span_bound, best.makespan)
    else:
        proven = _meets(best.cost, proof.cost_bound)
        bound = best.cost if proven else min(proof.cost_bound, best.cost)
        extra["makespan_bound"] = best.makespan if span_proven else min(span_bound,
                                                                        best.makespan)
        extra["makespan_proven_minimal"] = bool(span_proven)
        extra["optimised"] = "cost, then makespan"
        notes.append("cost proven minimal" if proven else "cost not proven minimal")
        notes.append("makespan proven minimal among min-cost schedules" if span_proven
                     else "makespan among min-cost schedules not proven minimal")
    status = Status.OPTIMAL if proven else Status.TIME_LIMIT if timed_out else Status.FEASIBLE
    if best.origin != ORIGIN:
        notes.append(f"schedule is the {best.origin}")
    return Result("exact", "bot-sites", status, solution=best.solution, bound=bound,
                  message="; ".join(n for n in notes if n), metrics=extra)
