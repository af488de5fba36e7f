"""Offline gang model: most jobs finished by their deadlines, in continuous time (PuLP + HiGHS).

All jobs are known in advance; a job's arrival is its release time. A job
either runs (``z_j = 1``) on ``parallelism`` distinct VMs that meet its
demands (``y_jv``), all its tasks starting at ``S_j >= arrival`` and each
ending by the deadline (``S_j + t_jv <= due_j`` when ``y_jv = 1``), or is
unfinished. A VM runs one task at a time: for each pair of jobs that may
share VM ``v``, a binary ``o_jkv`` orders them (big-M disjunction, active only
when both use ``v``). Pairs ``(j, v)`` are left out when VM ``v`` cannot meet
the demands or finish the task by the deadline even at the arrival.

Objective: minimise ``UFJ - SIN / (total SIN + 1)``: the fewest unfinished
jobs, then the most instructions finished (the weight keeps the second term
below one job). Times are continuous, as in the online simulation, so the
model is exact for the real problem (no grid); ``optimal`` is claimed when
HiGHS proves it, and the bound on UFJ is ``ceil`` of the dual bound (UFJ is
an integer), or the family's cheap bound if larger.

The schedule read back keeps the model's choice of jobs, VMs and the order on
each VM, and recomputes start times by a forward pass (earliest starts), so
that solver tolerances never leak into the checked schedule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pulp

from hybridsched.budget import TimeBudget
from hybridsched.gang.checker import TIME_TOL, check
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts
from hybridsched.models.pulp_highs import has_incumbent, solve_and_read
from hybridsched.result import Result, Status

#: Most ordering binaries built (pairs of jobs x shared VMs).
MAX_ORDER_BINARIES = 60_000


@dataclass
class GangModel:
    """The PuLP problem and its variables."""

    instance: Instance
    problem: pulp.LpProblem
    run: dict[int, pulp.LpVariable]
    use: dict[tuple[int, int], pulp.LpVariable]
    start: dict[int, pulp.LpVariable]


def eligible(instance: Instance) -> np.ndarray:
    """``ok[j, v]``: VM ``v`` meets job ``j``'s demands and ends a task by its deadline."""
    return instance.fits() & (instance.arrival[:, None] + instance.task_time()
                              <= instance.due[:, None] + TIME_TOL)


def order_binaries(instance: Instance) -> int:
    """How many ordering binaries the model needs."""
    ok = eligible(instance).astype(np.int64)
    shared = ok @ ok.T
    return int(np.triu(shared, 1).sum())


def build(instance: Instance) -> GangModel:
    """Build the model (see the module docstring)."""
    ok = eligible(instance)
    times = instance.task_time()
    due, arrival = instance.due, instance.arrival
    sin = instance.parallelism * instance.instructions
    weight = 1.0 / (float(sin.sum()) + 1.0)
    problem = pulp.LpProblem("gang_offline", pulp.LpMinimize)
    runnable = [j for j in range(instance.n_jobs)
                if ok[j].sum() >= instance.parallelism[j]]
    run = {j: problem.add_variable(f"z_{j}", 0, 1, cat="Integer") for j in runnable}
    start = {j: problem.add_variable(f"s_{j}", float(arrival[j]), float(due[j]))
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
            problem.addConstraint(start[j] + t <= float(due[j]) + t * (1 - use[j, v]),
                                  f"due_{j}_{v}")
    horizon = float(due.max() - arrival.min() + times[ok].max()) if ok.any() else 0.0
    for j, k in combinations(runnable, 2):
        for v in np.flatnonzero(ok[j] & ok[k]).tolist():
            before = problem.add_variable(f"o_{j}_{k}_{v}", 0, 1, cat="Integer")
            both = 2 - use[j, v] - use[k, v]
            problem.addConstraint(start[j] + float(times[j, v]) <= start[k]
                                  + horizon * (1 - before) + horizon * both, f"jk_{j}_{k}_{v}")
            problem.addConstraint(start[k] + float(times[k, v]) <= start[j]
                                  + horizon * before + horizon * both, f"kj_{j}_{k}_{v}")
    return GangModel(instance, problem, run, use, start)


def extract(model: GangModel) -> Solution:
    """Jobs, VMs and per-VM orders of the solution, with earliest start times."""
    instance = model.instance
    times = instance.task_time()
    chosen = [j for j, var in model.run.items() if (var.value() or 0) > 0.5]
    vms = {j: [v for (k, v), var in model.use.items() if k == j and (var.value() or 0) > 0.5]
           for j in chosen}
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


def solve(instance: Instance, time_limit: float | None = None) -> Result:
    """Most jobs finished (then most instructions); status and bound as in the docstring."""
    from hybridsched.gang import lower_bound

    budget = TimeBudget(time_limit)
    cheap = lower_bound(instance)
    if instance.n_jobs == 0:
        return Result("exact", "gang", Status.OPTIMAL, solution=from_starts(0, {}), bound=0.0)
    if budget.warm_start_only or order_binaries(instance) > MAX_ORDER_BINARIES:
        from hybridsched.gang.online import simulate
        from hybridsched.heuristics.cplmt import cplmt

        solution, _ = simulate(instance, cplmt)
        reason = ("time limit 0" if budget.warm_start_only else
                  f"more than {MAX_ORDER_BINARIES} ordering binaries")
        return Result("exact", "gang", Status.FEASIBLE, solution=solution, bound=cheap,
                      message=f"CPLMT's schedule ({reason})")
    model = build(instance)
    solver = pulp.HiGHS(msg=False, threads=1, gapRel=0.0,
                        timeLimit=budget.remaining() if budget.limited else None)
    code, info = solve_and_read(model.problem, solver)
    status = model.problem.solverModel.modelStatusToString(code)
    dual = float(info.mip_dual_bound)
    bound = max(cheap, math.ceil(dual - 1e-6)) if math.isfinite(dual) else cheap
    if not has_incumbent(info):
        from hybridsched.errors import MethodFailedError

        raise MethodFailedError(f"HiGHS: {status} without a schedule")
    solution = extract(model)
    if check(instance, solution):  # never expected: report rather than pass a bad schedule
        raise RuntimeError("gang model: the read-back schedule fails the checker")
    unfinished = int(np.isnan(solution.start).sum())
    proven = status == "Optimal"
    return Result("exact", "gang", Status.OPTIMAL if proven else Status.TIME_LIMIT,
                  solution=solution, objective=float(unfinished),
                  bound=float(unfinished) if proven else float(min(bound, unfinished)),
                  message=f"HiGHS: {status}")
