"""Solving a PuLP model with HiGHS and reading back what the toolkit needs.

The PuLP-based models (malleable batch, gang offline) solve through here, so
that solver statistics are recorded one way, the HiGHS information (status,
incumbent, dual bound) is read one way, and Ctrl-C stops HiGHS and raises
``KeyboardInterrupt`` rather than returning an interrupted solve as a result
(:mod:`hybridsched.models.solvers.highs_stop`).
"""

from __future__ import annotations

import time
from typing import Any

import highspy
import numpy as np
import pulp

from hybridsched import interrupt
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.models.solvers.highs_stop import Deadline, watch
from hybridsched.progress import record_solver_statistics


def solve_and_read(problem: pulp.LpProblem, solver: pulp.HiGHS,
                   budget: TimeBudget | None = None) -> tuple[Any, Any]:
    """Solve ``problem`` with ``solver``; return HiGHS's ``(model status, info)``.

    ``budget``: the method's time, enforced through HiGHS's interrupt
    callbacks as well as its own time limit (which it checks too
    rarely inside root cut rounds, see :mod:`~hybridsched.models.solvers.highs_stop`);
    a solve stopped there reports HiGHS's "Time limit reached" status.
    Records the solve, its time and its MIP nodes with any active
    :func:`~hybridsched.progress.solver_statistics` collector.

    Raises
    ------
    KeyboardInterrupt
        When Ctrl-C stopped HiGHS (its "interrupted" status is never a result).
    """
    run = solver.callSolver
    deadline = Deadline()

    def watched_run(lp: pulp.LpProblem) -> None:
        watch(lp.solverModel, deadline)  # PuLP makes the highspy.Highs object just before
        deadline.set(budget.remaining() if budget is not None else None)
        with interrupt.deferred():
            run(lp)

    solver.callSolver = watched_run
    began = time.perf_counter()
    try:
        problem.solve(solver)
    finally:
        solver.callSolver = run
    highs = problem.solverModel
    status = highs.getModelStatus()
    if status == highspy.HighsModelStatus.kInterrupt:
        if not deadline.passed() or interrupt.requested():
            raise KeyboardInterrupt  # Ctrl-C: an interrupted solve is never a result
        status = highspy.HighsModelStatus.kTimeLimit
    info = highs.getInfo()
    record_solver_statistics(solves=1, solver_s=time.perf_counter() - began,
                             mip_nodes=max(0, int(info.mip_node_count)),
                             simplex_iterations=max(0, int(info.simplex_iteration_count)))
    return status, info


def has_incumbent(info: Any) -> bool:
    """Whether HiGHS holds a feasible solution (``primal_solution_status`` feasible)."""
    return int(info.primal_solution_status) == 2


#: Seconds kept back per model column, for reading a solution back, checking it and
#: freeing the model (measured: about 3 us per column at 200,000 columns).
SECONDS_PER_COLUMN = 4e-6


def reserve(columns: int) -> float:
    """Seconds the method still needs after HiGHS, or after giving up, for ``columns``."""
    return 0.01 + SECONDS_PER_COLUMN * columns


def check_budget(budget: TimeBudget, columns: int, stage: str) -> None:
    """Raise :class:`BudgetExpired` when less than the wind-down time of ``columns`` is left."""
    remaining = budget.remaining()
    if remaining is not None and remaining <= reserve(columns):
        raise BudgetExpired(stage, float(budget.seconds or 0.0))


