"""Rigid batch MILP of the ``malleable`` family: time-indexed, PuLP + HiGHS; its solve and proof.

A *restriction* of the family's problem: each job runs in one piece on a
whole cluster or on whole VMs, so clusters run one job at a time, while the
checker also accepts jobs sharing a cluster on other processors, any width
and several pieces. Its optimum is therefore only an upper bound on the
malleable optimum, and its "proof" concerns the restriction alone: the
family's ``exact`` method (:mod:`hybridsched.models.malleable.milp`) uses it
to find good schedules fast and never reports its status or bound.

This module is the method's entry point (:func:`solve`) and its proof rule;
the model's parts live beside it:

- :mod:`~hybridsched.models.malleable.batch_grid`: each job's options, the
  objective coefficients, the horizon, the tail bound and the simple bound;
- :mod:`~hybridsched.models.malleable.batch_greedy`: the greedy schedules
  (warm start, MIP start, fallback incumbent) and placements realised as
  schedules with VM ids;
- :mod:`~hybridsched.models.malleable.milp_batch_build`: the time-indexed model,
  its extraction and its MIP start values.

Problem
-------
All jobs are known in advance; a job's release time is its ``arrival``.
Each job is placed on *one* resource with a processor count ``n`` and an
integer start minute ``s >= arrival``, and runs contiguously for
``d = minutes_needed(size, rate(n, performance, serial_fraction))`` minutes
(:mod:`~hybridsched.malleable.speedup`) on processors it holds the whole time:

- on a cluster (``dedicated`` or ``allocated``) on all its ``cpus``
  processors (the paper's rule: the head of the queue runs on all of them),
  so a cluster runs one job at a time;
- on a cloud on ``k`` whole VMs, ``1 <= k <= max_vms`` (``n = k * cpus``),
  with at most ``max_vms`` VMs busy at any minute.

Costs (:mod:`~hybridsched.malleable.billing`): an allocated cluster bills
``price * cpus * d``; a cloud bills, for every clock hour ``h``, ``y_h`` VMs,
where ``y_h`` is at least the number of VMs busy at each minute of
``[60h, 60h + 60)``, ``y_h = ys_h + yo_h``, ``ys_h <= spot_vms``, at
``price * ys_h + on_demand_price * yo_h`` (when the on-demand price is below
the spot price a binary per hour forces the spot VMs to be used first, as
the bill does). This is exact: the extracted schedule's VM ids bill exactly
``sum_h (max VMs busy in h)``
(:func:`~hybridsched.models.malleable.batch_greedy.realise`). A job's cost
share (for its budget) is ``price * cpus * d`` on an allocated cluster,
``k * d * price / 60`` on a cloud, 0 on a dedicated cluster.

Objectives (``objective``): ``penalised_a`` (default) and ``penalised_b``
(``cost + w_delay * total delay + w_overspend * total overspend``, weights
:data:`~hybridsched.malleable.billing.POLICY_WEIGHTS`), ``cost``,
``total_time`` (sum of ``end - arrival``) and ``total_delay``; all equal to
what :func:`hybridsched.malleable.checker.evaluate` recomputes.

Proof rule
----------
The grid (every start minute up to a horizon ``H``) is a restriction, so a
grid optimum is only claimed optimal when no schedule outside the grid can
beat it: every such schedule costs at least the tail bound ``T(H)``
(:func:`~hybridsched.models.malleable.batch_grid.tail_bound`).
The reported bound is ``max(L, min(grid bound, T(H)))`` with ``L`` the
simple bound of :func:`~hybridsched.models.malleable.batch_grid.simple_lower_bound`
(and ``T(H)`` alone when the grid holds no schedule); the status is
``optimal`` only when that bound reaches the objective (within
:data:`TOLERANCE`), which for the grid means: HiGHS proved the grid optimum
and it is at most ``T(H)``. (When the greedy schedule already meets ``L`` no
model is built: that is a proof too.) Otherwise ``time_limit`` (HiGHS or
the method's time budget stopped) or ``feasible``. The objective is always
the checker's value of the schedule returned, the better of HiGHS's
incumbent and the greedy one. The default horizon makes ``T(H)`` exceed the
greedy schedule's value, unless the grid would be too large
(:func:`~hybridsched.models.malleable.batch_grid.default_horizon`).

Solver: HiGHS through PuLP, one thread, no log, relative gap 0, presolve
off (as in :mod:`hybridsched.models.solvers.highs`: HiGHS 1.12-1.15 proved wrong
optima with presolve on), time limit = what remains of the method's
:class:`~hybridsched.budget.TimeBudget` when HiGHS starts, less a reserve
for reading the solution back
(:data:`~hybridsched.models.solvers.pulp_highs.SECONDS_PER_COLUMN`). The model is
built with PuLP and handed to HiGHS by
:class:`~hybridsched.models.solvers.pulp_highs.ArrayHighs`, which passes it as arrays
and sets the greedy schedule as a MIP start.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import highspy

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.malleable.bounds import weights
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.instance import Instance
from hybridsched.malleable.solution import Solution, from_pieces
from hybridsched.models.malleable.batch_greedy import objective_value, warm_start
from hybridsched.models.malleable.batch_grid import (
    default_horizon,
    job_options,
    simple_lower_bound,
    tail_bound,
)
from hybridsched.models.malleable.milp_batch_build import build, extract, start_values
from hybridsched.models.solvers.pulp_highs import (
    ArrayHighs,
    check_budget,
    has_incumbent,
    solve_and_read,
)
from hybridsched.result import Result, Status

#: Objectives the model minimises (names of the checker's metrics).
OBJECTIVES = ("penalised_a", "penalised_b", "cost", "total_time", "total_delay")
#: Relative (and absolute, below 1) tolerance of the optimality proof.
TOLERANCE = 1e-6
#: Registry-style names carried by the results.
METHOD, FAMILY = "malleable_batch", "malleable"


class _EmptyGrid(Exception):  # noqa: N818 (a signal)
    """Some job has no start in the grid."""


def grid_bound(status: Any, info: Any, tail: float) -> float:
    """A bound on every schedule from a grid model's HiGHS run and the grid's tail bound.

    ``min(dual bound, tail)``: the dual bound covers the grid (infinite when HiGHS
    proved the grid empty, unknown when it has none), the tail bound every schedule
    outside it. A grid proved empty with an infinite tail contradicts the schedules
    the method already holds, so neither is trusted then.
    """
    if status == highspy.HighsModelStatus.kInfeasible:
        dual = math.inf
    else:
        dual = float(info.mip_dual_bound)
        if math.isnan(dual) or dual == math.inf:
            dual = -math.inf
    if math.isinf(dual) and math.isinf(tail) and dual > 0 and tail > 0:
        return -math.inf
    return min(dual, tail)


def checked(instance: Instance, info: Any, read: Callable[[], Solution], notes: list[str]
            ) -> Solution | None:
    """The schedule ``read()`` extracts from HiGHS's incumbent, if the checker accepts it.

    ``None`` (with a note saying why) when HiGHS has no incumbent, it cannot be
    read, or the checker rejects it.
    """
    if not has_incumbent(info):
        return None
    try:
        candidate = read()
    except ValueError as err:
        notes.append(f"unreadable HiGHS solution: {err}")
        return None
    problems = check(instance, candidate)
    if problems:
        notes.append(f"HiGHS solution rejected by the checker: {problems[0]}")
        return None
    return candidate


# --------------------------------------------------------------------- solve

def solve(instance: Instance, objective: str = "penalised_a", time_limit: float | None = None,
          horizon: int | None = None) -> Result:
    """Solve the batch problem; see the module docstring for the proof rule.

    Parameters
    ----------
    instance:
        The batch.
    objective:
        One of :data:`OBJECTIVES`.
    time_limit:
        Seconds for the whole method (``None``: no limit; 0: greedy warm start only).
    horizon:
        Overrides the default horizon.

    Returns
    -------
    Result
        ``optimal`` (proven), ``feasible``, ``time_limit`` or, when some job
        has no usable resource, ``infeasible``. The objective is the
        checker's; the bound is ``max(simple bound, min(grid bound, T(H)))``.
    """
    weights(objective)
    budget = TimeBudget(time_limit)
    wall, cpu = time.perf_counter(), time.process_time()
    options = job_options(instance)

    def result(status: Status, solution: Solution | None, bound: float | None,
               message: str) -> Result:
        metrics = evaluate(instance, solution).metrics if solution is not None else {}
        return Result(method=METHOD, family=FAMILY, status=status, solution=solution,
                      objective=metrics.get(objective), bound=bound,
                      runtime_s=time.perf_counter() - wall, cpu_s=time.process_time() - cpu,
                      metrics=metrics, message=message)

    if any(not opts for opts in options):
        return result(Status.INFEASIBLE, None, None, "a job has no usable resource")
    if instance.n_jobs == 0:
        return result(Status.OPTIMAL, from_pieces(0, [], []), 0.0, "no jobs")
    # The greedy hurries once the budget runs out (minutes at 10^4 jobs otherwise).
    placements, best, best_value = warm_start(
        instance, objective, options, budget if budget.limited and not budget.warm_start_only
        else None)
    lower = simple_lower_bound(instance, objective, options)
    bound = lower
    stopped, notes = False, []
    if best_value <= lower + TOLERANCE * max(1.0, abs(best_value)):
        notes.append("the greedy schedule meets the simple lower bound")
    elif budget.warm_start_only:
        stopped = True
        notes.append("time limit 0: greedy warm start only")
    else:
        if horizon is None:
            horizon = default_horizon(instance, objective, options, best_value)
        try:
            model = build(instance, objective, horizon, budget=budget, options=options)
            notes.append(f"horizon {model.horizon}, {len(model.x)} binaries, "
                         f"tail bound {model.tail_bound:g}")
            if len({j for j, _, _ in model.x}) < instance.n_jobs:
                raise _EmptyGrid
            solver = ArrayHighs(budget, model.columns(), start_values(model, placements))
            check_budget(budget, len(model.x), "starting HiGHS")
            status, info = solve_and_read(model.problem, solver, budget)
            stopped = status == highspy.HighsModelStatus.kTimeLimit
            bound = max(lower, grid_bound(status, info, model.tail_bound))
            notes.append(f"HiGHS: {model.problem.solverModel.modelStatusToString(status)}")
            candidate = checked(instance, info, lambda: extract(model), notes)
            if candidate is not None:
                value = objective_value(instance, candidate, objective)
                if value < best_value:
                    best, best_value = candidate, value
        except BudgetExpired as err:
            stopped = True
            notes.append(str(err))
        except _EmptyGrid:
            # Some job cannot run within the horizon: every schedule lies outside the grid.
            notes.append("no grid schedule: a job cannot end by the horizon")
            bound = max(lower, tail_bound(instance, objective, horizon, options))
            if math.isinf(bound):  # pragma: no cover - the exact cost grid holds every job
                bound = lower
    proven = bound >= best_value - TOLERANCE * max(1.0, abs(best_value))
    if proven:
        status = Status.OPTIMAL
    elif stopped:
        status = Status.TIME_LIMIT
    else:
        status = Status.FEASIBLE
    if math.isinf(bound):
        bound = best_value
    return result(status, best, min(bound, best_value) if proven else bound, "; ".join(notes))
