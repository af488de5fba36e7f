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
from typing import Any

import numpy as np


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
