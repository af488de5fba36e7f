"""Solving Pyomo models with HiGHS (through Pyomo's APPSI interface to highspy).

Tolerances: HiGHS's default primal feasibility tolerance (1e-7) is looser
than the checkers' 1e-9, so a solver "solution" could break a deadline by a
microsecond; :data:`SOLVER_TOL` tightens it to 1e-9. The MIP feasibility
(integrality) tolerance stays at HiGHS's default 1e-6 on purpose: below it,
HiGHS 1.15 with a MIP start and presolve reported a wrong optimum (8.03 on
a DAG instance whose optimum is 5.873: ``tests/core/test_highs_driver.py``
replays it; see also HiGHS issues #1958 and #2033, where the maintainers
advise against tight integrality tolerances).
Presolve is off: with it, HiGHS 1.12-1.15 also proves that wrong optimum
without any MIP start at default tolerances (its cuts cut off the optimum;
compare HiGHS issue #3170), while with presolve off every setting we tried
is right; on the bundled instances it costs nothing measurable
(``benchmarks/`` figures in the README).
Soundness does not rest on tolerances anyway: the models are built so that
their feasible set *contains* every schedule the family checker accepts
(right-hand sides include the checker's tolerance), which makes a proof of
infeasibility and the dual bound valid for the real problem, and the
schedule read back is always re-checked by the family checker before
anything is claimed about it.

Time: the limit given here is the *remaining* time of the whole method
(:class:`~hybridsched.budget.TimeBudget`): the Pyomo-to-HiGHS translation is
measured and taken out of it before HiGHS starts.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import pyomo.environ as pyo
from pyomo.contrib.appsi.base import TerminationCondition
from pyomo.contrib.appsi.solvers import Highs

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.progress import current_reporter
from hybridsched.result import Status

#: Primal feasibility tolerance given to HiGHS (its default is 1e-7).
SOLVER_TOL = 1e-9

#: HiGHS's MIP (integrality) feasibility tolerance, left at its default (module docstring).
MIP_FEASIBILITY_TOL = 1e-6

#: Options every solve starts from (one thread per run: campaigns run one run per core;
#: presolve off: see the module docstring).
HIGHS_OPTIONS: dict[str, Any] = {
    "threads": 1,
    "random_seed": 0,
    "primal_feasibility_tolerance": SOLVER_TOL,
    "mip_feasibility_tolerance": MIP_FEASIBILITY_TOL,
    "presolve": "off",
}

#: Seconds between two progress reports to the active reporter.
REPORT_EVERY_S = 0.25


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
    budget: TimeBudget | None = None,
    options: dict[str, Any] | None = None,
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
    budget:
        The method's time budget: HiGHS gets what remains of it after the
        model is translated (and at most ``time_limit``).
    options:
        Further HiGHS options, overriding the defaults set here.

    Raises
    ------
    BudgetExpired
        When the budget runs out while the model is being translated.
    RuntimeError
        When HiGHS stops with an error and no solution.
    """
    solver = Highs()
    if not solver.available():
        raise RuntimeError("HiGHS (highspy) is not available")
    solver.config.mip_gap = mip_rel_gap
    solver.config.load_solution = False
    solver.config.stream_solver = verbose
    solver.config.warmstart = warm_start
    solver.highs_options = {**HIGHS_OPTIONS, **(options or {})}
    solver.set_instance(model)
    limits = [t for t in (time_limit, budget.remaining() if budget else None) if t is not None]
    if budget is not None and budget.expired():
        raise BudgetExpired("translating the model for HiGHS", float(budget.seconds or 0.0))
    solver.config.time_limit = min(limits) if limits else None
    reporter = current_reporter()
    if reporter is not None:
        _subscribe_progress(solver, reporter)
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


def _subscribe_progress(solver: Highs, reporter: Any) -> None:
    """Forward HiGHS's MIP progress to ``reporter`` at most every :data:`REPORT_EVERY_S`."""
    last = [-math.inf]
    started = time.perf_counter()

    def finite(value: float) -> float | None:
        return float(value) if math.isfinite(value) and abs(value) < 1e30 else None

    def on_event(event: Any) -> None:
        now = time.perf_counter()
        if now - last[0] < REPORT_EVERY_S:
            return
        last[0] = now
        data = event.data_out
        reporter(now - started, finite(data.mip_primal_bound), finite(data.mip_dual_bound))

    highs = solver._solver_model  # the highspy.Highs object APPSI drives
    highs.cbMipInterrupt.subscribe(on_event)
    highs.cbMipImprovingSolution.subscribe(on_event)
