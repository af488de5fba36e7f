"""A Lagrangian bound of the ``malleable`` problem from the time-bucket LP's capacity duals.

Relax the capacity rows of :mod:`hybridsched.malleable.relaxation` (``cap``:
a cluster's processor-minutes per bucket; ``cloud``: a cloud's
processor-minutes against its billed VMs) with multipliers ``pi >= 0``. What
remains splits by job and by cloud hour, and each piece is solved exactly
rather than through the LP's fractional ends:

- job ``j``: the least over the tail and every (resource ``i``, end bucket
  ``b``) of its delay and time at the earliest end, its bill and overspend
  for ``size / performance`` processor-minutes, plus the cheapest way to
  place those processor-minutes in its buckets up to ``b`` at prices
  ``pi[i, b']`` (at most ``P_i`` per minute from its arrival: cheapest
  buckets first);
- cloud ``i``, hour ``h``: the least over whole VM counts ``V`` in
  ``0 .. max_vms`` of ``hour_cost(V) - cpus * V * sum_b pi[i, b] * overlap(b, h)``;

minus ``sum pi[i, b] * P_i * len(b)`` over the clusters. For every schedule
the checker accepts, each piece is at most its part of the schedule's
objective and the capacity terms are at most 0, so the sum is a bound for any
``pi >= 0``; with the LP's duals it is at least the LP's value, since each
job's exact set lies inside the LP's polytope. Only for linear speed-up
(serial fraction 0 for every job; else :func:`lagrangian_bound` returns
``None``), where a job's processor-minutes are ``size / performance``.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from fractions import Fraction

from hybridsched.malleable.billing import HOUR
from hybridsched.malleable.bounds import fewest_minutes, usable, weights
from hybridsched.malleable.instance import Instance, ResourceType
from hybridsched.malleable.relaxation import NEED_SLACK, Grid
from hybridsched.malleable.speedup import rate


def _fill(prices: list[tuple[Fraction, Fraction]], amount: Fraction) -> Fraction | None:
    """Cheapest cost of ``amount`` from ``(price, capacity)`` sorted by price (None: too little)."""
    cost = Fraction(0)
    for price, capacity in prices:
        if amount <= 0:
            break
        take = min(capacity, amount)
        cost += price * take
        amount -= take
    return cost if amount <= 0 else None


def lagrangian_bound(instance: Instance, objective: str, grid: Grid,
                     multipliers: Mapping[str, float]) -> Fraction | None:
    """The bound of the module docstring with ``multipliers`` by row name (exact)."""
    if (instance.serial_fraction > 0).any():
        return None
    w_cost, w_delay, w_over, w_time = weights(objective)
    horizon, n_buckets = grid.horizon, grid.n_buckets

    def pi(key: str) -> Fraction:
        return max(Fraction(multipliers.get(key, 0.0)), Fraction(0))

    total = Fraction(0)
    price = {(i, b): pi(f"{'cloud' if r.is_cloud else 'cap'}:{i}:{b}")
             for i, r in enumerate(instance.resources) if usable(r) for b in range(n_buckets)}
    for i, r in enumerate(instance.resources):
        if not usable(r):
            continue
        if r.is_cloud:
            hours = (horizon - 1) // HOUR + 1
            credit = [Fraction(0)] * hours
            for b in range(n_buckets):
                for h in range(grid.start(b) // HOUR, (grid.stop(b) - 1) // HOUR + 1):
                    overlap = min(grid.stop(b), (h + 1) * HOUR) - max(grid.start(b), h * HOUR)
                    credit[h] += price[i, b] * r.cpus * overlap
            spot, od = Fraction(r.price), Fraction(r.on_demand_price)
            for h in range(hours):
                # hour_cost is piecewise linear in V: its least minus a linear credit is at
                # a breakpoint (0, spot_vms, max_vms).
                best = Fraction(0)
                for v in {0, min(r.spot_vms, r.max_vms), r.max_vms}:
                    s = min(v, r.spot_vms)
                    best = min(best, w_cost * (s * spot + (v - s) * od) - credit[h])
                total += best
        else:
            for b in range(n_buckets):
                total -= price[i, b] * r.processors * (grid.stop(b) - grid.start(b))
    for j in range(instance.n_jobs):
        arrival, deadline = int(instance.arrival[j]), int(instance.deadline[j])
        size = float(instance.size[j])
        tail_end = horizon + 1
        best_job = (Fraction(w_delay) * max(0, tail_end - deadline)
                    + Fraction(w_time) * (tail_end - arrival))
        first = grid.bucket_of(arrival)
        for i, r in enumerate(instance.resources):
            if not usable(r) or first >= n_buckets:
                continue
            perf = Fraction(r.performance)
            minutes = Fraction(size) * (1 - NEED_SLACK) / perf
            earliest = arrival + fewest_minutes(size, float(rate(r.processors, r.performance,
                                                                  0.0)))
            if r.type is ResourceType.ALLOCATED:
                bill, share = Fraction(r.price) * minutes, Fraction(r.price) * minutes
            elif r.is_cloud:
                bill, share = Fraction(0), Fraction(r.price) * minutes / (HOUR * r.cpus)
            else:
                bill = share = Fraction(0)
            fixed = (w_cost * bill
                     + Fraction(w_over) * max(Fraction(0), share - Fraction(instance.budget[j])))
            if fixed >= best_job:
                continue
            prices: list[tuple[Fraction, Fraction]] = []
            for b in range(first, n_buckets):
                length = grid.stop(b) - max(grid.start(b), arrival)
                bisect.insort(prices, (price[i, b], Fraction(r.processors * length)))
                if grid.stop(b) < earliest:
                    continue
                end = max(grid.start(b) + 1, earliest)
                lateness = (Fraction(w_delay) * max(0, end - deadline)
                            + Fraction(w_time) * (end - arrival))
                if fixed + lateness >= best_job:
                    break  # later ends are no cheaper in lateness, and fills only cheaper
                filled = _fill(prices, minutes)
                if filled is not None:
                    best_job = min(best_job, fixed + lateness + filled)
        total += best_job
    return total
