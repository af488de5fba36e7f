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
from hybridsched.bound_proof import BoundCertificate, bounded_result
from hybridsched.budget import TimeBudget
from hybridsched.errors import MethodFailedError
from hybridsched.heuristics.bot_sites.fluid_rounding import fluid_rounding
from hybridsched.heuristics.bot_sites.gmo import gmo as _gmo
from hybridsched.heuristics.bot_sites.greedy import GREEDY, g_mct, g_min_min, g_sufferage
from hybridsched.memory import ModelTooLarge, require
from hybridsched.result import Result, Status

# The models (Pyomo, highspy) are imported inside the functions that use them, so that
# listing methods or running a heuristic does not pay for them.

FAMILY = "bot-sites"

#: Above this many tasks the exact method does not warm-start from the O(n^2) greedies.
WARM_MINMIN_LIMIT = 20000

#: Seconds G-MCT takes per task at scale, its check included (measured: 9.7 s for 1.5
#: million tasks on 20 sites, and 2.5 s to check it); the warm start skips it when the
#: time left is shorter.
MCT_SECONDS_PER_TASK = 1e-5

#: Above this many integer variables (BoTs x processors, plus the DAG model's blocks and
#: ordering binaries) the MILP is not built.
MILP_VARIABLE_LIMIT = 100_000

#: Above this many variables (counts, or blocks of the timed model) the CP-SAT model is
#: not built.
CPSAT_VARIABLE_LIMIT = 200_000

#: Hard-limit repairs of heuristic warm starts re-time at most this many blocks.
REPAIR_BLOCK_LIMIT = 5_000

#: Seconds the strong bound may take when the exact method falls back without a time limit.
FALLBACK_BOUND_SECONDS = 60.0

#: Bytes per integer variable of the MILP while HiGHS solves it. Measured: building the
#: Pyomo model of a generated 10-site x 40-BoT instance (27,640 variables, no DAG) grew
#: the resident set by 15.2 MB, 550 bytes a variable; HiGHS's own copy, presolve and
#: search tree take about as much again twice over, hence 2,000.
MILP_BYTES_PER_VARIABLE = 2_000

#: Bytes per variable of the CP-SAT model while it solves. Measured the same way: the
#: build took 112.6 MB for 27,640 variables, 4,072 bytes a variable; presolve copies the
#: model and the search adds its own structures, hence 10,000.
CPSAT_BYTES_PER_VARIABLE = 10_000


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


def _timed_mct(instance: Instance, objective: str, budget: TimeBudget | None
               ) -> Solution | None:
    """G-MCT, unless the time left is shorter than it would take (:data:`MCT_SECONDS_PER_TASK`)."""
    left = None if budget is None or budget.warm_start_only else budget.remaining()
    if left is not None and left < MCT_SECONDS_PER_TASK * instance.n_tasks:
        return None
    return g_mct(instance, objective=objective)


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
    makers = [lambda: _gmo(instance, objective=objective)]
    if objective == "makespan":
        makers.append(lambda: fluid_rounding(instance, budget))
    makers.append(lambda: _timed_mct(instance, objective, budget))
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
    if size <= MILP_VARIABLE_LIMIT:
        try:
            require(f"the bot-sites MILP ({size} integer variables)",
                    size * MILP_BYTES_PER_VARIABLE)
            return milp.solve(instance, objective=objective, start=start, budget=budget)
        except (ModelTooLarge, MemoryError) as exc:
            return _fallback(instance, objective, start, budget, _reason(exc))
    else:
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


