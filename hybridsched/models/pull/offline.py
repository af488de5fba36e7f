"""The ``pull`` family's exact method: the clairvoyant offline optimum, HiGHS or CP-SAT.

Steps: the best online schedule (PROMETHEE II and both FCFS orders,
simulated) is the warm start and fixes the horizon; the offline problem
(:mod:`.problem`) is built and solved by the chosen backend
(:mod:`.milp`, :mod:`.cpsat`); its plan is timed on the grid and
checked; the better of it and the warm start is returned.

Status: ``optimal`` when the backend proved its optimum and the plan,
timed and checked, realises it (for the grid problem, see
:mod:`.problem`; the message says when the grid rounds durations), or
when the warm start meets the makespan lower bound
(:mod:`hybridsched.pull.bounds`); ``time_limit`` when the time ran out;
``feasible`` otherwise (an instance too large for the model: the warm
start and the lower bound). The bound is the larger of the backend's
proven bound and the makespan lower bound, in makespan units (the run's
end minus :meth:`~hybridsched.pull.instance.Instance.first_schedule`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.heuristics.pull.policies import Fcfs, PrometheeScheduler, strategy
from hybridsched.heuristics.pull.simulation import simulate
from hybridsched.models.pull.problem import TooLarge, plan_of, prepare, schedule
from hybridsched.pull.bounds import makespan_lower_bound
from hybridsched.pull.checker import check, evaluate
from hybridsched.pull.instance import Instance
from hybridsched.pull.solution import Solution
from hybridsched.result import Result, Status

METHOD, FAMILY = "exact", "pull"
#: Relative and absolute slack when comparing makespans (a grid step is far below it).
TOL = 1e-6


def warm_start(instance: Instance) -> tuple[Solution, float] | None:
    """The best complete schedule of the online policies, and its makespan."""
    best = None
    for policy in (PrometheeScheduler(strategy(), np.random.default_rng(0)),
                   Fcfs(np.random.default_rng(0), "random"),
                   Fcfs(np.random.default_rng(0), "oldest")):
        solution, _ = simulate(instance, policy)
        value = evaluate(instance, solution).objective
        if math.isfinite(value) and (best is None or value < best[1]):
            best = (solution, value)
    return best


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOL * max(1.0, abs(a), abs(b))


def solve(instance: Instance, *, backend: str = "highs", time_limit: float | None = None,
          threads: int = 1, seed: int = 0,
          parameters: dict[str, Any] | None = None) -> Result:
    """The offline optimum of ``instance`` (module docstring).

    ``parameters``: further CP-SAT parameters with ``backend="cpsat"`` (tests and
    benchmarks: e.g. ``max_deterministic_time``, a limit that does not depend on
    the machine).
    """
    budget = TimeBudget(time_limit)
    lower = makespan_lower_bound(instance)
    start = warm_start(instance)
    if start is None:
        return Result(METHOD, FAMILY, Status.NO_SOLUTION, bound=lower,
                      message="no online policy completes every unit, so the offline model "
                              "has no horizon")
    best, value = start
    if value <= lower + TOL * max(1.0, lower) or instance.n_units == 0:
        return Result(METHOD, FAMILY, Status.OPTIMAL, solution=best, bound=value)
    if budget.warm_start_only:
        return Result(METHOD, FAMILY, Status.TIME_LIMIT, solution=best, bound=lower)
    origin = instance.first_schedule()
    try:
        offline = prepare(instance, origin + value)
    except TooLarge as error:
        return Result(METHOD, FAMILY, Status.FEASIBLE, solution=best, bound=lower,
                      message=f"too large for the offline model ({error}): the best online "
                              "schedule and the makespan lower bound")
    factor = offline.scaling.factor
    # How far the grid end of an accepted schedule's choices may lie below factor times its
    # real end (:class:`~.problem.Margins`: zero when nothing is rounded).
    drift_steps = offline.margins.top + offline.margins.rounding
    # The run cannot end before origin + lower; less that drift.
    floor_end = math.floor((origin + lower) * factor - drift_steps) - 1
    try:
        if backend == "cpsat":
            proved, objective, bound, plan = _cpsat(offline, budget, best, floor_end,
                                                    threads, seed, parameters)
        else:
            proved, objective, bound, plan = _milp(offline, budget, floor_end)
    except BudgetExpired:
        return Result(METHOD, FAMILY, Status.TIME_LIMIT, solution=best, bound=lower,
                      message="the time limit ran out while building the model")
    found = schedule(offline, plan) if plan else None
    if found is not None and not check(instance, found):
        found_value = evaluate(instance, found).objective
        if found_value < value - TOL * max(1.0, value):
            best, value = found, found_value
    # The grid problem is a relaxation of the checker's set (:mod:`.problem`): every
    # accepted schedule's choices are a grid solution whose end lies at most the drift
    # below factor times its real end. So the bound given is the grid's less that drift,
    # valid for every schedule the checker accepts. ``optimal`` then means that a checked
    # schedule meets it within TOL, as for every exact method (HiGHS's relative gap).
    drift = drift_steps / factor
    claimed = max(lower, bound - origin - drift) if bound is not None else lower
    if drift == 0:
        grid = ""
    elif offline.scaling.exact:
        grid = f"; optimal within {drift:.1e} s, binary64's rounding of the real times"
    else:
        grid = (f"; durations rounded to 1/{factor} s (delay factors): optimal within "
                f"{drift:.1e} s, the grid's drift")
    if (proved and objective is not None and _close(value, objective - origin)
            and _close(value, max(value, claimed))):
        return Result(METHOD, FAMILY, Status.OPTIMAL, solution=best, bound=min(value, claimed),
                      message=f"clairvoyant offline optimum ({backend}{grid})")
    # Unproven under a limit is the limit's doing (the backend stops at the budget's
    # remainder, a hair before ``expired()`` may say so).
    status = Status.TIME_LIMIT if budget.limited else Status.FEASIBLE
    return Result(METHOD, FAMILY, status, solution=best, bound=min(value, claimed),
                  message=f"{backend}: not proven optimal{grid}")


def _milp(offline, budget: TimeBudget, floor_end: int):  # noqa: ANN001, ANN202
    from hybridsched.models.pull import milp

    built = milp.build(offline, max(0, floor_end) / offline.scaling.factor)
    budget.check("building the offline model")
    out = milp.solve(built, budget)
    bound = out.bound if out.status != "Infeasible" and out.bound is not None and math.isfinite(
        out.bound) else None
    return out.optimal, out.objective, bound, out.plan


def _cpsat(offline, budget: TimeBudget, best: Solution, floor_end: int,  # noqa: ANN001
           threads: int, seed: int,
           parameters: dict[str, Any] | None = None):  # noqa: ANN202
    from hybridsched.models.pull import cpsat
    from hybridsched.models.solvers.cpsat import solve_with_cpsat

    built = cpsat.build(offline, max(0, floor_end))
    cpsat.add_hint(built, plan_of(offline, best))
    budget.check("building the offline model")
    out = solve_with_cpsat(built.model, budget=budget, threads=threads, seed=seed,
                           parameters=parameters)
    factor = offline.scaling.factor
    plan = cpsat.read(built, out.solver) if out.has_incumbent else None
    objective = None if not out.has_incumbent else out.solver.value(built.end) / factor
    bound = None if out.bound is None else built.run_end_bound(out.bound) / factor
    return out.status == Status.OPTIMAL, objective, bound, plan
