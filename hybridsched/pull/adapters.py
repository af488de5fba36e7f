"""The ``pull`` family's methods as the registry calls them (online pull schedulers, simulated).

Declared by name in :mod:`hybridsched.pull.methods`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hybridsched.errors import InputError
from hybridsched.heuristics.pull.policies import (
    DEFAULT_SPREAD,
    DEFAULT_TARGETS,
    DEFAULT_THRESHOLDS,
    DEFAULT_WEIGHTS,
    Fcfs,
    PrometheeScheduler,
    strategy,
)
from hybridsched.heuristics.pull.simulation import PullPolicy, simulate
from hybridsched.pull.instance import Instance
from hybridsched.result import Result, Status

FAMILY = "pull"


#: Incomplete work units named in a message (then "and N more").
NAMED_UNITS = 5


def _result(name: str, instance: Instance, policy: PullPolicy, replicas: str) -> Result:
    solution, stats = simulate(instance, policy, replicas=replicas)
    incomplete = np.flatnonzero(~np.isfinite(solution.completion(instance.n_units)))
    if not incomplete.size:
        return Result(name, FAMILY, Status.FEASIBLE, solution=solution, metrics=stats.metrics())
    named = ", ".join(repr(instance.unit_ids[u]) for u in incomplete[:NAMED_UNITS])
    more = f" and {incomplete.size - NAMED_UNITS} more" if incomplete.size > NAMED_UNITS else ""
    return Result(name, FAMILY, Status.NO_SOLUTION, metrics=stats.metrics(),
                  message=f"no correct result for work unit(s) {named}{more}: {stats.stopped}")


def promethee(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
              preference: str = "linear", weights: str | Sequence[float] = DEFAULT_WEIGHTS,
              targets: str | Sequence[str] = DEFAULT_TARGETS,
              q: float | str | Sequence[float] | None = None,
              p: float | str | Sequence[float] | None = None, window: float = 1.0,
              spread: str = DEFAULT_SPREAD, noi_max: str = "workload",
              replicas: str = "tiered", thresholds: str = DEFAULT_THRESHOLDS) -> Result:
    """The Promethee scheduler: criteria ECT, price, EEI.

    The policy is :mod:`hybridsched.heuristics.pull.policies`. ``replicas``: the
    reading of the replicas' priority (:mod:`hybridsched.heuristics.pull.simulation`).
    ``thresholds``: ``q`` and ``p`` in sigmas or in each criterion's units
    (:mod:`hybridsched.heuristics.pull.promethee_thresholds`).
    """
    chosen = strategy(preference=preference, weights=weights, targets=targets, q=q, p=p,
                      window=window, spread=spread, noi_max=noi_max, thresholds=thresholds)
    return _result("promethee", instance,
                   PrometheeScheduler(chosen, np.random.default_rng(seed or 0)), replicas)


def fcfs(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
         order: str = "random", replicas: str = "tiered") -> Result:
    """A uniformly random queued task (or the oldest) for each pulling host."""
    return _result("fcfs", instance, Fcfs(np.random.default_rng(seed or 0), order), replicas)


def exact(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          backend: str = "highs", threads: int = 1) -> Result:
    """The clairvoyant offline optimum (:mod:`hybridsched.models.pull.offline`).

    ``backend``: ``highs`` (MILP) or ``cpsat``; ``threads``: CP-SAT workers.
    """
    from hybridsched.models.pull.offline import solve

    return solve(instance, backend=backend, time_limit=time_limit, threads=threads,
                 seed=seed or 0)


def bound(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          **options: Any) -> Result:
    """The best heuristic schedule (``exact``'s warm start) with the certified strong bound.

    The bound is the window LP of :mod:`hybridsched.models.pull.bound` (its
    name in ``metrics["bound_method"]``); ``time_limit`` bounds the whole
    method, the heuristics first, and 0 gives the cheap bound. The status is
    ``optimal`` when the schedule's makespan meets the bound.
    """
    from hybridsched.bound_proof import bounded_result
    from hybridsched.budget import TimeBudget
    from hybridsched.models.pull.bound import fallback_reason, strong_bound
    from hybridsched.models.pull.offline import warm_start

    if options:
        raise InputError(f"the bound method takes no options, got {sorted(options)}")
    budget = TimeBudget(time_limit)
    start = warm_start(instance, budget)
    upper = None if start is None else instance.first_schedule() + start[1]
    certificate = strong_bound(instance, time_limit=budget.remaining(),
                               seed=0 if seed is None else seed, upper_end=upper)
    solution, value = (None, None) if start is None else start
    reasons = [fallback_reason(certificate),
               "" if start is not None else "no heuristic schedule completes every unit"]
    message = "; ".join(r for r in reasons if r)
    return bounded_result(FAMILY, solution, value, certificate, message)