def _reason(exc: BaseException) -> str:
    """One line saying why no model was built or solved."""
    if isinstance(exc, MemoryError):
        return "out of memory while building or solving the model"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _fallback(instance: Instance, objective: str, start: Solution | None,
              budget: TimeBudget, reason: str) -> Result:
    """The warm start with the best bound the remaining time allows, and ``reason``.

    Makespan: the strong bound (:func:`strong_certificate`) within the time
    left, else the cheap bound; cost: the exact minimum cost. Status
    ``optimal`` only when the schedule meets the bound, else ``feasible``
    (``time limit`` when the limit had already expired).
    """
    if start is None:
        raise MethodFailedError(f"{reason}; and no heuristic schedule fits the hard limits")
    span = float(completion_times(instance, start).max(initial=0.0))
    if objective == "cost":
        from hybridsched.bot_sites.bounds import min_cost

        cert = BoundCertificate(min_cost(instance), "minimum cost (exact)",
                                {"kind": "min_cost"})
        value = schedule_cost(instance, start)
    else:
        cert = strong_certificate(instance, budget, upper=span)
        value = span
    result = bounded_result(FAMILY, start, value, cert, f"{reason}: best heuristic schedule "
                            f"with the bound of {cert.method}", method="exact")
    if objective == "cost" and result.status is Status.OPTIMAL:
        # Cost is lexicographic (then makespan): meeting the cost bound is not enough.
        result.status = Status.FEASIBLE
    if result.status is Status.FEASIBLE and budget.expired() and not budget.warm_start_only:
        result.status = Status.TIME_LIMIT
    return result


def strong_certificate(instance: Instance, budget: TimeBudget,
                       upper: float | None = None) -> BoundCertificate:
    """The strong makespan bound within ``budget``'s remaining time (the cheap one at 0)."""
    from hybridsched.models.bot_sites.bound import strong_bound

    left = budget.remaining()
    left = FALLBACK_BOUND_SECONDS if left is None else max(left, 0.0)
    return strong_bound(instance, time_limit=left, upper=upper)


def bound(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          objective: str = "makespan") -> Result:
    """Best heuristic schedule (the exact method's warm start) with the strong bound.

    ``objective="makespan"``: the configuration-LP bound of
    :mod:`hybridsched.models.bot_sites.bound` with its proof (checked by
    :func:`hybridsched.bot_sites.bound_check.verify_bound`), within what the
    warm start leaves of ``time_limit`` and the memory budget (the cheap
    bound otherwise, named in the bound's method). ``objective="cost"``:
    the exact minimum cost, which the cheapest-site schedule reaches.
    """
    budget = TimeBudget(time_limit)
    try:
        start = best_start(instance, objective, budget)
    except MethodFailedError:
        start = None
    if objective == "cost":
        from hybridsched.bot_sites.bounds import min_cost

        cheapest = cheapest_schedule(instance)
        if cheapest is not None and not check(instance, cheapest):
            start = cheapest
        cert = BoundCertificate(min_cost(instance), "minimum cost (exact)",
                                {"kind": "min_cost"})
        value = None if start is None else schedule_cost(instance, start)
        return bounded_result(FAMILY, start, value, cert)
    span = None if start is None else float(completion_times(instance, start).max(initial=0.0))
    try:
        cert = strong_certificate(instance, budget, upper=span)
    except MemoryError:
        from hybridsched.models.bot_sites.bound import strong_bound

        cert = strong_bound(instance, time_limit=0)
    return bounded_result(FAMILY, start, span, cert, cert.method)


def _exact_cpsat(instance: Instance, objective: str, start: Solution | None,
                 budget: TimeBudget, threads: int, seed: int) -> Result:
    """The CP-SAT backend (within :data:`CPSAT_VARIABLE_LIMIT`, else warm start and bound)."""
    from hybridsched.models.bot_sites import cpsat
    from hybridsched.models.bot_sites.cpsat_build import model_size

    size = model_size(instance)
    if size <= CPSAT_VARIABLE_LIMIT:
        try:
            require(f"the bot-sites CP-SAT model ({size} variables)",
                    size * CPSAT_BYTES_PER_VARIABLE)
            return cpsat.solve(instance, objective=objective, start=start, budget=budget,
                               threads=threads, seed=seed)
        except (ModelTooLarge, MemoryError) as exc:
            return _fallback(instance, objective, start, budget, _reason(exc))
    result = cpsat.solve(instance, objective=objective, start=start, budget=TimeBudget(0))
    if result.status is Status.NO_SOLUTION:
        raise MethodFailedError("instance too large for the CP-SAT model and no heuristic fits")
    result.message = (f"{instance.n_bots} BoTs x {instance.n_procs} processors is too large "
                      f"for the CP-SAT model ({size} variables > {CPSAT_VARIABLE_LIMIT}): "
                      "best heuristic with a certified bound")
    if result.status is Status.TIME_LIMIT:
        result.status = Status.FEASIBLE
    return result
