"""The ``malleable`` family's exact method: best schedule found, and a bound of the real problem.

Steps, each within the method's :class:`~hybridsched.budget.TimeBudget`:

1. *Incumbent*: the best, by the checker's value of the objective, of the
   rigid batch model's greedy schedules
   (:func:`hybridsched.models.malleable.batch_greedy.warm_start`) and of the
   family's online heuristics (``tree``, ``flat``, ``round-robin``, under both
   policies), so the method never returns a schedule worse than a heuristic's.
   With a time limit of 0 this is all it does.
2. *Bound*: :func:`hybridsched.malleable.bounds.lower_bound`, valid for every
   schedule the checker accepts.
3. *Rigid model*: the rigid batch model
   (:mod:`hybridsched.models.malleable.milp_batch`) searches for a better
   incumbent (a third of the time left when step 4 follows, else all of it);
   its own bound and proof concern the rigid restriction (whole clusters,
   one job at a time) and are never reported.
4. *Malleable model*: when its grid reaches the horizon a proof needs within
   :data:`~hybridsched.models.malleable.milp_general.MAX_CELLS`, the time-indexed
   model of the malleable problem (:mod:`hybridsched.models.malleable.milp_general`),
   started from the incumbent; its dual bound, capped by the tail bound of the
   grid, raises the bound, and its schedule replaces the incumbent when the
   checker scores it better.

The status is ``optimal`` only when the bound reaches the checker's value of
the schedule returned (within :data:`TOLERANCE`); otherwise ``time_limit``
when the time limit stopped a step, else ``feasible``. Objective, bound and
gap always refer to the one objective optimised.
"""

from __future__ import annotations

import math
import time

import highspy

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.malleable.bounds import lower_bound, weights
from hybridsched.malleable.checker import evaluate
from hybridsched.malleable.instance import Instance
from hybridsched.malleable.solution import Solution, from_pieces
from hybridsched.memory import ModelTooLarge, require
from hybridsched.models.malleable import batch_grid, milp_batch, milp_general
from hybridsched.models.malleable.warm_start import incumbent
from hybridsched.models.solvers.pulp_highs import ArrayHighs, check_budget, solve_and_read
from hybridsched.result import Result, Status

#: Relative (and absolute, below 1) tolerance of the optimality proof.
TOLERANCE = milp_batch.TOLERANCE
#: Name carried by the results.
METHOD, FAMILY = "exact", "malleable"
#: Bytes per start binary of the rigid batch MILP (PuLP model and HiGHS copy): 3.2-3.7 KB
#: measured as the RSS growth of ``milp_batch_build.build`` (medium-batch-8-s20: 11,256
#: binaries; a generated 100-job mix: 198,899), rounded up for HiGHS's copy.
BYTES_PER_BINARY = 5_000
#: Bytes per (job, resource, minute) cell of the malleable time-indexed MILP: 7.5 KB measured
#: the same way on medium-batch-8-s20 (6,984 cells), rounded up for HiGHS's copy.
BYTES_PER_CELL = 10_000


def _value(instance: Instance, solution: Solution, objective: str) -> float:
    return float(evaluate(instance, solution).metrics[objective])


def fallback_bound(instance: Instance, objective: str, best_value: float, budget: TimeBudget,
                   err: Exception, notes: list[str]) -> float:
    """The bound when a model did not fit: the strong bound in the time left, else per-job.

    ``notes`` gets one line: why (``err``) and which bound stands.
    """
    from hybridsched.models.malleable.bound import strong_bound

    reason = str(err) if isinstance(err, ModelTooLarge) else "out of memory building a model"
    if budget.expired():
        notes.append(f"{reason}; per-job bound")
        return lower_bound(instance, objective)
    certificate = strong_bound(instance, time_limit=budget.remaining(), objective=objective,
                               upper=best_value)
    notes.append(f"{reason}; bound: {certificate.method}")
    return certificate.value


