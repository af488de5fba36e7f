"""Offline gang scheduling with OR-Tools CP-SAT: the second, independent exact backend.

Same problem and same answer as :mod:`hybridsched.models.gang.milp` (most
jobs finished by their deadlines, then most instructions), written from the
checker's rules with interval variables (:mod:`.cpsat_build`): a
presence literal and a start per job, an optional fixed-size interval per
job and class of identical VMs it may use (the checker's ``could_finish``),
exactly ``parallelism`` tasks when it runs, one task at a time per VM
(no-overlap, or cumulative over identical VMs), every task ending by the
deadline.

Objective: lexicographic, by **two solves** of the same model. The first
minimises the unfinished jobs (UFJ); its proven bound is the method's bound.
The second fixes UFJ at the first's value and maximises the instructions
finished (integer weights, :func:`.cpsat_times.sin_weights`) for a
bounded deterministic effort (:data:`SIN_EFFORT`, repeatable with one
thread); it only picks among schedules with the same UFJ and proves nothing.

Times and proofs (:mod:`.cpsat_times`): times are scaled by a power of
ten. When arrivals, deadlines and task times (instructions / speed) are all
decimal at that scale (up to 12 places), the integer model has exactly the
real problem's optimum under the checker's rule (its real times: the
tolerance once, at the deadline, as whole units; binary64 rounding cannot
buy a job: proof there). Otherwise (random floats, as the generators draw)
the model is a **relaxation**: every row loosened by the checker's binary64
rounding (and the deadline by its tolerance) and rounded outwards, so its
proven bound on UFJ holds for every schedule the checker accepts. Either
way the schedule is read back in real time and checked
(:mod:`.cpsat_extract`), and ``optimal`` is claimed only when the checked
schedule's UFJ meets the proven bound. When the relaxed
model's schedule does not survive the read-back (it used the rounding), a
**restricted** model (rows tightened, every solution real) is solved for a
schedule, with the relaxed bound as a cut. The method starts from the best
heuristic schedule (a hint) and never returns a worse one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.gang.checker import check, rank
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution
from hybridsched.models.gang.claims import claim, first_incumbent
from hybridsched.models.gang.cpsat_build import GangCpsat, add_hint, build, hint_values
from hybridsched.models.gang.cpsat_extract import assign, extract, solution_values
from hybridsched.models.gang.cpsat_times import (
    RELAXED,
    first_times,
    restricted_times,
    sin_weights,
)
from hybridsched.models.solvers.cpsat import CpsatOutcome, solve_with_cpsat
from hybridsched.result import Result, Status

#: CP-SAT's deterministic time (its own work units, about seconds) for the second solve
#: (most instructions at the proven UFJ): repeatable, and never the bulk of a run.
SIN_EFFORT = 1.0
#: Wall-clock cap (seconds) of the second solve: with several workers CP-SAT's deterministic
#: time does not bound it (15 s seen on an 80-job instance with two).
SIN_WALL = 3.0
#: CP-SAT parameters of every solve: linearization level 2 puts the cumulative constraints'
#: energy cuts in the LP, which proves table2's 80-job optima in under a second (level 1,
#: the default, took 15 s to over a minute on some seeds).
PARAMETERS: dict[str, Any] = {"linearization_level": 2}


@dataclass
class _Search:
    """The best checked schedule, the proven bound and what happened."""

    instance: Instance
    budget: TimeBudget
    threads: int
    seed: int
    best: Solution
    returned: str
    bound: float = -math.inf
    stopped: bool = False
    notes: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)

    def unfinished(self) -> float:
        return rank(self.instance, self.best)[0]

    def offer(self, solution: Solution, source: str) -> None:
        """Keep ``solution`` if the checker accepts it and it ranks better."""
        if not check(self.instance, solution) and (
                rank(self.instance, solution) < rank(self.instance, self.best)):
            self.best, self.returned = solution, source

    def cpsat(self, built: GangCpsat, time_limit: float | None = None,
              **parameters: Any) -> CpsatOutcome:
        if self.threads > 1:
            # Two or more full searches (the LP-heavy ones prove these optima); CP-SAT's own
            # choice for two workers is one full search and one of neighbourhood moves, which
            # proved table2's 80-job optima 10-40 times slower.
            parameters = {"num_full_subsolvers": max(2, self.threads // 2), **parameters}
        return solve_with_cpsat(built.model, time_limit=time_limit, budget=self.budget,
                                threads=self.threads, seed=self.seed,
                                parameters={**PARAMETERS, **self.parameters, **parameters})

    def solve(self, built: GangCpsat, proves: bool) -> int:
        """Fewest unfinished, then most instructions; returns the jobs the read-back dropped."""
        model = built.model
        model.minimize(built.unfinished())
        add_hint(built, self.best)
        first = self.cpsat(built)
        kind = built.times.kind
        self.notes.append(f"CP-SAT {kind} model: {first.status.value} in {first.seconds:.2f} s"
                          + (f" ({first.message})" if first.message else ""))
        if first.status is Status.TIME_LIMIT:
            self.stopped = True
        if proves and first.bound is not None:
            # An integer objective: its bound rounds up (less 1e-6 for float noise).
            self.bound = max(self.bound, float(math.ceil(first.bound - 1e-6)))
        if not first.has_incumbent:
            return 0
        solution, repaired = extract(built, first.solver)
        self.offer(solution, f"the CP-SAT {kind} model's schedule")
        if first.status is not Status.OPTIMAL or self.budget.expired():
            return repaired
        starts, counts = solution_values(built, first.solver)
        model.add(built.unfinished() <= round(first.objective))
        weights = sin_weights(built.instance)
        model.maximize(sum(weights[j] * run for j, run in built.run.items()))
        hint_values(built, starts, assign(built, starts, counts)[1])
        second = self.cpsat(built, SIN_WALL, max_deterministic_time=SIN_EFFORT)
        self.notes.append(f"most instructions at UFJ {round(first.objective)}: "
                          f"{second.status.value} in {second.seconds:.2f} s")
        if second.has_incumbent:
            solution, again = extract(built, second.solver)
            self.offer(solution, f"the CP-SAT {kind} model's schedule")
            repaired = min(repaired, again)
        return repaired


def solve(instance: Instance, time_limit: float | None = None,
          incumbent: Solution | None = None, cheap_bound: float = 0.0,
          source: str = "the warm start", *, threads: int = 1, seed: int = 0,
          parameters: dict[str, Any] | None = None) -> Result:
    """Most jobs finished (then most instructions) with CP-SAT, from ``incumbent``.

    Parameters
    ----------
    instance:
        The instance.
    time_limit:
        Seconds for the call, model building included (0: the incumbent).
    incumbent:
        A schedule to start from (the best heuristic's), used only if the
        checker accepts it; otherwise the schedule that runs no job.
    cheap_bound:
        A valid bound on UFJ known beforehand (the family's).
    source:
        How the message names ``incumbent`` when it is the schedule returned.
    threads, seed:
        CP-SAT's search workers and random seed.
    parameters:
        Further CP-SAT parameters of every solve (tests and benchmarks: e.g.
        ``max_deterministic_time``, a limit that does not depend on the machine).

    Returns
    -------
    Result
        As :func:`hybridsched.models.gang.milp.solve`: the best checked
        schedule (never worse than ``incumbent``), its UFJ and the best valid
        bound; ``optimal`` when they meet, ``time_limit`` when the time ran
        out first, ``feasible`` otherwise.
    """
    budget = TimeBudget(time_limit)
    incumbent, source = first_incumbent(instance, incumbent, source)
    search = _Search(instance, budget, threads, seed, incumbent, source,
                     stopped=budget.warm_start_only or budget.expired(),
                     parameters=dict(parameters or {}))
    if search.unfinished() <= cheap_bound:
        search.notes.append("the warm start meets the family's lower bound")
    elif search.stopped:
        search.notes.append("no time left for the model (time limit 0 or spent)")
    else:
        try:
            _run(search, cheap_bound)
        except BudgetExpired as stop:
            search.stopped = True
            search.notes.append(str(stop))
    return claim(instance, search.best, search.returned, solver="CP-SAT",
                 solver_bound=search.bound, cheap_bound=cheap_bound,
                 stopped=search.stopped or budget.expired(), notes=search.notes)


def _run(search: _Search, cheap_bound: float) -> None:
    """The exact or relaxed model for the bound; the restricted one if its schedule falls short."""
    instance = search.instance
    times = first_times(instance)
    search.notes.append(times.describe())
    built = build(instance, times, search.budget)
    repaired = search.solve(built, proves=True)
    if repaired:
        search.notes.append(f"{repaired} job(s) dropped at read-back (rounded times)")
    if (times.kind != RELAXED or search.unfinished() <= max(cheap_bound, search.bound)
            or search.stopped or search.budget.expired()):
        return
    restricted = build(instance, restricted_times(instance, times.factor), search.budget)
    if math.isfinite(search.bound):
        restricted.model.add(restricted.unfinished() >= round(search.bound))
    search.solve(restricted, proves=False)
