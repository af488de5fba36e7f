"""Exact hybrid-deadline scheduling (Pyomo + HiGHS): the solve driver of the linearised BNP.

:func:`build` makes the model (:mod:`~hybridsched.models.hybrid_deadline.milp_build`, where the
linearisation and its soundness are stated) and loads the warm start
(:mod:`~hybridsched.models.hybrid_deadline.milp_start`); :func:`solve` hands it to HiGHS within
the time budget and never claims more than is proven.

HiGHS accepts violations up to its feasibility tolerance (1e-9, as large as
the checker's own), so it may return a schedule that breaks a deadline or an
hour boundary by a hair, and its bound may rest on such a schedule.
:func:`solve` therefore re-checks every extracted schedule
(:mod:`~hybridsched.models.hybrid_deadline.milp_extract`) with the family checker; when it
fails (or the checker bills more hours than the model counted), the
combination at fault is forbidden by a *no-good cut*
(:mod:`~hybridsched.models.hybrid_deadline.milp_cuts`) and the model is solved again (at most
:data:`MAX_CUT_ROUNDS` rounds). The cuts remove only what the checker
rejects, so the bound stays valid and converges to the checker's optimum.
``optimal`` is claimed only when a checked schedule's recomputed cost meets a
proven bound (:mod:`~hybridsched.models.hybrid_deadline.claims`); a HiGHS bound
above a checked schedule's cost is a numerical failure and is discarded.

Before building, :func:`solve` counts the model
(:func:`~hybridsched.models.hybrid_deadline.sizing.milp_size`: pairs, rows, estimated
memory and build time); a model over the memory budget or longer to build
than the time left is not built, and a ``MemoryError`` while building or
solving frees the model: either way the warm start comes back with the best
affordable bound and a one-line reason
(:func:`~hybridsched.models.hybrid_deadline.fallback.fall_back`).
"""

from __future__ import annotations

from typing import Any

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.hybrid_deadline.bounds import infeasible_tasks, lower_bound, round_up_to_cost
from hybridsched.hybrid_deadline.checker import check, rent_cost
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.models.hybrid_deadline.claims import finish, proves_optimal, result
from hybridsched.models.hybrid_deadline.fallback import fall_back
from hybridsched.models.hybrid_deadline.milp_build import BNPModel, build_model
from hybridsched.models.hybrid_deadline.milp_cuts import add_no_good_cuts
from hybridsched.models.hybrid_deadline.milp_extract import extract
from hybridsched.models.hybrid_deadline.milp_start import load_start
from hybridsched.models.hybrid_deadline.sizing import milp_size, refusal
from hybridsched.models.solvers.highs import SolveOutcome, solve_with_highs
from hybridsched.result import Result, Status

#: HiGHS options of every solve (the gaps: optimality is judged here, on checked costs).
_OPTIONS = {"mip_abs_gap": 1e-9}
#: Rounds of no-good cuts before giving up on a solver schedule the checker rejects.
MAX_CUT_ROUNDS = 20
#: Seconds HiGHS needs to receive the model per second spent building it (measured:
#: 1.4-5); a time-limited run that cannot afford it returns the warm start at once.
TRANSLATE_PER_BUILD_S = 3.0
#: Share of the time left that HiGHS does not get (at most HIGHS_MARGIN_S seconds): it
#: overran a 12.9 s limit by 1.4 s on 600 generated tasks (51k pairs, load average 5
#: on 2 cores), and extraction and checking follow it.
HIGHS_MARGIN = 0.1
HIGHS_MARGIN_S = 2.0


def build(
    instance: Instance,
    start: Solution | None = None,
    *,
    budget: TimeBudget | None = None,
) -> BNPModel:
    """The model ready to solve: built, sized by ``start`` and warm-started from it.

    See :func:`~hybridsched.models.hybrid_deadline.milp_build.build_model` (the parameters and
    what it raises) and :func:`~hybridsched.models.hybrid_deadline.milp_start.load_start`.
    """
    built = build_model(instance, start, budget=budget)
    if start is not None:
        built.warm_start_loaded = load_start(built, start)
    return built


def _for_highs(budget: TimeBudget) -> TimeBudget:
    """What is left of ``budget`` less :data:`HIGHS_MARGIN` of it (at most :data:`HIGHS_MARGIN_S`).

    HiGHS checks its time limit between nodes, and reading its schedule back
    and checking it come after; the margin keeps the whole method within
    its limit.
    """
    remaining = budget.remaining()
    if remaining is None:
        return budget
    return TimeBudget(max(0.0, remaining - min(HIGHS_MARGIN * remaining, HIGHS_MARGIN_S)))


def _checked(instance: Instance, solution: Solution | None) -> Solution | None:
    return solution if solution is not None and not check(instance, solution) else None


def _cheaper(instance: Instance, a: Solution | None, b: Solution | None) -> Solution | None:
    if a is None or b is None:
        return a if b is None else b
    return b if rent_cost(instance, b) < rent_cost(instance, a) else a


