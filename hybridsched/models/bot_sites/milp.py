"""Exact bot-sites scheduling (Pyomo + HiGHS): the solve driver, entry point of the MILP.

:func:`solve` gathers checked warm starts (the given schedule, the
cheapest-site schedule, and on DAG instances the one-block model's
schedule), builds the model (:mod:`~hybridsched.models.bot_sites.milp_build`,
its DAG part in :mod:`~hybridsched.models.bot_sites.dag`), warm-starts it
and reads the incumbent back (:mod:`~hybridsched.models.bot_sites.milp_schedule`),
hands it to HiGHS within the time budget, and returns the best checked
schedule with only what the bounds prove
(:mod:`~hybridsched.models.bot_sites.claims`). :func:`model_size` says how
large a model :func:`solve` would build.
"""

from __future__ import annotations

from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import limited
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.models.bot_sites.claims import (
    CLAIM_RTOL,
    Candidate,
    Proof,
    checked_candidate,
    open_proof,
)
from hybridsched.models.bot_sites.dag import block_bound
from hybridsched.models.bot_sites.milp_build import (
    STAGE_BUILD,
    build,
    horizon_for,
    model_size,
    set_objective,
)
from hybridsched.models.bot_sites.milp_schedule import extract, warm_start
from hybridsched.models.solvers.highs import solve_with_highs
from hybridsched.result import Result, Status

#: Relative gap at which HiGHS stops (below :data:`CLAIM_RTOL`, so a proven optimum is
#: recognised as such).
MIP_GAP = 1e-10


def solve(instance: Instance, *, objective: str = "makespan", time_limit: float | None = None,
          start: Solution | None = None, verbose: bool = False,
          budget: TimeBudget | None = None) -> Result:
    """Solve ``instance`` exactly (or until the time limit) and return a :class:`Result`.

    Parameters
    ----------
    instance:
        The instance.
    objective:
        ``"makespan"``: minimum makespan; ``bound`` is a proven lower bound
        on it (HiGHS's bound on an exact model, or the fluid/critical-path
        bound). ``"cost"``: lexicographic: minimum cost (known exactly:
        :func:`~hybridsched.bot_sites.bounds.min_cost`, reached by
        :func:`~hybridsched.bot_sites.limits.cheapest_schedule`), then
        minimum makespan among schedules of that cost (within
        :data:`CLAIM_RTOL`). Status and ``bound`` then refer to the cost;
        the makespan's proof goes to ``metrics["makespan_bound"]`` and
        ``metrics["makespan_proven_minimal"]``.
    time_limit:
        Seconds for the whole call (used when ``budget`` is not given);
        ``0``: no model, return the best warm start with its bound.
    start:
        A schedule to start from (checked; repaired over time when it breaks
        hard limits; ignored when invalid).
    verbose:
        Stream the HiGHS log.
    budget:
        The method's time budget (includes the time already spent on
        ``start``).
    """
    opening = open_proof(instance, objective, start)
    if isinstance(opening, Result):
        return opening
    proof, candidates = opening
    budget = budget if budget is not None else TimeBudget(time_limit)
    if budget.warm_start_only:
        return proof.result(candidates, None, None, "time limit 0: warm start only, no model "
                            "built", timed_out=True)
    cost_cap = None
    if objective == "cost":   # every min-cost schedule, with half the claim tolerance to spare
        cost_cap = proof.cost_bound + CLAIM_RTOL / 2 * max(1.0, abs(proof.cost_bound))
    if objective == "makespan" and len(instance.edges) and not limited(instance) \
            and block_bound(instance).max() > 1:
        try:
            found = _one_block_start(instance, candidates, proof, budget)
        except (BudgetExpired, RuntimeError):
            found = None
        if found is not None:
            candidates.append(found)
    best = proof.best(candidates)
    if objective == "makespan" and best is not None and not limited(instance):
        horizon = horizon_for(instance, best.solution)
    else:
        horizon = horizon_for(instance, None)
    try:
        _check_room(budget, _BUILD_S_PER_VAR * model_size(instance) * (1 + _TRANSLATE_FACTOR),
                    "building the model")
        built = budget.elapsed()
        bm = build(instance, horizon=horizon, budget=budget)
        if cost_cap is not None:
            set_objective(bm, "makespan", cost_cap=cost_cap)
        warm = False
        for cand in sorted(candidates, key=proof.key):
            if cost_cap is not None and cand.cost > cost_cap:
                continue
            if warm_start(bm, cand.solution):
                warm = True
                break
        budget.check(STAGE_BUILD)
        _check_room(budget, (budget.elapsed() - built) * _TRANSLATE_FACTOR,
                    "translating the model for HiGHS")
        outcome = solve_with_highs(bm.model, mip_rel_gap=MIP_GAP, warm_start=warm,
                                   verbose=verbose, budget=_solver_budget(budget, instance),
                                   options={"mip_abs_gap": MIP_GAP})
    except BudgetExpired as exc:
        return proof.result(candidates, None, None,
                            f"time limit expired while {exc.stage}", timed_out=True)
    except RuntimeError as exc:  # HiGHS stopped with an error and no solution
        return proof.result(candidates, None, None, str(exc))
    if outcome.has_incumbent:
        try:
            found = checked_candidate(instance, extract(bm), "MILP")
        except RuntimeError:
            found = None
        if found is not None:
            candidates.append(found)
    return proof.result(candidates, bm, outcome, outcome.message,
                        timed_out=outcome.status is Status.TIME_LIMIT)


