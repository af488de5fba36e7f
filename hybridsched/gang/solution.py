"""The realised schedule of a ``gang`` instance.

``start[j]`` is the start time of job ``j`` (NaN when it did not run);
``task_job[k], task_vm[k]`` give the VM of each task of the started jobs.
``dropped`` maps a job index to the reason the method gave.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class Solution:
    """Start times and task placements (see the module docstring)."""

    start: np.ndarray
    task_job: np.ndarray
    task_vm: np.ndarray
    dropped: dict[int, str] = field(default_factory=dict)
    events: tuple[dict[str, Any], ...] = ()
    reported: dict[str, float] = field(default_factory=dict)

    @property
    def started(self) -> np.ndarray:
        """Indices of the jobs that ran."""
        return np.flatnonzero(~np.isnan(self.start))


def from_starts(n_jobs: int, starts: dict[int, tuple[float, list[int]]],
                dropped: dict[int, str] | None = None,
                events: tuple[dict[str, Any], ...] = ()) -> Solution:
    """Build a :class:`Solution` from ``{job: (start, [vm, ...])}``."""
    start = np.full(n_jobs, np.nan)
    jobs: list[int] = []
    vms: list[int] = []
    for j, (t, placed) in sorted(starts.items()):
        start[j] = t
        jobs += [j] * len(placed)
        vms += list(placed)
    return Solution(start, np.array(jobs, dtype=np.int64), np.array(vms, dtype=np.int64),
                    dict(dropped or {}), tuple(events))
