"""A schedule for a hybrid-deadline instance."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from hybridsched.hybrid_deadline.instance import Instance

if TYPE_CHECKING:
    import pandas as pd


def vm_id(j: int) -> str:
    """Identifier of the ``j``-th rented VM (in solution files and tables)."""
    return f"vm-{j}"


@dataclass(frozen=True, eq=False)
class Solution:
    """Task-to-core assignment with start and finish times.

    Machines are numbered ``0..P-1`` for the instance's PMs (in instance
    order) and ``P + j`` for the ``j``-th rented VM, whose type index is
    ``vm_types[j]``.

    Attributes
    ----------
    vm_types:
        Type index (into ``instance.vm_types``) of each rented VM.
    machine, core, start, finish:
        Per task (instance order): machine number, core number on that
        machine, start and finish time (hours).
    reported_lease_hours, reported_cost, reported_makespan:
        What the producer claims (a lease entry may be ``None``: no claim
        for that VM); the checker recomputes each claim that is present.
    """

    vm_types: tuple[int, ...]
    machine: np.ndarray
    core: np.ndarray
    start: np.ndarray
    finish: np.ndarray
    reported_lease_hours: tuple[int | None, ...] | None = None
    reported_cost: float | None = None
    reported_makespan: float | None = None
    notes: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, dtype in (("machine", int), ("core", int), ("start", float), ("finish", float)):
            array = np.array(getattr(self, name), dtype=dtype)
            array.setflags(write=False)
            object.__setattr__(self, name, array)

    def to_frame(self, instance: Instance | None = None) -> pd.DataFrame:
        """The schedule as a table: one row per task, in instance order.

        Parameters
        ----------
        instance : Instance, optional
            The instance scheduled: adds the names and the deadlines.

        Returns
        -------
        pandas.DataFrame
            Columns (times in hours):

            ``task``
                Task index (instance order).
            ``machine``, ``core``
                Machine number (``0 .. P-1`` the PMs, ``P + j`` the ``j``-th
                rented VM) and core number on it.
            ``start_h``, ``finish_h``, ``duration_h``
                Start, finish and run time of the task.

            With ``instance``, also ``task_id``, ``job_id``, ``machine_id``
            (a PM's id, or ``vm-j`` as in solution files), ``machine_kind``
            (``"pm"`` or ``"vm"``), ``machine_type`` (the PM's id or the VM's
            type id), ``capacity_ghz`` (per core) and ``deadline_h``.

        Examples
        --------
        >>> from hybridsched import load_instance, run_method
        >>> family, inst = load_instance("instances/hybrid-deadline/small-01.json")
        >>> frame = run_method(family.name, "cdf", inst).solution.to_frame(inst)
        >>> len(frame) == inst.n_tasks
        True
        >>> list(frame.columns[:6])
        ['task', 'machine', 'core', 'start_h', 'finish_h', 'duration_h']
        >>> bool((frame["finish_h"] <= frame["deadline_h"] + 1e-9).all())
        True
        """
        import pandas as pd

        frame = pd.DataFrame({
            "task": np.arange(len(self.machine)), "machine": self.machine, "core": self.core,
            "start_h": self.start, "finish_h": self.finish,
            "duration_h": self.finish - self.start})
        if instance is None:
            return frame
        n_pm = len(instance.pms)
        on_vm = self.machine >= n_pm
        kind_of = [pm.id for pm in instance.pms] + [instance.vm_types[t].id
                                                     for t in self.vm_types]
        capacity = [pm.capacity for pm in instance.pms] + [instance.vm_types[t].capacity
                                                           for t in self.vm_types]
        ids = [pm.id for pm in instance.pms] + [vm_id(j) for j in range(len(self.vm_types))]
        known = (self.machine >= 0) & (self.machine < len(ids))
        pick = np.where(known, self.machine, 0)

        def per_machine(values: list) -> list:
            # A task without a machine (machine -1, which the checker reports) has none.
            return [values[m] if ok else None for m, ok in zip(pick.tolist(), known.tolist(),
                                                              strict=True)]

        return frame.assign(
            task_id=list(instance.task_ids), job_id=list(instance.task_job),
            machine_id=per_machine(ids),
            machine_kind=np.where(known, np.where(on_vm, "vm", "pm"), None),
            machine_type=per_machine(kind_of),
            capacity_ghz=np.array(per_machine(capacity), dtype=float),
            deadline_h=np.asarray(instance.deadline, dtype=float))


def from_core_sequences(
    n_tasks: int,
    vm_types: tuple[int, ...] | list[int],
    sequences: dict[tuple[int, int], list[int]],
    durations_on: Callable[[int], np.ndarray],
) -> Solution:
    """Build a solution from the ordered task list of every core.

    Tasks on a core run back to back from time 0 in the given order.

    Parameters
    ----------
    n_tasks:
        Number of tasks of the instance.
    vm_types:
        Type index of each rented VM.
    sequences:
        ``{(machine, core): [task, ...]}`` in execution order.
    durations_on:
        ``durations_on(machine) -> array`` of every task's run time there.
    """
    machine = np.full(n_tasks, -1, dtype=int)
    core = np.full(n_tasks, -1, dtype=int)
    start = np.zeros(n_tasks)
    finish = np.zeros(n_tasks)
    for (m, c), tasks in sequences.items():
        if not tasks:
            continue
        order = np.asarray(tasks, dtype=int)
        ends = np.cumsum(durations_on(m)[order])
        machine[order], core[order] = m, c
        finish[order] = ends
        start[order] = np.concatenate(([0.0], ends[:-1]))
    return Solution(tuple(int(v) for v in vm_types), machine, core, start, finish)


def durations_function(
    instance: Instance, vm_types: list[int] | tuple[int, ...]
) -> Callable[[int], np.ndarray]:
    """Return ``machine -> run time of every task on a core of that machine``.

    The arrays are computed once per capacity and shared (read-only): callers
    ask once per machine or per core, and a run time array per machine made
    schedules of thousands of machines quadratic in the number of tasks.
    """
    n_pm = len(instance.pms)
    by_capacity: dict[float, np.ndarray] = {}

    def durations_on(machine: int) -> np.ndarray:
        if machine < n_pm:
            capacity = instance.pms[machine].capacity
        else:
            capacity = instance.vm_types[vm_types[machine - n_pm]].capacity
        run = by_capacity.get(capacity)
        if run is None:
            run = by_capacity[capacity] = instance.work / capacity
            run.setflags(write=False)
        return run

    return durations_on
