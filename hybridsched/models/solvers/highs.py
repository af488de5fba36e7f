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

import logging
import math
import time
from dataclasses import dataclass, replace
from typing import Any

import pyomo.environ as pyo
from pyomo.contrib.appsi.base import TerminationCondition
from pyomo.contrib.appsi.solvers import Highs

from hybridsched import interrupt
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.models.solvers.highs_stop import Deadline, watch
from hybridsched.progress import current_reporter, record_solver_statistics
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

#: Two runs "agree" on an optimum within this relative and absolute difference: the
#: integrality tolerance's scale. The disagreements guarded against are gross (8.03 vs
#: 5.873); callers that need finer resolution re-check values themselves (Pareto fronts).
AGREEMENT_TOL = 1e-6

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
    verify: bool = True,
) -> SolveOutcome:
    """Solve ``model`` (minimisation) with HiGHS.

    Parameters
    ----------
    model:
        A Pyomo model with one active objective.
    time_limit:
        Seconds for this call (both runs when a proof is cross-checked);
        ``None`` for no limit.
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
    verify:
        Confirm an optimality or infeasibility proof by a second run with
        presolve switched (see :func:`_cross_check`); without agreement the
        result is ``FEASIBLE`` with the lower bound of the two runs.

    Raises
    ------
    BudgetExpired
        When the budget runs out while the model is being translated.
    RuntimeError
        When HiGHS stops with an error and no solution.
    """
    clock = TimeBudget(time_limit)  # ``time_limit`` bounds this call, cross-check included
    solver = Highs()
    if not solver.available():
        raise RuntimeError("HiGHS (highspy) is not available")
    solver.config.mip_gap = mip_rel_gap
    solver.config.load_solution = False
    solver.config.stream_solver = verbose
    solver.config.warmstart = warm_start
    solver.highs_options = {**HIGHS_OPTIONS, **(options or {})}
    solver.set_instance(model)
    if budget is not None and budget.expired():
        raise BudgetExpired("translating the model for HiGHS", float(budget.seconds or 0.0))
    reporter = current_reporter()
    if reporter is not None:
        _subscribe_progress(solver, reporter)
    stop = Deadline()
    watch(solver._solver_model, stop)  # the highspy.Highs object APPSI drives
    first = _run(solver, model, _limit(clock, budget), stop)
    if not verify or first.status not in (Status.OPTIMAL, Status.INFEASIBLE):
        return first
    return _cross_check(solver, model, first, _limit(clock, budget), stop)


def _limit(clock: TimeBudget, budget: TimeBudget | None) -> float | None:
    """Seconds left for the next HiGHS run: the call's own limit and the method's budget."""
    limits = [t for t in (clock.remaining(), budget.remaining() if budget else None)
              if t is not None]
    return min(limits) if limits else None


def _run(solver: Highs, model: pyo.ConcreteModel, time_limit: float | None,
         stop: Deadline | None = None) -> SolveOutcome:
    """One HiGHS run with the options set on ``solver``; loads the incumbent if any.

    Raises
    ------
    KeyboardInterrupt
        When Ctrl-C stopped the run (:mod:`hybridsched.interrupt`): whatever
        HiGHS holds then is not a result.
    """
    solver.config.time_limit = time_limit
    if stop is not None:
        stop.set(time_limit)
    # Pyomo logs a warning for HiGHS's "interrupted" status, which is ours (deadline).
    appsi_log = logging.getLogger("pyomo.contrib.appsi.solvers.highs")
    level = appsi_log.level
    appsi_log.setLevel(logging.ERROR)
    started = time.perf_counter()
    try:
        with interrupt.deferred():  # the watch stops HiGHS at Ctrl-C; then this raises
            results = solver.solve(model)
    finally:
        appsi_log.setLevel(level)
        _record_statistics(solver, time.perf_counter() - started)
    condition = results.termination_condition
    if stop is not None and stop.passed() and condition != TerminationCondition.optimal:
        condition = TerminationCondition.maxTimeLimit  # interrupted by us at the deadline
    if condition == TerminationCondition.interrupted:
        raise KeyboardInterrupt  # nothing but Ctrl-C interrupts HiGHS before the deadline
    incumbent = results.best_feasible_objective
    if incumbent is None and condition == TerminationCondition.maxTimeLimit:
        incumbent = _interrupted_incumbent(solver)
    bound = results.best_objective_bound
    bound = None if bound is None or not math.isfinite(bound) else float(bound)
    has_incumbent = incumbent is not None and math.isfinite(incumbent)
    if has_incumbent:
        results.solution_loader.load_vars()
    if condition == TerminationCondition.optimal:
        return SolveOutcome(Status.OPTIMAL, float(incumbent), bound, True)
    if condition in (TerminationCondition.infeasible, TerminationCondition.infeasibleOrUnbounded):
        return SolveOutcome(Status.INFEASIBLE, None, None, False, "the model is infeasible")
    if condition in (TerminationCondition.maxTimeLimit, TerminationCondition.maxIterations):
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


