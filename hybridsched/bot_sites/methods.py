"""Registered methods of the bot-sites family.

Every method accepts ``objective="makespan"`` (default) or ``"cost"``
besides ``seed`` and ``time_limit``: the exact model then minimises cost
(then makespan), GMO selects allocations by cost gain and the greedy
heuristics use their cost-driven variants.
"""

from __future__ import annotations

from collections.abc import Callable

from hybridsched.bot_sites.checker import check, completion_times, schedule_cost
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.heuristics.gmo import gmo as _gmo
from hybridsched.heuristics.greedy import GREEDY, g_mct, g_min_min, g_sufferage
from hybridsched.models import bot_bounds, bot_makespan
from hybridsched.registry import MethodFailedError, register_method
from hybridsched.result import Result, Status

FAMILY = "bot-sites"

#: Above this many tasks the exact method does not warm-start from the O(n^2) greedies.
WARM_MINMIN_LIMIT = 20000

#: Above this many integer variables (BoTs x processors) the MILP is not built.
MILP_VARIABLE_LIMIT = 100_000


def lower_bound(instance: Instance) -> float:
    """Proven lower bound on the makespan: fluid LP (LST-strengthened) and critical path.

    Scales to 10^5+ tasks (the LP has one column per (BoT, site) pair); use
    it in ``compare`` when the instance records no optimum.
    """
    return bot_bounds.lower_bound(instance)


def _within_limits(instance: Instance, solution: Solution, name: str) -> Solution:
    """Fail (not crash) when a heuristic breaks hard bandwidth/storage limits."""
    if instance.hard_limits and instance.has_limits:
        problems = check(instance, solution)
        if problems:
            raise MethodFailedError(f"{name} ignores hard limits: {problems[0]}")
    return solution


def _heuristic(name: str, func: Callable[..., Solution], description: str) -> None:
    def method(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
               objective: str = "makespan") -> Solution:
        solution = func(instance, seed=seed, time_limit=time_limit, objective=objective)
        return _within_limits(instance, solution, name)

    method.__name__ = name.replace("-", "_")
    method.__doc__ = f"{description} (registered as ``{name}``)."
    register_method(FAMILY, name, description=description)(method)


_heuristic("gmo", _gmo, "GMO game-theoretic multi-objective scheduler (Duan et al. 2014)")
for _name, _desc in (
    ("g-met", "Greedy minimum execution time"),
    ("g-mct", "Greedy minimum completion time"),
    ("g-olb", "Greedy opportunistic load balancing"),
    ("g-min-min", "Greedy Min-min"),
    ("g-max-min", "Greedy Max-min"),
    ("g-sufferage", "Greedy Sufferage"),
):
    _heuristic(_name, GREEDY[_name], _desc)


def best_start(instance: Instance, objective: str = "makespan") -> Solution:
    """Best schedule of the fast heuristics, used to warm-start the exact model."""
    candidates = [_gmo(instance, objective=objective), g_mct(instance, objective=objective)]
    if instance.n_tasks <= WARM_MINMIN_LIMIT:
        candidates += [g_min_min(instance, objective=objective),
                       g_sufferage(instance, objective=objective)]
    if instance.hard_limits and instance.has_limits:
        candidates = [s for s in candidates if not check(instance, s)]

    def key(s: Solution) -> tuple[float, float]:
        span, cost = float(completion_times(instance, s).max()), schedule_cost(instance, s)
        return (span, cost) if objective == "makespan" else (cost, span)

    if not candidates:
        raise MethodFailedError("no heuristic schedule fits the hard limits")
    return min(candidates, key=key)


@register_method(FAMILY, "exact", exact=True,
                 description="MILP solved by HiGHS (proven optimum or bound)")
def exact(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
          objective: str = "makespan") -> Result:
    """Exact makespan (or cost-then-makespan) model, warm-started from the best heuristic.

    Instances with more than :data:`MILP_VARIABLE_LIMIT` (BoT, processor)
    pairs are not modelled: the best heuristic schedule is returned with the
    fluid/critical-path lower bound as a certified bound (status
    ``feasible``).
    """
    try:
        start = best_start(instance, objective)
    except MethodFailedError:
        start = None
    if instance.n_bots * instance.n_procs > MILP_VARIABLE_LIMIT:
        if start is None:
            raise MethodFailedError("instance too large for the MILP and no heuristic fits")
        return Result("exact", FAMILY, Status.FEASIBLE, solution=start,
                      bound=lower_bound(instance) if objective == "makespan" else None,
                      message=f"{instance.n_bots} BoTs x {instance.n_procs} processors is too "
                      "large for the MILP: best heuristic with the fluid lower bound")
    return bot_makespan.solve(instance, objective=objective, time_limit=time_limit, start=start)
