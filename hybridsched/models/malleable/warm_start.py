"""The ``malleable`` exact methods' warm start: best of the greedy rules and online heuristics.

Shared by both backends of the exact method
(:mod:`~hybridsched.models.malleable.milp`, :mod:`~hybridsched.models.malleable.cpsat`),
the ``bound`` method and the strong bound's horizon
(:mod:`~hybridsched.models.malleable.bound`). It obeys a time budget at every size:
the greedy hurries when the budget runs out
(:func:`~hybridsched.models.malleable.batch_greedy.greedy_placements`) and a
simulation is only started when there is time for it.
"""

from __future__ import annotations

import dataclasses

from hybridsched.budget import TimeBudget
from hybridsched.heuristics.malleable.simulation import SCHEDULERS, simulate
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.instance import Instance
from hybridsched.malleable.solution import Solution
from hybridsched.models.malleable import batch_greedy, batch_grid

#: Seconds per job of one online simulation, to skip one that would overrun the limit:
#: the slowest (flat, policy A) took 30.1 s at 10^4 jobs of the paper's mixed workload
#: (3.2-30.1 s over the six), measured with ``simulate`` under a load average of about 6.
SIMULATION_S_PER_JOB = 0.003
#: Above this many jobs a time limit of 0 gives the hurried greedy (clusters only).
HURRY_JOBS = 1000


def _value(instance: Instance, solution: Solution, objective: str) -> float:
    return float(evaluate(instance, solution).metrics[objective])


def incumbent(instance: Instance, objective: str, seed: int | None, budget: TimeBudget
              ) -> tuple[Solution, float, str]:
    """The best schedule of the greedy rules and the online heuristics, its value and maker."""
    options = batch_grid.job_options(instance)
    # A limited budget hurries the greedy when it runs out (at 10^4 jobs the cloud search
    # of the full rule takes minutes). Budget 0 means "warm start only": the full greedy up
    # to HURRY_JOBS jobs (about 2 s at 1,000), the hurried one (clusters only) above.
    greedy_budget = budget if budget.limited and (
        not budget.warm_start_only or instance.n_jobs > HURRY_JOBS) else None
    _, best, best_value = batch_greedy.warm_start(instance, objective, options, greedy_budget)
    maker = "greedy"
    for scheduler in SCHEDULERS:
        for policy in ("A", "B"):
            if budget.limited and not budget.warm_start_only and (
                    (budget.remaining() or 0.0) < SIMULATION_S_PER_JOB * instance.n_jobs):
                # Not time for one more simulation (one cannot be stopped halfway).
                return best, best_value, maker
            solution, _ = simulate(instance, scheduler, policy, seed)
            if check(instance, solution):  # pragma: no cover - a simulator bug
                continue
            value = _value(instance, solution, objective)
            if value < best_value - 1e-12:
                # The event log is the simulation's, not this method's.
                best, best_value = dataclasses.replace(solution, events=()), value
                maker = f"{scheduler} (policy {policy})"
    return best, best_value, maker
