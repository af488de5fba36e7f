"""The real timeline of a ``pull`` schedule: real starts and ends, recomputed, never trusted.

The rule is stated once, in :mod:`hybridsched.pull.checker`'s module
docstring; this module computes what it needs, in binary64, for the checker,
:func:`~hybridsched.pull.checker.evaluate` and the exact models' schedule
writer (:func:`hybridsched.models.pull.problem.schedule`), so that they
cannot drift apart.

Per host, tasks run one at a time in the order of their stated starts (the
order of the host's draws, :mod:`.behaviour`). A task runs in the
availability window its stated start lies in (or the next one when it
starts within ``TIME_TOL`` before it; or the next one again when the host is
still busy ``TIME_TOL`` before its window ends and the next window has begun
by then). Its *ready time* is the latest of that window's start, its unit's
arrival and the real end of the host's previous task; its real start is the
ready time when the stated start lies within ``TIME_TOL`` of it, the stated
start when it is later (kept: the checker then judges the idle span), and
the ready time when it is earlier by more (a violation, recorded in
:attr:`Timeline.early`). Its real end: real start plus ``ECT x delay``
(``noi / cpu`` times the delay of its draw) when it ran to its end, the end
of its window when it is ``lost``, the run's real end when it is
``cancelled``. Binary64 throughout, one task after the other (each real
time within ``k x`` :data:`ROUNDING` of the exact sum after ``k`` tasks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hybridsched.pull.behaviour import replay
from hybridsched.pull.instance import Instance
from hybridsched.pull.solution import CANCELLED, CORRECT, LOST, Solution

#: Absolute tolerance on times (seconds); see :mod:`hybridsched.pull.checker`.
TIME_TOL = 1e-6
#: Binary64's rounding of a real time, per task along its host, relative to the time
#: (the unit roundoff 2^-53): after ``k`` tasks a real time lies within ``k x ROUNDING x
#: t`` of the exact sum ``t`` of its data value and durations.
ROUNDING = 2.0**-53


@dataclass(frozen=True, eq=False)
class Timeline:
    """Real times and the facts the rules need, one entry per task (arrays by task index).

    Attributes
    ----------
    order:
        Task indices in run order, host by host (each host's tasks in draw order).
    rank, delay, outcome:
        Which draw of its host the task takes, and that draw's delay factor and
        outcome (:func:`~hybridsched.pull.behaviour.replay`).
    full:
        ``ECT x delay`` of the draw: how long the task lasts if it runs to its end.
    window:
        Row of :meth:`Instance.window_table` the task runs in (-1: none).
    previous:
        The task before it on its host (-1: none).
    ready, start, natural, end:
        Ready time, real start, real start plus ``full``, real end.
    early:
        Stated start earlier than the ready time by more than ``TIME_TOL``.
    kept:
        Stated start later than the ready time by more than ``TIME_TOL``.
    completion:
        Each unit's real completion (the real end of its first correct result; inf: none).
    run_end:
        The last unit's real completion (``None``: some unit has no correct result).
    table:
        :meth:`Instance.window_table`.
    """

    order: np.ndarray
    rank: np.ndarray
    delay: np.ndarray
    outcome: np.ndarray
    full: np.ndarray
    window: np.ndarray
    previous: np.ndarray
    ready: np.ndarray
    start: np.ndarray
    natural: np.ndarray
    end: np.ndarray
    early: np.ndarray
    kept: np.ndarray
    completion: np.ndarray
    run_end: float | None
    table: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

    def window_start(self) -> np.ndarray:
        """Start of each task's window (``nan``: none)."""
        return self._window_bound(1)

    def window_end(self) -> np.ndarray:
        """End of each task's window (``nan``: none; ``inf``: the host stays)."""
        return self._window_bound(2)

    def _window_bound(self, which: int) -> np.ndarray:
        bounds = self.table[which]
        out = np.full(len(self.window), np.nan)
        placed = self.window >= 0
        out[placed] = bounds[self.window[placed]]
        return out


def stated_windows(instance: Instance, solution: Solution,
                   table: tuple[np.ndarray, ...] | None = None) -> np.ndarray:
    """Each task's window from its stated start (a row of the window table; -1: none).

    The window the stated start lies in; failing that, the next one if the
    stated start lies within ``TIME_TOL`` before it (a join computed a
    rounding early). Looking up ``start + TIME_TOL`` directly would pick the
    wrong one of two windows closer than that. ``table``:
    :meth:`Instance.window_table`, if computed already.
    """
    host_w, first, last, offset = table or instance.window_table()
    n, rows = solution.n_tasks, len(first)
    # Windows and tasks merged by (host, time), a window before a task at the same time:
    # the last window row seen before a task is the last one starting at or before it.
    keys = np.lexsort((np.concatenate((np.zeros(rows), np.ones(n))),
                       np.concatenate((first, solution.start)),
                       np.concatenate((host_w, solution.host))))
    seen = np.maximum.accumulate(np.concatenate((np.arange(rows), np.full(n, -1)))[keys])
    k = np.empty(n, dtype=np.int64)
    tasks = keys >= rows
    k[keys[tasks] - rows] = seen[tasks]
    host = solution.host
    own = (k >= 0) & (host_w[np.maximum(k, 0)] == host) if rows else np.zeros(n, bool)
    k = np.where(own, k, offset[host] - 1)  # before the host's first window
    stop = last[np.clip(k, 0, max(rows - 1, 0))] if rows else np.zeros(n)
    exact = (k >= offset[host]) & (solution.start < stop)
    following = k + 1
    has_next = following < offset[host + 1]
    near = has_next & (first[np.minimum(following, max(rows - 1, 0))]
                       <= solution.start + TIME_TOL) if rows else np.zeros(n, bool)
    return np.where(exact, k, np.where(near, following, -1))


def timeline(instance: Instance, solution: Solution) -> Timeline:
    """The real timeline of ``solution`` (units and hosts must be the instance's)."""
    s = solution
    n = s.n_tasks
    order = np.lexsort((np.arange(n), s.end, s.start, s.host))
    rank = np.zeros(n, dtype=np.int64)
    delay = np.ones(n)
    drawn = np.zeros(n, dtype=np.int64)
    hosts, at, count = np.unique(s.host[order], return_index=True, return_counts=True)
    for h, a, c in zip(hosts.tolist(), at.tolist(), count.tolist(), strict=True):
        tasks = order[a:a + c]
        delay[tasks], drawn[tasks] = replay(instance, h, c)
        rank[tasks] = np.arange(c)
    full = instance.noi[s.unit] / instance.cpu[s.host] * delay
    table = instance.window_table()
    window = stated_windows(instance, s, table)
    _, first, last, offset = table

    # The chain, host by host, in binary64 (Python floats: the same IEEE operations as
    # numpy's, one task after the other).
    host_o = s.host[order].tolist()
    stated_o = s.start[order].tolist()
    full_o = full[order].tolist()
    arrival_o = instance.arrival[s.unit[order]].tolist()
    window_o = window[order].tolist()
    lost_o = (s.outcome[order] == LOST).tolist()
    first_l, last_l, offset_l = first.tolist(), last.tolist(), offset.tolist()
    ready_o, start_o, end_o = [0.0] * n, [0.0] * n, [0.0] * n
    early_o, kept_o, previous_o = [False] * n, [False] * n, [-1] * n
    none = float("-inf")
    current, previous_end = -1, none
    for i in range(n):
        h = host_o[i]
        if h != current:
            current, previous_end = h, none
        else:
            previous_o[i] = i - 1
        w, arrival = window_o[i], arrival_o[i]
        if w >= 0:
            ready = max(first_l[w], arrival, previous_end)
            # Busy until TIME_TOL before the window ends (or later): the next window, if it
            # has begun by then.
            while (ready >= last_l[w] - TIME_TOL and w + 1 < offset_l[h + 1]
                   and first_l[w + 1] <= ready + TIME_TOL):
                w += 1
                ready = max(first_l[w], arrival, previous_end)
            window_o[i] = w
            stop = last_l[w]
        else:
            ready = max(arrival, previous_end)
            stop = float("inf")
        stated = stated_o[i]
        if stated > ready + TIME_TOL:
            start = stated
            kept_o[i] = True
        else:
            start = ready
            early_o[i] = stated < ready - TIME_TOL
        natural = start + full_o[i]
        end = stop if lost_o[i] and stop != float("inf") else natural
        ready_o[i], start_o[i], end_o[i] = ready, start, end
        previous_end = end

    def by_task(values: list, dtype: type = float) -> np.ndarray:
        out = np.empty(n, dtype=dtype)
        out[order] = np.array(values, dtype=dtype)
        return out

    start = by_task(start_o)
    end = by_task(end_o)
    window = by_task(window_o, np.int64)
    previous = np.array(previous_o, dtype=np.int64)
    previous = np.where(previous >= 0, order[np.maximum(previous, 0)], -1)
    natural = start + full
    completion = np.full(instance.n_units, np.inf)
    ok = s.outcome == CORRECT
    np.minimum.at(completion, s.unit[ok], end[ok])
    run_end = None
    if not np.isinf(completion).any():
        run_end = float(completion.max()) if instance.n_units else 0.0
        cancelled = s.outcome == CANCELLED
        end[cancelled] = run_end
    return Timeline(order, rank, delay, drawn, full, window, by_task(previous, np.int64),
                    by_task(ready_o), start, natural, end, by_task(early_o, bool),
                    by_task(kept_o, bool), completion, run_end, table)
