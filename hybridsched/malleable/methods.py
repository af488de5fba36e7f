"""Registered methods of the ``malleable`` family.

The online methods simulate the instance (:mod:`hybridsched.malleable.online`)
and return the realised schedule with their counters (decisions, messages
per decision, reschedulings, events per second); the checker recomputes
every other metric. They take ``policy`` (``"A"``: money saving, ``"B"``:
time saving) and, like every method, ``objective`` (which metric the result
reports as its objective; default ``penalised_a``).
"""

from __future__ import annotations

from hybridsched.malleable.instance import Instance
from hybridsched.malleable.online import Scheduler, simulate
from hybridsched.registry import register_method
from hybridsched.result import Result, Status

FAMILY = "malleable"


def _online(name: str, scheduler: Scheduler, description: str) -> None:
    def method(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
               policy: str = "A", objective: str = "penalised_a") -> Result:
        solution, stats = simulate(instance, scheduler, policy, seed)
        return Result(name, FAMILY, Status.FEASIBLE, solution=solution,
                      metrics=stats.metrics())

    method.__name__ = name.replace("-", "_")
    method.__doc__ = f"{description} (registered as ``{name}``)."
    register_method(FAMILY, name, description=description)(method)


_online("tree", "tree", "Agent tree over DCA/ACA/CCA local schedulers (Algorithm 4)")
_online("flat", "flat", "Flat broadcast to every local scheduler (the star tree)")
_online("round-robin", "round-robin", "Each job to a uniformly drawn resource (seeded)")