def solve(
    instance: Instance,
    start: Solution | None = None,
    *,
    time_limit: float | None = None,
    verbose: bool = False,
    budget: TimeBudget | None = None,
    known_bound: float | None = None,
    options: dict[str, Any] | None = None,
) -> Result:
    """Build, solve and extract, within the time budget; never claim more than is proven.

    Parameters
    ----------
    instance:
        The instance.
    start:
        A warm start (typically the best heuristic schedule); ignored unless
        the checker accepts it.
    time_limit:
        Seconds for the whole call when no ``budget`` is given.
    verbose:
        Stream the HiGHS log.
    budget:
        The method's time budget (warm start heuristics included); a limit
        of 0 returns the warm start without building a model.
    known_bound:
        A lower bound already proven (e.g. by an earlier, shorter solve).
    options:
        Further HiGHS options of every solve (tests and benchmarks: e.g.
        ``mip_max_nodes``, a limit that does not depend on the machine).

    Returns
    -------
    Result
        ``OPTIMAL`` (a checked schedule whose recomputed cost meets a proven
        bound), ``FEASIBLE`` or ``TIME_LIMIT`` (a checked schedule with the
        best proven bound), ``INFEASIBLE`` (proven: tasks no usable core can
        run, or the exact model is infeasible) or ``NO_SOLUTION``.
    """
    budget = budget or TimeBudget(time_limit)
    unplaceable = infeasible_tasks(instance)
    if unplaceable:
        return result(Status.INFEASIBLE, None, None, "infeasible: " + ", ".join(unplaceable))
    start = _checked(instance, start)
    bound = max(lower_bound(instance), known_bound or 0.0)
    highs_options = {**_OPTIONS, **(options or {})}
    if start is not None and proves_optimal(rent_cost(instance, start), bound):
        return finish(instance, start, bound, False,
                       "the warm start meets the lower bound")
    if budget.warm_start_only:
        return finish(instance, start, bound, True,
                       "time limit 0: warm start only, with the cheap lower bound")
    size = milp_size(instance, None if start is None else rent_cost(instance, start))
    refused = refusal(size, budget)
    if refused is not None:
        reason, timed_out = refused
        return fall_back(instance, start, budget, reason, known_bound=bound, timed_out=timed_out)
    try:
        return _solve_model(instance, start, budget, bound, verbose, highs_options)
    except MemoryError:
        pass  # leaving the handler drops the traceback, and with it the model's frames
    return fall_back(instance, start, budget,
                     f"out of memory building or solving {size.what} ({size.describe()})",
                     known_bound=bound, timed_out=False, collect=True)


def _solve_model(instance: Instance, start: Solution | None, budget: TimeBudget, bound: float,
                 verbose: bool, highs_options: dict[str, Any]) -> Result:
    """:func:`solve` once the model is known to fit: build, solve, cut, claim."""
    prices = [vm.price for vm in instance.vm_types]
    try:
        building = budget.elapsed()
        built = build(instance, start, budget=budget)
        if built.infeasible:
            return result(Status.INFEASIBLE, None, None,
                           "infeasible: " + ", ".join(built.infeasible))
        translation = TRANSLATE_PER_BUILD_S * (budget.elapsed() - building) + 0.1
        remaining = budget.remaining()
        if remaining is not None and remaining < translation:
            raise BudgetExpired("handing the model to HiGHS (it would take about "
                                f"{translation:.1f} s more)", float(budget.seconds or 0.0))
        outcome: SolveOutcome = solve_with_highs(
            built.model, warm_start=built.warm_start_loaded, verbose=verbose,
            budget=_for_highs(budget), mip_rel_gap=1e-9, options=highs_options,
        )
    except BudgetExpired as exc:
        kept = ("warm start returned" if start is not None
                else "no warm start (the heuristics failed)")
        return finish(instance, start, bound, True,
                       f"time limit expired while {exc.stage}; {kept}, with the cheap "
                       "lower bound")
    except RuntimeError as exc:  # HiGHS stopped with an error and no solution
        return finish(instance, start, bound, False, f"{exc}; warm start kept")
    cuts = 0
    candidate: Solution | None = None
    for _ in range(MAX_CUT_ROUNDS):
        if outcome.status is Status.INFEASIBLE or not outcome.has_incumbent:
            break
        checked = _checked(instance, extract(built))
        candidate = _cheaper(instance, candidate, checked)
        if checked is not None and outcome.objective is not None and proves_optimal(
                rent_cost(instance, checked), outcome.objective):
            break  # the checker agrees with the model's schedule and its cost
        added = add_no_good_cuts(built)
        cuts += added
        remaining = budget.remaining()
        if added == 0 or (remaining is not None and remaining < translation):
            break
        if start is not None:
            load_start(built, start)
        try:
            outcome = solve_with_highs(built.model, warm_start=built.warm_start_loaded,
                                       verbose=verbose, budget=_for_highs(budget),
                                       mip_rel_gap=1e-9, options=highs_options)
        except (BudgetExpired, RuntimeError):
            break
    note = f"; {cuts} no-good cuts against sub-tolerance violations" if cuts else ""
    if outcome.status is Status.INFEASIBLE:
        if start is None:
            return result(Status.INFEASIBLE, None, None,
                           "infeasible: the exact model has no solution" + note)
        # A checked schedule exists, so "infeasible" can only be numerical trouble.
        return finish(instance, start, bound, False,
                       "HiGHS reported the model infeasible although the warm start is "
                       "valid; warm start kept" + note)
    timed_out = outcome.status is Status.TIME_LIMIT or budget.expired()
    best = _cheaper(instance, start, candidate)
    if outcome.bound is not None:
        solver_bound = round_up_to_cost(outcome.bound, prices)
        if best is not None and not proves_optimal(solver_bound, rent_cost(instance, best)):
            note += "; HiGHS's bound exceeds a checked schedule's cost and was discarded"
        else:
            bound = max(bound, solver_bound)
    message = outcome.message + note
    if outcome.has_incumbent and candidate is None:
        message += "; the solver's schedule failed the checker, warm start kept"
    if best is None:
        message = ("time limit reached before any solution was found" if timed_out
                   else "no schedule found") + note
    return finish(instance, best, bound, timed_out and best is not None
                   and not proves_optimal(rent_cost(instance, best), bound), message.strip("; "))
