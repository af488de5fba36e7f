"""A closed-form bound on lateness at scale: the whole platform as one fluid machine (SRPT).

Every schedule the checker accepts does at most ``C = sum_i performance_i *
processors_i`` work per minute over the whole platform (``rate(n) <=
performance * n`` on each resource, and jobs on one resource use distinct
processors), and job ``j`` receives ``size_j * (1 - NEED_SLACK)`` work between
its arrival and its end ``E_j``. So its work profile is a preemptive schedule
of one machine of speed ``C`` with release dates, whose completion times are at
most the ``E_j``; shortest-remaining-work-first minimises their sum on any
subset ``S`` of the jobs (Schrage's rule is optimal for ``1|r_j,pmtn|sum C_j``),
and dropping the other jobs only frees the machine. Hence

- ``total_time = sum_j (E_j - a_j) >= SRPT(all) - sum_j a_j``;
- ``total_delay >= sum_{j in S} (E_j - d_j) >= SRPT(S) - sum_{j in S} d_j`` for
  every ``S``; :func:`fluid_bound` tries the jobs arriving from each of
  :data:`CUTS` evenly spaced arrival ranks on (overload builds up late).

The penalised objectives are at least ``w_delay`` times the delay bound.
Computed in exact arithmetic (:class:`~fractions.Fraction`), so that
:mod:`~hybridsched.malleable.bound_check` recomputes the same value.
"""

from __future__ import annotations

import heapq
from fractions import Fraction

from hybridsched.malleable.bounds import usable, weights
from hybridsched.malleable.instance import Instance
from hybridsched.malleable.relaxation import NEED_SLACK

#: Suffixes of the arrival order tried for the delay bound.
CUTS = 16


def srpt_completion_sum(arrivals: list[int], work: list[Fraction], speed: Fraction
                        ) -> Fraction:
    """Sum of completion times of shortest-remaining-work-first on one machine of ``speed``."""
    order = sorted(range(len(arrivals)), key=lambda k: (arrivals[k], k))
    heap: list[tuple[Fraction, int]] = []
    t, total, k = Fraction(0), Fraction(0), 0
    while k < len(order) or heap:
        if not heap:
            t = max(t, Fraction(arrivals[order[k]]))
        while k < len(order) and arrivals[order[k]] <= t:
            heapq.heappush(heap, (work[order[k]], order[k]))
            k += 1
        following = Fraction(arrivals[order[k]]) if k < len(order) else None
        remaining, j = heapq.heappop(heap)
        finish = t + remaining / speed
        if following is None or finish <= following:
            t = finish
            total += finish
        else:
            heapq.heappush(heap, (remaining - (following - t) * speed, j))
            t = following
    return total


def fluid_bound(instance: Instance, objective: str) -> Fraction:
    """The bound of the module docstring for ``objective`` (0 when it gives nothing)."""
    _, w_delay, _, w_time = weights(objective)
    n = instance.n_jobs
    speed = sum((Fraction(r.performance) * r.processors for r in instance.resources
                 if usable(r)), Fraction(0))
    if n == 0 or speed == 0 or (not w_delay and not w_time):
        return Fraction(0)
    arrivals = [int(a) for a in instance.arrival]
    work = [Fraction(float(s)) * (1 - NEED_SLACK) for s in instance.size]
    best = Fraction(0)
    if w_time:
        best = w_time * (srpt_completion_sum(arrivals, work, speed) - sum(arrivals))
    if w_delay:
        order = sorted(range(n), key=lambda k: (arrivals[k], k))
        for c in range(CUTS):
            subset = order[c * n // CUTS:]
            if not subset:
                continue
            late = (srpt_completion_sum([arrivals[k] for k in subset], [work[k] for k in subset],
                                        speed) - sum(int(instance.deadline[k]) for k in subset))
            best = max(best, w_delay * late)
    return max(best, Fraction(0))
