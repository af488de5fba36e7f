"""Offline gang model: most jobs finished by their deadlines, in continuous time (PuLP + HiGHS).

All jobs are known in advance; a job's arrival is its release time. A job
either runs (``z_j = 1``) on ``parallelism`` distinct VMs that meet its
demands (``y_jv``), all its tasks starting at ``S_j >= arrival`` and each
ending by the deadline (``S_j + t_jv <= due_j`` when ``y_jv = 1``), or is
unfinished. A VM runs one task at a time: for each pair of jobs that may
share VM ``v``, a binary ``o_jkv`` orders them (big-M disjunction, active only
when both use ``v``). Pairs ``(j, v)`` are left out when VM ``v`` cannot meet
the demands or finish the task by the deadline even at the arrival
(:func:`hybridsched.gang.checker.could_finish`, the checker's own rule).

Objective: minimise ``UFJ - SIN / (total SIN + 1)``: the fewest unfinished
jobs, then the most instructions finished (the weight keeps the second term
below one job).

Same rule, same tolerance. The checker accepts a job ending up to
``TIME_TOL`` after its deadline, a start up to ``TIME_TOL`` before the
arrival and VM overlaps up to ``TIME_TOL``; HiGHS accepts rows violated by
its own feasibility tolerance. So two versions of the model are used:

- the *relaxed* model states every row with the checker's tolerance added,
  so its feasible set contains every schedule the checker accepts, and
  HiGHS's tolerance only enlarges it further: its dual bound is a valid
  lower bound on the real problem's objective;
- the schedule is read back from the relaxed solution by a forward pass
  (the model's jobs, VMs and order on each VM, earliest starts) and
  re-checked. If HiGHS used the tolerance band and the read-back fails the
  checker, the model with exact rows and then the *tight* model (rows
  shortened by twice HiGHS's tolerance, so that its solutions read back
  within the checker's band) are solved for the schedule, and the relaxed
  bound still bounds it. The read-back never starts a job before its arrival
  or overlaps two tasks, so an optimum reached only inside the band (a job
  ending between its deadline and ``TIME_TOL`` after it *because* it starts
  early or overlaps) is not returned, and not claimed.

``optimal`` is claimed only when the checked schedule's UFJ meets the bound
(UFJ is an integer and ``0 <= SIN weight < 1``, so ``UFJ >= ceil(dual)``).
The method starts from the best heuristic schedule (given by the caller, as
a MIP start) and never returns a worse one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pulp

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.gang.checker import TIME_TOL, check, could_finish, evaluate
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts
from hybridsched.models.highs import SOLVER_TOL
from hybridsched.models.pulp_highs import (
    ArrayHighs,
    check_budget,
    has_incumbent,
    solve_and_read,
)
from hybridsched.result import Result, Status

#: Most ordering binaries built (pairs of jobs x shared VMs); about 7 s of PuLP building at
#: 70,000, checked against the time limit as it goes.
MAX_ORDER_BINARIES = 150_000
#: Slacks of the models solved for a schedule when the relaxed model's read-back fails:
#: the exact rows, then rows shortened by twice HiGHS's tolerance (whose solutions
#: read back within the checker's band).
TIGHTER = (0.0, -2 * SOLVER_TOL)
#: Below this, a HiGHS dual bound is read as the integer above it (its own rounding noise).
DUAL_SLACK = 1e-6


@dataclass
class GangModel:
    """The PuLP problem and its variables."""

    instance: Instance
    problem: pulp.LpProblem
    run: dict[int, pulp.LpVariable]
    use: dict[tuple[int, int], pulp.LpVariable]
    start: dict[int, pulp.LpVariable]
    order: dict[tuple[int, int, int], pulp.LpVariable]


def order_binaries(instance: Instance) -> int:
    """How many ordering binaries the model needs."""
    ok = could_finish(instance).astype(np.int64)
    shared = ok @ ok.T
    return int(np.triu(shared, 1).sum())


def build(instance: Instance, slack: float, budget: TimeBudget | None = None) -> GangModel:
    """The model with ``slack`` added to every time row (see the module docstring).

    ``slack = TIME_TOL`` gives the relaxed model, a negative one the tight model.
    """
    ok = could_finish(instance)
    times = instance.task_time()
    due, arrival = instance.due, instance.arrival
    sin = instance.parallelism * instance.instructions
    weight = 1.0 / (float(sin.sum()) + 1.0)
    problem = pulp.LpProblem("gang_offline", pulp.LpMinimize)
    runnable = [j for j in range(instance.n_jobs)
                if ok[j].sum() >= instance.parallelism[j]]
    run = {j: problem.add_variable(f"z_{j}", 0, 1, cat="Integer") for j in runnable}
    start = {j: problem.add_variable(f"s_{j}", float(arrival[j]) - max(slack, 0.0),
                                     float(due[j]) + max(slack, 0.0))
             for j in runnable}
    use = {(j, v): problem.add_variable(f"y_{j}_{v}", 0, 1, cat="Integer")
           for j in runnable for v in np.flatnonzero(ok[j]).tolist()}
    problem.setObjective(pulp.lpSum((-1.0 - weight * float(sin[j])) * run[j] for j in run)
                         + float(instance.n_jobs))
    for j in runnable:
        mine = [use[j, v] for v in np.flatnonzero(ok[j]).tolist()]
        problem.addConstraint(pulp.lpSum(mine) == int(instance.parallelism[j]) * run[j],
                              f"gang_{j}")
        for v in np.flatnonzero(ok[j]).tolist():
            t = float(times[j, v])
            problem.addConstraint(start[j] + t <= float(due[j]) + slack + t * (1 - use[j, v]),
                                  f"due_{j}_{v}")
    horizon = (float(due.max() - arrival.min() + times[ok].max()) + 2 * abs(slack)
               if ok.any() else 0.0)
    order = {}
    columns = len(run) + len(use) + order_binaries(instance)
    for pair, (j, k) in enumerate(combinations(runnable, 2)):
        if budget is not None and pair % 20 == 0:  # up to 2 x 120 rows per pair
            check_budget(budget, columns, "building the gang model")
        for v in np.flatnonzero(ok[j] & ok[k]).tolist():
            before = order[j, k, v] = problem.add_variable(f"o_{j}_{k}_{v}", 0, 1, cat="Integer")
            both = 2 - use[j, v] - use[k, v]
            problem.addConstraint(start[j] + float(times[j, v]) <= start[k] + slack
                                  + horizon * (1 - before) + horizon * both, f"jk_{j}_{k}_{v}")
            problem.addConstraint(start[k] + float(times[k, v]) <= start[j] + slack
                                  + horizon * before + horizon * both, f"kj_{j}_{k}_{v}")
    return GangModel(instance, problem, run, use, start, order)


def start_values(model: GangModel, solution: Solution) -> dict[pulp.LpVariable, float]:
    """The MIP start of a checked schedule: its jobs, VMs, starts and orders."""
    instance = model.instance
    placed: dict[int, set[int]] = {}
    for j, v in zip(solution.task_job.tolist(), solution.task_vm.tolist(), strict=True):
        placed.setdefault(j, set()).add(v)
    values: dict[pulp.LpVariable, float] = {}
    for j, var in model.run.items():
        ran = j in placed
        values[var] = float(ran)
        values[model.start[j]] = float(solution.start[j]) if ran else float(instance.arrival[j])
    for (j, v), var in model.use.items():
        values[var] = float(v in placed.get(j, ()))
    for (j, k, _), var in model.order.items():
        values[var] = float(values[model.start[j]] <= values[model.start[k]])
    return values


def extract(model: GangModel) -> Solution:
    """Jobs, VMs and per-VM orders of the solution, with earliest start times."""
    instance = model.instance
    times = instance.task_time()
    chosen = [j for j, var in model.run.items() if (var.value() or 0) > 0.5]
    vms: dict[int, list[int]] = {j: [] for j in chosen}
    for (j, v), var in model.use.items():
        if j in vms and (var.value() or 0) > 0.5:
            vms[j].append(v)
    order = sorted(chosen, key=lambda j: (model.start[j].value(), j))
    free_at = np.zeros(instance.n_vms)
    starts: dict[int, tuple[float, list[int]]] = {}
    for j in order:  # the model's order on every VM is the order of its start times
        s = max(float(instance.arrival[j]), float(free_at[vms[j]].max(initial=0.0)))
        starts[j] = (s, vms[j])
        free_at[vms[j]] = s + times[j, vms[j]]
    dropped = {j: "not in the offline optimum" for j in range(instance.n_jobs)
               if j not in starts}
    return from_starts(instance.n_jobs, starts, dropped)


def _key(instance: Instance, solution: Solution) -> tuple[float, float]:
    """Fewest unfinished, then most instructions (the model's objective order)."""
    metrics = evaluate(instance, solution).metrics
    return float(metrics["unfinished"]), -float(metrics["sin"])


def _solve_model(instance: Instance, slack: float, budget: TimeBudget, incumbent: Solution
                 ) -> tuple[Solution | None, float, str]:
    """One solve: ``(checked read-back or None, dual bound on UFJ, HiGHS status)``."""
    model = build(instance, slack, budget)
    columns = model.problem.variables()
    solver = ArrayHighs(budget, columns, start_values(model, incumbent),
                        presolve="off", primal_feasibility_tolerance=SOLVER_TOL)
    code, info = solve_and_read(model.problem, solver, budget)
    status = model.problem.solverModel.modelStatusToString(code)
    dual = float(info.mip_dual_bound)
    bound = math.ceil(dual - DUAL_SLACK) if math.isfinite(dual) else -math.inf
    if not has_incumbent(info):
        return None, bound, status
    solution = extract(model)
    return (None if check(instance, solution) else solution), bound, status


def solve(instance: Instance, time_limit: float | None = None,
          incumbent: Solution | None = None, cheap_bound: float = 0.0) -> Result:
    """Most jobs finished (then most instructions), from ``incumbent``; see the docstring.

    ``incumbent`` is a checked schedule (the best heuristic's); without one,
    the schedule that runs nothing. ``cheap_bound`` is a valid bound on UFJ
    known beforehand (the family's).
    """
    budget = TimeBudget(time_limit)
    if incumbent is None or check(instance, incumbent):
        incumbent = from_starts(instance.n_jobs, {}, {j: "not run" for j in
                                                      range(instance.n_jobs)})
    best, bound, stopped = incumbent, float(cheap_bound), budget.warm_start_only
    too_big = order_binaries(instance) > MAX_ORDER_BINARIES
    if stopped or too_big or not instance.n_jobs:
        reason = ("time limit 0" if stopped else
                  f"more than {MAX_ORDER_BINARIES} ordering binaries" if too_big else "no jobs")
        notes = [f"the best heuristic schedule ({reason})"]
    else:
        try:
            found, dual, status = _solve_model(instance, TIME_TOL, budget, incumbent)
            bound, notes = max(bound, dual), [f"HiGHS: {status}"]
            stopped = status == "Time limit reached"
            for slack in TIGHTER:
                if found is not None or _key(instance, best)[0] <= bound or stopped:
                    break
                # HiGHS used the tolerance band: tighter rows read back inside it.
                found, _, tight = _solve_model(instance, slack, budget, incumbent)
                notes.append(f"rows with slack {slack:g}: HiGHS {tight}")
                stopped = tight == "Time limit reached"
            if found is not None and _key(instance, found) < _key(instance, best):
                best = found
            else:
                notes.append("the best heuristic schedule kept")
        except BudgetExpired as stop:
            stopped, notes = True, [f"the best heuristic schedule ({stop})"]
    unfinished = _key(instance, best)[0]
    bound = min(bound, unfinished)
    proven = unfinished <= bound
    status = (Status.OPTIMAL if proven else Status.TIME_LIMIT if stopped else Status.FEASIBLE)
    return Result("exact", "gang", status, solution=best, objective=unfinished,
                  bound=bound, message="; ".join(notes))
