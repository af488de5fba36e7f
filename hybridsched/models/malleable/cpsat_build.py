"""CP-SAT model of the ``malleable`` batch problem, written from the checker's rules.

Problem (:mod:`hybridsched.malleable.checker`)
----------------------------------------------
Every job runs on one resource from its arrival on, in whole minutes, on a
number of processors that may change from minute to minute, beside other
jobs on other processors; in a minute on ``n`` processors it gains
``rate(n)`` work (:mod:`~hybridsched.malleable.speedup`) and it is complete
once its work reaches its size. Costs follow
:mod:`~hybridsched.malleable.billing`: an allocated cluster bills
processor-minutes, a cloud bills each clock hour the VMs used in it (spot
price up to ``spot_vms``, on-demand above), and a job's cloud share is the
VM-minutes it touches at ``price / 60``. The objective weighs bill, delay,
overspend and arrival-to-end time (:func:`hybridsched.malleable.bounds.weights`).

Model
-----
Per job ``j``: one resource (``z[j,i]``, exactly one), an end ``e_j`` and,
for every minute ``t`` of its window (below), its processors there. On a
cluster an integer ``n[j,i,t] in [0, P_i]`` with ``sum_j n[j,i,t] <= P_i``.
On a cloud the processors are counted **per VM**: ``x[j,i,v,t] in [0,
cpus]`` with ``sum_j x[j,i,v,t] <= cpus``, a Boolean ``b[j,i,v,t]`` (the job
touches VM ``v``) when shares matter, and a Boolean ``u[i,v,h]`` (VM ``v`` is
billed in hour ``h``); the hour's bill is a table of ``m_h = sum_v u[i,v,h]``
(an element constraint, so spot-first pricing is exact whichever price is
lower). VMs are alike and a schedule may move a job to other processors at
any minute, so the VMs of each hour may be relabelled: ``u[i,v,h] >=
u[i,v+1,h]`` breaks that symmetry without losing a bill. Work:
``sum_t R(n[j,i,t]) >= S_j z[j,i]`` (``R`` an element table, or linear for
linear speed-up). ``e_j >= t + 1`` in every minute the job runs.

Why its optimum is the real problem's
-------------------------------------
Every schedule the checker accepts maps to a solution of the model (widths
per minute, per VM on clouds) of model value at most its checker value
(equal, except that a job with two pieces on one VM in one minute is billed
that VM twice by the checker and once here); conversely the schedule read
from a solution (:mod:`~hybridsched.models.malleable.cpsat_extract`: each VM's
share laid out contiguously, the minutes after a job has its work dropped)
has checker value at most the model value. The windows: with an incumbent
of value ``U`` and delay weight ``w > 0``, a schedule of value at most ``U``
has ``w * delay_j <= U - sum_{k != j} LB_k`` (``LB_k`` the per-job bounds of
:func:`hybridsched.malleable.bounds.job_bounds`), so ``e_j`` is capped there;
likewise with the arrival-to-end weight; for ``cost`` the horizon of
:func:`hybridsched.models.malleable.milp_general.cost_horizon`. Schedules beyond
the windows are worse than the incumbent, so the model's optimum (or bound)
is the real problem's.

Scaling (:func:`hybridsched.models.solvers.cpsat.decimal_scale`)
-------------------------------------------------------
Work: sizes and the rates ``rate(n)`` are scaled by one power of ten ``W``.
When it is exact and ``size * W < 10^8``, a work sum (a multiple of ``1/W``)
below the size is below the checker's ``size * (1 - 1e-9)`` too, so
"scaled work >= scaled size" is the checker's rule. Money: prices,
on-demand prices and budgets are scaled by ``M``, and everything by 60
(a cloud share is ``price / 60`` per VM-minute): the objective is in units
of ``1 / (60 M)``. When either scaling is inexact (Amdahl rates, long
decimals), rates are rounded up, sizes, prices and the bill down and
budgets up, so the model relaxes the problem: its bound holds, and only the
bound is claimed (never ``optimal``/``infeasible``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from hybridsched.budget import TimeBudget
from hybridsched.malleable.billing import HOUR, hour_cost
from hybridsched.malleable.bounds import job_bounds, usable, weights
from hybridsched.malleable.instance import Instance, ResourceType
from hybridsched.malleable.speedup import rate, required_work
from hybridsched.models.solvers.cpsat import Scaling, decimal_scale, require_ortools

#: Most (job, resource, minute) cells (a cloud cell counts once per VM) a model may have.
MAX_CELLS = 60_000

#: Scaled sizes must stay below this for "work >= size" to be the checker's rule.
WORK_EXACT_BELOW = 10**8


@dataclass
class CpsatMalleable:
    """A built model and the names of its variables (see the module docstring)."""

    instance: Instance
    objective: str
    model: Any
    work_scale: Scaling
    money_scale: Scaling
    exact: bool
    ends: dict[int, int]
    place: dict[tuple[int, int], Any] = field(default_factory=dict)
    width: dict[tuple[int, int, int], Any] = field(default_factory=dict)
    vm: dict[tuple[int, int, int, int], Any] = field(default_factory=dict)
    end: dict[int, Any] = field(default_factory=dict)

    @property
    def unit(self) -> int:
        """Model objective units per unit of the real objective."""
        return HOUR * self.money_scale.factor

    def real(self, value: float) -> float:
        """A model objective value (or bound) in the objective's units."""
        return float(value) / self.unit


