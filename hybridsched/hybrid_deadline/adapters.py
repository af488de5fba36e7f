"""The ``hybrid-deadline`` family's methods as the registry calls them.

Declared by name in :mod:`hybridsched.hybrid_deadline.methods`, whose
docstring lists each heuristic's readings of the paper (its options).
``exact`` warm-starts from the default readings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hybridsched.backends import check_exact_options
from hybridsched.budget import TimeBudget
from hybridsched.errors import MethodFailedError
from hybridsched.heuristics.hybrid_deadline.cdf import cdf, check_cdf_options
from hybridsched.heuristics.hybrid_deadline.ffd import check_fit, ffd
from hybridsched.heuristics.hybrid_deadline.lns import improve
from hybridsched.heuristics.hybrid_deadline.lns_packing import descend
from hybridsched.heuristics.hybrid_deadline.reassign import check_accept, reassign
from hybridsched.hybrid_deadline.bounds import lower_bound
from hybridsched.hybrid_deadline.checker import rent_cost
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


def best_heuristic_solution(instance: Instance) -> Solution | None:
    """The cheaper of CDF+RA and FFD+RA (``None`` if both fail)."""
    candidates = []
    for method in (cdf_ra, ffd_ra):
        try:
            candidates.append(method(instance))
        except MethodFailedError:
            continue
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
    """
    check_exact_options({"backend": backend, "threads": threads})
    budget = TimeBudget(time_limit)
    if backend == "cpsat":
        from hybridsched.models.hybrid_deadline import cpsat  # OR-Tools: imported only when it runs

        start = best_heuristic_solution(instance)
        return cpsat.solve(instance, start, budget=budget, threads=threads,
                               seed=0 if seed is None else seed)
    from hybridsched.models.hybrid_deadline import (
        milp,  # pyomo: imported only when an exact model runs
    )

    start = best_heuristic_solution(instance)
    if start is None or budget.warm_start_only:
        return milp.solve(instance, start, budget=budget)
    lower = lower_bound(instance)
    start = improve(instance, start, seed=0 if seed is None else seed, target=lower,
                    max_seconds=_share(budget, LOCAL_SEARCH_SECONDS))
    probe = milp.solve(instance, start, budget=TimeBudget(_share(budget, PROBE_SECONDS)))
    if probe.status is not Status.TIME_LIMIT or budget.expired():
        return probe
    if probe.solution is not None:
        start = probe.solution
    lower = max(lower, probe.bound or 0.0)
    packing = budget.remaining()
    start = descend(instance, start, lower,
                    max_seconds=PACKING_SECONDS if packing is None else packing / 3)
    return milp.solve(instance, start, budget=budget, known_bound=lower)


def _share(budget: TimeBudget, seconds: float) -> float:
    """``seconds``, or a third of what is left of a time limit if that is less."""
    remaining = budget.remaining()
    return seconds if remaining is None else min(seconds, remaining / 3)
