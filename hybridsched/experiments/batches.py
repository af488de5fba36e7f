"""Runs shipped to cluster workers in batches, sized by how long runs take.

A run sent to a Dask worker on its own pays a round trip through the
scheduler (tens of milliseconds with the scheduler in the driver process),
which dwarfs a heuristic's few milliseconds. Runs therefore travel in
batches: :func:`execute_batch` runs them one after the other on the worker
and sends their rows back together. Runs are planned instance after instance,
so a batch holds the methods of one or a few instances, loaded once per
worker (:func:`~.runner.execute_run` keeps the last instances it loaded).

:class:`BatchSizer` chooses a batch's size: one run at a time until a few
rows have shown how long runs take, then enough runs for about
:data:`TARGET_BATCH_S` of work, at most :data:`BATCH_MAX`, and never so many
that fewer than :data:`BATCHES_PER_THREAD` batches per worker thread are
left for the others to share at the end.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from hybridsched.experiments.runner import execute_run
from hybridsched.experiments.runs import Run

#: Most runs in one batch (a batch's rows are stored only when it is done).
BATCH_MAX = 16
#: Work per batch aimed at: the round trip, and the driver's share of a core that the
#: scheduler takes per task, are then a few percent of it (0.5 s measured 1.66x serial
#: and 2.05 s of driver CPU on 200 runs of ~170 ms, 2.0 s 1.88x and 1.23 s). The end of
#: a campaign stays shared (BATCHES_PER_THREAD), and a Ctrl-C loses at most a batch
#: per worker (rows are stored as batches finish).
TARGET_BATCH_S = 2.0
#: Batches per worker thread kept among the runs left, so that the end is shared.
BATCHES_PER_THREAD = 4
#: Rows measured per worker thread before runs are batched.
MEASURED_PER_THREAD = 2
#: Recent rows the typical run time is the median of.
RECENT_ROWS = 64


def execute_batch(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """Run ``runs`` in order on this worker and return their rows (never raises)."""
    return [execute_run(run) for run in runs]


class BatchSizer:
    """How many runs the next batch takes, from the run times seen so far."""

    def __init__(self, threads: int, seen: Iterable[float] = ()) -> None:
        self.threads = max(1, threads)
        self.durations = [float(s) for s in seen]

    def observe(self, seconds: float | None) -> None:
        """Record a finished run's wall time (``None`` when unknown)."""
        if seconds is not None and seconds >= 0:
            self.durations.append(float(seconds))
            del self.durations[:-RECENT_ROWS]

    def size(self, left: int) -> int:
        """Runs for the next batch when ``left`` runs wait to be sent."""
        if left <= 0:
            return 0
        if len(self.durations) < MEASURED_PER_THREAD * self.threads:
            return 1
        typical = max(statistics.median(self.durations), 1e-4)
        by_time = int(TARGET_BATCH_S / typical)
        by_share = -(-left // (BATCHES_PER_THREAD * self.threads))  # ceil
        return max(1, min(BATCH_MAX, by_time, by_share, left))
