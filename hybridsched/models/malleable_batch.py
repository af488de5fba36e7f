"""Rigid batch MILP of the ``malleable`` family: time-indexed, PuLP + HiGHS.

A *restriction* of the family's problem: each job runs in one piece on a
whole cluster or on whole VMs, so clusters run one job at a time, while the
checker also accepts jobs sharing a cluster on other processors, any width
and several pieces. Its optimum is therefore only an upper bound on the
malleable optimum, and its "proof" concerns the restriction alone: the
family's ``exact`` method (:mod:`hybridsched.models.malleable_exact`) uses it
to find good schedules fast and never reports its status or bound.

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
the bill does). This is exact: the extracted schedule assigns VM ids greedily
in start order (ties by job index), reusing a VM already billed in the
current hour first, else the lowest free id, which bills exactly
``sum_h (max VMs busy in h)`` (see :func:`realise`). A job's cost share
(for its budget) is ``price * cpus * d`` on an allocated cluster,
``k * d * price / 60`` on a cloud, 0 on a dedicated cluster.

Model
-----
Binary ``x[j, o, s]``: job ``j`` runs option ``o`` (resource, VMs) from
minute ``s``. ``end = s + d``, ``delay = max(end - deadline, 0)`` and
``overspend = max(share - budget, 0)`` are constants of each ``x``, hence
objective coefficients. Constraints: one ``x`` per job; per cluster and
minute, at most one running job; per cloud and minute ``t``, the VMs of the
running jobs ``<= y_{t // 60}`` (``<= max_vms`` when the objective has no
cost), plus the valid cuts "the VMs of job ``j`` if it runs during hour ``h``
``<= y_h``", which keep the LP bound of the hourly bill from vanishing
when fractional starts spread a job over many hours. Constraints at a
minute where nothing starts (within the same hour) are implied by the
previous minute's and left out. Objectives (``objective``): ``penalised_a`` (default) and
``penalised_b`` (``cost + w_delay * total delay + w_overspend * total
overspend``, weights :data:`~hybridsched.malleable.billing.POLICY_WEIGHTS`),
``cost``, ``total_time`` (sum of ``end - arrival``) and ``total_delay``; all
equal to what :func:`hybridsched.malleable.checker.evaluate` recomputes.

Options are pruned soundly: a cloud job uses at most the smallest ``k``
whose duration is one minute, and a ``k`` with the same duration as a smaller
one is dropped (more VMs for the same minutes cost no less, with prices
``>= 0``, and end no earlier).

Horizon and proof rule
----------------------
The grid has every minute up to the horizon ``H``, the last minute a job may
still run: starts ``s`` range over ``[arrival, H - d + 1]``. The grid is a
restriction, so a grid optimum is only claimed optimal when no schedule
outside the grid can beat it. A schedule with a job ending after ``H`` has a
delay of at least ``H + 1 - max deadline``, so its objective is at least the
*tail bound* ``T(H) = w * max(0, H + 1 - max deadline)`` (``w = w_delay`` for
the penalised objectives, 1 for ``total_delay``); for ``total_time``,
``T(H) = max(0, H + 1 - max arrival)``. For ``cost``, ``T(H) = 0`` unless
``H >= max arrival + sum_j (longest duration of j) + 59 n``: shifting any idle
stretch of 60 minutes or more after the last arrival left by whole hours keeps
the bill, so some optimal schedule fits, and ``T(H) = inf``.

The reported bound is ``max(L, min(grid bound, T(H)))`` with ``L`` the
simple bound of :func:`simple_lower_bound` (and ``T(H)`` alone when the grid
holds no schedule); the status is ``optimal`` only when that bound reaches
the objective (within :data:`TOLERANCE`), which for the grid means: HiGHS
proved the grid optimum and it is at most ``T(H)``. (When the greedy
schedule already meets ``L`` no model is built: that is a proof too.)
Otherwise ``time_limit`` (HiGHS or the method's time budget stopped) or
``feasible``. The objective is always the checker's value of the schedule
returned, the better of HiGHS's incumbent and the greedy one.

The default horizon comes from an upper bound ``U``: the better of two
greedy schedules (:func:`greedy_placements`, each job in arrival order on the
option ending earliest, or adding least to the objective), always valid and
also used as a MIP start and as the fallback incumbent. Then
``H = max deadline + ceil(U / w)`` (``max arrival + ceil(U)`` for
``total_time``), so that ``T(H) > U``, or the exact ``cost`` horizon above;
capped so that the number of binaries stays at most :data:`MAX_BINARIES`
(a capped grid can still find schedules, but the proof then usually fails).

Solver: HiGHS through PuLP, one thread, no log, relative gap 0, presolve
off (as in :mod:`hybridsched.models.highs`: HiGHS 1.12-1.15 proved wrong
optima with presolve on), time limit = what remains of the method's
:class:`~hybridsched.budget.TimeBudget` when HiGHS starts, less a reserve
for reading the solution back
(:data:`~hybridsched.models.pulp_highs.SECONDS_PER_COLUMN`). The model is
built with PuLP and handed to HiGHS by
:class:`~hybridsched.models.pulp_highs.ArrayHighs`, which passes it as arrays
and sets the greedy schedule as a MIP start.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import highspy
import numpy as np
import pulp

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.heuristics.cloud_scheduler import CloudScheduler
from hybridsched.malleable.billing import HOUR, hour_cost
from hybridsched.malleable.bounds import usable, weights
from hybridsched.malleable.candidates import Candidate
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.solution import Solution, from_pieces
from hybridsched.malleable.speedup import minutes_needed, rate
from hybridsched.models.pulp_highs import ArrayHighs, check_budget, has_incumbent, solve_and_read
from hybridsched.result import Result, Status

#: Objectives the model minimises (names of the checker's metrics).
OBJECTIVES = ("penalised_a", "penalised_b", "cost", "total_time", "total_delay")
#: Most start-time binaries a default horizon may create.
MAX_BINARIES = 200_000
#: Relative (and absolute, below 1) tolerance of the optimality proof.
TOLERANCE = 1e-6
#: Registry-style names carried by the results.
METHOD, FAMILY = "malleable_batch", "malleable"

#: ``(job, option index, start minute)`` of one job.
Placement = tuple[int, int, int]


@dataclass(frozen=True)
class Option:
    """One way to run a job.

    Attributes
    ----------
    resource:
        Resource index.
    vms:
        VMs used on a cloud (0 on a cluster).
    width:
        Processors used.
    minutes:
        Duration ``d``.
    run_cost:
        Bill of the run on an allocated cluster (0 elsewhere: a cloud's bill
        is hourly, see the module docstring).
    share:
        The job's cost share (for its budget).
    """

    resource: int
    vms: int
    width: int
    minutes: int
    run_cost: float
    share: float


@dataclass
class BatchModel:
    """A built time-indexed model.

    Attributes
    ----------
    instance, objective:
        What it models.
    problem:
        The PuLP problem.
    x:
        ``(job, option, start) -> binary``.
    options:
        ``options[j]`` lists the :class:`Option` of job ``j``.
    horizon:
        ``H``, the last minute a job may run.
    tail_bound:
        ``T(H)``, a lower bound on every schedule outside the grid.
    hours:
        ``(resource, hour) -> (spot VMs, on-demand VMs, spot-first binary or None)``
        of the billed clouds.
    """

    instance: Instance
    objective: str
    problem: pulp.LpProblem
    x: dict[Placement, pulp.LpVariable]
    options: list[list[Option]]
    horizon: int
    tail_bound: float
    hours: dict[tuple[int, int], tuple[pulp.LpVariable, pulp.LpVariable,
                                       pulp.LpVariable | None]] = field(default_factory=dict)

    def columns(self) -> list[pulp.LpVariable]:
        """Every variable of the model: the start binaries, then the hourly VM counts."""
        out = list(self.x.values())
        for spot, demand, switch in self.hours.values():
            out += [spot, demand] if switch is None else [spot, demand, switch]
        return out


# --------------------------------------------------------------------- options and constants

def job_options(instance: Instance) -> list[list[Option]]:
    """The pruned options of every job (see the module docstring)."""
    out: list[list[Option]] = []
    for j in range(instance.n_jobs):
        size, fraction = float(instance.size[j]), float(instance.serial_fraction[j])
        opts: list[Option] = []
        for i, r in enumerate(instance.resources):
            if not usable(r):
                continue
            if r.is_cloud:
                previous = None
                for k in range(1, r.max_vms + 1):
                    d = minutes_needed(size, float(rate(k * r.cpus, r.performance, fraction)))
                    if d == previous:
                        continue
                    previous = d
                    opts.append(Option(i, k, k * r.cpus, d, 0.0, k * d * r.price / HOUR))
                    if d == 1:
                        break
            else:
                d = minutes_needed(size, float(rate(r.cpus, r.performance, fraction)))
                paid = r.price * r.cpus * d if r.type is ResourceType.ALLOCATED else 0.0
                opts.append(Option(i, 0, r.cpus, d, paid, paid))
        out.append(opts)
    return out


def coefficient(instance: Instance, objective: str, job: int, option: Option, start: int
                ) -> float:
    """Objective coefficient of ``x[job, option, start]`` (the cloud bill is hourly, apart)."""
    w_cost, w_delay, w_over, w_time = weights(objective)
    end = start + option.minutes
    value = w_cost * option.run_cost
    if w_delay:
        value += w_delay * max(end - int(instance.deadline[job]), 0)
    if w_over:
        value += w_over * max(option.share - float(instance.budget[job]), 0.0)
    if w_time:
        value += w_time * (end - int(instance.arrival[job]))
    return value


def cost_exact_horizon(instance: Instance, options: Sequence[Sequence[Option]]) -> int:
    """Least horizon at which the grid holds an optimal schedule for ``cost``."""
    if instance.n_jobs == 0:
        return 0
    longest = sum(max((o.minutes for o in opts), default=0) for opts in options)
    return int(instance.arrival.max()) + longest + (HOUR - 1) * instance.n_jobs


def tail_bound(instance: Instance, objective: str, horizon: int,
               options: Sequence[Sequence[Option]] | None = None) -> float:
    """``T(H)``: a lower bound on the objective of any schedule with a job running after ``H``."""
    weights(objective)
    if instance.n_jobs == 0:
        return math.inf
    if objective == "cost":
        options = job_options(instance) if options is None else options
        return math.inf if horizon >= cost_exact_horizon(instance, options) else 0.0
    if objective == "total_time":
        return float(max(0, horizon + 1 - int(instance.arrival.max())))
    w_delay = weights(objective)[1]
    return w_delay * max(0, horizon + 1 - int(instance.deadline.max()))


def binaries(instance: Instance, options: Sequence[Sequence[Option]], horizon: int) -> int:
    """Number of start binaries of a grid ending at ``horizon``."""
    return sum(max(0, horizon - o.minutes + 2 - int(instance.arrival[j]))
               for j, opts in enumerate(options) for o in opts)


def simple_lower_bound(instance: Instance, objective: str,
                       options: Sequence[Sequence[Option]]) -> float:
    """A bound without any model: each job alone at its arrival, on its best option.

    A cloud's hourly bill is at least ``min(price, on_demand_price)`` per
    VM-hour of use, so a job's ``k * d`` VM-minutes cost at least that
    fraction of an hour.
    """
    w_cost = weights(objective)[0]
    total = 0.0
    for j, opts in enumerate(options):
        best = math.inf
        for o in opts:
            value = coefficient(instance, objective, j, o, int(instance.arrival[j]))
            r = instance.resources[o.resource]
            if r.is_cloud and w_cost:
                value += w_cost * min(r.price, r.on_demand_price) * o.vms * o.minutes / HOUR
            best = min(best, value)
        total += best
    return max(total, 0.0)


# --------------------------------------------------------------------- schedules

def realise(instance: Instance, options: Sequence[Sequence[Option]],
            placements: Sequence[Placement]) -> Solution:
    """The schedule of ``placements`` (one per job), with VM ids assigned greedily.

    Clusters: one piece on processors ``0 .. cpus - 1``. Clouds: jobs in start
    order (ties by job index) take VMs already billed in the start's clock
    hour and free, lowest id first, then the lowest free ids; runs of
    consecutive VM ids make one piece each. Raises ``ValueError`` when a cloud
    runs out of VMs (the placements break the VM limit).
    """
    n = instance.n_jobs
    resource = np.full(n, -1, dtype=np.int64)
    pieces: list[tuple[int, int, int, int, int]] = []
    cloud_jobs: dict[int, list[tuple[int, int, int]]] = {}
    for j, o, s in placements:
        opt = options[j][o]
        resource[j] = opt.resource
        r = instance.resources[opt.resource]
        if r.is_cloud:
            cloud_jobs.setdefault(opt.resource, []).append((s, j, o))
        else:
            pieces.append((j, s, s + opt.minutes, 0, r.cpus))
    for i, jobs in cloud_jobs.items():
        cloud = CloudScheduler(i, instance.resources[i], instance)
        for s, j, o in sorted(jobs):
            opt = options[j][o]
            end = s + opt.minutes
            ranges = cloud.accept(Candidate(j, i, 0, s, end, 0.0, opt.width, False))
            pieces += [(j, s, end, cpu, count) for cpu, count in ranges]
    pieces.sort(key=lambda p: (p[0], p[1], p[3]))
    return from_pieces(n, resource, pieces)


def greedy_placements(instance: Instance, objective: str,
                      options: Sequence[Sequence[Option]], rule: str = "earliest_end"
                      ) -> list[Placement]:
    """A valid schedule built job by job in arrival order (ties by index).

    Each job takes, among its options at their earliest start given the jobs
    already placed (a cluster after its last job, a cloud at the first minute
    with enough idle VMs for the whole run), the one ending earliest
    (``rule="earliest_end"``) or the one adding least to the objective
    (``rule="marginal"``, the cloud's hourly bill included); ties go to the
    other criterion, then to the option order.
    """
    w_cost = weights(objective)[0]
    cluster_free: dict[int, int] = {}
    busy: dict[int, list[int]] = {}          # cloud -> VMs busy per minute
    hour_max: dict[int, dict[int, int]] = {}  # cloud -> hour -> max VMs busy
    out: list[Placement] = []
    for j in sorted(range(instance.n_jobs), key=lambda k: (int(instance.arrival[k]), k)):
        a = int(instance.arrival[j])
        best: tuple[tuple[float, float, int], Placement] | None = None
        for o, opt in enumerate(options[j]):
            r = instance.resources[opt.resource]
            d = opt.minutes
            extra = 0.0
            if r.is_cloud:
                profile = busy.setdefault(opt.resource, [])
                s = a
                while True:
                    clash = [t for t in range(s, s + d)
                             if t < len(profile) and profile[t] + opt.vms > r.max_vms]
                    if not clash:
                        break
                    s = clash[-1] + 1
                if w_cost:
                    maxima = hour_max.get(opt.resource, {})
                    for h in range(s // HOUR, (s + d - 1) // HOUR + 1):
                        lo, hi = max(s, h * HOUR), min(s + d, (h + 1) * HOUR)
                        peak = max((profile[t] if t < len(profile) else 0)
                                   for t in range(lo, hi)) + opt.vms
                        old = maxima.get(h, 0)
                        if peak > old:
                            extra += float(hour_cost(r, peak) - hour_cost(r, old))
            else:
                s = max(a, cluster_free.get(opt.resource, 0))
            value = coefficient(instance, objective, j, opt, s) + w_cost * extra
            key = (s + d, value, o) if rule == "earliest_end" else (value, s + d, o)
            if best is None or key < best[0]:
                best = (key, (j, o, s))
        if best is None:
            raise ValueError(f"job {instance.job_ids[j]!r} has no resource to run on")
        _, (_, o, s) = best
        opt = options[j][o]
        out.append((j, o, s))
        r = instance.resources[opt.resource]
        if r.is_cloud:
            profile = busy[opt.resource]
            if len(profile) < s + opt.minutes:
                profile.extend([0] * (s + opt.minutes - len(profile)))
            for t in range(s, s + opt.minutes):
                profile[t] += opt.vms
            maxima = hour_max.setdefault(opt.resource, {})
            for h in range(s // HOUR, (s + opt.minutes - 1) // HOUR + 1):
                maxima[h] = max(profile[h * HOUR:(h + 1) * HOUR])
        else:
            cluster_free[opt.resource] = s + opt.minutes
    return out


def _value(instance: Instance, solution: Solution, objective: str) -> float:
    return float(evaluate(instance, solution).metrics[objective])


def warm_start(instance: Instance, objective: str, options: Sequence[Sequence[Option]]
               ) -> tuple[list[Placement], Solution, float]:
    """The better of the two greedy schedules: placements, schedule and checked objective."""
    best: tuple[list[Placement], Solution, float] | None = None
    for rule in ("earliest_end", "marginal"):
        placements = greedy_placements(instance, objective, options, rule)
        solution = realise(instance, options, placements)
        problems = check(instance, solution)
        if problems:  # pragma: no cover - a bug in the greedy, not in the instance
            raise RuntimeError(f"greedy schedule ({rule}) is invalid: {problems[:3]}")
        value = _value(instance, solution, objective)
        if best is None or value < best[2] - 1e-12:
            best = (placements, solution, value)
    assert best is not None
    return best


def default_horizon(instance: Instance, objective: str, options: Sequence[Sequence[Option]],
                    upper: float) -> int:
    """``H`` with ``T(H) > upper`` (exact horizon for ``cost``), capped by :data:`MAX_BINARIES`."""
    _, w_delay, _, _ = weights(objective)
    if instance.n_jobs == 0:
        return 0
    if objective == "cost":
        wanted = cost_exact_horizon(instance, options)
    elif objective == "total_time":
        wanted = int(instance.arrival.max()) + math.ceil(upper)
    else:
        wanted = int(instance.deadline.max()) + math.ceil(upper / w_delay)
    wanted = max(wanted, int(instance.arrival.max()))
    if binaries(instance, options, wanted) <= MAX_BINARIES:
        return wanted
    lo, hi = int(instance.arrival.min()), wanted  # binaries(lo) may exceed: then lo
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if binaries(instance, options, mid) <= MAX_BINARIES:
            lo = mid
        else:
            hi = mid - 1
    return lo


# --------------------------------------------------------------------- model

def build(instance: Instance, objective: str = "penalised_a", horizon: int | None = None,
          *, budget: TimeBudget | None = None,
          options: list[list[Option]] | None = None) -> BatchModel:
    """Build the time-indexed model (see the module docstring).

    Parameters
    ----------
    instance:
        The batch.
    objective:
        One of :data:`OBJECTIVES`.
    horizon:
        ``H``; ``None``: :func:`default_horizon` from the greedy warm start.
    budget:
        Checked while building (raises :class:`~hybridsched.budget.BudgetExpired`).
    options:
        Precomputed :func:`job_options`.

    Returns
    -------
    BatchModel
    """
    collecting = gc.isenabled()
    gc.disable()  # hundreds of thousands of PuLP objects: collections would dominate
    try:
        return _build(instance, objective, horizon, budget, options)
    finally:
        if collecting:
            gc.enable()


def _build(instance: Instance, objective: str, horizon: int | None, budget: TimeBudget | None,
           options: list[list[Option]] | None) -> BatchModel:
    w_cost = weights(objective)[0]
    options = job_options(instance) if options is None else options
    if horizon is None:
        horizon = default_horizon(instance, objective, options,
                                  warm_start(instance, objective, options)[2])
    horizon = int(horizon)
    problem = pulp.LpProblem(f"malleable_batch_{objective}", pulp.LpMinimize)
    x: dict[Placement, pulp.LpVariable] = {}
    objective_terms: list[tuple[pulp.LpVariable, float]] = []
    # resource -> minute -> [(variable, VMs or 1)]
    running: dict[int, dict[int, list[tuple[pulp.LpVariable, int]]]] = {}
    starts: dict[int, set[int]] = {}
    # (cloud, job, hour) -> [(variable, VMs)] of the runs of the job touching the hour
    touching: dict[tuple[int, int, int], list[tuple[pulp.LpVariable, int]]] = {}
    for j, opts in enumerate(options):
        a = int(instance.arrival[j])
        mine = []
        for o, opt in enumerate(opts):
            per_minute = running.setdefault(opt.resource, {})
            weight = opt.vms if opt.vms else 1
            for s in range(a, horizon - opt.minutes + 2):
                var = problem.add_variable(f"x_{j}_{o}_{s}", cat=pulp.LpBinary)
                x[j, o, s] = var
                mine.append(var)
                c = coefficient(instance, objective, j, opt, s)
                if c:
                    objective_terms.append((var, c))
                for t in range(s, s + opt.minutes):
                    per_minute.setdefault(t, []).append((var, weight))
                starts.setdefault(opt.resource, set()).add(s)
                if opt.vms and w_cost:
                    for h in range(s // HOUR, (s + opt.minutes - 1) // HOUR + 1):
                        touching.setdefault((opt.resource, j, h), []).append((var, opt.vms))
                if budget is not None and not s % 64:
                    check_budget(budget, len(x), "building the batch model")
        problem.addConstraint(pulp.LpConstraint(
            pulp.LpAffineExpression([(v, 1.0) for v in mine]), pulp.LpConstraintEQ,
            f"one_{j}", 1.0))
    hours: dict[tuple[int, int], tuple[pulp.LpVariable, pulp.LpVariable,
                                       pulp.LpVariable | None]] = {}
    for i, per_minute in running.items():
        r = instance.resources[i]
        billed = r.is_cloud and w_cost > 0
        began = starts.get(i, set())
        for t in sorted(per_minute):
            if budget is not None and not t % 16:
                check_budget(budget, len(x), "building the batch model")
            terms = per_minute[t]
            # Dominated by minute t - 1 when nothing starts at t within the same hour.
            if t not in began and (t - 1) in per_minute and (not billed or t % HOUR):
                continue
            cap = r.max_vms if r.is_cloud else 1
            if sum(w for _, w in terms) <= cap and not billed:
                continue
            expr = pulp.LpAffineExpression([(v, float(w)) for v, w in terms])
            if billed:
                h = t // HOUR
                if (i, h) not in hours:
                    hours[i, h] = _hour_variables(problem, r, i, h, w_cost, objective_terms)
                spot, demand, _ = hours[i, h]
                expr = expr - spot - demand
                problem.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintLE,
                                                        f"vms_{i}_{t}", 0.0))
            else:
                problem.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintLE,
                                                        f"cap_{i}_{t}", float(cap)))
    # Valid cuts: a job running in hour h keeps its VMs billed in h (tightens the LP a lot,
    # where fractional starts spread over many hours would each bill a sliver).
    for (i, j, h), terms in touching.items():
        if (i, h) in hours:
            spot, demand, _ = hours[i, h]
            expr = pulp.LpAffineExpression([(v, float(w)) for v, w in terms]) - spot - demand
            problem.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintLE,
                                                    f"job_hour_{i}_{j}_{h}", 0.0))
    problem.setObjective(pulp.LpAffineExpression(objective_terms))
    return BatchModel(instance=instance, objective=objective, problem=problem, x=x,
                      options=options, horizon=horizon,
                      tail_bound=tail_bound(instance, objective, horizon, options), hours=hours)


def _hour_variables(problem: pulp.LpProblem, r: Resource, i: int, h: int, w_cost: float,
                    objective_terms: list[tuple[pulp.LpVariable, float]]
                    ) -> tuple[pulp.LpVariable, pulp.LpVariable, pulp.LpVariable | None]:
    spot_cap = min(r.spot_vms, r.max_vms)
    spot = problem.add_variable(f"spot_{i}_{h}", lowBound=0, upBound=spot_cap)
    demand = problem.add_variable(f"demand_{i}_{h}", lowBound=0,
                                  upBound=r.max_vms - spot_cap)
    objective_terms += [(spot, w_cost * r.price), (demand, w_cost * r.on_demand_price)]
    switch = None
    if r.on_demand_price < r.price and 0 < spot_cap < r.max_vms:
        # On-demand VMs only once every spot VM is billed.
        switch = problem.add_variable(f"ondemand_{i}_{h}", cat=pulp.LpBinary)
        problem.addConstraint(demand - (r.max_vms - spot_cap) * switch <= 0, f"od_{i}_{h}")
        problem.addConstraint(spot - spot_cap * switch >= 0, f"sp_{i}_{h}")
    # Tie the pair to the VM limit (spot + demand <= max_vms holds by the bounds).
    return spot, demand, switch


def extract(model: BatchModel) -> Solution:
    """The schedule of the model's current variable values (binaries above 0.5).

    Raises ``ValueError`` unless every job has exactly one start chosen.
    """
    chosen: dict[int, list[Placement]] = {}
    for key, var in model.x.items():
        if var.varValue is not None and var.varValue > 0.5:
            chosen.setdefault(key[0], []).append(key)
    placements = []
    for j in range(model.instance.n_jobs):
        mine = chosen.get(j, [])
        if len(mine) != 1:
            raise ValueError(f"job {model.instance.job_ids[j]!r} has {len(mine)} starts chosen")
        placements.append(mine[0])
    return realise(model.instance, model.options, placements)


def _start_values(model: BatchModel, placements: Sequence[Placement]
                  ) -> dict[pulp.LpVariable, float] | None:
    """Values of every variable for the greedy schedule, if it lies in the grid."""
    values: dict[pulp.LpVariable, float] = {}
    profile: dict[int, dict[int, int]] = {}
    for j, o, s in placements:
        var = model.x.get((j, o, s))
        if var is None:
            return None
        values[var] = 1.0
        opt = model.options[j][o]
        if opt.vms:
            per_minute = profile.setdefault(opt.resource, {})
            for t in range(s, s + opt.minutes):
                per_minute[t] = per_minute.get(t, 0) + opt.vms
    for (i, h), (spot, demand, switch) in model.hours.items():
        r = model.instance.resources[i]
        per_minute = profile.get(i, {})
        peak = max((per_minute.get(t, 0) for t in range(h * HOUR, (h + 1) * HOUR)), default=0)
        cap = min(r.spot_vms, r.max_vms)
        values[spot], values[demand] = float(min(peak, cap)), float(max(peak - cap, 0))
        if switch is not None:
            values[switch] = 1.0 if peak > cap else 0.0
    return values




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
    placements, best, best_value = warm_start(instance, objective, options)
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
            solver = ArrayHighs(budget, model.columns(), _start_values(model, placements))
            check_budget(budget, len(model.x), "starting HiGHS")
            status, info = solve_and_read(model.problem, solver, budget)
            stopped = status == highspy.HighsModelStatus.kTimeLimit
            bound = max(lower, grid_bound(status, info, model.tail_bound))
            notes.append(f"HiGHS: {model.problem.solverModel.modelStatusToString(status)}")
            candidate = checked(instance, info, lambda: extract(model), notes)
            if candidate is not None and _value(instance, candidate, objective) < best_value:
                best, best_value = candidate, _value(instance, candidate, objective)
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
