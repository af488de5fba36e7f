"""Billing rules and penalty weights of the ``malleable`` family.

One module, used by the checker, the local schedulers and the exact models,
so that all of them price a schedule the same way.

Allocated clusters
    ``price`` per processor-minute used.
Clouds (per started VM-hour, with reuse)
    Hours are clock hours ``[60h, 60h + 60)``. A VM used during any minute
    of hour ``h`` is billed for that hour once, however many jobs it ran in
    it: an hour already paid is reused (the paper's ``free_time_left``).
    Of the ``n_h`` VMs billed in hour ``h``, ``min(n_h, spot_vms)`` pay the
    spot ``price`` and the rest ``on_demand_price`` (spot by default,
    on-demand when spot capacity is short). *Reading*: the paper bills per
    started hour of each VM; anchoring hours to the clock makes "an hour
    already paid" well defined for VMs shared by several jobs, and lets a
    VM assignment that reuses VMs already paid in the current hour reach
    the least bill, ``sum_h cost(max VMs busy at once in h)``, which the
    exact models use.
Job cost (for budgets)
    A job's cost is what it uses: processor-minutes times the price on an
    allocated cluster, VM-minutes times ``price / 60`` on a cloud (its share
    at the spot price), 0 on a dedicated cluster. The platform's total cost
    is the bill above; the idle part of paid hours is nobody's share.
Penalties
    Policy A (money saving) and B (time saving) are scored by
    ``cost + w_delay * total delay (minutes) + w_overspend * total overspend``
    with the weights of :data:`POLICY_WEIGHTS`: the policy's own criterion
    weighs ten times the other one, and a minute of delay costs at least 10
    units (a 64-processor cluster-minute costs 64 on an allocated cluster).
"""

from __future__ import annotations

import numpy as np

from hybridsched.malleable.instance import Resource

#: Minutes in one billed hour.
HOUR = 60

#: ``policy -> (weight of a minute of delay, weight of a unit of budget overspend)``.
POLICY_WEIGHTS: dict[str, tuple[float, float]] = {"A": (10.0, 100.0), "B": (100.0, 10.0)}


def hour_cost(resource: Resource, vms: np.ndarray | int) -> np.ndarray | float:
    """Bill of ``vms`` VMs for one hour: spot price up to ``spot_vms``, on-demand above."""
    vms = np.asarray(vms)
    spot = np.minimum(vms, resource.spot_vms)
    return spot * resource.price + (vms - spot) * resource.on_demand_price


def vms_per_hour(vm: np.ndarray, vms: np.ndarray | int, start: np.ndarray, end: np.ndarray
                 ) -> dict[int, int]:
    """Distinct VMs used in each clock hour by uses ``(vm, vms, start, end)``.

    ``vm`` identifies a group of ``vms`` VMs used alike (``vms`` 1: one VM);
    times are minutes, ``end > start``. Each group's hours are merged into
    runs, and each run adds its VMs to every hour it covers through a
    difference array: the cost grows with the uses and the hours of the
    schedule, never with their product.
    """
    vm, start, end = (np.asarray(a, dtype=np.int64) for a in (vm, start, end))
    if vm.size == 0:
        return {}
    vms = np.broadcast_to(np.asarray(vms, dtype=np.int64), vm.shape)
    first, last = start // HOUR, (end - 1) // HOUR
    order = np.lexsort((first, vm))
    vm, vms, first, last = vm[order], vms[order], first[order], last[order]
    # Latest hour reached so far by the same group (groups are sorted, so an offset per
    # group keeps one running maximum from mixing groups).
    stride = int(last.max()) + 2
    reached = np.maximum.accumulate((vm - vm[0]) * stride + last) - (vm - vm[0]) * stride
    new_run = np.ones(vm.size, dtype=bool)
    new_run[1:] = (vm[1:] != vm[:-1]) | (first[1:] > reached[:-1])
    starts = np.flatnonzero(new_run)
    run_last = np.maximum.reduceat(last, starts)
    diff = np.zeros(stride + 1, dtype=np.int64)
    np.add.at(diff, first[starts], vms[starts])
    np.add.at(diff, run_last + 1, -vms[starts])
    per_hour = np.cumsum(diff)
    hours = np.flatnonzero(per_hour)
    return dict(zip(hours.tolist(), per_hour[hours].tolist(), strict=True))


def cloud_bill(resource: Resource, vm: np.ndarray, vms: np.ndarray | int, start: np.ndarray,
               end: np.ndarray) -> float:
    """Total bill of a cloud for uses ``(vm, vms, start, end)`` (see :func:`vms_per_hour`)."""
    billed = vms_per_hour(vm, vms, start, end)
    if not billed:
        return 0.0
    return float(np.sum(hour_cost(resource, np.fromiter(billed.values(), dtype=np.int64))))


def cloud_share(resource: Resource, vm_minutes: float | np.ndarray) -> float | np.ndarray:
    """A job's cost share on a cloud: its VM-minutes at the spot price."""
    return vm_minutes * resource.price / HOUR


def score(cost: float, delay: float, overspend: float, policy: str) -> float:
    """Penalised cost of a schedule under ``policy`` (``"A"`` or ``"B"``)."""
    w_delay, w_over = POLICY_WEIGHTS[policy]
    return cost + w_delay * delay + w_over * overspend
