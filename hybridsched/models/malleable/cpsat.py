"""The ``malleable`` exact method on the CP-SAT backend (``backend="cpsat"``).

Steps, within the method's :class:`~hybridsched.budget.TimeBudget`:

1. *Incumbent*: the same warm start as the HiGHS path
   (:func:`hybridsched.models.malleable.warm_start.incumbent`: the greedy rules
   and the online heuristics), so the result is never worse than it.
2. *Model*: the CP-SAT model of the malleable problem
   (:mod:`hybridsched.models.malleable.cpsat_build`), job windows cut by the
   incumbent's value, hinted with the incumbent, solved by
   :func:`hybridsched.models.solvers.cpsat.solve_with_cpsat`.
3. *Answer*: the better (by the checker) of the incumbent and the schedule
   read back (:mod:`hybridsched.models.malleable.cpsat_extract`). The bound
   is CP-SAT's (in real units, rounded down), never below the family's
   per-job bound. ``optimal`` only when CP-SAT proved the model optimal and
   the data scaled exactly (or the bound meets the schedule's value);
   otherwise ``time_limit`` when a limit stopped it, else ``feasible``.
"""

from __future__ import annotations

import math
import time
from typing import Any

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.malleable.bounds import lower_bound, weights
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.instance import Instance
from hybridsched.malleable.solution import Solution, from_pieces
from hybridsched.memory import ModelTooLarge, require
from hybridsched.models.malleable import cpsat_build as build_module
from hybridsched.models.malleable.cpsat_extract import extract, hint
from hybridsched.models.solvers.cpsat import solve_with_cpsat
from hybridsched.result import Result, Status

#: Relative (and absolute, below 1) tolerance of an optimality proof by the bound.
TOLERANCE = 1e-9
#: Name carried by the results.
METHOD, FAMILY = "exact", "malleable"
#: Bytes per cell of the CP-SAT model: 11.3 KB measured as the RSS growth of
#: ``cpsat_build.build`` on medium-batch-8-s20 (9,387 cells), rounded up for the solver's copy.
BYTES_PER_CELL = 15_000


def _value(instance: Instance, solution: Solution, objective: str) -> float:
    return float(evaluate(instance, solution).metrics[objective])


def solve(instance: Instance, objective: str = "penalised_a", time_limit: float | None = None,
          seed: int | None = 0, threads: int = 1,
          parameters: dict[str, Any] | None = None) -> Result:
    """Run the steps of the module docstring and return a :class:`Result` for ``objective``.

    ``parameters``: further CP-SAT parameters (tests and benchmarks: e.g.
    ``max_deterministic_time``, a limit that does not depend on the machine).
    """
    from hybridsched.models.malleable.milp import fallback_bound
    from hybridsched.models.malleable.warm_start import incumbent

    weights(objective)
    budget = TimeBudget(time_limit)
    wall, cpu = time.perf_counter(), time.process_time()
    if instance.n_jobs == 0:
        return Result(METHOD, FAMILY, Status.OPTIMAL, solution=from_pieces(0, [], []),
                      objective=0.0, bound=0.0, metrics={"optimised": objective,
                                                         "backend": "cpsat"},
                      message="no jobs")
    best, best_value, maker = incumbent(instance, objective, seed, budget)
    notes = [f"incumbent from {maker}"]
    bound = lower_bound(instance, objective)
    proven, stopped = False, False
    if budget.warm_start_only or budget.expired():
        stopped = True
        notes.append("time limit 0: heuristics only" if budget.warm_start_only else
                     "the time limit was reached by the warm start")
    elif bound < best_value - TOLERANCE * max(1.0, abs(best_value)):
        try:
            found, model_bound, proven, stopped = _search(instance, objective, best, best_value,
                                                          budget, seed, threads, notes,
                                                          parameters)
            bound = max(bound, model_bound)
            if found is not None and _value(instance, found, objective) < best_value - 1e-12:
                best, best_value = found, _value(instance, found, objective)
                notes.append("improved by CP-SAT")
        except BudgetExpired as err:
            stopped = True
            notes.append(str(err))
        except (ModelTooLarge, MemoryError) as err:
            bound, stopped = max(bound, fallback_bound(instance, objective, best_value, budget,
                                                       err, notes)), True
    # A proof is the bound meeting the checker's value of the schedule returned (CP-SAT's
    # optimality alone is not taken on trust: the checker has the last word).
    if bound >= best_value - TOLERANCE * max(1.0, abs(best_value)):
        status, bound = Status.OPTIMAL, min(bound, best_value)
    else:
        status = Status.TIME_LIMIT if stopped else Status.FEASIBLE
    metrics = {**evaluate(instance, best).metrics, "optimised": objective, "backend": "cpsat"}
    return Result(METHOD, FAMILY, status, solution=best, objective=best_value, bound=bound,
                  runtime_s=time.perf_counter() - wall, cpu_s=time.process_time() - cpu,
                  metrics=metrics, message="; ".join(notes))


def _search(instance: Instance, objective: str, best: Solution, best_value: float,
            budget: TimeBudget, seed: int | None, threads: int, notes: list[str],
            parameters: dict[str, Any] | None = None
            ) -> tuple[Solution | None, float, bool, bool]:
    """Build and solve the model: ``(schedule or None, bound, proven, stopped)``."""
    ends = build_module.end_limits(instance, objective, best_value)
    cells = build_module.count_cells(instance, ends)
    if cells > build_module.MAX_CELLS:
        notes.append(f"CP-SAT model not built: {cells} cells (most {build_module.MAX_CELLS})")
        return None, -math.inf, False, False
    require("the CP-SAT malleable model", cells * BYTES_PER_CELL)
    built = build_module.build(instance, objective, ends, budget)
    hint(built, best)
    notes.append(f"CP-SAT model: {cells} cells, {built.work_scale.describe()} (work), "
                 f"{built.money_scale.describe()} (money)")
    # Full linearisation: the capacity and work rows make a strong relaxation (the bound),
    # which CP-SAT's default level leaves to the search (batch-04: proven in ~6 s, against
    # no bound at all in 60 s).
    outcome = solve_with_cpsat(built.model, budget=budget, threads=threads, seed=seed or 0,
                               parameters={"linearization_level": 2, **(parameters or {})})
    notes.append(f"CP-SAT: {outcome.status.value} in {outcome.seconds:.2f} s")
    found = None
    if outcome.has_incumbent:
        candidate = extract(built, outcome.solver)
        problems = check(instance, candidate)
        if problems:
            notes.append(f"CP-SAT schedule refused by the checker: {problems[0]}")
        else:
            found = candidate
    if outcome.status is Status.INFEASIBLE:
        # The incumbent lies in the windows, so an empty model is a model bug: no claim.
        notes.append("CP-SAT found the windows empty despite the incumbent: no bound claimed")
        return found, -math.inf, False, False
    model_bound = -math.inf
    if outcome.bound is not None:
        # Integer objective: the bound rounds up to an integer; back in real units it is
        # rounded down by one ulp so that the division never lifts it.
        model_bound = math.nextafter(math.ceil(outcome.bound - 1e-6) / built.unit, -math.inf)
    proven = outcome.status is Status.OPTIMAL and built.exact and found is not None
    return found, model_bound, proven, outcome.status is Status.TIME_LIMIT
