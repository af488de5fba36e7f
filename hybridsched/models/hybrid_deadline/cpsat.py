"""Exact hybrid-deadline scheduling with OR-Tools CP-SAT: the second, independent backend.

The model (:mod:`~hybridsched.models.hybrid_deadline.cpsat_build`) is written from the
checker's rules, not from the MILP: optional intervals on every core with
no-overlap, deadlines as the intervals' latest ends, and integer billed hours
per VM slot that every task on it must end within. The data is scaled to
integers (:mod:`~hybridsched.models.hybrid_deadline.cpsat_scale`): exactly when every
number is decimal (the model's optimum is then the real problem's), else
rounded into a relaxation.

Claims (the checker is ground truth; tasks are read as running for their full
duration without overlap, the reading the HiGHS model makes too):

* ``optimal``: a schedule the checker accepts costs no more than a bound the
  model proved. The model contains every checker-accepted schedule (exactly,
  or as a relaxation), so its bound holds for the real problem either way.
* With exact data the model holds only the schedules *strictly cheaper*
  than the warm start (cost at most its scaled cost less one: costs are
  integers in those units), which also shrinks the slots and hours it
  needs; its bound, capped at the warm start's cost, is the real problem's,
  and its infeasibility proves the warm start optimal. The family's cheap
  lower bound is a row on the cost (valid for every real schedule, and so
  for every schedule of the exact model).
* ``infeasible``: CP-SAT proved the model infeasible, or a task fits on no
  core, while no checked schedule is known; a relaxation's infeasibility
  proves the real problem's.
* otherwise ``time_limit``/``feasible`` with the proven bound (a CP-SAT bound
  above a checked schedule's cost would be a bug and is discarded), or
  ``no_solution``.

The warm start (the best heuristic schedule) is first improved by a
ruin-and-recreate search with a fixed number of rounds
(:func:`improved_start`: same seed, same start). A schedule from CP-SAT is
re-read in real units (EDF, back to back) and kept only if the checker
accepts it; the warm start is never beaten by a worse result.

As for the HiGHS model, the CP-SAT model is counted before it is built
(:func:`~hybridsched.models.hybrid_deadline.sizing.cpsat_size`); over the memory
budget, too slow to build in the time left, or a ``MemoryError``: the warm
start with the best affordable bound and a one-line reason
(:func:`~hybridsched.models.hybrid_deadline.fallback.fall_back`).
"""

from __future__ import annotations

import math
from typing import Any

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.heuristics.hybrid_deadline.lns import improve
from hybridsched.heuristics.hybrid_deadline.lns_packing import pack_within
from hybridsched.hybrid_deadline.bounds import lower_bound
from hybridsched.hybrid_deadline.checker import check, rent_cost
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.models.hybrid_deadline.claims import finish, proves_optimal, result
from hybridsched.models.hybrid_deadline.cpsat_build import BnpCpsat, build_model
from hybridsched.models.hybrid_deadline.cpsat_io import add_schedule_hint, extract, scaled_cost
from hybridsched.models.hybrid_deadline.cpsat_scale import scale_data
from hybridsched.models.hybrid_deadline.fallback import fall_back
from hybridsched.models.hybrid_deadline.sizing import cpsat_size, refusal
from hybridsched.models.solvers.cpsat import solve_with_cpsat
from hybridsched.result import Result, Status

#: Share of a time limit the local search may use at most (a safety: its rounds are
#: capped, so the same seed gives the same start unless this binds).
START_SHARE = 0.2
#: Nodes of each packing search below the local search's cost (tasks by density): on the
#: 100-task benchmark it finds seeds 5 and 6's 4-hour schedules in 0.02 s where the local
#: search stops at 5 hours, and gives up in under 0.5 s elsewhere.
PACK_NODES = 5_000
#: CP-SAT parameters of every solve: linearization level 2 puts the no-overlap and
#: billing rows' relaxations into the LP (100 tasks, seed 2: bound 12 h in 60 s; 11 h,
#: the cheap bound, at level 1).
PARAMETERS: dict[str, Any] = {"linearization_level": 2}
#: Seconds CP-SAT may run past its limit per second of building, and the share of the
#: time left kept for reading its schedule back (see :func:`_for_search`).
LOAD_PER_BUILD = 0.2
SEARCH_MARGIN = 0.05