def end_limits(instance: Instance, objective: str, upper: float) -> dict[int, int]:
    """Latest end of each job in a schedule of value at most ``upper`` (module docstring)."""
    from hybridsched.models.malleable.milp_general import cost_horizon

    _, w_delay, _, w_time = weights(objective)
    n = instance.n_jobs
    least = job_bounds(instance, objective).min(axis=1)
    total = float(least.sum())
    out = {}
    for j in range(n):
        # Slack of job j: what the incumbent leaves once every other job has its least.
        slack = max(0.0, upper - (total - float(least[j])))
        if w_delay > 0:
            out[j] = int(instance.deadline[j]) + math.floor(slack / w_delay + 1e-9)
        elif w_time > 0:
            out[j] = int(instance.arrival[j]) + math.floor(slack / w_time + 1e-9)
        else:
            out[j] = cost_horizon(instance) + 1
        out[j] = max(out[j], int(instance.arrival[j]) + 1)
    return out


def scalings(instance: Instance) -> tuple[Scaling, Scaling, bool]:
    """``(work, money, exact)`` scalings of the instance (module docstring)."""
    rates = [float(rate(n, r.performance, float(instance.serial_fraction[j])))
             for r in instance.resources if usable(r)
             for j in range(instance.n_jobs) for n in range(1, r.processors + 1)]
    sizes = [float(s) for s in instance.size]
    work = decimal_scale([*sizes, *rates])
    money = decimal_scale([v for r in instance.resources
                           for v in (r.price, r.on_demand_price)] + [float(b) for b in
                                                                    instance.budget])
    exact = (work.exact and money.exact
             and max(sizes, default=0.0) * work.factor < WORK_EXACT_BELOW)
    return work, money, exact


def count_cells(instance: Instance, ends: dict[int, int]) -> int:
    """Cells of the model for these windows (a cloud minute counts once per VM)."""
    total = 0
    for r in instance.resources:
        if usable(r):
            per = r.max_vms if r.is_cloud else 1
            total += per * sum(max(0, ends[j] - int(instance.arrival[j]))
                               for j in range(instance.n_jobs))
    return total


