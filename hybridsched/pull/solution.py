"""The realised schedule of a ``pull`` instance: every task (replica) a host ran.

Task ``k`` ran work unit ``unit[k]`` on host ``host[k]`` from ``start[k]``
(its schedule time, SCH) to ``end[k]``, with ``outcome[k]``:

``correct``  the result came back at ``end`` and passed verification;
``wrong``    the result came back at ``end`` and failed verification;
``never``    the host worked until ``end`` and returned nothing;
``lost``     the host left at ``end`` (the end of its window) and lost the task;
``cancelled`` still running when the last work unit completed (at ``end``).

``delay[k]`` is the factor on the expected completion time (1: in time). A
returned task lasts ``ECT x delay``; a never-returned one its ECT.

``events`` is the simulation's event log (``None``: the schedule comes
without one), and ``reported`` what a solution file states about the
schedule (``makespan``, ``objective``, ``cost``, ``efficiency``, counts):
the checker compares both with the tasks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from hybridsched.pull.schema import OUTCOMES

if TYPE_CHECKING:
    import pandas as pd

    from hybridsched.pull.instance import Instance

CORRECT, WRONG, NEVER, LOST, CANCELLED = range(len(OUTCOMES))


@dataclass(frozen=True, eq=False)
class Solution:
    """Task records as arrays (see the module docstring)."""

    unit: np.ndarray
    host: np.ndarray
    start: np.ndarray
    end: np.ndarray
    delay: np.ndarray
    outcome: np.ndarray
    events: tuple[dict[str, Any], ...] | None = None
    reported: dict[str, float] = field(default_factory=dict)

    @property
    def n_tasks(self) -> int:
        """Number of tasks (replicas) scheduled."""
        return len(self.unit)

    def to_frame(self, instance: Instance | None = None) -> pd.DataFrame:
        """The schedule as a table: one row per task (a replica of a unit on a host).

        Parameters
        ----------
        instance : Instance, optional
            The instance scheduled: adds the names and the hosts' DCIs.

        Returns
        -------
        pandas.DataFrame
            Columns (times in seconds, as in instance files):

            ``task``
                Task index (solution order).
            ``unit``, ``host``
                Work unit index and host index.
            ``start_s``, ``end_s``, ``duration_s``
                When the host worked on it (``start_s``: its schedule time).
            ``delay``
                Factor on the expected completion time (1: in time).
            ``outcome``
                ``correct``, ``wrong``, ``never``, ``lost`` or ``cancelled``
                (module docstring), a categorical column.

            With ``instance``, also ``unit_id``, ``host_id`` and ``dci``.

        Examples
        --------
        >>> from hybridsched.pull.generator import small_instance
        >>> from hybridsched import run_method
        >>> inst = small_instance(1)
        >>> solution = run_method("pull", "fcfs", inst).solution
        >>> frame = solution.to_frame(inst)
        >>> len(frame) == solution.n_tasks
        True
        >>> set(frame["outcome"]) <= {"correct", "wrong", "never", "lost", "cancelled"}
        True
        """
        import pandas as pd

        frame = pd.DataFrame({
            "task": np.arange(self.n_tasks), "unit": self.unit, "host": self.host,
            "start_s": self.start, "end_s": self.end, "duration_s": self.end - self.start,
            "delay": self.delay,
            "outcome": pd.Categorical.from_codes(self.outcome, categories=list(OUTCOMES))})
        if instance is None:
            return frame
        return frame.assign(
            unit_id=[instance.unit_ids[u] for u in self.unit.tolist()],
            host_id=[instance.host_ids[h] for h in self.host.tolist()],
            dci=[instance.dci[h] for h in self.host.tolist()])

    def completion(self, n_units: int) -> np.ndarray:
        """Time of each unit's first correct result (``inf`` when none)."""
        done = np.full(n_units, np.inf)
        ok = self.outcome == CORRECT
        np.minimum.at(done, self.unit[ok], self.end[ok])
        return done


def from_records(records: list[tuple[int, int, float, float, float, int]],
                 events: tuple[dict[str, Any], ...] | None = None) -> Solution:
    """Build a :class:`Solution` from ``(unit, host, start, end, delay, outcome)`` tuples."""
    if records:
        unit, host, start, end, delay, outcome = (np.array(c) for c in zip(*records,
                                                                           strict=True))
    else:
        unit = host = outcome = np.zeros(0, dtype=np.int64)
        start = end = delay = np.zeros(0)
    return Solution(unit.astype(np.int64), host.astype(np.int64), start.astype(float),
                    end.astype(float), delay.astype(float), outcome.astype(np.int64),
                    None if events is None else tuple(events))
