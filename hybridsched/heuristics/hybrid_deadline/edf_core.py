"""Cores whose tasks run in deadline order: the fit test of Wang et al.'s model (Section 3.1).

The paper's model orders each core's tasks by deadline: "If all the tasks
scheduled to a core can be completed within respective deadlines,
respectively, they can run in sequential order by their deadlines in
ascending fashion to meet the deadlines" (Section 3.1, before constraints
(1)-(2)). Under that reading a task *fits* a core when the core's tasks plus
it, run back to back by ascending deadline, all meet their deadlines; the new
task is inserted before every task with a later deadline (after those with an
equal one), which delays them. This is the ``fit="edf"`` reading of CDF and
FFD; ``fit="append"`` runs tasks in the order they were placed.

Every accepted placement is confirmed with the checker's own arithmetic (the
cumulative sum :func:`~hybridsched.hybrid_deadline.solution.from_core_sequences`
computes, against ``deadline + TIME_TOL``), so a rounding difference between
the vectorised screens and that sum can only turn a fit down, never let an
invalid schedule through.
"""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance


class EdfCore:
    """One core: its tasks sorted by (deadline, placement), their finishes and slacks."""

    def __init__(self, instance: Instance, capacity: float):
        self._instance = instance
        self.capacity = capacity
        self.tasks: list[int] = []
        self._keys: list[float] = []
        self.deadlines = np.zeros(0)
        self.ends = np.zeros(0)
        #: ``suffix_slack[p]``: least ``deadline - finish`` of the tasks at positions >= p
        #: (``inf`` past the last), i.e. how far those tasks can still be pushed back.
        self.suffix_slack = np.array([np.inf])

    @property
    def load(self) -> float:
        """Finish of the last task (0 when empty)."""
        return float(self.ends[-1]) if len(self.ends) else 0.0

    def position(self, deadline: float) -> int:
        """Where a task of ``deadline`` goes: after every task due no later."""
        return bisect_right(self._keys, deadline)

    def screen(self, tasks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Finish time and fit of each of ``tasks`` if inserted alone (vectorised).

        Returns ``(finish, fits)``: the task's own finish in deadline order and
        whether it and every task it delays still meet their deadlines.
        """
        work, deadline = self._instance.work[tasks], self._instance.deadline[tasks]
        run = work / self.capacity
        pos = np.searchsorted(self.deadlines, deadline, side="right")
        before = np.concatenate(([0.0], self.ends))[pos]
        finish = before + run
        fits = (finish <= deadline + TIME_TOL) & (run <= self.suffix_slack[pos] + TIME_TOL)
        return finish, fits

    def confirm(self, task: int) -> bool:
        """Whether inserting ``task`` passes the checker's own test, exactly."""
        pos = self.position(float(self._instance.deadline[task]))
        order = np.asarray(self.tasks[:pos] + [task] + self.tasks[pos:], dtype=int)
        ends = np.cumsum(self._instance.work[order] / self.capacity)
        return bool(np.all(ends <= self._instance.deadline[order] + TIME_TOL))

    def insert(self, task: int) -> None:
        """Insert ``task`` in deadline order and update finishes and slacks."""
        d = float(self._instance.deadline[task])
        pos = self.position(d)
        self.tasks.insert(pos, task)
        self._keys.insert(pos, d)
        order = np.asarray(self.tasks, dtype=int)
        self.deadlines = self._instance.deadline[order]
        self.ends = np.cumsum(self._instance.work[order] / self.capacity)
        slack = self.deadlines - self.ends
        self.suffix_slack = np.concatenate((np.minimum.accumulate(slack[::-1])[::-1], [np.inf]))
