"""The realised schedule of a ``gang`` instance.

``start[j]`` is the start time of job ``j`` (NaN when it did not run);
``task_job[k], task_vm[k]`` give the VM of each task of the started jobs.
``dropped`` maps a job index to the reason the method gave. ``missed`` maps
a started job that did not finish by its deadline (a deadline-oblivious
policy started it, :mod:`hybridsched.heuristics.gang.baselines`) to what
happened to it: ``"killed"`` (its tasks stop at its deadline, which frees
its VMs) or ``"late"`` (it ran to completion after it). Such a job holds
its VMs but counts as unfinished (:mod:`hybridsched.gang.checker`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from hybridsched.gang.instance import Instance


@dataclass(frozen=True, eq=False)
class Solution:
    """Start times and task placements (see the module docstring)."""

    start: np.ndarray
    task_job: np.ndarray
    task_vm: np.ndarray
    dropped: dict[int, str] = field(default_factory=dict)
    events: tuple[dict[str, Any], ...] = ()
    reported: dict[str, float] = field(default_factory=dict)
    missed: dict[int, str] = field(default_factory=dict)

    @property
    def started(self) -> np.ndarray:
        """Indices of the jobs that ran (those in :attr:`missed` among them)."""
        return np.flatnonzero(~np.isnan(self.start))

    def to_frame(self, instance: Instance | None = None) -> pd.DataFrame:
        """The schedule as a table: one row per task of a job that ran (a job on a VM).

        Jobs that did not run have no task, so no row (:attr:`dropped` gives
        why); :attr:`start` has every job.

        Parameters
        ----------
        instance : Instance, optional
            The instance scheduled: adds the names, the end times and the deadlines.

        Returns
        -------
        pandas.DataFrame
            Columns (times in the paper's time units, as in instance files):

            ``task``
                Task index (solution order).
            ``job``, ``vm``
                Job index and VM index.
            ``start``
                The job's start (all its tasks start together: gang start).

            With ``instance``, also ``job_id``, ``vm_id``, ``duration``
            (``instructions / speed`` of the task on its VM), ``end``
            (``start + duration``, as stated: the checker's real times may
            differ by rounding; a killed job's tasks end at its deadline at
            the latest), ``arrival`` and ``due`` (the job's absolute
            deadline).

        Examples
        --------
        >>> from hybridsched import load_instance, run_method
        >>> family, inst = load_instance("instances/gang/small-10.json")
        >>> solution = run_method(family.name, "fifo", inst).solution
        >>> frame = solution.to_frame(inst)
        >>> len(frame) == len(solution.task_job)
        True
        >>> bool((frame["start"] >= frame["arrival"] - 1e-9).all())
        True
        """
        import pandas as pd

        frame = pd.DataFrame({"task": np.arange(len(self.task_job)), "job": self.task_job,
                              "vm": self.task_vm, "start": self.start[self.task_job]})
        if instance is None:
            return frame
        duration = (np.asarray(instance.instructions, dtype=float)[self.task_job]
                    / np.asarray(instance.speed, dtype=float)[self.task_vm])
        due = np.asarray(instance.due, dtype=float)[self.task_job]
        end = frame["start"].to_numpy() + duration
        killed = [j for j, what in self.missed.items() if what == "killed"]
        if killed:
            end = np.where(np.isin(self.task_job, killed), np.minimum(end, due), end)
        return frame.assign(
            job_id=[instance.job_ids[j] for j in self.task_job.tolist()],
            vm_id=[instance.vm_ids[v] for v in self.task_vm.tolist()],
            duration=duration, end=end,
            arrival=np.asarray(instance.arrival, dtype=float)[self.task_job], due=due)


def from_starts(n_jobs: int, starts: dict[int, tuple[float, list[int]]],
                dropped: dict[int, str] | None = None,
                events: tuple[dict[str, Any], ...] = (),
                missed: dict[int, str] | None = None) -> Solution:
    """Build a :class:`Solution` from ``{job: (start, [vm, ...])}`` (``missed``: see above)."""
    start = np.full(n_jobs, np.nan)
    jobs: list[int] = []
    vms: list[int] = []
    for j, (t, placed) in sorted(starts.items()):
        start[j] = t
        jobs += [j] * len(placed)
        vms += list(placed)
    return Solution(start, np.array(jobs, dtype=np.int64), np.array(vms, dtype=np.int64),
                    dict(dropped or {}), tuple(events), missed=dict(missed or {}))
