"""A clairvoyant greedy pull schedule: every host's draws and windows known in advance.

Offline, nothing of the run is random: the ``k``-th task host ``h`` starts
takes draw ``k`` of the host's stream (:mod:`hybridsched.pull.behaviour`),
whatever unit it runs, and the windows are data. The greedy keeps the
checker's rules (:mod:`hybridsched.pull.checker`): hosts pull in time order
at their ready times (window start, previous task's real end, a unit's
arrival) and start a task whenever a unit waits; only the unit each pull
gets is chosen, knowing what the task will do:

- a draw whose result is wrong or never returned gets the task that wastes
  the least time: the smallest waiting unit, or any unit the window cannot
  hold (lost when the host leaves) when that ends sooner;
- a correct draw gets the largest waiting unit with no correct result yet
  planned that fits in the window and ends by the target ``horizon``;
  failing that, a replica that brings a planned completion forward (the
  latest such one), then the earliest-ending uncovered unit, then as for a
  bad draw. Optionally a *delayed* correct draw gets the smallest useful
  unit instead (what the delay stretches is then the least).

Each unit's completion is its first correct result's real end, known when
that task is sent; times are the checker's binary64 arithmetic (start plus
``noi / cpu x delay``), so the schedule's real times are the ones computed
here. :func:`best_clairvoyant` tries a few horizons and keeps the shortest
checked-by-construction schedule; every schedule it returns is complete.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import numpy as np

from hybridsched.pull.behaviour import replay
from hybridsched.pull.instance import Instance
from hybridsched.pull.solution import CANCELLED, CORRECT, LOST, Solution, from_records
from hybridsched.pull.timeline import TIME_TOL

#: Horizons tried by :func:`best_clairvoyant`, as factors of the lower bound given.
HORIZON_FACTORS = (1.0, 1.03, 1.06, 1.1, 1.15, 1.2, 1.3, 1.5, math.inf)


class _Draws:
    """A host's draws, replayed in blocks as its rank grows."""

    def __init__(self, instance: Instance) -> None:
        self._instance = instance
        self._table: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def at(self, host: int, rank: int) -> tuple[float, int]:
        delay, outcome = self._table.get(host, (np.zeros(0), np.zeros(0, dtype=np.int64)))
        if rank >= len(delay):
            delay, outcome = replay(self._instance, host, max(64, 2 * (rank + 1)))
            self._table[host] = (delay, outcome)
        return float(delay[rank]), int(outcome[rank])


def clairvoyant(instance: Instance, horizon: float = math.inf, small_when_delayed: bool = False,
                priority: np.ndarray | None = None) -> Solution | None:
    """The greedy schedule for a target run end ``horizon`` (absolute time; module docstring).

    ``small_when_delayed``: a delayed correct draw gets the smallest useful unit
    (it loses the least to the delay) instead of the largest. ``priority``:
    what "largest" ranks by (default: the units' sizes; :func:`perturbed`
    jitters it).

    ``None`` when some unit never gets a correct result (the windows end first).
    """
    n = instance.n_units
    if n == 0:
        return from_records([])
    noi, cpu, arrival = instance.noi, instance.cpu, instance.arrival
    rank_by = noi if priority is None else priority
    completion = np.full(n, math.inf)
    draws = _Draws(instance)
    rank = [0] * instance.n_hosts
    window = [0] * instance.n_hosts
    records: list[list] = []  # unit, host, start, end, delay, outcome, natural
    arrivals = np.unique(arrival)
    heap = [(float(spans[0][0]), h) for h, spans in enumerate(instance.windows) if spans]
    heapq.heapify(heap)
    while heap:
        t, h = heapq.heappop(heap)
        spans = instance.windows[h]
        w = window[h]
        # A host pulls only more than TIME_TOL before it leaves: else its next window.
        while t >= spans[w][1] - TIME_TOL:
            w += 1
            if w == len(spans):
                break
            t = max(t, float(spans[w][0]))
        if w == len(spans):
            continue
        window[h] = w
        if heap and t > heap[0][0]:  # moved to a later window: decide in time order
            heapq.heappush(heap, (t, h))
            continue
        waiting = (arrival <= t) & (completion > t)
        if not waiting.any():
            if np.all(completion < math.inf) and completion.max() <= t:
                continue  # nothing left for this host
            later = arrivals[arrivals > t]
            if later.size:
                heapq.heappush(heap, (float(later[0]), h))
            else:  # every unit is covered: wait for the next completion to pass
                pending = completion[completion > t]
                if pending.size:
                    heapq.heappush(heap, (float(pending.min()), h))
            continue
        stop = float(spans[w][1])
        delay, outcome = draws.at(h, rank[h])
        full = noi / cpu[h] * delay
        natural = t + full
        fits = natural <= stop + TIME_TOL
        u = _choose(waiting, fits, natural, completion, rank_by, outcome, stop, t, horizon,
                    small_when_delayed and delay > 1.0)
        lost = not bool(fits[u])
        end = stop if lost else float(natural[u])
        out = LOST if lost else outcome
        records.append([u, h, t, end, delay, out, float(natural[u])])
        rank[h] += 1
        if out == CORRECT and end < completion[u]:
            completion[u] = end
        if math.isfinite(end):
            heapq.heappush(heap, (end, h))
    if not np.all(np.isfinite(completion)):
        return None
    finish = float(completion.max())
    kept = []
    for u, h, start, end, delay, outcome, _natural in records:
        if start >= finish:
            continue
        if end > finish:
            end, outcome = finish, CANCELLED
        kept.append((u, h, start, end, delay, outcome))
    return from_records(kept)


