"""Brute force of the clairvoyant offline pull problem: every choice of every pulling host.

Independent of the models: a small event-driven search. Hosts decide in time
order; a ready host starts a unit that has arrived and is not done before
now (a replica of a unit completing exactly now is allowed, as the checker
allows it), idles to the next arrival when nothing waits, and loses a task
its window ends first (by more than the checker's ``TIME_TOL``: the rule's
one threshold). Durations are the exact ``noi / cpu x delay``.
"""

from __future__ import annotations

import math

from hybridsched.pull.behaviour import replay
from hybridsched.pull.instance import Instance
from hybridsched.pull.solution import CORRECT
from hybridsched.pull.timeline import TIME_TOL


def brute_makespan(instance: Instance, depth: int = 12) -> float:
    """The offline optimum's makespan (``inf``: none within ``depth`` tasks per host)."""
    n, m = instance.n_units, instance.n_hosts
    draws = [replay(instance, h, depth) for h in range(m)]
    arrival = [float(a) for a in instance.arrival]
    best = [math.inf]

    def window_at(h: int, t: float) -> tuple[float, float] | None:
        """The window of ``h`` a task can start in at ``t``, or the next one (start > t).

        A task starts more than ``TIME_TOL`` before its window ends (the checker's rule).
        """
        for a, b in instance.windows[h]:
            if t < b - TIME_TOL:
                return (a, b)
        return None

    def settle(h: int, t: float) -> float:
        """When host ``h``, free from ``t``, can next start: ``t`` or a window start."""
        span = window_at(h, t)
        return math.inf if span is None or math.isinf(t) else max(t, span[0])

    def search(ready: list[float], count: list[int], done: list[float]) -> None:
        finish = max(done) if n else 0.0
        h = min(range(m), key=lambda i: ready[i])
        r = ready[h]
        if r >= finish or r >= best[0]:
            if all(math.isfinite(c) for c in done):
                best[0] = min(best[0], finish)
            return
        span = window_at(h, r)
        waiting = [u for u in range(n) if arrival[u] <= r < done[u]]
        options = waiting + [u for u in range(n) if done[u] == r]
        if not waiting:
            later = [a for a in arrival if a > r]
            ready2 = ready.copy()
            ready2[h] = settle(h, min(later)) if later else math.inf
            if ready2[h] > r:  # idle, or (with options) a replica of a unit done now
                search(ready2, count, done)
        if count[h] >= depth:
            return
        for u in options:
            k = count[h]
            delay, outcome = float(draws[h][0][k]), int(draws[h][1][k])
            end = r + float(instance.noi[u]) / float(instance.cpu[h]) * delay
            ready2, count2, done2 = ready.copy(), count.copy(), done.copy()
            count2[h] += 1
            if end > span[1] + TIME_TOL:
                ready2[h] = settle(h, span[1])
            else:
                ready2[h] = settle(h, end)
                if outcome == CORRECT:
                    done2[u] = min(done2[u], end)
            search(ready2, count2, done2)

    first = min(arrival) if n else 0.0
    search([settle(h, first) for h in range(m)], [0] * m, [math.inf] * n)
    return best[0] - instance.first_schedule() if math.isfinite(best[0]) else math.inf
