"""Each unit's earliest possible completion, from its hosts' draws: a closed-form makespan bound.

A host's ``k``-th task takes draw ``k`` (:mod:`.behaviour`) whatever unit
it runs, so a unit can only be completed by a *correct* draw, and that
draw cannot start before the host got through every earlier draw. Each of
those ran a unit (at least the smallest, ``noi_min / cpu x delay``) or was
lost when its window ended, so the earliest start ``r[k]`` of draw ``k``
follows ``r[k + 1] = min(r[k] + noi_min / cpu x delay[k], window end)``,
moving to the next window once the host is ready within ``TIME_TOL`` of
its window's end (the checker's rule: no start that late). A unit ``j``
completed by correct draw ``k`` ends at least at ``s + noi_j / cpu x
delay[k]``, ``s`` the earliest start at or after ``r[k]`` and ``j``'s
arrival in a window that holds the task (ending by its end plus
``TIME_TOL``). Every unit needs its completion before the run ends, so the
run ends no earlier than the latest unit's earliest completion.

Binary64 throughout, each comparison widened by :data:`MARGIN` x the time
so that a rounding never excludes what the checker's real times allow, and
the result lowered by as much: the bound holds for every accepted schedule.
Only units no other unit dominates (arrives no earlier and is no smaller)
are computed, and each host's draws up to :data:`MAX_DRAWS` (past them, the
start of the next one bounds every later completion).
"""

from __future__ import annotations

import math

import numpy as np

from hybridsched.pull.behaviour import replay
from hybridsched.pull.bounds import makespan_lower_bound
from hybridsched.pull.instance import Instance
from hybridsched.pull.solution import CORRECT
from hybridsched.pull.timeline import TIME_TOL

#: Relative widening of every comparison and lowering of the result (rounding of the
#: chain of ``k <= MAX_DRAWS`` binary64 sums, each within 2^-53 relative).
MARGIN = 1e-9
#: Draws followed per host.
MAX_DRAWS = 5_000


def pareto_units(instance: Instance) -> np.ndarray:
    """Units no other unit dominates (arrives no earlier and is at least as large)."""
    order = np.lexsort((-instance.noi, -instance.arrival))  # latest, then largest, first
    kept, best = [], -math.inf
    for j in order.tolist():
        if instance.noi[j] > best:
            kept.append(j)
            best = float(instance.noi[j])
    return np.array(kept, dtype=np.int64)


def _earliest_on_host(instance: Instance, h: int, units: np.ndarray, limit: np.ndarray
                      ) -> np.ndarray:
    """Earliest completion of each of ``units`` on host ``h`` (``limit``: stop once past)."""
    spans = instance.windows[h]
    cpu = float(instance.cpu[h])
    noi = instance.noi[units]
    arrival = instance.arrival[units]
    shortest = float(instance.noi.min()) / cpu
    delay, outcome = replay(instance, h, MAX_DRAWS)
    best = np.full(len(units), np.inf)
    w, r = 0, max(float(spans[0][0]), float(instance.arrival.min())) if spans else math.inf
    for k in range(MAX_DRAWS):
        # Ready within TIME_TOL of the window's end (less the margin): the next window.
        while w < len(spans) and r >= spans[w][1] - TIME_TOL + MARGIN * max(1.0, abs(r)):
            w += 1
            if w < len(spans):
                r = max(r, float(spans[w][0]))
        if w == len(spans) or not np.any(r < np.minimum(best, limit)):
            return best
        if outcome[k] == CORRECT:
            open_ = np.flatnonzero(r < best)
            duration = noi[open_] / cpu * delay[k]
            found = np.full(open_.size, np.inf)
            for a, b in spans[w:]:
                start = np.maximum(np.maximum(r, arrival[open_]), a)
                slack = MARGIN * np.maximum(1.0, np.abs(start + duration))
                ok = ((start < b - TIME_TOL + slack) & (start + duration <= b + TIME_TOL + slack)
                      & np.isinf(found))
                found[ok] = (start + duration)[ok]
                if not np.isinf(found).any():
                    break
                if a >= float(np.max(limit[open_])):  # later windows end after every limit
                    found[np.isinf(found)] = a
                    break
            best[open_] = np.minimum(best[open_], found)
        r = min(r + shortest * float(delay[k]), float(spans[w][1]))
    return np.minimum(best, r)  # later draws start no earlier than r


def earliest_completion_bound(instance: Instance) -> float:
    """``max_j min_h`` (earliest completion of unit ``j`` on host ``h``) less the first schedule.

    ``inf`` when some unit can never be completed; 0 without units.
    """
    if instance.n_units == 0:
        return 0.0
    units = pareto_units(instance)
    best = np.full(len(units), np.inf)
    for h in range(instance.n_hosts):
        if instance.windows[h]:
            best = np.minimum(best, _earliest_on_host(instance, h, units, best))
    end = float(best.max())
    if not math.isfinite(end):
        return math.inf
    return end - MARGIN * max(1.0, abs(end)) - instance.first_schedule()


def closed_form_bound(instance: Instance) -> float:
    """The larger of :func:`~.bounds.makespan_lower_bound` and the earliest-completion bound."""
    return max(makespan_lower_bound(instance), earliest_completion_bound(instance))
