"""Offline batch model of the ``malleable`` family: a time-indexed MILP (PuLP + HiGHS).

The batch is known in advance (release = arrival). Each job is placed on one
resource with a processor count and a start minute, and runs contiguously:

- on a cluster, on all its processors (the paper's rule: the head of the
  queue runs on all of them), so a cluster runs one job at a time;
- on a cloud, on ``k`` whole VMs, ``k`` chosen among the counts that give
  distinct durations (a larger count with the same duration costs more and
  ends no earlier); at most ``max_vms`` VMs busy at any minute.

Durations are :func:`~hybridsched.malleable.speedup.minutes_needed` with the
job's speed-up model. Binary ``x[j, o, s]``: job ``j`` with option ``o``
from minute ``s``. The cloud bill is exact (:mod:`~hybridsched.malleable.billing`):
``y[r, h] >= VMs busy at each minute of clock hour h``, split into spot
(``<= spot_vms``) and on-demand VM-hours; the extracted schedule assigns VMs
by the same greedy rule as the online cloud scheduler, which reaches that
bill. Delays, job cost shares (hence budget overspend) and arrival-to-end
times are constants of each ``x``.

Objectives: ``penalised_a`` (default), ``penalised_b``, ``cost``,
``total_time``, ``total_delay``, as the checker computes them.

Horizon and proofs
------------------
The grid ends at minute ``H``. A schedule in which some job ends after ``H``
has a delay of at least ``H + 1 - max deadline`` (so a penalised objective of
at least ``w_delay`` times that; ``total_time`` at least ``H + 1 - max
arrival``): that is the tail bound ``T(H)``. A result is ``optimal`` only when
the grid's optimum is proven and does not exceed ``T(H)``; otherwise the
bound is ``min(grid bound, T(H))``. The default horizon is chosen from a first
solve so that ``T(H)`` covers its value (:func:`solve`). For ``cost``, which
has no tail, the grid is only exact when ``H >= max arrival + sum of the
longest durations + 59 n`` (idle stretches of an hour or more can be cut by
whole hours without changing the bill): below that, ``feasible``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pulp

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.heuristics.cloud_scheduler import CloudScheduler
from hybridsched.malleable.billing import HOUR, POLICY_WEIGHTS, cloud_share
from hybridsched.malleable.candidates import Candidate
from hybridsched.malleable.instance import Instance, ResourceType
from hybridsched.malleable.solution import Solution, from_pieces
from hybridsched.malleable.speedup import minutes_needed_array, rate
from hybridsched.progress import record_solver_statistics
from hybridsched.result import Result, Status

#: Objectives the model minimises (the checker's metrics).
OBJECTIVES = ("penalised_a", "penalised_b", "cost", "total_time", "total_delay")
#: Largest model built: start-time binaries, and their entries in the per-minute
#: capacity rows (a binary appears in one row per minute its job runs).
MAX_BINARIES = 40_000
MAX_NONZEROS = 600_000
#: Relative tolerance of the optimality and tail checks.
TOLERANCE = 1e-6


@dataclass(frozen=True)
class Option:
    """One way to run a job: resource, VMs (0 on a cluster), processors, minutes, costs."""

    resource: int
    vms: int
    width: int
    minutes: int
    run_cost: float
    share: float


@dataclass
class BatchModel:
    """A built model: the PuLP problem, its start variables and its horizon."""

    instance: Instance
    objective: str
    horizon: int
    problem: pulp.LpProblem
    starts: dict[tuple[int, int, int], pulp.LpVariable]
    options: list[list[Option]]


def job_options(instance: Instance) -> list[list[Option]]:
    """Every job's options (clouds: the least VM count of each distinct duration)."""
    out: list[list[Option]] = [[] for _ in range(instance.n_jobs)]
    for i, r in enumerate(instance.resources):
        if r.is_cloud:
            ks = np.arange(1, r.max_vms + 1)
            minutes = minutes_needed_array(
                instance.size[:, None],
                rate(ks[None, :] * r.cpus, r.performance, instance.serial_fraction[:, None]),
            ).reshape(instance.n_jobs, r.max_vms)
            for j in range(instance.n_jobs):
                seen: set[int] = set()
                for k, m in zip(ks.tolist(), minutes[j].tolist(), strict=True):
                    if m not in seen:
                        seen.add(m)
                        out[j].append(Option(i, k, k * r.cpus, m, 0.0,
                                             float(cloud_share(r, float(k * m)))))
        else:
            minutes = minutes_needed_array(
                instance.size, rate(r.cpus, r.performance, instance.serial_fraction))
            paid = r.type is ResourceType.ALLOCATED
            for j in range(instance.n_jobs):
                cost = r.price * r.cpus * int(minutes[j]) if paid else 0.0
                out[j].append(Option(i, 0, r.cpus, int(minutes[j]), cost, cost))
    return out


