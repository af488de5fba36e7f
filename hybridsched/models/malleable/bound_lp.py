"""Solving the ``malleable`` relaxation with HiGHS and reading back a dual vector.

The LP is :func:`hybridsched.malleable.relaxation.build` (float path), passed
to ``highspy`` in one ``addCols`` and one ``addRows`` call. What comes back
is only a dual vector by row name: the bound is what weak duality makes of
it in exact arithmetic (:func:`hybridsched.bound_proof.weak_duality_bound`),
never HiGHS's objective value, so a solve stopped early or slightly off
still proves what its duals prove.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import highspy
import numpy as np

from hybridsched.budget import TimeBudget
from hybridsched.malleable.relaxation import LinearProgram

#: Columns above which the interior-point method (without crossover) replaces the simplex:
#: 10x faster on the 100-job grids (13 s against over 85 s, 67,000 columns); its duals are
#: a hair infeasible, which weak duality's bound correction prices exactly.
IPM_COLUMNS = 20_000
#: Duals smaller than this (in absolute value) are dropped from a proof: any vector is safe.
DUAL_EPSILON = 1e-12


@dataclass(frozen=True)
class LpOutcome:
    """HiGHS's status in words, its objective (a hint only) and the duals by row name."""

    status: str
    objective: float
    duals: dict[str, float]


def solve(lp: LinearProgram, budget: TimeBudget) -> LpOutcome:
    """Solve ``lp`` single-threaded within ``budget``; the nonzero duals by row name."""
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    highs.setOptionValue("random_seed", 0)
    if len(lp.costs) > IPM_COLUMNS:
        highs.setOptionValue("solver", "ipm")
        highs.setOptionValue("run_crossover", "off")
    remaining = budget.remaining()
    if remaining is not None:
        highs.setOptionValue("time_limit", max(remaining, 0.01))
    inf = highspy.kHighsInf
    n = len(lp.costs)
    highs.addCols(n, np.asarray(lp.costs, dtype=float), np.zeros(n),
                  np.array([inf if u is None else float(u) for u in lp.upper]),
                  0, np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0))
    lower = np.array([float(row.rhs) for row in lp.rows])
    upper = np.array([float(row.rhs) if row.sense == "==" else
                      (inf if row.sense == ">=" else float(row.rhs)) for row in lp.rows])
    lower[[row.sense == "<=" for row in lp.rows]] = -inf
    starts = np.zeros(len(lp.rows) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(row.coefficients) for row in lp.rows])
    index = np.fromiter((c for row in lp.rows for c in row.coefficients), dtype=np.int32,
                        count=int(starts[-1]))
    value = np.fromiter((float(a) for row in lp.rows for a in row.coefficients.values()),
                        dtype=float, count=int(starts[-1]))
    highs.addRows(len(lp.rows), lower, upper, int(starts[-1]), starts[:-1].astype(np.int32),
                  index, value)
    highs.run()
    status = highs.modelStatusToString(highs.getModelStatus())
    solution = highs.getSolution()
    duals: dict[str, float] = {}
    if solution.dual_valid:
        for key, dual in zip(lp.row_keys, solution.row_dual, strict=True):
            if abs(dual) > DUAL_EPSILON and math.isfinite(dual):
                duals[key] = float(dual)
    objective = float(highs.getInfo().objective_function_value)
    return LpOutcome(status, objective, duals)