def _choose(waiting: np.ndarray, fits: np.ndarray, natural: np.ndarray, completion: np.ndarray,
            noi: np.ndarray, outcome: int, stop: float, now: float, horizon: float,
            delayed: bool) -> int:
    """The unit a pulling host gets (module docstring; ``noi``: the units' priority)."""
    if outcome == CORRECT:
        uncovered = waiting & fits & ~np.isfinite(completion)
        useful = uncovered & (natural <= horizon)
        if useful.any():
            pick = np.flatnonzero(useful)
            # A delayed draw stretches its task: the smallest unit loses the least to it.
            return int(pick[np.argmin(noi[pick])] if delayed else pick[np.argmax(noi[pick])])
        better = waiting & fits & np.isfinite(completion) & (natural < completion)
        if better.any():
            pick = np.flatnonzero(better)
            return int(pick[np.argmax(completion[pick])])
        if uncovered.any():
            pick = np.flatnonzero(uncovered)
            return int(pick[np.argmin(natural[pick])])
    # Waste the least time: the shortest run, or a unit the window cannot hold (lost then).
    pick = np.flatnonzero(waiting)
    shortest = int(pick[np.argmin(natural[pick])])
    unfit = pick[~fits[pick]]
    if unfit.size and stop - now < natural[shortest] - now:
        return int(unfit[0])
    return shortest


def best_clairvoyant(instance: Instance, bound_end: float,
                     factors: Sequence[float] = HORIZON_FACTORS,
                     deadline: float | None = None) -> Solution | None:
    """The shortest :func:`clairvoyant` schedule over horizons ``bound_end x factor``.

    Both readings of a delayed draw are tried (``small_when_delayed``), the
    plain one first.

    ``bound_end``: a lower bound on the run's end (absolute time), e.g. the
    first schedule plus a makespan bound. ``deadline``: a ``time.perf_counter()``
    value after which no further horizon is tried.
    """
    import time

    best, best_end = None, math.inf
    origin = instance.first_schedule()
    for factor, small in [(f, s) for s in (False, True) for f in factors]:
        if deadline is not None and time.perf_counter() >= deadline and best is not None:
            break
        target = origin + (bound_end - origin) * factor if math.isfinite(factor) else math.inf
        found = clairvoyant(instance, target, small)
        if found is None:
            continue
        end = float(found.completion(instance.n_units).max()) if instance.n_units else 0.0
        if end < best_end:
            best, best_end = found, end
    return best


def perturbed(instance: Instance, bound_end: float, start: Solution, *, seed: int = 0,
              deadline: float | None = None, rounds: int = 200,
              spread: float = 0.15) -> Solution:
    """``start`` or a shorter :func:`clairvoyant` schedule with jittered priorities.

    Each round multiplies the units' sizes by ``exp(spread x N(0, 1))`` and
    draws the horizon factor and the delayed-draw reading at random, all
    from ``numpy.random.default_rng(seed)``: deterministic for a seed and a
    number of rounds (``deadline``, a ``time.perf_counter()`` value, may
    stop it sooner). Returns the shortest schedule met.
    """
    import time

    rng = np.random.default_rng(seed)
    n = instance.n_units
    best = start
    best_end = float(start.completion(n).max()) if n else 0.0
    origin = instance.first_schedule()
    for _ in range(rounds):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        priority = instance.noi * np.exp(spread * rng.standard_normal(n))
        factor = float(rng.uniform(1.0, 1.3))
        small = bool(rng.random() < 0.5)
        found = clairvoyant(instance, origin + (bound_end - origin) * factor, small, priority)
        if found is None:
            continue
        end = float(found.completion(n).max())
        if end < best_end:
            best, best_end = found, end
    return best