def _weights(objective: str) -> tuple[float, float, float, float]:
    """``(cost, delay, overspend, time)`` weights of an objective."""
    if objective == "penalised_a":
        return (1.0, *POLICY_WEIGHTS["A"], 0.0)
    if objective == "penalised_b":
        return (1.0, *POLICY_WEIGHTS["B"], 0.0)
    return {"cost": (1.0, 0.0, 0.0, 0.0), "total_time": (0.0, 0.0, 0.0, 1.0),
            "total_delay": (0.0, 1.0, 0.0, 0.0)}[objective]


def tail_bound(instance: Instance, objective: str, horizon: int,
               options: list[list[Option]] | None = None) -> float:
    """Least objective of any schedule in which a job ends after ``horizon`` (see above)."""
    if instance.n_jobs == 0:
        return math.inf
    _, w_delay, _, w_time = _weights(objective)
    if objective == "cost":
        options = job_options(instance) if options is None else options
        return math.inf if horizon >= _safe_horizon(instance, options) else 0.0
    late = w_delay * max(horizon + 1 - int(instance.deadline.max()), 0)
    waiting = w_time * max(horizon + 1 - int(instance.arrival.max()), 0)
    return float(late + waiting)


def _safe_horizon(instance: Instance, options: list[list[Option]]) -> int:
    """A horizon some optimal schedule fits in, whatever the objective (see above)."""
    return (int(instance.arrival.max(initial=0)) + sum(max(o.minutes for o in opts)
                                                       for opts in options)
            + (HOUR - 1) * instance.n_jobs)


def first_horizon(instance: Instance, options: list[list[Option]]) -> int:
    """A short horizon that fits every job: the latest deadline or earliest possible end."""
    earliest = max((int(instance.arrival[j]) + min(o.minutes for o in opts)
                    for j, opts in enumerate(options)), default=0)
    return max(earliest, int(instance.deadline.max(initial=0))) + HOUR


def _too_big(instance: Instance, options: list[list[Option]], horizon: int) -> str | None:
    """Why the model on ``horizon`` is too big to build (``None``: it is not)."""
    binaries = nonzeros = 0
    for j, opts in enumerate(options):
        for o in opts:
            starts = max(horizon - int(instance.arrival[j]) - o.minutes + 2, 0)
            binaries += starts
            nonzeros += starts * o.minutes
    if binaries > MAX_BINARIES:
        return f"{binaries} binaries (> {MAX_BINARIES})"
    if nonzeros > MAX_NONZEROS:
        return f"{nonzeros} capacity entries (> {MAX_NONZEROS})"
    return None


