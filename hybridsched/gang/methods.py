"""Registered methods of the ``gang`` family (online policies, simulated)."""

from __future__ import annotations

from hybridsched.budget import TimeBudget
from hybridsched.gang.checker import rank
from hybridsched.gang.instance import Instance
from hybridsched.gang.online import Policy, simulate
from hybridsched.gang.solution import Solution
from hybridsched.heuristics.cplmt import cplmt
from hybridsched.heuristics.gang_baselines import asjs, cmms, fair, fifo
from hybridsched.registry import register_method
from hybridsched.result import Result, Status

FAMILY = "gang"


def _online(name: str, policy: Policy, description: str) -> None:
    def method(instance: Instance, *, seed: int | None = None,
               time_limit: float | None = None) -> Result:
        solution, stats = simulate(instance, policy)
        return Result(name, FAMILY, Status.FEASIBLE, solution=solution,
                      metrics=stats.metrics())

    method.__name__ = name
    method.__doc__ = f"{description} (registered as ``{name}``)."
    register_method(FAMILY, name, description=description)(method)


#: The online policies, registered as methods; the exact method starts from the best of them.
HEURISTICS: dict[str, tuple[Policy, str]] = {
    "cplmt": (cplmt, "CPLMT: scarce jobs first, min mt, tasks near the standard time"),
    "fifo": (fifo, "First in, first out on the first usable VMs (strict)"),
    "fair": (fair, "Fair: max-min fair share of the free VMs among waiting jobs"),
    "asjs": (asjs, "ASJS: each job waits for its best-scored VMs (speed and bandwidth)"),
    "cmms": (cmms, "Cloud Min-min: smallest completion time first, fastest VMs"),
}
for _name, (_policy, _description) in HEURISTICS.items():
    _online(_name, _policy, _description)


def best_heuristic(instance: Instance) -> tuple[str, Solution]:
    """The heuristic schedule with the fewest unfinished jobs, then the most instructions."""
    runs = {name: simulate(instance, policy)[0] for name, (policy, _) in HEURISTICS.items()}
    name = min(runs, key=lambda name: rank(instance, runs[name]))
    return name, runs[name]


@register_method(FAMILY, "exact", exact=True,
                 description="Offline MILP from the best heuristic: most jobs finished, then "
                             "most instructions")
def exact(instance: Instance, *, seed: int | None = None,
          time_limit: float | None = None) -> Result:
    """The offline optimum (all jobs known), or the best schedule found with its bound."""
    from hybridsched.gang import lower_bound
    from hybridsched.models.gang_exact import solve

    budget = TimeBudget(time_limit)
    name, incumbent = best_heuristic(instance)
    return solve(instance, budget.remaining() if budget.limited else None, incumbent,
                 lower_bound(instance), source=f"the best heuristic schedule ({name})")
