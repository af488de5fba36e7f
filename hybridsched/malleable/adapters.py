"""The ``malleable`` family's methods as the registry calls them.

Declared by name in :mod:`hybridsched.malleable.methods`.

The online methods simulate the instance (:mod:`hybridsched.heuristics.malleable.simulation`)
and return the realised schedule with their counters (decisions, messages
per decision, reschedulings, events per second); the checker recomputes
every other metric. They take ``policy`` (``"A"``: money saving, ``"B"``:
time saving) and, like every method, ``objective`` (which metric the result
reports as its objective; default ``penalised_a``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hybridsched.backends import check_exact_options
from hybridsched.errors import InputError
from hybridsched.heuristics.malleable.simulation import Scheduler, simulate
from hybridsched.malleable.instance import Instance
from hybridsched.malleable.limits import check_end
from hybridsched.result import Result, Status

FAMILY = "malleable"


def check_policy(options: dict[str, object]) -> None:
    """Refuse a ``policy`` other than A or B (up front, before a campaign or simulation runs)."""
    policy = options.get("policy", "A")
    if policy is not None and policy not in ("A", "B"):
        raise InputError(f"option --policy: must be A or B, got {policy!r}")


def optimised(policy: str | None, objective: str | None) -> str:
    """The objective a run reports: ``objective`` when given, else the policy's penalised score.

    So a run under policy B reports ``penalised_b`` with a bound of
    ``penalised_b``: objective, bound and gap always measure one thing.
    """
    if objective is not None:
        return objective
    return f"penalised_{(policy or 'A').lower()}"


def _online(name: str, scheduler: Scheduler) -> Callable[..., Result]:
    def method(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
               policy: str = "A", objective: str | None = None) -> Result:
        check_policy({"policy": policy})
        solution, stats = simulate(instance, scheduler, policy, seed)
        return Result(name, FAMILY, Status.FEASIBLE, solution=solution,
                      metrics={**stats.metrics(), "optimised": optimised(policy, objective)})

    method.__name__ = name.replace("-", "_")
    method.__doc__ = f"The online scheduler {name!r}, simulated (registered as ``{name}``)."
    return method


#: The online schedulers as methods, by name (the targets of :mod:`.methods`).
SCHEDULERS = {name: _online(name, name) for name in ("tree", "flat", "round-robin")}


def check_exact(options: dict[str, object]) -> None:
    """The exact method's options: ``policy``, ``backend`` and ``threads``."""
    check_policy(options)
    check_exact_options(options)


def exact(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          policy: str | None = None, objective: str | None = None, backend: str = "highs",
          threads: int = 1) -> Result:
    """The offline optimum of the batch (all jobs known in advance), or a valid bound.

    ``policy`` picks the penalised objective of that policy (``"A"``:
    ``penalised_a``, ``"B"``: ``penalised_b``) when ``objective`` is not
    given; see :mod:`hybridsched.models.malleable.milp` (``backend="highs"``)
    and :mod:`hybridsched.models.malleable.cpsat` (``backend="cpsat"``, with
    ``threads`` search workers): both solve the same malleable batch problem.
    """
    check_exact({"policy": policy, "backend": backend, "threads": threads})
    if backend == "cpsat":
        from hybridsched.models.malleable.cpsat import solve as solve_cpsat

        result = solve_cpsat(instance, optimised(policy, objective), time_limit, seed, threads)
    else:
        from hybridsched.models.malleable.milp import solve

        result = solve(instance, optimised(policy, objective), time_limit, seed)
    if result.solution is not None and result.solution.n_pieces:
        # A schedule file holds minutes up to MAX_MINUTES: a later end is refused here, as
        # the simulator refuses it, rather than written and then refused by validate.
        last = int(np.argmax(result.solution.end))
        check_end(instance.name, instance.job_ids[int(result.solution.job[last])],
                  int(result.solution.end[last]))
    return result


def bound(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          policy: str | None = None, objective: str | None = None) -> Result:
    """The warm start of :func:`exact` with the strong bound (registered as ``bound``).

    The schedule is the best of the greedy rules and the online heuristics
    (:func:`hybridsched.models.malleable.warm_start.incumbent`); the bound is
    :func:`hybridsched.models.malleable.bound.strong_bound` in the time left,
    placed by that schedule's value; the schedule gets half of ``time_limit``.
    ``optimal`` only when the schedule meets the bound.
    """
    import time

    from hybridsched.bound_proof import bounded_result
    from hybridsched.budget import TimeBudget
    from hybridsched.malleable.checker import evaluate
    from hybridsched.models.malleable.bound import strong_bound
    from hybridsched.models.malleable.warm_start import incumbent

    check_policy({"policy": policy})
    wanted = optimised(policy, objective)
    wall, cpu = time.perf_counter(), time.process_time()
    budget = TimeBudget(time_limit)
    # Half the time for the schedule (at 10^4 jobs the greedy hurries when it runs out),
    # the rest for the bound.
    solution, value, maker = incumbent(instance, wanted, seed, TimeBudget(
        None if time_limit is None else time_limit / 2))
    certificate = strong_bound(instance, time_limit=budget.remaining(), seed=seed or 0,
                               objective=wanted, upper=value)
    result = bounded_result(FAMILY, solution, value, certificate,
                            f"schedule from {maker}; bound: {certificate.method}")
    result.runtime_s = time.perf_counter() - wall
    result.cpu_s = time.process_time() - cpu
    result.metrics.update({**evaluate(instance, solution).metrics, "optimised": wanted})
    return result
