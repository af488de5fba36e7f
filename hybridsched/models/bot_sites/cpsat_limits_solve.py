"""Solving the hard-limit task model in two phases: a coarse grid, then the claim grid.

Why two phases. The model (:mod:`~hybridsched.models.bot_sites.cpsat_limits`) is a
relaxation on any time grid, so its bound is valid on every grid; but a
proven optimum becomes an ``optimal`` claim only when the re-timed schedule
(:func:`~hybridsched.models.bot_sites.cpsat_limits_extract.order_retime`) lies
within the claim tolerance of the bound, which needs a fine grid (scaled
horizons ~1e11 for makespans ~1e5). CP-SAT's search finds good schedules
and proves far faster on a coarse grid (horizon ~:data:`COARSE_RANGE`), so:

1. **Coarse**: the model with times rounded down on a grid of horizon about
   :data:`COARSE_RANGE` (at most :data:`COARSE_SHARE` of the time left). Its
   bound ``L_c`` is valid for the real problem; its schedule, re-timed with
   the real durations, is a candidate.
2. **Fine**: the model on the claim grid, hinted with the best real
   schedule so far and with ``C >= floor(L_c * factor)``: valid, because
   every real schedule has makespan ``>= L_c`` and maps into the fine model
   with ``C = floor(makespan * factor)``. Skipped when phase 1 already
   meets the claim rule.

The reported bound is the larger of the two phases' bounds (each valid).
Both phases use ``linearization_level=2`` (CP-SAT's LP with the cumulative
and no-overlap energy cuts: several instances proven in seconds instead of
not at all) unless ``parameters`` say otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hybridsched.bot_sites.checker import check, completion_times
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import retime
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.models.bot_sites.cpsat_limits import (
    CLAIM_RTOL,
    LimitsModel,
    build_limits,
    limits_scaling,
)
from hybridsched.models.bot_sites.cpsat_limits_extract import model_tasks, order_retime
from hybridsched.models.solvers.cpsat import Scaling, solve_with_cpsat
from hybridsched.result import Status

#: Scaled horizon of the coarse phase.
COARSE_RANGE = 10**6

#: Largest share of the remaining time the coarse phase may use.
COARSE_SHARE = 0.6

#: CP-SAT parameters of both phases (overridable).
DEFAULT_PARAMETERS: dict[str, Any] = {"linearization_level": 2}

#: Seconds kept back from CP-SAT for reading schedules back and checking them.
EXTRACT_RESERVE_S = 0.05

NOTES = {"method": "exact", "backend": "cpsat"}


@dataclass
class PhasedOutcome:
    """Schedules found (real units, unchecked), the best valid bound, and what happened."""

    solutions: list[Solution] = field(default_factory=list)
    bound: float | None = None
    timed_out: bool = False
    notes: list[str] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)


def solve_phased(instance: Instance, *, start: Solution, horizon: float, lower: float,
                 sites: np.ndarray | None, budget: TimeBudget, threads: int = 1, seed: int = 0,
                 parameters: dict[str, Any] | None = None) -> PhasedOutcome:
    """Both phases (module docstring); ``start`` is a checked schedule of makespan ``horizon``."""
    params = DEFAULT_PARAMETERS | dict(parameters or {})
    out = PhasedOutcome()
    fine = limits_scaling(instance, horizon, lower)
    coarse_factor = 10 ** max(0, math.floor(math.log10(COARSE_RANGE / max(horizon, 1e-300))))
    best, best_span = start, horizon
    if coarse_factor < fine.factor:
        share = _share(budget, COARSE_SHARE)
        lm, outcome = _phase(instance, Scaling(coarse_factor, False), best, best_span, lower,
                             sites, budget, share, threads, seed, params)
        bound = _bound(lm, outcome)
        out.metrics |= {"coarse_scale": coarse_factor, "coarse_status": outcome.status.value,
                        "coarse_seconds": outcome.seconds, "coarse_bound": bound}
        if bound is not None:
            lower = max(lower, bound)
            out.bound = lower
        best, best_span = _collect(instance, lm, outcome, out, best, best_span)
        if _meets(best_span, lower):
            out.metrics |= {"scale": coarse_factor, "scale_exact": False,
                            "cpsat_status": outcome.status.value}
            return out
    try:
        budget.check("solving the CP-SAT model")
        lm, outcome = _phase(instance, fine, best, best_span, lower, sites, budget,
                             _share(budget, 1.0), threads, seed, params)
    except BudgetExpired as exc:   # keep what the coarse phase found
        out.timed_out = True
        out.notes.append(f"time limit expired while {exc.stage} (fine grid)")
        return out
    out.metrics |= {"scale": fine.factor, "scale_exact": fine.exact,
                    "cpsat_status": outcome.status.value, "fine_seconds": outcome.seconds}
    bound = _bound(lm, outcome)
    if bound is not None:
        out.bound = max(bound, out.bound if out.bound is not None else -math.inf)
    _collect(instance, lm, outcome, out, best, best_span)
    out.timed_out = outcome.status is Status.TIME_LIMIT
    if outcome.message:
        out.notes.append(outcome.message)
    out.notes.append(f"hard limits: task model, coarse grid then {fine.describe()}")
    return out


def _share(budget: TimeBudget, share: float) -> TimeBudget:
    remaining = budget.remaining()
    if remaining is None:
        return TimeBudget(None)
    return TimeBudget(max(1e-3, share * remaining - EXTRACT_RESERVE_S))


def _phase(instance: Instance, scaling: Scaling, hint: Solution, horizon: float, lower: float,
           sites: np.ndarray | None, budget: TimeBudget, share: TimeBudget, threads: int,
           seed: int, params: dict[str, Any]) -> tuple[LimitsModel, Any]:
    lm = build_limits(instance, horizon=horizon, lower=lower, sites=sites, hint=hint,
                      budget=budget, scaling=scaling)
    budget.check("building the CP-SAT model")
    outcome = solve_with_cpsat(lm.model, budget=share, threads=threads, seed=seed,
                               parameters=params)
    return lm, outcome


def _bound(lm: LimitsModel, outcome: Any) -> float | None:
    """The phase's bound in real units (rounded down), or ``None``."""
    if outcome.status is Status.INFEASIBLE:
        # The model contains the scaled hint: a model bug, not a proof. Claim nothing.
        return None
    if outcome.bound is None:
        return None
    value = min(float(outcome.bound), float(lm.upper))
    return math.nextafter(value / lm.scaling.factor, -math.inf)


def _collect(instance: Instance, lm: LimitsModel, outcome: Any, out: PhasedOutcome,
             best: Solution, best_span: float) -> tuple[Solution, float]:
    """Add the incumbent's schedules to ``out``; the best real schedule so far."""
    if not outcome.has_incumbent:
        return best, best_span
    site, start = model_tasks(lm, outcome.solver)
    found = order_retime(instance, lm.bot, site, start, lm.duration, notes=NOTES)
    glob = instance.proc_offset[site] + (found.proc if found is not None else 0)
    listed = retime(instance, lm.bot, glob, np.ones(len(site), np.int64), start.astype(float),
                    notes=NOTES) if found is not None else None
    for solution in (found, listed):
        if solution is None:
            continue
        out.solutions.append(solution)
        span = float(completion_times(instance, solution).max(initial=0.0))
        if span < best_span and not check(instance, solution):
            best, best_span = solution, span
    return best, best_span


def _meets(value: float, bound: float) -> bool:
    """The family's claim rule (``claims``): within CLAIM_RTOL, floor 1."""
    return value <= bound + CLAIM_RTOL * max(1.0, abs(bound))
