"""The ``bot-sites`` family's methods as the registry calls them.

Declared by name in :mod:`hybridsched.bot_sites.methods`, whose docstring
lists the options every method takes (``objective``, GMO's readings).
"""

from __future__ import annotations

from collections.abc import Callable

from hybridsched.backends import check_exact_options
from hybridsched.bot_sites.checker import check, completion_times, schedule_cost
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import cheapest_schedule, limited, repair
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import TimeBudget
from hybridsched.errors import MethodFailedError
from hybridsched.heuristics.bot_sites.gmo import gmo as _gmo
from hybridsched.heuristics.bot_sites.greedy import GREEDY, g_mct, g_min_min, g_sufferage
from hybridsched.result import Result, Status

# The models (Pyomo, highspy) are imported inside the functions that use them, so that
# listing methods or running a heuristic does not pay for them.

FAMILY = "bot-sites"

#: Above this many tasks the exact method does not warm-start from the O(n^2) greedies.
WARM_MINMIN_LIMIT = 20000

#: Above this many integer variables (BoTs x processors, plus the DAG model's blocks and
#: ordering binaries) the MILP is not built.
MILP_VARIABLE_LIMIT = 100_000

#: Above this many variables (counts, or blocks of the timed model) the CP-SAT model is
#: not built.
CPSAT_VARIABLE_LIMIT = 200_000

#: Hard-limit repairs of heuristic warm starts re-time at most this many blocks.
REPAIR_BLOCK_LIMIT = 5_000


def lower_bound(instance: Instance) -> float:
    """Proven lower bound on the makespan: fluid LP (LST-strengthened) and critical path.

    Scales to 10^5+ tasks (the LP has one column per (BoT, site) pair); use
    it in ``compare`` when the instance records no optimum.
    """
    from hybridsched.bot_sites import bounds as bot_bounds

    return bot_bounds.lower_bound(instance)


def _within_limits(instance: Instance, solution: Solution, name: str) -> Solution:
    """Fail (not crash) when a heuristic breaks hard bandwidth/storage limits."""
    if instance.hard_limits and instance.has_limits:
        problems = check(instance, solution)
        if problems:
            raise MethodFailedError(f"{name} ignores hard limits: {problems[0]}")
    return solution


def _heuristic(name: str, func: Callable[..., Solution]) -> Callable[..., Solution]:
    def method(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
               objective: str = "makespan") -> Solution:
        solution = func(instance, seed=seed, time_limit=time_limit, objective=objective)
        return _within_limits(instance, solution, name)

    method.__name__ = name.replace("-", "_")
    method.__doc__ = f"The greedy heuristic {name!r}, within hard limits."
    return method


def gmo(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
        objective: str = "makespan", epsilon: float = 1e-5, max_stages: int = 1000,
        regame: str = "completion", placement: str = "dedicated", utility: str = "sum",
        threshold: str = "absolute", keep: str = "last", moves: str = "simultaneous"
        ) -> Solution:
    """GMO, its readings as options (:mod:`hybridsched.heuristics.bot_sites.gmo`)."""
    solution = _gmo(instance, seed=seed, time_limit=time_limit, objective=objective,
                    epsilon=epsilon, max_stages=max_stages, regame=regame,
                    placement=placement, utility=utility, threshold=threshold, keep=keep,
                    moves=moves)
    return _within_limits(instance, solution, "gmo")


#: The greedy heuristics as methods, by name (the targets of :mod:`.methods`).
GREEDY_METHODS = {name: _heuristic(name, func) for name, func in GREEDY.items()}