def build(instance: Instance, objective: str, ends: dict[int, int],
          budget: TimeBudget | None = None) -> CpsatMalleable:
    """The model with job ``j`` ending by ``ends[j]`` (see the module docstring)."""
    cp = require_ortools()
    budget = budget or TimeBudget(None)
    w_cost, w_delay, w_over, w_time = weights(objective)
    if any(w != int(w) for w in (w_cost, w_delay, w_over, w_time)):
        raise ValueError(f"objective {objective!r}: weights must be integers")
    work, money, exact = scalings(instance)
    model = cp.CpModel()
    out = CpsatMalleable(instance, objective, model, work, money, exact, dict(ends))
    unit = out.unit
    # Relaxation directions (module docstring): exact when the scalings are.
    terms: list[Any] = []
    share: dict[int, list[Any]] = {}
    share_cap: dict[int, int] = {}  # the largest share of each job (a domain for overspend)
    for j in range(instance.n_jobs):
        first, last = int(instance.arrival[j]), ends[j]
        # alive[t]: the job has work left in minute t (true from its arrival, then false for
        # good), so its end is its arrival plus its alive minutes: the end is linear in
        # them, which gives CP-SAT's relaxation the "fewest minutes" bound of every job.
        alive = [model.new_bool_var(f"a{j}_{t}") for t in range(first, last)]
        model.add(alive[0] == 1)
        for a, b in zip(alive, alive[1:], strict=False):
            model.add(a >= b)
        out.end[j] = model.new_int_var(first + 1, last, f"e{j}")
        model.add(out.end[j] == first + sum(alive))
        need = work.down(float(required_work(instance.size[j]))) if not exact else \
            work.up(float(instance.size[j]))
        f = float(instance.serial_fraction[j])
        for i, r in enumerate(instance.resources):
            if not usable(r):
                continue
            table = [0] + [work.up(float(rate(n, r.performance, f)))
                           for n in range(1, r.processors + 1)]
            if table[-1] * (last - first) < need:
                continue  # the job cannot get its work here within its window
            z = out.place[j, i] = model.new_bool_var(f"z{j}_{i}")
            linear = all(table[n] == n * table[1] for n in range(len(table)))
            gained = []
            for t in range(first, last):
                budget.check("building the CP-SAT model")
                if r.is_cloud:
                    xs = [model.new_int_var(0, r.cpus, f"x{j}_{i}_{v}_{t}")
                          for v in range(r.max_vms)]
                    for v, x in enumerate(xs):
                        out.vm[j, i, v, t] = x
                    n = model.new_int_var(0, r.processors, f"n{j}_{i}_{t}")
                    model.add(n == sum(xs))
                    if w_over:
                        for v, x in enumerate(xs):
                            touch = model.new_bool_var(f"b{j}_{i}_{v}_{t}")
                            model.add(x <= r.cpus * touch)
                            # Share in model units: VM-minutes * price / 60 * 60 M.
                            share.setdefault(j, []).append(money.down(r.price) * touch)
                            share_cap[j] = share_cap.get(j, 0) + money.down(r.price)
                else:
                    n = model.new_int_var(0, r.processors, f"n{j}_{i}_{t}")
                out.width[j, i, t] = n
                model.add(n <= r.processors * z)
                model.add(n <= r.processors * alive[t - first])
                if linear:
                    gained.append(table[1] * n)
                else:
                    w = model.new_int_var(0, table[-1], f"w{j}_{i}_{t}")
                    model.add_element(n, table, w)
                    gained.append(w)
                if r.type is ResourceType.ALLOCATED:
                    terms.append(w_cost * money.down(r.price) * HOUR * n)
                    share.setdefault(j, []).append(money.down(r.price) * HOUR * n)
                    share_cap[j] = share_cap.get(j, 0) + money.down(r.price) * HOUR * r.processors
            model.add(sum(gained) >= need * z)
        options = [z for (jj, _), z in out.place.items() if jj == j]
        if not options:
            raise ValueError(f"job {instance.job_ids[j]!r} cannot end by minute {last} "
                             "on any resource")
        model.add_exactly_one(options)
        if w_delay:
            late = model.new_int_var(0, max(0, last - int(instance.deadline[j])), f"d{j}")
            model.add(late >= out.end[j] - int(instance.deadline[j]))
            terms.append(int(w_delay) * unit * late)
        if w_time:
            terms.append(int(w_time) * unit * (out.end[j] - first))
        if w_over and j in share:
            over = model.new_int_var(0, max(1, share_cap[j]), f"o{j}")
            model.add(over >= sum(share[j]) - money.up(float(instance.budget[j])) * HOUR)
            terms.append(int(w_over) * over)
    _capacities(out, terms, int(w_cost))
    model.minimize(sum(terms))
    return out


def _capacities(out: CpsatMalleable, terms: list[Any], w_cost: int) -> None:
    """Capacity of every cluster minute and cloud VM-minute; cloud bills per clock hour."""
    instance, model, money = out.instance, out.model, out.money_scale
    for i, r in enumerate(instance.resources):
        if r.is_cloud:
            per: dict[tuple[int, int], list[Any]] = {}
            for (_, ii, v, t), x in out.vm.items():
                if ii == i:
                    per.setdefault((v, t), []).append(x)
            hours: dict[int, list[Any]] = {}
            for h in sorted({t // HOUR for _, t in per}):
                used = [model.new_bool_var(f"u{i}_{v}_{h}") for v in range(r.max_vms)]
                for a, b in zip(used, used[1:], strict=False):
                    model.add(a >= b)  # VMs of an hour relabelled (module docstring)
                hours[h] = used
                if w_cost:
                    table = [money.down(float(hour_cost(r, m))) * HOUR
                             for m in range(r.max_vms + 1)]
                    bill = model.new_int_var(0, max(table), f"bill{i}_{h}")
                    model.add_element(sum(used), table, bill)
                    terms.append(w_cost * bill)
            for (v, t), xs in per.items():
                model.add(sum(xs) <= r.cpus * hours[t // HOUR][v])
        else:
            per_minute: dict[int, list[Any]] = {}
            for (_, ii, t), n in out.width.items():
                if ii == i:
                    per_minute.setdefault(t, []).append(n)
            for ns in per_minute.values():
                if len(ns) > 1:
                    model.add(sum(ns) <= r.processors)
