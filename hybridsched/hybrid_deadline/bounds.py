"""Cheap valid lower bounds on the hybrid-deadline rent cost, and bound rounding.

:func:`lower_bound` is registered as the family's ``lower_bound`` (``compare``
uses it on instances too large for the exact model) and is the bound an
``exact`` run reports when its time limit leaves no time for the MILP.

Every bound here holds for every schedule the checker accepts in which tasks
run for their full duration without overlap (the reading of the checker used
by the exact model, see :mod:`hybridsched.models.hybrid_deadline.milp`), with the checker's
``TIME_TOL`` allowed on deadlines and billed hours, and a further safety
margin subtracted before rounding.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance

#: Relative slack when rounding a bound up to the next achievable cost: absorbs
#: the solver's and the float sums' rounding (costs are sums of a few products).
ROUND_RTOL = 1e-9

#: Largest number of hour combinations :func:`round_up_to_cost` enumerates.
_MAX_COMBINATIONS = 200_000


def vm_only_tasks(instance: Instance) -> np.ndarray:
    """Indices of the tasks that no PM core can finish alone by their deadline."""
    on_some_pm = np.zeros(instance.n_tasks, dtype=bool)
    for capacity in {pm.capacity for pm in instance.pms if pm.cores > 0}:
        on_some_pm |= instance.fits_alone(capacity)
    return np.flatnonzero(~on_some_pm)


def infeasible_tasks(instance: Instance) -> list[str]:
    """Task ids that make the instance infeasible whatever the method.

    A task is named when no core that may be used can finish it alone by its
    deadline: no PM core and no VM type, or, when ``max_vms`` is 0, no PM
    core. An empty list proves nothing (PMs may still be overloaded).
    """
    capacities = {pm.capacity for pm in instance.pms if pm.cores > 0}
    if instance.max_vms != 0:
        capacities |= {vm.capacity for vm in instance.vm_types if vm.cores > 0}
    fits = np.zeros(instance.n_tasks, dtype=bool)
    for capacity in capacities:
        fits |= instance.fits_alone(capacity)
    return [instance.task_ids[i] for i in np.flatnonzero(~fits)]


def lower_bound(instance: Instance) -> float:
    """A valid lower bound on the optimal rent cost, in ``O(T log T)``.

    Two arguments, the larger wins:

    1. *Work that must run on VMs.* Tasks that fit on no PM core alone
       (``V``) run on VMs, all of their work. Of the other tasks, those with
       deadline ``<= D`` have work ``W(D)``; the PMs process at most
       ``P (D + TIME_TOL)`` GHz-hours by then (``P``: GHz of all PM cores),
       so at least ``max_D (W(D) - P (D + TIME_TOL))`` of it runs on VMs too.
       A VM of type ``t`` billed ``h`` hours processes at most
       ``cores_t capacity_t (h + TIME_TOL)`` GHz-hours for ``price_t h``, so
       each GHz-hour on VMs costs at least the best price per GHz-hour among
       the types that can run the task (for the excess work: among all
       types). With one VM type the cost is a multiple of its price and the
       bound is rounded up to one.
    2. *One task alone.* A task of ``V`` needs a VM of a type that finishes
       it alone, billed at least ``ceil(run time)`` hours (a lease of at
       most ``TIME_TOL`` is free).

    Returns 0 when ``max_vms`` is 0, when nothing needs a VM, or when the
    instance is infeasible (no bound is claimed then).
    """
    if instance.max_vms == 0 or instance.n_tasks == 0 or not instance.vm_types:
        return 0.0
    types = [vm for vm in instance.vm_types if vm.cores > 0 and vm.capacity > 0]
    if not types:
        return 0.0
    work, deadline = instance.work, instance.deadline
    vm_only = vm_only_tasks(instance)
    per_ghz_hour = np.array([vm.price / (vm.cores * vm.capacity) for vm in types])
    must = 0.0  # dollars for the work of V
    single = 0.0  # the most expensive single task of V
    for i in vm_only.tolist():
        fitting = [k for k, vm in enumerate(types) if work[i] / vm.capacity
                   <= deadline[i] + TIME_TOL]
        if not fitting:
            return 0.0  # infeasible: reported by infeasible_tasks
        must += float(work[i]) * float(min(per_ghz_hour[k] for k in fitting))
        single = max(single, min(
            types[k].price * max(0, math.ceil(work[i] / types[k].capacity - 4 * TIME_TOL))
            for k in fitting))
    pm_ghz = float(sum(pm.cores * pm.capacity for pm in instance.pms))
    others = np.setdiff1d(np.arange(instance.n_tasks), vm_only)
    excess = 0.0
    if len(others):
        order = others[np.argsort(deadline[others], kind="stable")]
        cumulative = np.cumsum(work[order])
        last_of_class = np.append(np.diff(deadline[order]) > 0, True)
        overflow = cumulative - pm_ghz * (deadline[order] + TIME_TOL)
        excess = max(0.0, float(overflow[last_of_class].max()))
    by_work = must + excess * float(per_ghz_hour.min())
    # Each rented VM may carry TIME_TOL of extra lease: at most one VM per task.
    by_work -= (instance.n_tasks + 1) * TIME_TOL * max(vm.price for vm in types) + 1e-12
    if len(types) == 1:
        by_work = round_up_to_cost(by_work, [types[0].price])
    return max(0.0, by_work, single)


def round_up_to_cost(value: float, prices: list[float]) -> float:
    """The smallest achievable rent cost ``>= value`` (up to :data:`ROUND_RTOL`).

    Every schedule costs ``sum_t price_t H_t`` for whole billed hours
    ``H_t >= 0`` per VM type, so a lower bound can be raised to the
    smallest such value that is not below it. The slack ``ROUND_RTOL``
    (relative, and as much absolute) keeps a bound that exceeds an achievable
    cost only by rounding noise at that cost. With many types and a large
    value the enumeration is skipped and ``value`` returned unchanged.
    """
    if value <= 0 or not prices:
        return max(0.0, value)
    target = value - ROUND_RTOL * max(1.0, abs(value))
    prices = sorted({float(p) for p in prices if p > 0}, reverse=True)
    if not prices:
        return value
    if len(prices) == 1:
        return prices[0] * max(0, math.ceil(target / prices[0]))
    ranges = [range(int(math.floor(value / p)) + 2) for p in prices[:-1]]
    if math.prod(len(r) for r in ranges) > _MAX_COMBINATIONS:
        return value
    cheapest, best = prices[-1], math.inf
    for hours in itertools.product(*ranges):
        partial = sum(p * h for p, h in zip(prices, hours, strict=False))
        rest = max(0, math.ceil((target - partial) / cheapest))
        best = min(best, partial + cheapest * rest)
    return best