def best_start(instance: Instance, objective: str = "makespan",
               budget: TimeBudget | None = None) -> Solution:
    """Best schedule of the fast heuristics, used to warm-start the exact model.

    With hard limits, heuristic schedules that break them are re-timed so
    that the limits hold over time (:func:`~hybridsched.bot_sites.limits.repair`,
    up to :data:`REPAIR_BLOCK_LIMIT` blocks), and the cheapest-site schedule
    competes too. Stops trying further heuristics once ``budget`` expires
    (the first one always runs; with a limit of 0 all of them run, as they
    are what "warm start only" returns).

    Raises
    ------
    MethodFailedError
        When no candidate schedule passes the checker.
    """
    makers = [lambda: _gmo(instance, objective=objective),
              lambda: g_mct(instance, objective=objective)]
    if instance.n_tasks <= WARM_MINMIN_LIMIT:
        makers += [lambda: g_min_min(instance, objective=objective),
                   lambda: g_sufferage(instance, objective=objective)]
    if limited(instance) and objective == "makespan":   # (the exact cost mode adds it)
        makers.append(lambda: cheapest_schedule(instance))
    candidates = []
    for make in makers:
        # A limit of 0 asks for the warm start itself: every fast heuristic runs.
        if candidates and budget is not None and budget.expired() \
                and not budget.warm_start_only:
            break
        solution = make()
        if solution is None:
            continue
        if limited(instance) and check(instance, solution):
            if solution.n_blocks > REPAIR_BLOCK_LIMIT:
                continue
            solution = repair(instance, solution)
            if solution is None or check(instance, solution):
                continue
        candidates.append(solution)

    def key(s: Solution) -> tuple[float, float]:
        span = float(completion_times(instance, s).max(initial=0.0))
        cost = schedule_cost(instance, s)
        return (span, cost) if objective == "makespan" else (cost, span)

    if not candidates:
        raise MethodFailedError("no heuristic schedule fits the hard limits")
    return min(candidates, key=key)


def exact(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          objective: str = "makespan", backend: str = "highs", threads: int = 1) -> Result:
    """Exact makespan (or cost-then-makespan) model, warm-started from the best heuristic.

    ``backend="highs"`` (default) solves the MILP
    (:mod:`hybridsched.models.bot_sites.milp`); ``backend="cpsat"`` the CP-SAT
    model (:mod:`hybridsched.models.bot_sites.cpsat`, ``threads`` search workers,
    ``seed`` default 0), above :data:`CPSAT_VARIABLE_LIMIT` variables only
    the warm start with its certified bound. Both start from the same best
    heuristic schedule and never return a worse one.

    ``time_limit`` bounds the whole method (heuristic warm start, model
    building, solve, extraction); ``0`` returns the best warm start with its
    bound, without building a model. Instances whose model would have more
    than :data:`MILP_VARIABLE_LIMIT` integer variables are not modelled:
    the best heuristic schedule is returned with a certified bound (the
    fluid/critical-path bound on the makespan, or the exact minimum cost).
    See :func:`hybridsched.models.bot_sites.milp.solve` for what the status
    and bound mean with ``objective="cost"``.
    """
    check_exact_options({"backend": backend, "threads": threads})
    budget = TimeBudget(time_limit)
    try:
        start = best_start(instance, objective, budget)
    except MethodFailedError:
        start = None
    if backend == "cpsat":
        return _exact_cpsat(instance, objective, start, budget, threads, seed or 0)
    from hybridsched.models.bot_sites import milp

    size = milp.model_size(instance)
    if size > MILP_VARIABLE_LIMIT:
        result = milp.solve(instance, objective=objective, start=start,
                                    budget=TimeBudget(0))
        if result.status is Status.NO_SOLUTION:
            raise MethodFailedError("instance too large for the MILP and no heuristic fits")
        result.message = (f"{instance.n_bots} BoTs x {instance.n_procs} processors is too "
                          f"large for the MILP ({size} integer variables > "
                          f"{MILP_VARIABLE_LIMIT}): best heuristic with a certified bound")
        if result.status is Status.TIME_LIMIT:
            result.status = Status.FEASIBLE
        return result
    return milp.solve(instance, objective=objective, start=start, budget=budget)


def _exact_cpsat(instance: Instance, objective: str, start: Solution | None,
                 budget: TimeBudget, threads: int, seed: int) -> Result:
    """The CP-SAT backend (within :data:`CPSAT_VARIABLE_LIMIT`, else warm start and bound)."""
    from hybridsched.models.bot_sites import cpsat
    from hybridsched.models.bot_sites.cpsat_build import model_size

    size = model_size(instance)
    if size <= CPSAT_VARIABLE_LIMIT:
        return cpsat.solve(instance, objective=objective, start=start, budget=budget,
                               threads=threads, seed=seed)
    result = cpsat.solve(instance, objective=objective, start=start, budget=TimeBudget(0))
    if result.status is Status.NO_SOLUTION:
        raise MethodFailedError("instance too large for the CP-SAT model and no heuristic fits")
    result.message = (f"{instance.n_bots} BoTs x {instance.n_procs} processors is too large "
                      f"for the CP-SAT model ({size} variables > {CPSAT_VARIABLE_LIMIT}): "
                      "best heuristic with a certified bound")
    if result.status is Status.TIME_LIMIT:
        result.status = Status.FEASIBLE
    return result
