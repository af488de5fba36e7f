"""Size and time limits of ``malleable`` instances, checked before anything runs.

Three limits guard the memory and the time range of a run:

- (job, resource) pairs (:func:`~hybridsched.io.limits.check_pairs`): schedulers
  and checkers keep job-by-resource tables;
- (job, VM count) pairs, :data:`MAX_JOB_VM_COUNTS`: each cloud scheduler keeps
  the minutes of every job on 1 .. ``max_vms`` VMs (clouds of one VM type and
  size share that table), so a cloud of 10^6 one-CPU VMs costs 10^6 entries
  per job;
- minutes: every schedule ends by :data:`~hybridsched.io.limits.MAX_MINUTES`,
  so a job that cannot end by then even alone on the fastest resource is
  refused when the instance is read (:func:`check_time_range`), and a run that
  would pass it stops with one line naming the job (:func:`check_end`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hybridsched.errors import InputError
from hybridsched.io.limits import MAX_MINUTES, check_pairs
from hybridsched.malleable.instance import Resource
from hybridsched.malleable.speedup import required_work

#: Most (job, VM count) entries the cloud schedulers' duration tables may hold.
MAX_JOB_VM_COUNTS = 50_000_000


def vm_counts(resources: Sequence[Resource]) -> int:
    """Columns of the clouds' duration tables: ``max_vms`` of each distinct cloud type."""
    kinds = {(r.cpus, r.performance, r.max_vms) for r in resources if r.is_cloud}
    return sum(max_vms for _, _, max_vms in kinds)


def check_size(jobs: int, resources: Sequence[Resource], where: str) -> None:
    """One-line :class:`InputError` naming ``where`` when a limit on tables is exceeded."""
    check_pairs(jobs, len(resources), "resources", where)
    counts = vm_counts(resources)
    if jobs * counts > MAX_JOB_VM_COUNTS:
        raise InputError(f"{where}: {jobs} jobs x {counts} VM counts of the clouds exceeds "
                         f"{MAX_JOB_VM_COUNTS:,} (job, VM count) pairs (fewer jobs, or "
                         "clouds with fewer VMs)")


def least_minutes(size: np.ndarray, serial_fraction: np.ndarray,
                  resources: Sequence[Resource]) -> np.ndarray:
    """A lower bound on the minutes each job needs, whatever resource runs it.

    The rate of a job is below both ``performance x processors`` and
    ``performance / serial_fraction`` (Amdahl), each maximised over the resources.
    """
    widest = max(r.performance * r.processors for r in resources)
    fastest = max(r.performance for r in resources)
    with np.errstate(divide="ignore"):
        best = np.minimum(widest, np.where(serial_fraction > 0,
                                           fastest / np.maximum(serial_fraction, 1e-300),
                                           np.inf))
    return np.maximum(1, np.ceil(required_work(size) / best))


def check_time_range(arrival: np.ndarray, size: np.ndarray, serial_fraction: np.ndarray,
                     resources: Sequence[Resource], where: str, job_ids: Sequence[str]
                     ) -> None:
    """Refuse a job that cannot end by :data:`MAX_MINUTES` (``where``: the file and field).

    ``where`` is completed with the job's index: ``f"{where}.{j}.arrival"``.
    """
    if not len(arrival):
        return
    late = np.flatnonzero(arrival + least_minutes(size, serial_fraction, resources)
                          > MAX_MINUTES)
    if late.size:
        j = int(late[0])
        raise InputError(f"{where}.{j}.arrival: job {job_ids[j]!r} arrives at minute "
                         f"{int(arrival[j])} and cannot end by minute {MAX_MINUTES}, the last "
                         "a schedule may reach")


def check_end(instance_name: str, job_id: str, end: int) -> None:
    """Stop a run whose schedule would end after :data:`MAX_MINUTES` (one line, the job)."""
    if end > MAX_MINUTES:
        raise InputError(f"instance {instance_name!r}: job {job_id!r} would end at minute "
                         f"{end}, after minute {MAX_MINUTES}, the last a schedule may reach "
                         "(too much work arrives too late for the time range)")
