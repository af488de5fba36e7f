"""The frozen domain model of the ``gang`` family: parallel jobs on space-shared VMs.

A job arrives at ``arrival`` with ``parallelism`` identical tasks, each of
``instructions`` (time units on a VM of processing ability 1) and demanding
``memory``, ``bandwidth`` and ``disk`` of the VM it runs on; it must end by
``arrival + deadline``. A VM runs one task at a time; a task takes
``instructions / speed`` on it. A job starts when ``parallelism`` free VMs
that each meet its demands are available at once (gang start) and ends when
its slowest task ends. Disk is optional (the paper leaves it out): a VM
without a disk capacity fits any disk demand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class Instance:
    """Jobs and VMs as numpy arrays (job order, VM order)."""

    name: str
    job_ids: tuple[str, ...]
    arrival: np.ndarray
    parallelism: np.ndarray
    instructions: np.ndarray
    memory: np.ndarray
    bandwidth: np.ndarray
    disk: np.ndarray
    deadline: np.ndarray
    vm_ids: tuple[str, ...]
    speed: np.ndarray
    vm_memory: np.ndarray
    vm_bandwidth: np.ndarray
    vm_disk: np.ndarray
    reference: dict[str, Any] | None = None
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def n_jobs(self) -> int:
        """Number of jobs."""
        return len(self.job_ids)

    @property
    def n_vms(self) -> int:
        """Number of VMs."""
        return len(self.vm_ids)

    @property
    def due(self) -> np.ndarray:
        """Absolute deadlines."""
        return self.arrival + self.deadline

    def fits(self) -> np.ndarray:
        """``fits[j, v]``: VM ``v`` meets job ``j``'s memory, bandwidth and disk demands."""
        return ((self.vm_memory[None, :] >= self.memory[:, None])
                & (self.vm_bandwidth[None, :] >= self.bandwidth[:, None])
                & (self.vm_disk[None, :] >= self.disk[:, None]))

    def task_time(self) -> np.ndarray:
        """``time[j, v]``: one task of job ``j`` on VM ``v``."""
        return self.instructions[:, None] / self.speed[None, :]
