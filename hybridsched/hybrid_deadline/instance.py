"""Instance of the deadline-constrained hybrid-cloud problem (Wang et al. 2016).

Units: time in hours, capacity in GHz per core, work in GHz-hours (the run
time of a task on a 1 GHz core), price in dollars per VM-hour. A task of work
``w`` takes ``w / r`` hours on a core of capacity ``r``.

Instances are immutable: arrays are made read-only at construction, and
derived values are computed on demand, never cached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Absolute tolerance (hours) when comparing finish times with deadlines:
#: about 4 microseconds, far below any trace's one-second resolution.
TIME_TOL = 1e-9


def _frozen(values: Any, dtype: type) -> np.ndarray:
    array = np.array(values, dtype=dtype)
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class PM:
    """A physical machine of the local cloud (free to use)."""

    id: str
    cores: int
    capacity: float


@dataclass(frozen=True)
class VMType:
    """A public-cloud VM type, billed per started hour from time 0."""

    id: str
    cores: int
    capacity: float
    price: float

    @property
    def performance_per_dollar(self) -> float:
        """Cost-performance ratio (C2 of the paper): GHz of all cores per dollar-hour."""
        return self.cores * self.capacity / self.price


@dataclass(frozen=True, eq=False)
class Instance:
    """A validated, immutable hybrid-deadline instance.

    Tasks are stored as parallel arrays indexed ``0..T-1`` in file order.

    Attributes
    ----------
    name:
        Instance name.
    task_ids, task_job:
        Task identifiers and the identifier of each task's job.
    work:
        Work of each task (GHz-hours).
    deadline:
        Deadline of each task (its job's deadline, hours from time 0).
    pms, vm_types:
        Local machines and the public-cloud catalogue.
    max_vms:
        Upper limit on rented VMs (``None``: unlimited).
    reference:
        Recorded optimum or bounds, e.g. ``{"optimal_cost": 0.42}``.
    provenance:
        Free-form description of where the instance comes from.
    """

    name: str
    task_ids: tuple[str, ...]
    task_job: tuple[str, ...]
    work: np.ndarray
    deadline: np.ndarray
    pms: tuple[PM, ...]
    vm_types: tuple[VMType, ...]
    max_vms: int | None = None
    reference: dict[str, Any] | None = None
    provenance: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "work", _frozen(self.work, float))
        object.__setattr__(self, "deadline", _frozen(self.deadline, float))

    @property
    def n_tasks(self) -> int:
        """Number of tasks."""
        return len(self.task_ids)

    @property
    def pm_cores(self) -> np.ndarray:
        """Core count of each PM."""
        return np.array([pm.cores for pm in self.pms], dtype=int)

    @property
    def pm_capacity(self) -> np.ndarray:
        """Per-core capacity of each PM (GHz)."""
        return np.array([pm.capacity for pm in self.pms], dtype=float)

    def fits_alone(self, capacity: float) -> np.ndarray:
        """Mask of tasks that meet their deadline alone on a core of ``capacity``."""
        return self.work / capacity <= self.deadline + TIME_TOL

    def unplaceable_tasks(self) -> list[str]:
        """Tasks that no core (PM or any VM type) can finish by the deadline alone.

        With unlimited VMs this is exactly the set of tasks that make the
        instance infeasible.
        """
        fastest = max(
            [pm.capacity for pm in self.pms] + [vm.capacity for vm in self.vm_types],
            default=0.0,
        )
        if fastest <= 0:
            return list(self.task_ids)
        mask = ~self.fits_alone(fastest)
        return [self.task_ids[i] for i in np.flatnonzero(mask)]
