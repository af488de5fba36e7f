"""The ``hybrid-deadline`` family's methods as the registry calls them.

Declared by name in :mod:`hybridsched.hybrid_deadline.methods`, whose
docstring lists each heuristic's readings of the paper (its options).
``exact`` warm-starts from the default readings.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from hybridsched.backends import check_exact_options
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.errors import InputError, MethodFailedError
from hybridsched.heuristics.hybrid_deadline.cdf import cdf, check_cdf_options
from hybridsched.heuristics.hybrid_deadline.ffd import check_fit, estimated_seconds, ffd, ffd_within
from hybridsched.heuristics.hybrid_deadline.lns import improve
from hybridsched.heuristics.hybrid_deadline.lns_packing import descend
from hybridsched.heuristics.hybrid_deadline.reassign import check_accept, reassign
from hybridsched.hybrid_deadline.bounds import lower_bound
from hybridsched.hybrid_deadline.checker import check, rent_cost
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.result import Result, Status

FAMILY = "hybrid-deadline"

#: Seconds (at most; a third of what is left of a time limit) for the stages of ``exact``
#: before the final solve: local search on the heuristic schedule and a first short
#: MILP solve (often a proof already). The packing search below the incumbent is
#: bounded by node counts (deterministic), and by a third of what is left of a time
#: limit, or by PACKING_SECONDS (a safety) without one.
LOCAL_SEARCH_SECONDS = 1.0
PROBE_SECONDS = 1.5
PACKING_SECONDS = 30.0
#: Share of what is left of a time limit that FFD may take in the warm start (CDF+RA
#: has run by then; the rest goes to the local search and the model), and the seconds
#: it may take whatever the limit (so that small instances, where FFD takes
#: milliseconds, keep the same warm start under every limit, 0 included).
FFD_SHARE = 0.3
FFD_MIN_SECONDS = 0.5

def check_cdf(options: Mapping[str, Any]) -> None:
    """Refuse CDF's readings outside their choices (one-line InputError)."""
    check_cdf_options(options)


def check_ffd(options: Mapping[str, Any]) -> None:
    """Refuse FFD's readings outside their choices (one-line InputError)."""
    if "fit" in options:
        check_fit(options["fit"])


def check_cdf_ra(options: Mapping[str, Any]) -> None:
    """Refuse CDF's and RA's readings outside their choices (one-line InputError)."""
    check_cdf_options(options)
    if "ra_accept" in options:
        check_accept(options["ra_accept"])


def check_ffd_ra(options: Mapping[str, Any]) -> None:
    """Refuse FFD's and RA's readings outside their choices (one-line InputError)."""
    check_ffd(options)
    if "ra_accept" in options:
        check_accept(options["ra_accept"])


def cdf_ra(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
           fit: str = "append", scan: str = "all", ra_accept: str = "task") -> Solution:
    """CDF, then RA on every machine (options: :func:`cdf`'s and RA's ``accept``)."""
    check_accept(ra_accept)
    return reassign(instance, cdf(instance, fit=fit, scan=scan), accept=ra_accept)


def ffd_ra(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
           fit: str = "edf", ra_accept: str = "task") -> Solution:
    """FFD, then RA on every machine (options: :func:`ffd`'s and RA's ``accept``)."""
    check_accept(ra_accept)
    return reassign(instance, ffd(instance, fit=fit), accept=ra_accept)


def best_heuristic_solution(instance: Instance,
                            budget: TimeBudget | None = None) -> Solution | None:
    """The cheaper of CDF+RA and FFD+RA (``None`` if both fail).

    With a limited ``budget``, FFD (quadratic: 46 s at 200,000 tasks, where
    CDF+RA takes 2.3 s) runs only when its estimated time
    (:func:`~hybridsched.heuristics.hybrid_deadline.ffd.estimated_seconds`,
    from the cores CDF+RA used) fits in :data:`FFD_SHARE` of what is left
    (or :data:`FFD_MIN_SECONDS`, if more), and gives up then, keeping CDF+RA.
    Without a limit, or when FFD fits, the result is the same as with no budget.
    """
    try:
        candidates = [cdf_ra(instance)]
    except MethodFailedError:
        candidates = []
    remaining = None if budget is None else budget.remaining()
    share = None if remaining is None else max(FFD_MIN_SECONDS, FFD_SHARE * remaining)
    if share is not None and candidates:
        cores = (sum(pm.cores for pm in instance.pms)
                 + sum(instance.vm_types[t].cores for t in candidates[0].vm_types))
        if estimated_seconds(instance.n_tasks, cores) > share:
            return candidates[0]
    with contextlib.suppress(MethodFailedError, BudgetExpired):  # CDF+RA alone, then
        candidates.append(reassign(instance, ffd_within(instance, TimeBudget(share))))
    return min(candidates, key=lambda s: rent_cost(instance, s), default=None)


