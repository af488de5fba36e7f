"""The ``pull`` family's exact method: the clairvoyant offline optimum, HiGHS or CP-SAT.

Steps: the best online schedule (PROMETHEE II and both FCFS orders,
simulated) or clairvoyant greedy schedule
(:mod:`hybridsched.heuristics.pull.clairvoyant`) is the warm start and
fixes the horizon; the offline problem
(:mod:`.problem`) is built and solved by the chosen backend
(:mod:`.milp`, :mod:`.cpsat`); its plan is timed on the grid and
checked; the better of it and the warm start is returned.

Status: ``optimal`` when the backend proved its optimum and the plan,
timed and checked, realises it (for the grid problem, see
:mod:`.problem`; the message says when the grid rounds durations), or
when the warm start meets the makespan lower bound
(:mod:`hybridsched.pull.bounds`); ``time_limit`` when the time ran out;
``feasible`` otherwise. An instance too large for the model, or for the
memory budget (:mod:`hybridsched.memory`, estimated before building), gets
the warm start and the strong bound (:mod:`.bound`) if time remains, else
the cheap one, with the reason in the message. The bound is the larger of the backend's
proven bound and the makespan lower bound, in makespan units (the run's
end minus :meth:`~hybridsched.pull.instance.Instance.first_schedule`).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from hybridsched.bound_proof import BoundCertificate
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.heuristics.pull.clairvoyant import best_clairvoyant, perturbed
from hybridsched.heuristics.pull.policies import Fcfs, PrometheeScheduler, strategy
from hybridsched.heuristics.pull.simulation import simulate
from hybridsched.memory import ModelTooLarge, require
from hybridsched.models.pull.problem import Offline, TooLarge, plan_of, prepare, schedule
from hybridsched.pull.bounds import makespan_lower_bound
from hybridsched.pull.checker import check, evaluate
from hybridsched.pull.instance import Instance
from hybridsched.pull.solution import Solution
from hybridsched.result import Result, Status

METHOD, FAMILY = "exact", "pull"
#: Relative and absolute slack when comparing makespans (a grid step is far below it).
TOL = 1e-6
#: Memory of a model beyond its size: the solver's own footprint (measured: a whole
#: solve of small-s2 grows the resident set by 101 MiB with CP-SAT, 66 MiB with HiGHS).
BASE_BYTES = 128 * 1024**2
#: Bytes per position and (unit or window) of the model (measured with tracemalloc: the
#: MILP's build takes 5.8-7.1 KB per position x (units + windows + 6) on small-s0..s4;
#: CP-SAT's proto is far smaller, its solver copies are in BASE_BYTES).
BYTES_PER_SLOT = 8 * 1024
#: Share of a time limit the clairvoyant greedy may take in the warm start.
CLAIRVOYANT_SHARE = 0.25
#: Jittered restarts of the greedy (:func:`~hybridsched.heuristics.pull.clairvoyant.perturbed`,
#: seed 0) within that share.
JITTER_ROUNDS = 30


def warm_start(instance: Instance, budget: TimeBudget | None = None
               ) -> tuple[Solution, float] | None:
    """The best complete schedule of the online policies and the clairvoyant greedy.

    The greedy (:mod:`hybridsched.heuristics.pull.clairvoyant`) tries its
    horizons, then :data:`JITTER_ROUNDS` jittered restarts, while
    :data:`CLAIRVOYANT_SHARE` of ``budget`` lasts (one run at least); the
    online policies run once each (a second at 2,000 units).
    """
    best = None
    for policy in (PrometheeScheduler(strategy(), np.random.default_rng(0)),
                   Fcfs(np.random.default_rng(0), "random"),
                   Fcfs(np.random.default_rng(0), "oldest")):
        solution, _ = simulate(instance, policy)
        value = evaluate(instance, solution).objective
        if math.isfinite(value) and (best is None or value < best[1]):
            best = (solution, value)
    lower = makespan_lower_bound(instance)
    if instance.n_units and math.isfinite(lower):
        left = None if budget is None else budget.remaining()
        deadline = None if left is None else time.perf_counter() + CLAIRVOYANT_SHARE * left
        found = best_clairvoyant(instance, instance.first_schedule() + lower,
                                 deadline=deadline)
        if found is not None:
            found = perturbed(instance, instance.first_schedule() + lower, found,
                              rounds=JITTER_ROUNDS, deadline=deadline)
        if found is not None and not check(instance, found):
            value = evaluate(instance, found).objective
            if math.isfinite(value) and (best is None or value < best[1]):
                best = (found, value)
    return best


def estimated_bytes(offline: Offline) -> float:
    """What building and solving the offline model may take (:data:`BYTES_PER_SLOT`)."""
    n = offline.instance.n_units
    slots = sum(host.positions * (n + len(host.windows) + 6) for host in offline.hosts)
    return BASE_BYTES + BYTES_PER_SLOT * slots


def fallback(instance: Instance, budget: TimeBudget, best: Solution, value: float,
             reason: str) -> Result:
    """The warm start with the best bound the time left allows, and ``reason``.

    The strong bound (:mod:`.bound`) when time remains, else the cheap one;
    ``time_limit`` when the limit has run out, ``feasible`` otherwise.
    """
    from hybridsched.models.pull.bound import strong_bound

    left = budget.remaining()
    if left is None or left > 0:
        try:
            certificate = strong_bound(instance, time_limit=left,
                                       upper_end=instance.first_schedule() + value)
        except MemoryError:
            certificate = BoundCertificate(makespan_lower_bound(instance), "cheap bound")
    else:
        certificate = BoundCertificate(makespan_lower_bound(instance), "cheap bound")
    bound = min(value, certificate.value)
    if value <= bound + TOL * max(1.0, bound):
        return Result(METHOD, FAMILY, Status.OPTIMAL, solution=best, bound=value,
                      message=f"{reason}; the schedule meets the {certificate.method}")
    status = Status.TIME_LIMIT if budget.expired() else Status.FEASIBLE
    return Result(METHOD, FAMILY, status, solution=best, bound=bound,
                  metrics={"bound_method": certificate.method},
                  message=f"{reason}: the best heuristic schedule and the "
                          f"{certificate.method}")


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
    start = warm_start(instance, budget)
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
        return fallback(instance, budget, best, value,
                        f"too large for the offline model ({error})")
    try:
        require(f"the offline {backend} model", estimated_bytes(offline))
    except ModelTooLarge as error:
        return fallback(instance, budget, best, value, str(error))
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
    except MemoryError:
        return fallback(instance, budget, best, value,
                        f"the offline {backend} model ran out of memory")
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