def parameters(threads: int) -> dict[str, Any]:
    """CP-SAT parameters for ``threads`` workers: with several, at least two full searches."""
    if threads > 1:
        return {**PARAMETERS, "num_full_subsolvers": max(2, threads // 2)}
    return dict(PARAMETERS)


def improved_start(instance: Instance, start: Solution | None, lower: float, *, seed: int,
                   budget: TimeBudget) -> Solution | None:
    """``start`` improved by counted searches: ruin and recreate, then packing.

    First :func:`~hybridsched.heuristics.hybrid_deadline.lns.improve`'s rounds, then
    :func:`~hybridsched.heuristics.hybrid_deadline.lns_packing.pack_within` (tasks by
    density, :data:`PACK_NODES` nodes each) for ever cheaper schedules.
    Rounds and nodes are counted, not timed, so the result depends on
    ``seed`` only; :data:`START_SHARE` of a time limit is a safety cap. The
    model is sized by the start's cost, so a cheaper start is a smaller model.
    """
    if start is None:
        return None
    remaining = budget.remaining()
    cap = None if remaining is None else START_SHARE * remaining
    started = budget.elapsed()
    best = improve(instance, start, seed=seed, target=lower, max_seconds=cap)
    cost = rent_cost(instance, best)
    while not proves_optimal(cost, lower):
        left = None if cap is None else cap - (budget.elapsed() - started)
        if left is not None and left <= 0:
            break
        found = pack_within(instance, cost * (1 - 1e-7) - 1e-9, node_limit=PACK_NODES,
                            max_seconds=left, by_density=True)
        if found is None or check(instance, found) or rent_cost(instance, found) >= cost:
            break
        best, cost = found, rent_cost(instance, found)
    return best


def build(instance: Instance, start: Solution | None = None, *,
          budget: TimeBudget | None = None, symmetry: bool = True,
          strict: bool = False, lower: float = 0.0) -> BnpCpsat:
    """The model, sized by a checked ``start`` and hinted with it.

    ``strict`` admits only schedules strictly cheaper than ``start`` (when
    the data is exact and ``start`` costs something): the slots and hours
    are sized by that smaller cost, and the model's infeasibility proves
    ``start`` optimal. ``lower`` (a proven lower bound, dollars) is stated
    as a row on the cost when the data is exact.
    """
    data = scale_data(instance)
    upper = scaled_cost(instance, data, start) if start is not None and data.exact else None
    cutoff = upper - 1 if strict and upper else None
    built = build_model(instance, upper if cutoff is None else cutoff, budget=budget,
                        symmetry=symmetry)
    if cutoff is not None:
        built.cutoff = cutoff
        built.model.add(built.cost <= cutoff)
    if data.exact and lower > 0:
        # Every schedule the model holds is a real one of the same (integer) cost.
        built.model.add(built.cost >= math.floor(lower * data.price_factor * (1 - 1e-9)))
    if start is not None:
        add_schedule_hint(built, start)
    return built


def solve(instance: Instance, start: Solution | None = None, *, budget: TimeBudget | None = None,
          time_limit: float | None = None, threads: int = 1, seed: int = 0,
          verbose: bool = False, extra_parameters: dict[str, Any] | None = None,
          known_bound: float | None = None) -> Result:
    """Build and solve the CP-SAT model within the budget; claim only what is proven.

    Parameters
    ----------
    instance:
        The instance.
    start:
        A warm start (the best heuristic schedule), improved by the local
        search (:func:`improved_start`), used as the hint and as the result
        when nothing better is found; ignored unless checked.
    budget, time_limit:
        The method's time budget (or a limit for this call alone); a limit of
        0 returns the warm start with the family's cheap bound.
    threads, seed:
        CP-SAT's search workers and random seed (also the local search's seed).
    verbose:
        Print CP-SAT's search log.
    extra_parameters:
        Further CP-SAT parameters (tests and benchmarks: e.g.
        ``max_deterministic_time``, a limit that does not depend on the machine).
    known_bound:
        A lower bound already proven (the certified strong bound).
    """
    budget = budget or TimeBudget(time_limit)
    if start is not None and check(instance, start):
        start = None
    lower = max(lower_bound(instance), known_bound or 0.0)
    if budget.warm_start_only:
        return finish(instance, start, lower, True,
                       "time limit 0: warm start only, with the cheap lower bound")
    if start is not None and proves_optimal(rent_cost(instance, start), lower):
        return finish(instance, start, lower, False, "the warm start meets the lower bound")
    start = improved_start(instance, start, lower, seed=seed, budget=budget)
    if start is not None and proves_optimal(rent_cost(instance, start), lower):
        return finish(instance, start, lower, False,
                       "the local search's schedule meets the lower bound")
    size = cpsat_size(instance, None if start is None else rent_cost(instance, start))
    refused = refusal(size, budget)
    if refused is not None:
        reason, timed_out = refused
        return fall_back(instance, start, budget, reason, known_bound=lower, timed_out=timed_out)
    try:
        return _solve_model(instance, start, budget, lower, threads=threads, seed=seed,
                            verbose=verbose, extra_parameters=extra_parameters)
    except MemoryError:
        pass  # leaving the handler drops the traceback, and with it the model's frames
    return fall_back(instance, start, budget,
                     f"out of memory building or solving {size.what} ({size.describe()})",
                     known_bound=lower, timed_out=False, collect=True)


def _for_search(budget: TimeBudget, building: float) -> TimeBudget:
    """What is left of ``budget`` for CP-SAT, less the time it takes beyond its limit.

    CP-SAT loads and presolves the model before its clock binds: it overran
    a 6.5 s limit by 2.4 s after a 16.7 s build (600 generated tasks, load
    average 4 on 2 cores). :data:`LOAD_PER_BUILD` of the build time and
    :data:`SEARCH_MARGIN` of what is left are kept back.

    Raises
    ------
    BudgetExpired
        When nothing would be left for the search.
    """
    remaining = budget.remaining()
    if remaining is None:
        return budget
    left = remaining - LOAD_PER_BUILD * building - SEARCH_MARGIN * remaining
    if left <= 0:
        raise BudgetExpired("handing the model to CP-SAT", float(budget.seconds or 0.0))
    return TimeBudget(left)


def _solve_model(instance: Instance, start: Solution | None, budget: TimeBudget, lower: float,
                 *, threads: int, seed: int, verbose: bool,
                 extra_parameters: dict[str, Any] | None) -> Result:
    """:func:`solve` once the model is known to fit: build, solve, read back, claim."""
    building = budget.elapsed()
    try:
        built = build(instance, start, budget=budget, strict=True, lower=lower)
        search = _for_search(budget, budget.elapsed() - building)
    except BudgetExpired as exc:
        return finish(instance, start, lower, True,
                       f"time limit expired while {exc.stage}; warm start kept, with the "
                       "cheap lower bound")
    scaling = built.data
    note = "" if scaling.exact else "; data rounded into a relaxation (bound only)"
    if built.infeasible and start is None:
        return result(Status.INFEASIBLE, None, None,
                       "infeasible: no core finishes " + ", ".join(built.infeasible) + note)
    outcome = solve_with_cpsat(built.model, budget=search, threads=threads, seed=seed,
                               verbose=verbose,
                               parameters={**parameters(threads), **(extra_parameters or {})})
    if outcome.status is Status.INFEASIBLE:
        if start is None:
            return result(Status.INFEASIBLE, None, None,
                           "infeasible: CP-SAT proved the model has no solution" + note)
        if built.cutoff is not None:
            # The model held every schedule strictly cheaper than the warm start.
            return finish(instance, start, scaling.cost(built.cutoff + 1), False,
                           f"CP-SAT proved in {outcome.seconds:.2f} s that no schedule is "
                           "cheaper than the warm start")
        return finish(instance, start, None, False,
                       "CP-SAT reported the model infeasible although the warm start is "
                       "valid (a model defect); warm start kept")
    candidate = extract(built, outcome.solver) if outcome.has_incumbent else None
    message = f"CP-SAT {outcome.status.value} in {outcome.seconds:.2f} s{note}"
    if candidate is not None and check(instance, candidate):
        candidate = None
        message += "; CP-SAT's schedule failed the checker"
    best = start
    if candidate is not None and (best is None
                                  or rent_cost(instance, candidate) < rent_cost(instance, best)):
        best = candidate
    bound = None
    if outcome.bound is not None:
        # The objective is an integer: a fractional bound rounds up (and only just so).
        scaled = math.ceil(outcome.bound - 1e-6)
        if built.cutoff is not None:
            # A bound of the schedules cheaper than the warm start; the warm start is one more.
            scaled = min(scaled, built.cutoff + 1)
        bound = scaling.cost(scaled)
        if best is not None and not proves_optimal(bound, rent_cost(instance, best)):
            message += "; CP-SAT's bound exceeds a checked schedule's cost and was discarded"
            bound = None
    timed_out = outcome.status is Status.TIME_LIMIT or budget.expired()
    return finish(instance, best, max(lower, 0.0 if bound is None else bound), timed_out,
                   message)
