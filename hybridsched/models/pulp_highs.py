"""Solving a PuLP model with HiGHS and reading back what the toolkit needs.

The PuLP-based models (malleable batch, gang offline) solve through here, so
that solver statistics are recorded one way, the HiGHS information (status,
incumbent, dual bound) is read one way, and Ctrl-C stops HiGHS and raises
``KeyboardInterrupt`` rather than returning an interrupted solve as a result
(:mod:`hybridsched.models.highs_stop`).
"""

from __future__ import annotations

import time
from typing import Any

import highspy
import pulp

from hybridsched import interrupt
from hybridsched.models.highs_stop import watch
from hybridsched.progress import record_solver_statistics


def solve_and_read(problem: pulp.LpProblem, solver: pulp.HiGHS) -> tuple[Any, Any]:
    """Solve ``problem`` with ``solver``; return HiGHS's ``(model status, info)``.

    Records the solve, its time and its MIP nodes with any active
    :func:`~hybridsched.progress.solver_statistics` collector.

    Raises
    ------
    KeyboardInterrupt
        When Ctrl-C stopped HiGHS (its "interrupted" status is never a result).
    """
    run = solver.callSolver

    def watched_run(lp: pulp.LpProblem) -> None:
        watch(lp.solverModel)  # PuLP makes the highspy.Highs object just before this call
        with interrupt.deferred():
            run(lp)

    solver.callSolver = watched_run
    began = time.perf_counter()
    try:
        problem.solve(solver)
    finally:
        solver.callSolver = run
    highs = problem.solverModel
    if highs.getModelStatus() == highspy.HighsModelStatus.kInterrupt:
        raise KeyboardInterrupt  # only Ctrl-C interrupts these solves (they use time_limit)
    info = highs.getInfo()
    record_solver_statistics(solves=1, solver_s=time.perf_counter() - began,
                             mip_nodes=max(0, int(info.mip_node_count)),
                             simplex_iterations=max(0, int(info.simplex_iteration_count)))
    return highs.getModelStatus(), info


def has_incumbent(info: Any) -> bool:
    """Whether HiGHS holds a feasible solution (``primal_solution_status`` feasible)."""
    return int(info.primal_solution_status) == 2