class ArrayHighs(pulp.HiGHS):
    """PuLP's HiGHS with a MIP start, the method's time budget and array-based transfer.

    PuLP's own transfer adds columns and integrality marks one call each and
    walks ``lp.variables()`` three times, which takes several seconds at
    the malleable models' sizes; here the same model (same columns, bounds, rows,
    integrality) is passed with one ``addCols``, ``changeColsIntegrality`` and
    ``addRows`` call, and only the model's own columns are read back.
    """

    def __init__(self, budget: TimeBudget, columns: list[pulp.LpVariable],
                 start: dict[pulp.LpVariable, float] | None, **options: Any):
        super().__init__(msg=False, threads=1, gapRel=0.0,
                         **{"presolve": "off", "random_seed": 0, **options})
        self.budget = budget
        self.columns = columns
        self.start = start

    def actualSolve(self, lp: pulp.LpProblem) -> int:  # noqa: N802 (PuLP's name)
        """Configure, transfer, run and read back (as PuLP's HiGHS does)."""
        self.createAndConfigureSolver(lp)
        self.buildSolverModel(lp)
        self.callSolver(lp)
        status, solution_status = self.findSolutionValues(lp)
        lp.assignStatus(status, solution_status)
        return status

    def buildSolverModel(self, lp: pulp.LpProblem) -> None:  # noqa: N802 (PuLP's name)
        """Pass columns, integrality and rows as arrays."""
        highs, inf = lp.solverModel, highspy.kHighsInf
        columns = self.columns
        for index, var in enumerate(columns):
            var.index = index
        n = len(columns)
        cost = np.array([lp.objective.get(v, 0.0) for v in columns], dtype=float)
        lower = np.array([-inf if v.lowBound is None else v.lowBound for v in columns],
                         dtype=float)
        upper = np.array([inf if v.upBound is None else v.upBound for v in columns], dtype=float)
        none_i, none_f = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=float)
        highs.addCols(n, cost, lower, upper, 0, none_i, none_i, none_f)
        highs.changeObjectiveOffset(float(lp.objective.constant))  # so the dual bound is whole
        integer = np.array([v.index for v in columns if v.cat == pulp.LpInteger], dtype=np.int32)
        if integer.size:
            highs.changeColsIntegrality(integer.size, integer,
                                        np.ones(integer.size, dtype=np.uint8))
        check_budget(self.budget, n, "passing the model to HiGHS")
        starts, index, value, row_lower, row_upper = [0], [], [], [], []
        for constraint in lp.constraints():
            for var, coefficient in constraint.items():
                if coefficient:
                    index.append(var.index)
                    value.append(coefficient)
            starts.append(len(index))
            low, high = constraint.getLb(), constraint.getUb()
            row_lower.append(-inf if low is None else low)
            row_upper.append(inf if high is None else high)
        highs.addRows(len(row_lower), np.array(row_lower, dtype=float),
                      np.array(row_upper, dtype=float), len(index),
                      np.array(starts[:-1], dtype=np.int32), np.array(index, dtype=np.int32),
                      np.array(value, dtype=float))

    def callSolver(self, lp: pulp.LpProblem) -> None:  # noqa: N802 (PuLP's name)
        """Set the MIP start and the time left, then run HiGHS."""
        highs = lp.solverModel
        remaining = self.budget.remaining()
        if remaining is not None:
            remaining -= reserve(len(self.columns))
            if remaining <= 0:
                raise BudgetExpired("starting HiGHS", float(self.budget.seconds or 0.0))
            highs.setOptionValue("time_limit", remaining)
        if self.start is not None:
            values = np.zeros(len(self.columns))
            for var, value in self.start.items():
                values[var.index] = value
            highs.setSolution(len(values), np.arange(len(values), dtype=np.int32), values)
        highs.run()

    def findSolutionValues(self, lp: pulp.LpProblem) -> tuple[int, int]:  # noqa: N802
        """Read the model's columns back; PuLP status codes as PuLP's HiGHS gives them."""
        highs = lp.solverModel
        status = highs.getModelStatus()
        has_solution = highs.getInfo().primal_solution_status == 2  # kSolutionStatusFeasible
        values = highs.getSolution().col_value if has_solution else None
        for var in self.columns:
            var.varValue = values[var.index] if values is not None else None
        if status == highspy.HighsModelStatus.kOptimal:
            return pulp.LpStatusOptimal, pulp.LpSolutionOptimal
        if status == highspy.HighsModelStatus.kInfeasible:
            return pulp.LpStatusInfeasible, pulp.LpSolutionInfeasible
        if has_solution:
            return pulp.LpStatusOptimal, pulp.LpSolutionIntegerFeasible
        return pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound
