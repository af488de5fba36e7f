"""Time-indexed model of the malleable problem itself (PuLP + HiGHS).

Problem
-------
The family's problem (:mod:`hybridsched.malleable.checker`): each job runs
on one resource, from its arrival on, on any number of processors that may
change from minute to minute, beside other jobs on other processors; in a
minute on ``n`` processors it gains ``rate(n)`` work
(:mod:`~hybridsched.malleable.speedup`). Unlike the rigid batch model
(:mod:`hybridsched.models.malleable.milp_batch`: whole clusters, one job at a
time, one piece), this model holds every schedule the checker accepts.

Model
-----
For job ``j``, usable resource ``i`` and minute ``t`` of the grid
(``arrival_j <= t <= H``): integer width ``n[j,i,t]`` in ``[0, P_i]``,
binary ``u[j,i,t]`` (the job runs in minute ``t``), work ``w[j,i,t] >= 0``;
binary ``z[j,i]`` (the job's resource). Then ``sum_i z[j,i] = 1``,
``u <= z``, ``u <= n <= P_i u``, ``w <= rate(P_i) u`` and
``w <= rate(k) + (rate(k+1) - rate(k)) (n - k)`` for ``k = 1 .. P_i - 1``:
``rate`` is concave, so these chords give ``w <= rate(n)`` exactly at every
integer ``n``. Work: ``sum_t w[j,i,t] >= size_j (1 - WORK_RTOL) z[j,i]``
(less the relative slack :data:`~hybridsched.malleable.bounds.SUM_RTOL`, so
the model holds every schedule whose float sum of work the checker accepts).
Capacity: ``sum_j n[j,i,t] <= P_i``. End: ``e_j >= (t + 1) u[j,i,t]``, with
the valid cuts ``e_j >= arrival_j + sum_{i,t} u[j,i,t]`` and ``e_j >= arrival_j
+ sum_i fewest_minutes(j, i) z[j,i]``, and the integer rounding cuts
``sum_t n[j,i,t] >= ceil(size_j / performance_i) z[j,i]`` (processor-minutes),
``sum_t u[j,i,t] >= fewest_minutes(j, i) z[j,i]`` and, on clouds,
``sum_t v[j,i,t] >= ceil(size_j / rate(cpus)) z[j,i]`` (VM-minutes), which
tighten the LP bound where it would otherwise stall on fractions.

Costs (:mod:`~hybridsched.malleable.billing`): an allocated cluster bills
``price * sum n``, which is also the job's share. A cloud bills per clock
hour ``h`` the VMs ``y_h = ys_h + yo_h >= sum_j n[j,i,t] / cpus`` for every
minute ``t`` of the hour, at ``price * ys_h + on_demand_price * yo_h``
(``ys_h <= spot_vms``; a binary forces spot VMs first when on-demand is
cheaper); a job's share there is ``price / 60`` per VM it touches per minute,
at least ``ceil(n / cpus)`` (integer ``v[j,i,t] >= n / cpus``).

Exactness
---------
On clusters the model is exact: :func:`extract` packs the running jobs of
each minute on consecutive processors, which realises any widths. On clouds
it is a *relaxation*: packing the jobs of a minute from processor 0 bills
exactly ``max_t ceil(sum n / cpus)`` VMs per hour, but a job whose processors
straddle a VM boundary touches one VM more than ``ceil(n / cpus)``, so its
share (and so an overspend) may exceed the model's. Either way the model's
feasible set contains every schedule of the grid and its objective is at most
the checker's, so HiGHS's dual bound is a bound on the grid; the schedule read
back is re-checked and re-scored by the checker, and a proof needs the
checker's value to meet the bound.

Horizon
-------
The grid ends at minute ``H``; a schedule outside it has a job ending at
``H + 2`` or later, so its objective is at least the tail bound
``T(H)`` (:func:`tail_bound`). For ``cost``, ``T(H)`` is infinite once ``H``
reaches :func:`cost_horizon`.
"""

from __future__ import annotations

import gc
import math
from dataclasses import dataclass, field

import numpy as np
import pulp

from hybridsched.budget import TimeBudget
from hybridsched.malleable.billing import HOUR
from hybridsched.malleable.bounds import SUM_RTOL, fewest_minutes, usable, weights
from hybridsched.malleable.instance import Instance, ResourceType
from hybridsched.malleable.solution import Solution, from_pieces
from hybridsched.malleable.speedup import rate, required_work
from hybridsched.models.solvers.pulp_highs import check_budget

#: Most (job, resource, minute) cells a model may have (three to four columns each).
MAX_CELLS = 40_000

