"""The batch MILP itself: build the time-indexed PuLP model, read a schedule back, MIP start.

Model
-----
Binary ``x[j, o, s]``: job ``j`` runs option ``o`` (resource, VMs; see
:mod:`~hybridsched.models.malleable.batch_grid`) from minute ``s``.
``end = s + d``, ``delay = max(end - deadline, 0)`` and
``overspend = max(share - budget, 0)`` are constants of each ``x``, hence
objective coefficients. Constraints: one ``x`` per job; per cluster and
minute, at most one running job; per cloud and minute ``t``, the VMs of the
running jobs ``<= y_{t // 60}`` (``<= max_vms`` when the objective has no
cost), plus the valid cuts "the VMs of job ``j`` if it runs during hour ``h``
``<= y_h``", which keep the LP bound of the hourly bill from vanishing
when fractional starts spread a job over many hours. Constraints at a
minute where nothing starts (within the same hour) are implied by the
previous minute's and left out. The hourly VM counts ``y_h = ys_h + yo_h``
(spot and on-demand) are continuous, with a spot-first binary per hour when
on-demand VMs are the cheaper (the bill of
:mod:`hybridsched.models.malleable.milp_batch`).

:func:`extract` reads the schedule of the chosen binaries back
(:func:`~hybridsched.models.malleable.batch_greedy.realise`);
:func:`start_values` gives HiGHS a schedule's placements as a MIP start.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from dataclasses import dataclass, field

import pulp

from hybridsched.budget import TimeBudget
from hybridsched.malleable.billing import HOUR
from hybridsched.malleable.bounds import weights
from hybridsched.malleable.instance import Instance, Resource
from hybridsched.malleable.solution import Solution
from hybridsched.models.malleable.batch_greedy import realise, warm_start
from hybridsched.models.malleable.batch_grid import (
    Option,
    Placement,
    coefficient,
    default_horizon,
    job_options,
    tail_bound,
)
from hybridsched.models.solvers.pulp_highs import check_budget


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
        ``options[j]`` lists the
        :class:`~hybridsched.models.malleable.batch_grid.Option` of job ``j``.
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


def build(instance: Instance, objective: str = "penalised_a", horizon: int | None = None,
          *, budget: TimeBudget | None = None,
          options: list[list[Option]] | None = None) -> BatchModel:
    """Build the time-indexed model (see the module docstring).

    Parameters
    ----------
    instance:
        The batch.
    objective:
        One of :data:`~hybridsched.models.malleable.milp_batch.OBJECTIVES`.
    horizon:
        ``H``; ``None``: :func:`~hybridsched.models.malleable.batch_grid.default_horizon`
        from the greedy warm start.
    budget:
        Checked while building (raises :class:`~hybridsched.budget.BudgetExpired`).
    options:
        Precomputed :func:`~hybridsched.models.malleable.batch_grid.job_options`.

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


def start_values(model: BatchModel, placements: Sequence[Placement]
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
