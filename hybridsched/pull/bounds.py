"""A lower bound on the makespan of a pull instance, from the availability trace alone.

No schedule can finish before (a) the platform has offered enough CPU work to
run every instruction once, counting each host's capacity only while it is
available and from the first arrival on, nor before (b) the largest work unit
could end on the fastest host that is available long enough for it, started
no earlier than its arrival. The bound is the larger of the two. Verification
replicas, errors and delays only add work, so it holds for every method.

"Available" is the checker's rule (:mod:`hybridsched.pull.checker`): a task
that ran to its end may end up to ``TIME_TOL`` after its window's end, so
each finite window counts as ``TIME_TOL`` longer, and the bound holds for
every schedule the checker accepts.
"""

from __future__ import annotations

import math

import numpy as np

from hybridsched.pull.instance import Instance
from hybridsched.pull.timeline import TIME_TOL


def capacity_bound(instance: Instance) -> float:
    """Earliest time the available capacity (from the first arrival) covers all the work."""
    work = float(instance.noi.sum())
    if work <= 0:
        return float(instance.arrival.min(initial=0.0))
    start = float(instance.arrival.min())
    # Rate changes: each window adds cpu at its (clipped) start and removes it at its end.
    times, deltas = [], []
    for h, spans in enumerate(instance.windows):
        for a, b in spans:
            a, b = max(a, start), b + TIME_TOL  # a task may end TIME_TOL after its window
            if b > a:
                times += [a, b]
                deltas += [float(instance.cpu[h]), -float(instance.cpu[h])]
    if not times:
        return math.inf
    order = np.argsort(times, kind="stable")
    t = np.asarray(times)[order]
    rate = np.cumsum(np.asarray(deltas)[order])
    done, now = 0.0, float(t[0])
    for k in range(len(t)):
        following = t[k + 1] if k + 1 < len(t) else math.inf
        r = rate[k]
        if r > 0 and done + r * (following - now) >= work:
            return now + (work - done) / r
        if math.isfinite(following):
            done += r * (following - now)
            now = float(following)
    return math.inf


def largest_unit_bound(instance: Instance) -> float:
    """Earliest end of the largest work unit alone, on any host that can hold it."""
    if instance.n_units == 0:
        return 0.0
    j = int(np.argmax(instance.noi))
    best = math.inf
    for h, spans in enumerate(instance.windows):
        need = float(instance.noi[j]) / float(instance.cpu[h])
        for a, b in spans:
            begin = max(a, float(instance.arrival[j]))
            # One uninterrupted window (a leaving host loses its task), ending TIME_TOL late.
            if b + TIME_TOL - begin >= need and begin < b - TIME_TOL:
                best = min(best, begin + need)
                break
    return best


def makespan_lower_bound(instance: Instance) -> float:
    """``max(capacity bound, largest unit bound)`` from the first schedule (``inf``: never).

    The makespan counts from :meth:`Instance.first_schedule` (the paper's
    "first task schedule"); no host works before it, so both completion-time
    bounds minus that origin bound the makespan.
    """
    if instance.n_units == 0:
        return 0.0
    end = max(capacity_bound(instance), largest_unit_bound(instance))
    return end - instance.first_schedule() if math.isfinite(end) else math.inf