#: ``(job, resource, minute)``.
Cell = tuple[int, int, int]


@dataclass
class GeneralModel:
    """A built model (see the module docstring)."""

    instance: Instance
    objective: str
    problem: pulp.LpProblem
    horizon: int
    width: dict[Cell, pulp.LpVariable]
    runs: dict[Cell, pulp.LpVariable]
    work: dict[Cell, pulp.LpVariable]
    place: dict[tuple[int, int], pulp.LpVariable]
    end: dict[int, pulp.LpVariable]
    touched: dict[Cell, pulp.LpVariable] = field(default_factory=dict)
    hours: dict[tuple[int, int], tuple[pulp.LpVariable, pulp.LpVariable,
                                       pulp.LpVariable | None]] = field(default_factory=dict)
    penalties: dict[str, pulp.LpVariable] = field(default_factory=dict)

    def columns(self) -> list[pulp.LpVariable]:
        """Every variable of the model."""
        out = [*self.width.values(), *self.runs.values(), *self.work.values(),
               *self.place.values(), *self.end.values(), *self.touched.values(),
               *self.penalties.values()]
        for spot, demand, switch in self.hours.values():
            out += [spot, demand] if switch is None else [spot, demand, switch]
        return out


def cells(instance: Instance, horizon: int) -> list[Cell]:
    """The grid: every usable resource of each job, every minute from its arrival to ``H``."""
    out = []
    for i, r in enumerate(instance.resources):
        if not usable(r):
            continue
        for j in range(instance.n_jobs):
            fastest = float(rate(r.processors, r.performance, float(instance.serial_fraction[j])))
            first = int(instance.arrival[j])
            if first + fewest_minutes(float(instance.size[j]), fastest) <= horizon + 1:
                out += [(j, i, t) for t in range(first, horizon + 1)]
    return out


def count_cells(instance: Instance, horizon: int) -> int:
    """``len(cells(instance, horizon))`` without building the list (at scale it would not fit)."""
    total = 0
    for r in instance.resources:
        if not usable(r):
            continue
        for j in range(instance.n_jobs):
            fastest = float(rate(r.processors, r.performance, float(instance.serial_fraction[j])))
            first = int(instance.arrival[j])
            if first + fewest_minutes(float(instance.size[j]), fastest) <= horizon + 1:
                total += max(0, horizon + 1 - first)
    return total


def cost_horizon(instance: Instance) -> int:
    """A horizon holding a cost-optimal schedule.

    After the last arrival, an idle stretch of 60 minutes or more can be
    shifted left by whole hours without raising the bill (VMs relabelled to
    reuse those of the hour it joins). A job runs at most
    ``minutes_needed(size, performance)`` minutes (each gains ``performance``
    at least, and no minute is spare), so the busy minutes after the last
    arrival are at most ``m = sum_j m_j`` and the idle stretches between them
    at most ``m`` of 59 minutes each.
    """
    longest = 0
    for j in range(instance.n_jobs):
        longest += max((math.ceil(float(required_work(instance.size[j])) / r.performance)
                        for r in instance.resources if usable(r)), default=0)
    return int(instance.arrival.max(initial=0)) + HOUR * longest


def tail_bound(instance: Instance, objective: str, horizon: int) -> float:
    """``T(H)``: a lower bound on any schedule with a job running after minute ``H``."""
    if instance.n_jobs == 0:
        return math.inf
    if objective == "cost":
        return math.inf if horizon >= cost_horizon(instance) else 0.0
    if objective == "total_time":
        return float(max(0, horizon + 2 - int(instance.arrival.max())))
    return weights(objective)[1] * max(0, horizon + 2 - int(instance.deadline.max()))


def wanted_horizon(instance: Instance, objective: str, upper: float) -> int:
    """Least ``H`` with ``T(H) > upper`` (:func:`cost_horizon` for ``cost``)."""
    w_delay = weights(objective)[1]
    last = int(instance.arrival.max(initial=0))
    if objective == "cost":
        wanted = cost_horizon(instance)
    elif objective == "total_time":
        wanted = last + math.floor(upper) - 1
    else:
        wanted = int(instance.deadline.max(initial=0)) + math.floor(upper / w_delay) - 1
    return max(wanted, last)


def default_horizon(instance: Instance, objective: str, upper: float) -> int:
    """:func:`wanted_horizon`, capped so that the grid has at most :data:`MAX_CELLS` cells."""
    lo, hi = int(instance.arrival.min(initial=0)), wanted_horizon(instance, objective, upper)
    if count_cells(instance, hi) <= MAX_CELLS:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_cells(instance, mid) <= MAX_CELLS:
            lo = mid
        else:
            hi = mid - 1
    return lo


