"""Solving Pyomo models with HiGHS (through Pyomo's APPSI interface to highspy)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pyomo.environ as pyo
from pyomo.contrib.appsi.base import TerminationCondition
from pyomo.contrib.appsi.solvers import Highs

from hybridsched.result import Status


@dataclass(frozen=True)
class SolveOutcome:
    """What HiGHS reported: status, incumbent value and proven bound.

    ``status`` is ``OPTIMAL``, ``TIME_LIMIT`` (with or without an incumbent:
    see ``has_incumbent``), ``INFEASIBLE``, or ``FEASIBLE`` when HiGHS ended
    with a numerical error but holds an incumbent. When an incumbent exists its
    values are loaded into the Pyomo variables.
    """

    status: Status
    objective: float | None
    bound: float | None
    has_incumbent: bool
    message: str = ""


def solve_with_highs(
    model: pyo.ConcreteModel,
    *,
    time_limit: float | None = None,
    mip_rel_gap: float = 1e-6,
    warm_start: bool = False,
    verbose: bool = False,
) -> SolveOutcome:
    """Solve ``model`` (minimisation) with HiGHS.

    Parameters
    ----------
    model:
        A Pyomo model with one active objective.
    time_limit:
        Seconds of solver time; ``None`` for no limit.
    mip_rel_gap:
        Relative gap at which HiGHS may stop and report optimality.
    warm_start:
        Pass the variables' current values to HiGHS as a starting solution.
    verbose:
        Stream the HiGHS log.
    """
    solver = Highs()
    if not solver.available():
        raise RuntimeError("HiGHS (highspy) is not available")
    solver.config.time_limit = time_limit
    solver.config.mip_gap = mip_rel_gap
    solver.config.load_solution = False
    solver.config.stream_solver = verbose
    solver.config.warmstart = warm_start
    solver.highs_options = {"threads": 1, "random_seed": 0}
    results = solver.solve(model)
    condition = results.termination_condition
    incumbent = results.best_feasible_objective
    bound = results.best_objective_bound
    bound = None if bound is None or not math.isfinite(bound) else float(bound)
    has_incumbent = incumbent is not None and math.isfinite(incumbent)
    if has_incumbent:
        results.solution_loader.load_vars()
    if condition == TerminationCondition.optimal:
        return SolveOutcome(Status.OPTIMAL, float(incumbent), bound, True)
    if condition in (TerminationCondition.infeasible, TerminationCondition.infeasibleOrUnbounded):
        return SolveOutcome(Status.INFEASIBLE, None, None, False, "the model is infeasible")
    if condition in (
        TerminationCondition.maxTimeLimit,
        TerminationCondition.maxIterations,
        TerminationCondition.interrupted,
    ):
        return SolveOutcome(
            Status.TIME_LIMIT,
            float(incumbent) if has_incumbent else None,
            bound,
            has_incumbent,
            "time limit reached",
        )
    if has_incumbent:
        # E.g. "MIP solver claims optimality, but with primal infeasibilities": keep the
        # incumbent (the family checker validates it) but claim no proof.
        return SolveOutcome(Status.FEASIBLE, float(incumbent), bound, True,
                            f"HiGHS stopped with {condition.name}; incumbent kept unproven")
    raise RuntimeError(f"HiGHS stopped with {condition.name} and no solution")
