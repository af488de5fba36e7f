"""Unassigned tasks for CDF: static latest-start orders with skip pointers.

:class:`~hybridsched.heuristics.hybrid_deadline.machine_pool.RemainingTasks` keeps, per core
capacity, a Python list of ``(latest start, task)`` pairs and deletes a task
from every list on removal: a tuple binary search plus a ``list.pop`` per
capacity and removal, and a scan of every task per rented VM to count the
tasks a VM type can run alone. On the NASA trace (about 2,500 machines for
16,000 tasks) those are most of CDF's time and grow faster than ``n log n``.

:class:`LatestStarts` answers the same questions with the same results, so
CDF's schedules do not change:

- each capacity's order (ascending ``(d - w / r, task)``, the same key
  expression) is sorted once over *all* tasks and never edited; removing a
  task only marks it, and a search links past a removed task the first time
  it meets it ("next alive position" pointers, followed with path halving:
  near-constant amortised time), so the first unassigned task at or after a
  binary-search position is the one the edited list would hold there;
- :meth:`LatestStarts.fitting_alone` keeps one counter per capacity,
  decremented on removal, instead of a mask over every task per VM rented.

The search window and the confirmation with the checker's own expression are
those of :meth:`RemainingTasks.tightest_fit` (``tests/hybrid_deadline/
test_cdf_fast_path.py`` compares the two on random loads and removals).
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

# KEY_SLACK: the window of RemainingTasks, so that both return the same task.
from hybridsched.heuristics.hybrid_deadline.machine_pool import KEY_SLACK, RemainingTasks
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance


class _Order:
    """One capacity's tasks sorted by ``(latest start, task)``, removed ones skipped."""

    __slots__ = ("keys", "tasks", "next_alive")

    def __init__(self, keys: np.ndarray):
        ranked = np.lexsort((np.arange(len(keys)), keys))
        self.keys: list[float] = keys[ranked].tolist()
        self.tasks: list[int] = ranked.tolist()
        # next_alive[p] == p: position p not known to hold a removed task (the
        # sentinel len(tasks) included); otherwise a position closer to the next alive one.
        self.next_alive: list[int] = list(range(len(keys) + 1))

    def first_alive(self, p: int, left: list[bool]) -> int:
        """The first position ``>= p`` whose task is in ``left`` (``len(tasks)`` if none).

        A removed task is linked past the first time a search meets it, so
        removing a task costs nothing in orders that never reach it again
        (those of PMs already filled), and each link is followed with path
        halving, so later searches jump further.
        """
        nxt, tasks, end = self.next_alive, self.tasks, len(self.tasks)
        while True:
            q = nxt[p]
            if q != p:
                nxt[p] = nxt[q]
                p = nxt[p]
            elif p < end and not left[tasks[p]]:
                nxt[p] = p + 1
                p += 1
            else:
                return p


class LatestStarts(RemainingTasks):
    """:class:`RemainingTasks` with the faster structure of the module docstring."""

    def __init__(self, instance: Instance):
        super().__init__(instance)
        self._tasks_of = instance
        self._work: list[float] = instance.work.tolist()
        self._deadline: list[float] = instance.deadline.tolist()
        self._window_scale = max(1.0, float(np.abs(instance.deadline).max(initial=0.0)))
        #: Whether each task is unassigned (a list: read once per task visited).
        self._left_list = [True] * instance.n_tasks
        self._sorted: dict[float, _Order] = {}
        #: capacity -> whether each task fits alone on such a core; and how many
        #: unassigned tasks do (both built on first use).
        self._alone: dict[float, list[bool]] = {}
        self._alone_count: dict[float, int] = {}

    def _order_for(self, capacity: float) -> _Order:
        order = self._sorted.get(capacity)
        if order is None:
            keys = self._tasks_of.deadline - self._tasks_of.work / capacity  # RemainingTasks' keys
            order = self._sorted[capacity] = _Order(keys)
        return order

    def tightest_fit(self, capacity: float, load: float) -> tuple[float, int] | None:
        """The unassigned task with the smallest slack on a core at ``load``.

        Returns ``(slack, task)``; ties go to the lowest task index. The same
        answer as :meth:`RemainingTasks.tightest_fit`.
        """
        order = self._order_for(capacity)
        window = KEY_SLACK * max(self._window_scale, abs(load))
        work, deadline, tasks = self._work, self._deadline, order.tasks
        end = len(tasks)
        left = self._left_list
        pos = order.first_alive(bisect_left(order.keys, load - TIME_TOL - window), left)
        while pos < end:
            task = tasks[pos]
            if load + work[task] / capacity <= deadline[task] + TIME_TOL:
                return order.keys[pos] - load, task
            pos = order.first_alive(pos + 1, left)
        return None

    def fitting_alone(self, capacity: float) -> int:
        """How many unassigned tasks meet their deadline alone on a core of ``capacity``."""
        if capacity not in self._alone:
            mask = self._tasks_of.fits_alone(capacity)
            alive = np.zeros(len(mask), dtype=bool)
            alive[self.indices()] = True
            self._alone[capacity] = mask.tolist()
            self._alone_count[capacity] = int(np.count_nonzero(mask & alive))
        return self._alone_count[capacity]

    def remove(self, task: int) -> None:
        """Mark ``task`` as assigned; the orders skip it when they next meet it."""
        super().remove(task)
        self._left_list[task] = False
        for capacity, fits in self._alone.items():
            if fits[task]:
                self._alone_count[capacity] -= 1
