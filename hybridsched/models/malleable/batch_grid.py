"""The batch MILP's time grid: each job's options, their objective coefficients and the horizon.

Everything :mod:`hybridsched.models.malleable.milp_batch` needs to know about the
grid before any model exists: which ways a job may run (:class:`Option`),
what each start costs in the objective (:func:`coefficient`), which horizon
``H`` the grid ends at (:func:`default_horizon`), what any schedule outside
the grid costs at least (:func:`tail_bound`) and a bound without any model
(:func:`simple_lower_bound`).

Options
-------
A job runs in one piece on a whole cluster (all its ``cpus``) or on ``k``
whole VMs of a cloud, ``1 <= k <= max_vms``, for
``d = minutes_needed(size, rate(n, performance, serial_fraction))`` minutes.
Options are pruned soundly: a cloud job uses at most the smallest ``k``
whose duration is one minute, and a ``k`` with the same duration as a smaller
one is dropped (more VMs for the same minutes cost no less, with prices
``>= 0``, and end no earlier).

Horizon and tail bound
----------------------
The grid has every minute up to the horizon ``H``, the last minute a job may
still run: starts ``s`` range over ``[arrival, H - d + 1]``. A schedule with
a job ending after ``H`` has a delay of at least ``H + 1 - max deadline``,
so its objective is at least the *tail bound*
``T(H) = w * max(0, H + 1 - max deadline)`` (``w = w_delay`` for the
penalised objectives, 1 for ``total_delay``); for ``total_time``,
``T(H) = max(0, H + 1 - max arrival)``. For ``cost``, ``T(H) = 0`` unless
``H >= max arrival + sum_j (longest duration of j) + 59 n``: shifting any idle
stretch of 60 minutes or more after the last arrival left by whole hours keeps
the bill, so some optimal schedule fits, and ``T(H) = inf``.

The default horizon comes from an upper bound ``U`` (the warm start of
:mod:`~hybridsched.models.malleable.batch_greedy`):
``H = max deadline + ceil(U / w)`` (``max arrival + ceil(U)`` for
``total_time``), so that ``T(H) > U``, or the exact ``cost`` horizon above;
capped so that the number of binaries stays at most :data:`MAX_BINARIES`
(a capped grid can still find schedules, but the proof then usually fails).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from hybridsched.malleable.billing import HOUR
from hybridsched.malleable.bounds import usable, weights
from hybridsched.malleable.instance import Instance, ResourceType
from hybridsched.malleable.speedup import minutes_needed, rate

#: Most start-time binaries a default horizon may create.
MAX_BINARIES = 200_000

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
        is hourly, see :mod:`~hybridsched.models.malleable.milp_batch`).
    share:
        The job's cost share (for its budget).
    """

    resource: int
    vms: int
    width: int
    minutes: int
    run_cost: float
    share: float


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

