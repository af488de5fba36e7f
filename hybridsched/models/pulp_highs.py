"""Solving a PuLP model with HiGHS and reading back what the toolkit needs.

The PuLP-based models (malleable batch, gang offline) solve through here, so
that solver statistics are recorded one way and the HiGHS information
(status, incumbent, dual bound) is read one way.
"""

from __future__ import annotations

import time
from typing import Any

import pulp

from hybridsched.progress import record_solver_statistics


def solve_and_read(problem: pulp.LpProblem, solver: pulp.HiGHS) -> tuple[Any, Any]:
    """Solve ``problem`` with ``solver``; return HiGHS's ``(model status, info)``.

    Records the solve, its time and its MIP nodes with any active
    :func:`~hybridsched.progress.solver_statistics` collector.
    """
    began = time.perf_counter()
    problem.solve(solver)
    highs = problem.solverModel
    info = highs.getInfo()
    record_solver_statistics(solves=1, solver_s=time.perf_counter() - began,
                             mip_nodes=max(0, int(info.mip_node_count)),
                             simplex_iterations=max(0, int(info.simplex_iteration_count)))
    return highs.getModelStatus(), info


def has_incumbent(info: Any) -> bool:
    """Whether HiGHS holds a feasible solution (``primal_solution_status`` feasible)."""
    return int(info.primal_solution_status) == 2