def _interrupted_incumbent(solver: Highs) -> float | None:
    """The objective of the schedule HiGHS holds after our deadline interrupted it.

    APPSI reads HiGHS's "interrupted" status as having no solution and
    reports none, although HiGHS keeps the best schedule it found: a
    time-limited run stopped by :mod:`.highs_stop` would otherwise lose every
    schedule better than its warm start. ``None`` when HiGHS has none.
    """
    highs = getattr(solver, "_solver_model", None)  # the highspy.Highs object APPSI drives
    held = getattr(solver, "_sol", None)  # what APPSI's load_vars reads
    if highs is None or held is None or not getattr(held, "value_valid", False):
        return None
    info = highs.getInfo()
    if info.primal_solution_status != 2:  # kSolutionStatusFeasible
        return None
    return float(info.objective_function_value)


def _cross_check(solver: Highs, model: pyo.ConcreteModel, first: SolveOutcome,
                 time_limit: float | None, stop: Deadline | None = None) -> SolveOutcome:
    """Confirm a proof (optimal or infeasible) by a second run with presolve switched.

    HiGHS 1.12-1.15 proves wrong optima on small MILPs of ours, with presolve on
    in some and off in others (module docstring). A proof is accepted only when
    both runs agree; otherwise the better incumbent is kept, with the lower of
    the two bounds, and no proof is claimed.
    """
    if time_limit is not None and time_limit <= 0:
        # The time ran out before the proof could be confirmed: a time limit, like a
        # confirming run that times out (a caller with time left may then go on).
        return replace(first, status=Status.TIME_LIMIT,
                       message="proof not cross-checked: time limit reached")
    snapshot = _values(model) if first.has_incumbent else None
    presolve = solver.highs_options.get("presolve", "off")
    solver.highs_options = {**solver.highs_options,
                            "presolve": "on" if presolve == "off" else "off"}
    solver.config.warmstart = first.has_incumbent
    try:
        second = _run(solver, model, time_limit, stop)
    except RuntimeError as exc:
        second = SolveOutcome(Status.FEASIBLE, None, None, False, str(exc))
    if second.status is first.status and (
            first.status is Status.INFEASIBLE
            or math.isclose(first.objective or 0.0, second.objective or 0.0,
                            rel_tol=AGREEMENT_TOL, abs_tol=AGREEMENT_TOL)):
        if snapshot is not None:
            _restore(model, snapshot)
        bounds = [b for b in (first.bound, second.bound) if b is not None]
        return replace(first, bound=min(bounds) if bounds else None)
    if first.status is Status.INFEASIBLE and not second.has_incumbent:
        # The second run neither confirmed nor refuted infeasibility (time limit).
        return replace(second, status=Status.TIME_LIMIT, bound=None,
                       message="infeasibility not cross-checked: time limit reached")
    better_second = second.has_incumbent and (
        first.objective is None or (second.objective or 0.0) < first.objective)
    if not better_second and snapshot is not None:
        _restore(model, snapshot)
    bounds = [b for b in (first.bound, second.bound) if b is not None]
    kept = second if better_second else first
    timed_out = second.status is Status.TIME_LIMIT
    what = ("proof not cross-checked: time limit reached" if timed_out else
            f"HiGHS gave different answers with presolve on and off ({first.status.value} "
            f"{first.objective}, {second.status.value} {second.objective}): no proof claimed")
    return SolveOutcome(Status.TIME_LIMIT if timed_out else Status.FEASIBLE, kept.objective,
                        min(bounds) if bounds else None, kept.has_incumbent, what)


def _record_statistics(solver: Highs, seconds: float) -> None:
    """Report this run's node and iteration counts to an active statistics collector."""
    highs = getattr(solver, "_solver_model", None)
    info = highs.getInfo() if highs is not None else None
    record_solver_statistics(
        solves=1, solver_s=seconds,
        mip_nodes=max(0, int(getattr(info, "mip_node_count", 0) or 0)),
        simplex_iterations=max(0, int(getattr(info, "simplex_iteration_count", 0) or 0)))


def _values(model: pyo.ConcreteModel) -> list[tuple[Any, float | None]]:
    return [(v, v.value) for v in model.component_data_objects(pyo.Var, active=True)]


def _restore(model: pyo.ConcreteModel, snapshot: list[tuple[Any, float | None]]) -> None:
    for var, value in snapshot:
        var.set_value(value, skip_validation=True)


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