def _general(instance: Instance, objective: str, best: Solution, best_value: float,
             budget: TimeBudget, notes: list[str]) -> tuple[float, Solution | None, bool]:
    """Solve the malleable model: ``(bound, better schedule or None, stopped)``."""
    horizon = milp_general.default_horizon(instance, objective, best_value)
    tail = milp_general.tail_bound(instance, objective, horizon)
    grid = milp_general.cells(instance, horizon)
    if len({j for j, _, _ in grid}) < instance.n_jobs:
        notes.append(f"horizon {horizon}: a job cannot end in the grid")
        return (tail if math.isfinite(tail) else -math.inf), None, False
    model = milp_general.build(instance, objective, horizon, budget)
    columns = model.columns()
    notes.append(f"malleable model: horizon {horizon}, {len(columns)} columns, "
                 f"tail bound {tail:g}")
    solver = ArrayHighs(budget, columns, milp_general.start_values(model, best))
    check_budget(budget, len(columns), "starting HiGHS")
    status, info = solve_and_read(model.problem, solver, budget)
    notes.append(f"HiGHS: {model.problem.solverModel.modelStatusToString(status)}")
    better = milp_batch.checked(instance, info, lambda: milp_general.extract(model),
                                     notes)
    if better is not None and _value(instance, better, objective) >= best_value:
        better = None
    return (milp_batch.grid_bound(status, info, tail), better,
            status == highspy.HighsModelStatus.kTimeLimit)


def solve(instance: Instance, objective: str = "penalised_a", time_limit: float | None = None,
          seed: int | None = 0) -> Result:
    """Run the steps of the module docstring and return a :class:`Result` for ``objective``."""
    weights(objective)
    budget = TimeBudget(time_limit)
    wall, cpu = time.perf_counter(), time.process_time()
    if instance.n_jobs == 0:
        return Result(METHOD, FAMILY, Status.OPTIMAL, solution=from_pieces(0, [], []),
                      objective=0.0, bound=0.0, metrics={"optimised": objective},
                      message="no jobs")
    best, best_value, maker = incumbent(instance, objective, seed, budget)
    notes = [f"incumbent from {maker}"]
    bound = lower_bound(instance, objective)
    stopped = False

    def proven() -> bool:
        return bound >= best_value - TOLERANCE * max(1.0, abs(best_value))

    if proven():
        notes.append("the incumbent meets the per-job bound")
    elif budget.warm_start_only:
        stopped = True
        notes.append("time limit 0: heuristics only")
    elif budget.expired():
        # At 10^4 jobs the warm start can use the whole limit; sizing a model then takes
        # tens of seconds of its own.
        stopped = True
        notes.append("the time limit was reached by the warm start")
    else:
        try:
            wanted = milp_general.wanted_horizon(instance, objective, best_value)
            small = milp_general.count_cells(instance, wanted) <= milp_general.MAX_CELLS
            options = batch_grid.job_options(instance)
            horizon = batch_grid.default_horizon(instance, objective, options, best_value)
            require("the rigid batch MILP",
                    batch_grid.binaries(instance, options, horizon) * BYTES_PER_BINARY)
            remaining = budget.remaining()
            # The rigid model finds good schedules fast; on a grid the malleable model can
            # hold, it gets a third of the time and the malleable model the rest.
            rigid = milp_batch.solve(instance, objective, remaining / 3 if small and
                                          remaining is not None else remaining)
            notes.append(f"rigid batch model: {rigid.status.value}")
            stopped = rigid.status is Status.TIME_LIMIT and not small
            if rigid.solution is not None and _value(instance, rigid.solution,
                                                     objective) < best_value - 1e-12:
                best, best_value = rigid.solution, _value(instance, rigid.solution, objective)
                notes.append("improved by the rigid model")
            if small and not proven():
                require("the malleable time-indexed MILP",
                        milp_general.count_cells(instance, milp_general.default_horizon(
                            instance, objective, best_value)) * BYTES_PER_CELL)
                grid_bound, better, stopped = _general(instance, objective, best, best_value,
                                                       budget, notes)
                bound = max(bound, grid_bound)
                if better is not None:
                    best, best_value = better, _value(instance, better, objective)
                    notes.append("improved by the malleable model")
        except BudgetExpired as err:
            stopped = True
            notes.append(str(err))
        except (ModelTooLarge, MemoryError) as err:
            bound, stopped = max(bound, fallback_bound(instance, objective, best_value, budget,
                                                       err, notes)), True
    if proven():
        status, bound = Status.OPTIMAL, min(bound, best_value)
    else:
        status = Status.TIME_LIMIT if stopped else Status.FEASIBLE
    metrics = {**evaluate(instance, best).metrics, "optimised": objective}
    return Result(METHOD, FAMILY, status, solution=best, objective=best_value, bound=bound,
                  runtime_s=time.perf_counter() - wall, cpu_s=time.process_time() - cpu,
                  metrics=metrics, message="; ".join(notes))
