"""The realised schedule of a ``malleable`` instance.

Each job ran on one resource (``resource[j]``) in pieces: piece ``k`` gives
job ``job[k]`` processors ``cpu[k] .. cpu[k] + count[k] - 1`` of that resource
from minute ``start[k]`` to ``end[k]``. Online methods also attach their event
log (arrivals, decisions, starts, ends, reschedulings); the checker
recomputes everything from the pieces and compares the log with them
(:mod:`hybridsched.malleable.event_log`), as it compares the values a file
states (``reported``; ``optimised`` names the metric a stated ``objective`` is).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from hybridsched.malleable.instance import Instance


@dataclass(frozen=True, eq=False)
class Solution:
    """Pieces of a schedule as parallel arrays (see the module docstring)."""

    resource: np.ndarray
    job: np.ndarray
    start: np.ndarray
    end: np.ndarray
    cpu: np.ndarray
    count: np.ndarray
    events: tuple[dict[str, Any], ...] = ()
    reported: dict[str, float] = field(default_factory=dict)
    optimised: str = "penalised_a"

    @property
    def n_pieces(self) -> int:
        """Number of pieces."""
        return len(self.job)

    def to_frame(self, instance: Instance | None = None) -> pd.DataFrame:
        """The schedule as a table: one row per piece (a job on processors for a while).

        Parameters
        ----------
        instance : Instance, optional
            The instance scheduled: adds the names and the deadlines.

        Returns
        -------
        pandas.DataFrame
            Columns (times in minutes, as in instance files):

            ``piece``
                Piece index (solution order).
            ``job``, ``resource``
                Job index and the index of the resource it ran on.
            ``start_min``, ``end_min``, ``duration_min``
                When the piece ran.
            ``first_cpu``, ``cpus``
                Its processors: ``first_cpu .. first_cpu + cpus - 1``.

            With ``instance``, also ``job_id``, ``resource_id``,
            ``arrival_min`` and ``deadline_min`` (absolute).

        Examples
        --------
        >>> from hybridsched import load_instance, run_method
        >>> family, inst = load_instance("instances/malleable/batch-04.json")
        >>> solution = run_method(family.name, "tree", inst).solution
        >>> frame = solution.to_frame(inst)
        >>> len(frame) == solution.n_pieces
        True
        >>> sorted(set(frame["job_id"])) == sorted(inst.job_ids)
        True
        """
        import pandas as pd

        resource = np.asarray(self.resource, dtype=np.int64)
        frame = pd.DataFrame({
            "piece": np.arange(self.n_pieces), "job": self.job, "resource": resource[self.job],
            "start_min": self.start, "end_min": self.end, "duration_min": self.end - self.start,
            "first_cpu": self.cpu, "cpus": self.count})
        if instance is None:
            return frame
        ids = [r.id for r in instance.resources]
        return frame.assign(
            job_id=[instance.job_ids[j] for j in self.job.tolist()],
            resource_id=[ids[r] if 0 <= r < len(ids) else None
                         for r in frame["resource"].tolist()],
            arrival_min=np.asarray(instance.arrival)[self.job],
            deadline_min=np.asarray(instance.deadline)[self.job])

    def job_end(self, n_jobs: int) -> np.ndarray:
        """Last minute of work of each job (-1 for a job without pieces)."""
        ends = np.full(n_jobs, -1, dtype=np.int64)
        np.maximum.at(ends, self.job, self.end)
        return ends


def from_pieces(n_jobs: int, resource: list[int] | np.ndarray, pieces: list[tuple[int, int, int,
                int, int]], events: tuple[dict[str, Any], ...] = ()) -> Solution:
    """Build a :class:`Solution` from ``(job, start, end, cpu, count)`` tuples."""
    arr = np.array(pieces, dtype=np.int64).reshape(-1, 5)
    return Solution(resource=np.asarray(resource, dtype=np.int64).reshape(n_jobs),
                    job=arr[:, 0], start=arr[:, 1], end=arr[:, 2], cpu=arr[:, 3],
                    count=arr[:, 4], events=tuple(events))