def exact(instance: Instance, *, seed: int | None = None,
          time_limit: float | None = None, backend: str = "highs", threads: int = 1) -> Result:
    """Solve the BNP exactly: the linearised MILP with HiGHS, or CP-SAT.

    ``backend="cpsat"`` solves the CP-SAT model
    (:mod:`~hybridsched.models.hybrid_deadline.cpsat`) hinted with the best heuristic
    schedule, with ``threads`` search workers and ``seed`` (default 0) as
    CP-SAT's seed; ``time_limit`` bounds the whole method. The rest of this
    docstring is the HiGHS path (the default).


    Stages: CDF+RA / FFD+RA; local search
    (:func:`~hybridsched.heuristics.hybrid_deadline.lns.improve`); a short MILP
    solve, which often proves the optimum; if not, the packing search below its
    incumbent (:func:`~hybridsched.heuristics.hybrid_deadline.lns_packing.descend`),
    whose tight packings the MILP tends to find late; then the MILP again with
    the rest of the time and the bound already proven. A schedule whose cost
    meets the cheap bound (:func:`~hybridsched.hybrid_deadline.bounds.lower_bound`)
    ends the run at once.

    ``time_limit`` bounds the whole method (heuristics, searches, model
    building, solve, extraction); 0 returns the best heuristic schedule with
    the cheap lower bound, without building a model. ``seed`` seeds the
    local search (default 0).

    At scale (thousands of tasks: millions of (task, core) pairs) the model
    is counted before it is built, on both backends: over the memory budget
    (``--memory-limit``) or longer to build than the time left, the method
    returns the warm start with the best affordable bound and says why in
    one line (:mod:`hybridsched.models.hybrid_deadline.sizing`,
    :mod:`hybridsched.models.hybrid_deadline.fallback`); so does a
    ``MemoryError``. The warm start itself skips FFD when it cannot fit the
    time left (:func:`best_heuristic_solution`).
    """
    check_exact_options({"backend": backend, "threads": threads})
    budget = TimeBudget(time_limit)
    start = best_heuristic_solution(instance, budget)
    lower = lower_bound(instance)
    if start is not None and not budget.warm_start_only and rent_cost(instance, start) > lower:
        from hybridsched.models.hybrid_deadline.fallback import fallback_bound

        # The certified strong bound within a quarter of what is left: it often
        # proves the warm start optimal, or gives the model a bound to start from.
        lower = fallback_bound(instance, budget, share=0.25)
    if backend == "cpsat":
        from hybridsched.models.hybrid_deadline import cpsat  # OR-Tools: imported only when it runs

        return cpsat.solve(instance, start, budget=budget, threads=threads,
                           seed=0 if seed is None else seed, known_bound=lower)
    if start is not None and not budget.warm_start_only:
        start = improve(instance, start, seed=0 if seed is None else seed, target=lower,
                        max_seconds=_share(budget, LOCAL_SEARCH_SECONDS))
        declined = _without_model(instance, start, budget, lower)
        if declined is not None:
            return declined
    from hybridsched.models.hybrid_deadline import (
        milp,  # pyomo: imported only when an exact model runs
    )

    if start is None or budget.warm_start_only:
        return milp.solve(instance, start, budget=budget)
    probe = milp.solve(instance, start, budget=TimeBudget(_share(budget, PROBE_SECONDS)),
                       known_bound=lower)
    if probe.status is not Status.TIME_LIMIT or budget.expired():
        return probe
    if probe.solution is not None:
        start = probe.solution
    lower = max(lower, probe.bound or 0.0)
    packing = budget.remaining()
    start = descend(instance, start, lower,
                    max_seconds=PACKING_SECONDS if packing is None else packing / 3)
    return milp.solve(instance, start, budget=budget, known_bound=lower)


def bound(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          **options: Any) -> Result:
    """The best heuristic schedule (``exact``'s warm start) with the certified strong bound.

    The bound is the energetic LP of
    :mod:`hybridsched.models.hybrid_deadline.bound` (its name in
    ``metrics["bound_method"]``); ``time_limit`` bounds the whole method,
    the heuristics first, and 0 gives the cheap bound. The status is
    ``optimal`` when the schedule's cost meets the bound.
    """
    from hybridsched.bound_proof import bounded_result
    from hybridsched.models.hybrid_deadline.bound import fallback_reason, strong_bound

    if options:
        raise InputError(f"the bound method takes no options, got {sorted(options)}")
    budget = TimeBudget(time_limit)
    start = best_heuristic_solution(instance, budget)
    certificate = strong_bound(instance, time_limit=budget.remaining(),
                               seed=0 if seed is None else seed)
    cost = None if start is None else rent_cost(instance, start)
    reasons = [fallback_reason(certificate), "" if start is not None else "no heuristic schedule"]
    message = "; ".join(r for r in reasons if r)
    return bounded_result(FAMILY, start, cost, certificate, message)


def _without_model(instance: Instance, start: Solution, budget: TimeBudget,
                   lower: float) -> Result | None:
    """The one-line fallback when the HiGHS model cannot be built at all, else ``None``.

    Counted without Pyomo (:func:`~hybridsched.models.hybrid_deadline.sizing.milp_size`),
    so at 200,000 tasks the fallback costs no import and no model; the
    warm start is checked here as :func:`~hybridsched.models.hybrid_deadline.milp.solve`
    would check it.
    """
    from hybridsched.models.hybrid_deadline.fallback import fall_back
    from hybridsched.models.hybrid_deadline.sizing import milp_size, refusal

    if lower >= rent_cost(instance, start) or check(instance, start):
        return None  # optimal already, or a warm start to refuse: milp.solve says so
    refused = refusal(milp_size(instance, rent_cost(instance, start)), budget)
    if refused is None:
        return None
    reason, timed_out = refused
    return fall_back(instance, start, budget, reason, known_bound=lower, timed_out=timed_out)


def _share(budget: TimeBudget, seconds: float) -> float:
    """``seconds``, or a third of what is left of a time limit if that is less."""
    remaining = budget.remaining()
    return seconds if remaining is None else min(seconds, remaining / 3)