def build(instance: Instance, objective: str = "penalised_a", horizon: int | None = None,
          options: list[list[Option]] | None = None, budget: TimeBudget | None = None
          ) -> BatchModel:
    """Build the time-indexed model on minutes ``0 .. horizon`` (last minute of work).

    Raises
    ------
    BudgetExpired
        When ``budget`` runs out while building.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    options = job_options(instance) if options is None else options
    horizon = first_horizon(instance, options) if horizon is None else horizon
    w_cost, w_delay, w_over, w_time = _weights(objective)
    problem = pulp.LpProblem("malleable_batch", pulp.LpMinimize)
    starts: dict[tuple[int, int, int], pulp.LpVariable] = {}
    costs: list[tuple[float, pulp.LpVariable]] = []
    busy: dict[tuple[int, int], list[tuple[float, pulp.LpVariable]]] = {}
    for j, opts in enumerate(options):
        if budget is not None:
            budget.check("building the offline model")
        a, deadline, money = (int(instance.arrival[j]), int(instance.deadline[j]),
                              float(instance.budget[j]))
        mine = []
        for o, opt in enumerate(opts):
            for s in range(a, horizon - opt.minutes + 2):
                var = problem.add_variable(f"x_{j}_{o}_{s}", 0, 1, cat="Integer")
                starts[j, o, s] = var
                mine.append(var)
                end = s + opt.minutes
                coefficient = (w_cost * opt.run_cost + w_delay * max(end - deadline, 0)
                               + w_over * max(opt.share - money, 0.0) + w_time * (end - a))
                if coefficient:
                    costs.append((coefficient, var))
                weight = float(opt.vms) if opt.vms else 1.0
                for t in range(s, end):
                    busy.setdefault((opt.resource, t), []).append((weight, var))
        if not mine:  # no start fits the grid: the model is infeasible
            mine.append(problem.add_variable(f"no_start_{j}", 0, 0))
        problem.addConstraint(pulp.lpSum(mine) == 1, f"place_{j}")
    hourly: dict[tuple[int, int], pulp.LpVariable] = {}
    for (i, t), terms in sorted(busy.items()):
        r = instance.resources[i]
        active = pulp.lpSum(w * v for w, v in terms)
        if not r.is_cloud:
            problem.addConstraint(active <= 1, f"cluster_{i}_{t}")
            continue
        h = t // HOUR
        if (i, h) not in hourly:
            spot = problem.add_variable(f"spot_{i}_{h}", 0, r.spot_vms)
            demand = problem.add_variable(f"demand_{i}_{h}", 0, r.max_vms - r.spot_vms)
            hourly[i, h] = spot + demand
            costs += [(w_cost * r.price, spot), (w_cost * r.on_demand_price, demand)]
        problem.addConstraint(active <= hourly[i, h], f"vms_{i}_{t}")
    problem.setObjective(pulp.lpSum(c * v for c, v in costs))
    return BatchModel(instance, objective, horizon, problem, starts, options)


def extract(model: BatchModel) -> Solution:
    """The model's schedule; cloud VMs assigned by the online scheduler's greedy rule."""
    instance = model.instance
    chosen: list[tuple[int, int, int]] = []
    for (j, o, s), var in model.starts.items():
        if (var.value() or 0.0) > 0.5:
            chosen.append((s, j, o))
    chosen.sort()
    resource = np.full(instance.n_jobs, -1, dtype=np.int64)
    pieces: list[tuple[int, int, int, int, int]] = []
    clouds = {i: CloudScheduler(i, r, instance) for i, r in enumerate(instance.resources)
              if r.is_cloud}
    for s, j, o in chosen:
        opt = model.options[j][o]
        resource[j] = opt.resource
        end = s + opt.minutes
        if opt.vms:
            ranges = clouds[opt.resource].accept(
                Candidate(j, opt.resource, 0, s, end, 0.0, opt.width, False))
            pieces += [(j, s, end, cpu, count) for cpu, count in ranges]
        else:
            pieces.append((j, s, end, 0, opt.width))
    return from_pieces(instance.n_jobs, resource, pieces)


def _run(model: BatchModel, budget: TimeBudget) -> tuple[str, float | None, float | None]:
    """Solve; return ``(HiGHS status name, incumbent value, dual bound)``."""
    import time

    limit = budget.remaining() if budget.limited else None
    solver = pulp.HiGHS(msg=False, threads=1, timeLimit=limit, gapRel=0.0)
    started = time.perf_counter()
    model.problem.solve(solver)
    highs = model.problem.solverModel
    info = highs.getInfo()
    record_solver_statistics(solves=1, nodes=int(info.mip_node_count),
                             iterations=int(info.simplex_iteration_count),
                             seconds=time.perf_counter() - started)
    status = highs.modelStatusToString(highs.getModelStatus())
    has_incumbent = info.primal_solution_status == 2  # kSolutionStatusFeasible
    value = float(info.objective_function_value) if has_incumbent else None
    bound = float(info.mip_dual_bound)
    return status, value, bound if math.isfinite(bound) else None


def online_start(instance: Instance, objective: str) -> tuple[Solution, float]:
    """The best schedule of the online methods replayed on the batch (the warm start)."""
    from hybridsched.malleable.checker import evaluate
    from hybridsched.malleable.online import simulate

    best: tuple[Solution, float] | None = None
    for scheduler in ("tree", "round-robin"):
        for policy in ("A", "B"):
            solution, _ = simulate(instance, scheduler, policy, seed=0)
            value = float(evaluate(instance, solution).metrics[objective])
            if best is None or value < best[1]:
                best = (solution, value)
    assert best is not None
    return best


def solve(instance: Instance, objective: str = "penalised_a", time_limit: float | None = None,
          horizon: int | None = None) -> Result:
    """Solve the batch; the status follows the proof rule of the module docstring.

    The best online schedule (agent tree and round robin, both policies) is
    the incumbent to beat: it is returned, with the best bound found, when
    the time limit stops the solver first, when the limit is 0, or when the
    model would exceed :data:`MAX_BINARIES`. Without ``horizon``, a first solve
    on :func:`first_horizon` is followed, when its tail bound does not cover
    its value, by a second one whose horizon does.
    """
    budget = TimeBudget(time_limit)
    options = job_options(instance)
    best = online_start(instance, objective)
    start_value = best[1]
    status, bound = Status.FEASIBLE, 0.0
    message = "best online schedule (no model built: time limit 0)"
    if horizon is None and objective == "cost":
        # Cost has no tail bound: only the safe horizon proves anything.
        safe = _safe_horizon(instance, options)
        horizon = safe if _too_big(instance, options, safe) is None else None
    horizons = [horizon if horizon is not None else first_horizon(instance, options)]
    while horizons and not budget.warm_start_only:
        h = horizons.pop()
        too_big = _too_big(instance, options, h)
        if too_big is not None:
            message = f"best online schedule: a horizon of {h} minutes needs {too_big}"
            break
        try:
            model = build(instance, objective, h, options, budget)
        except BudgetExpired as exc:
            status, message = Status.TIME_LIMIT, f"best online schedule ({exc})"
            break
        solved, value, dual = _run(model, budget)
        tail = tail_bound(instance, objective, h, options)
        grid_bound = value if solved == "Optimal" else dual
        if grid_bound is not None:
            bound = max(bound, min(grid_bound, tail))
        if value is not None and value < best[1] - TOLERANCE * max(1.0, abs(value)):
            best = (extract(model), value)
        if solved == "Optimal" and best[1] <= tail + TOLERANCE * max(1.0, abs(tail)):
            return Result("exact", "malleable", Status.OPTIMAL, solution=best[0],
                          objective=best[1], bound=best[1], message=f"horizon {h} minutes")
        if solved != "Optimal":
            status = Status.TIME_LIMIT
            message = f"HiGHS: {solved} on a horizon of {h} minutes"
            break
        message = (f"optimal on a horizon of {h} minutes; a later end could not be ruled out "
                   f"(tail bound {tail:g})")
        if horizon is None and not budget.expired():
            wider = _covering_horizon(instance, objective, best[1], h)
            if wider is not None:
                horizons.append(wider)
    if best[1] <= TOLERANCE:  # every objective is >= 0: a schedule scoring 0 is optimal
        return Result("exact", "malleable", Status.OPTIMAL, solution=best[0], objective=best[1],
                      bound=0.0, message="a schedule of value 0")
    if best[1] == start_value and not message:
        message = "best online schedule"
    return Result("exact", "malleable", status, solution=best[0], objective=best[1],
                  bound=min(bound, best[1]), message=message)


def _covering_horizon(instance: Instance, objective: str, value: float, current: int
                      ) -> int | None:
    """The least horizon whose tail bound reaches ``value`` (``None``: none needed/possible)."""
    _, w_delay, _, w_time = _weights(objective)
    if objective == "cost":
        return None
    if w_delay:
        wanted = int(instance.deadline.max()) - 1 + math.ceil(value / w_delay)
    else:
        wanted = int(instance.arrival.max()) - 1 + math.ceil(value / w_time)
    return wanted if wanted > current else None