#: Seconds kept back from HiGHS for reading the solution back, plus per model variable.
EXTRACT_RESERVE_S = (0.1, 5e-6)

#: Rough cost of building the model (seconds per integer variable, on a 2-core machine
#: of 2024) and of translating it for HiGHS (times the building time): used only to
#: stop early when the time left cannot cover them, as neither can be interrupted
#: cheaply (the translation not at all).
_BUILD_S_PER_VAR = 1.5e-5
_TRANSLATE_FACTOR = 1.7


def _check_room(budget: TimeBudget, needed: float, stage: str) -> None:
    """Raise :class:`BudgetExpired` now if ``needed`` seconds (estimated) do not fit."""
    remaining = budget.remaining()
    if remaining is not None and needed + EXTRACT_RESERVE_S[0] > remaining:
        raise BudgetExpired(f"{stage} (about {needed:.2g} s needed, "
                            f"{remaining:.2g} s left)", float(budget.seconds or 0.0))


def _solver_budget(budget: TimeBudget, instance: Instance) -> TimeBudget:
    """What HiGHS may use of ``budget``: the rest minus time to read back and check."""
    remaining = budget.remaining()
    if remaining is None:
        return budget
    base, per_var = EXTRACT_RESERVE_S
    reserve = base + per_var * instance.n_bots * instance.n_procs
    return TimeBudget(max(0.0, remaining - reserve))


#: Share of the remaining time the one-block model may use to find a warm start.
ONE_BLOCK_SHARE = 0.3


def _one_block_start(instance: Instance, candidates: list[Candidate], proof: Proof,
                     budget: TimeBudget) -> Candidate | None:
    """A warm start from the one-block DAG model (a fast restriction; gap 1e-6).

    Its schedule is usually optimal, so the exact model then gets a tight
    horizon (big-M) and only has to prove it: about twice as fast overall on
    the benchmark's DAG instances.
    """
    # Room for this model and the exact one, or skip it (BudgetExpired).
    _check_room(budget, 2 * _BUILD_S_PER_VAR * model_size(instance) * (1 + _TRANSLATE_FACTOR),
                "building the one-block model")
    best = proof.best(candidates)
    horizon = horizon_for(instance, best.solution if best else None)
    bm = build(instance, horizon=horizon, budget=budget, max_blocks=1)
    warm = best is not None and warm_start(bm, best.solution)
    remaining = budget.remaining()
    share = None if remaining is None else remaining * ONE_BLOCK_SHARE
    out = solve_with_highs(bm.model, time_limit=share, mip_rel_gap=1e-6, warm_start=warm,
                           budget=budget)
    if not out.has_incumbent:
        return None
    return checked_candidate(instance, extract(bm), "one-block MILP")