def build(instance: Instance, objective: str, horizon: int,
          budget: TimeBudget | None = None) -> GeneralModel:
    """Build the model on the grid ending at ``horizon`` (see the module docstring)."""
    collecting = gc.isenabled()
    gc.disable()  # tens of thousands of PuLP objects: collections would dominate
    try:
        return _build(instance, objective, horizon, budget or TimeBudget(None))
    finally:
        if collecting:
            gc.enable()


def _build(instance: Instance, objective: str, horizon: int, budget: TimeBudget
           ) -> GeneralModel:
    w_cost, w_delay, w_over, w_time = weights(objective)
    problem = pulp.LpProblem("malleable_general", pulp.LpMinimize)
    grid = cells(instance, horizon)
    model = GeneralModel(instance, objective, problem, horizon, {}, {}, {}, {}, {})
    terms: list[tuple[pulp.LpVariable, float]] = []
    share: dict[int, list[tuple[pulp.LpVariable, float]]] = {}
    resources = instance.resources
    for j in range(instance.n_jobs):
        model.end[j] = problem.add_variable(f"e_{j}", lowBound=int(instance.arrival[j]) + 1,
                                       upBound=horizon + 1)
    for j, i, _ in grid:
        if (j, i) not in model.place:
            model.place[j, i] = problem.add_variable(f"z_{j}_{i}", cat=pulp.LpBinary)
    for j in range(instance.n_jobs):
        problem += pulp.lpSum(v for (jj, _), v in model.place.items() if jj == j) == 1, f"one_{j}"
    for count, (j, i, t) in enumerate(grid):
        if count % 2000 == 0:
            check_budget(budget, len(grid) * 4, "building the malleable model")
        r = resources[i]
        f = float(instance.serial_fraction[j])
        cap = r.processors
        n = model.width[j, i, t] = problem.add_variable(f"n_{j}_{i}_{t}", 0, cap, pulp.LpInteger)
        u = model.runs[j, i, t] = problem.add_variable(f"u_{j}_{i}_{t}", cat=pulp.LpBinary)
        w = model.work[j, i, t] = problem.add_variable(f"w_{j}_{i}_{t}", lowBound=0)
        key = f"{j}_{i}_{t}"
        problem += u <= model.place[j, i], f"on_{key}"
        problem += n >= u, f"lo_{key}"
        problem += n <= cap * u, f"hi_{key}"
        problem += w <= float(rate(cap, r.performance, f)) * u, f"top_{key}"
        seen: set[tuple[float, float]] = set()
        for k in range(1, cap):
            lo, hi = float(rate(k, r.performance, f)), float(rate(k + 1, r.performance, f))
            slope = hi - lo
            line = (round(slope, 12), round(lo - slope * k, 12))
            if line in seen:  # linear speed-up: every chord is the same line
                continue
            seen.add(line)
            problem += w <= lo + slope * (n - k), f"chord_{key}_{k}"
        problem += model.end[j] >= (t + 1) * u, f"end_{key}"
        if r.type is ResourceType.ALLOCATED:
            terms.append((n, w_cost * r.price))
            share.setdefault(j, []).append((n, r.price))
        elif r.is_cloud and w_over:
            v = model.touched[j, i, t] = problem.add_variable(f"v_{key}", 0, r.max_vms,
                                                         pulp.LpInteger)
            problem += r.cpus * v >= n, f"vms_{key}"
            share.setdefault(j, []).append((v, r.price / HOUR))
    for j in range(instance.n_jobs):
        # Valid cuts that the minute-by-minute end rows only give at integer points: a job
        # ends after its running minutes (all from its arrival on) and after its fewest
        # minutes on the resource it is placed on.
        first = int(instance.arrival[j])
        problem += (model.end[j] >= first + pulp.lpSum(
            u for (jj, _, _), u in model.runs.items() if jj == j)), f"span_{j}"
        problem += (model.end[j] >= first + pulp.lpSum(
            fewest_minutes(float(instance.size[j]), float(rate(
                resources[i].processors, resources[i].performance,
                float(instance.serial_fraction[j])))) * z
            for (jj, i), z in model.place.items() if jj == j)), f"least_{j}"
        need = float(required_work(instance.size[j])) * (1.0 - SUM_RTOL)
        for (jj, i), z in model.place.items():
            if jj != j:
                continue
            r = resources[i]
            minutes = range(first, horizon + 1)
            problem += (pulp.lpSum(model.work[j, i, t] for t in minutes) >= need * z,
                        f"work_{j}_{i}")
            # Integer rounding cuts (the LP bound alone stalls on fractions of them): a
            # processor-minute does at most `performance` work and a minute at most
            # rate(P), and both counts are integers.
            problem += (pulp.lpSum(model.width[j, i, t] for t in minutes)
                        >= _rounded_up(need / r.performance) * z), f"procmin_{j}_{i}"
            problem += (pulp.lpSum(model.runs[j, i, t] for t in minutes) >= fewest_minutes(
                float(instance.size[j]), float(rate(r.processors, r.performance, float(
                    instance.serial_fraction[j])))) * z), f"minutes_{j}_{i}"
            if any((j, i, t) in model.touched for t in minutes):
                per_vm = float(rate(r.cpus, r.performance, float(instance.serial_fraction[j])))
                problem += (pulp.lpSum(model.touched[j, i, t] for t in minutes)
                            >= _rounded_up(need / per_vm) * z), f"vmmin_{j}_{i}"
    for i, r in enumerate(resources):
        minutes: dict[int, list[pulp.LpVariable]] = {}
        for (_, ii, t), n in model.width.items():
            if ii == i:
                minutes.setdefault(t, []).append(n)
        for t, widths in minutes.items():
            problem += pulp.lpSum(widths) <= r.processors, f"cap_{i}_{t}"
        if r.is_cloud and w_cost:
            for h in sorted({t // HOUR for t in minutes}):
                spot_cap = min(r.spot_vms, r.max_vms)
                spot = problem.add_variable(f"ys_{i}_{h}", 0, spot_cap, pulp.LpInteger)
                demand = problem.add_variable(f"yo_{i}_{h}", 0, r.max_vms - spot_cap,
                                              pulp.LpInteger)
                switch = None
                if r.on_demand_price < r.price and 0 < spot_cap < r.max_vms:
                    # The bill takes spot VMs first: on-demand VMs only once all spot ones are.
                    switch = problem.add_variable(f"sw_{i}_{h}", cat=pulp.LpBinary)
                    problem += demand <= (r.max_vms - spot_cap) * switch, f"od_{i}_{h}"
                    problem += spot >= spot_cap * switch, f"sp_{i}_{h}"
                model.hours[i, h] = (spot, demand, switch)
                terms += [(spot, w_cost * r.price), (demand, w_cost * r.on_demand_price)]
                for t in range(h * HOUR, (h + 1) * HOUR):
                    if t in minutes:
                        problem += (r.cpus * (spot + demand) >= pulp.lpSum(minutes[t]),
                                    f"bill_{i}_{t}")
    for j in range(instance.n_jobs):
        if w_delay:
            d = model.penalties[f"d_{j}"] = problem.add_variable(f"d_{j}", lowBound=0)
            problem += d >= model.end[j] - int(instance.deadline[j]), f"late_{j}"
            terms.append((d, w_delay))
        if w_over and j in share:
            o = model.penalties[f"o_{j}"] = problem.add_variable(f"o_{j}", lowBound=0)
            problem += (o >= pulp.lpSum(c * var for var, c in share[j])
                        - float(instance.budget[j])), f"over_{j}"
            terms.append((o, w_over))
        if w_time:
            terms.append((model.end[j], w_time))
    constant = -w_time * float(instance.arrival.sum())
    problem += pulp.lpSum(c * var for var, c in terms if c) + constant
    return model


def _rounded_up(x: float) -> int:
    """``ceil(x)``, but never above ``x`` plus a float's error (so the cut stays valid)."""
    return math.ceil(x - 1e-9 * max(1.0, abs(x)))


def _packed(instance: Instance, widths: dict[Cell, int], resource: np.ndarray
            ) -> list[tuple[int, int, int, int, int]]:
    """Pieces ``(job, start, end, cpu, count)`` of per-minute widths, packed from processor 0.

    On a cloud, jobs whose width fills whole VMs are packed first, so that
    they touch no more VMs than they need; consecutive minutes with the same
    processors make one piece.
    """
    per_minute: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for (j, i, t), n in widths.items():
        per_minute.setdefault((i, t), []).append((j, n))
    runs: dict[int, list[tuple[int, int, int]]] = {}
    for (i, t), jobs in sorted(per_minute.items()):
        cpus = instance.resources[i].cpus if instance.resources[i].is_cloud else 1
        cpu = 0
        for j, n in sorted(jobs, key=lambda jn: (jn[1] % cpus != 0, jn[0])):
            runs.setdefault(j, []).append((t, cpu, n))
            cpu += n
    pieces = []
    for j, minutes in runs.items():
        start, cpu, count = minutes[0]
        last = start
        for t, c, n in minutes[1:]:
            if t == last + 1 and (c, n) == (cpu, count):
                last = t
                continue
            pieces.append((j, start, last + 1, cpu, count))
            start, cpu, count, last = t, c, n, t
        pieces.append((j, start, last + 1, cpu, count))
    return sorted(pieces)


def trimmed(instance: Instance, widths: dict[Cell, int]) -> dict[Cell, int]:
    """``widths`` without the minutes after each job has its work (the last-minute rule)."""
    by_job: dict[int, list[Cell]] = {}
    for cell in widths:
        by_job.setdefault(cell[0], []).append(cell)
    out: dict[Cell, int] = {}
    for j, mine in by_job.items():
        need = float(required_work(instance.size[j]))
        done = 0.0
        for cell in sorted(mine, key=lambda c: c[2]):
            r = instance.resources[cell[1]]
            out[cell] = widths[cell]
            done += float(rate(widths[cell], r.performance, float(instance.serial_fraction[j])))
            if done >= need:
                break
    return out


def extract(model: GeneralModel) -> Solution:
    """The schedule of the model's current values (widths rounded; trimmed; packed).

    Raises ``ValueError`` when a job has no resource chosen.
    """
    instance = model.instance
    resource = np.full(instance.n_jobs, -1, dtype=np.int64)
    for (j, i), z in model.place.items():
        if z.varValue is not None and z.varValue > 0.5:
            resource[j] = i
    if (resource < 0).any():
        missing = instance.job_ids[int(np.flatnonzero(resource < 0)[0])]
        raise ValueError(f"job {missing!r} has no resource chosen")
    widths = {}
    for (j, i, t), n in model.width.items():
        value = round(n.varValue or 0.0)
        if value > 0 and i == resource[j]:
            widths[j, i, t] = int(value)
    return from_pieces(instance.n_jobs, resource, _packed(instance, trimmed(instance, widths),
                                                           resource))


def start_values(model: GeneralModel, solution: Solution) -> dict[pulp.LpVariable, float] | None:
    """Values of every variable for ``solution``, or ``None`` when it lies outside the grid."""
    instance = model.instance
    values: dict[pulp.LpVariable, float] = {var: 0.0 for var in model.columns()}
    widths: dict[Cell, int] = {}
    for k in range(solution.n_pieces):
        j = int(solution.job[k])
        i = int(solution.resource[j])
        for t in range(int(solution.start[k]), int(solution.end[k])):
            widths[j, i, t] = widths.get((j, i, t), 0) + int(solution.count[k])
    if any(cell not in model.width for cell in widths):
        return None
    per_minute: dict[tuple[int, int], int] = {}
    end = solution.job_end(instance.n_jobs)
    spend = np.zeros(instance.n_jobs)
    for (j, i, t), n in widths.items():
        r = instance.resources[i]
        values[model.width[j, i, t]] = float(n)
        values[model.runs[j, i, t]] = 1.0
        values[model.work[j, i, t]] = float(rate(n, r.performance,
                                                 float(instance.serial_fraction[j])))
        per_minute[i, t] = per_minute.get((i, t), 0) + n
        if (j, i, t) in model.touched:
            values[model.touched[j, i, t]] = float(-(-n // r.cpus))
            spend[j] += -(-n // r.cpus) * r.price / HOUR
        elif r.type is ResourceType.ALLOCATED:
            spend[j] += n * r.price
    for j in range(instance.n_jobs):
        values[model.place[j, int(solution.resource[j])]] = 1.0
        values[model.end[j]] = float(end[j])
        if f"d_{j}" in model.penalties:
            values[model.penalties[f"d_{j}"]] = float(max(0, end[j] - instance.deadline[j]))
        if f"o_{j}" in model.penalties:
            values[model.penalties[f"o_{j}"]] = float(max(0.0, spend[j] - instance.budget[j]))
    for (i, h), (spot, demand, switch) in model.hours.items():
        r = instance.resources[i]
        peak = max((-(-per_minute.get((i, t), 0) // r.cpus)
                    for t in range(h * HOUR, (h + 1) * HOUR)), default=0)
        cap = min(r.spot_vms, r.max_vms)
        values[spot], values[demand] = float(min(peak, cap)), float(max(peak - cap, 0))
        if switch is not None:
            values[switch] = 1.0 if peak > cap else 0.0
    return values
