"""First Fit Decreasing (FFD), the baseline of Wang et al. (2016).

Tasks in decreasing order of work (ties: lowest index) each go to the first
core, in the order machines were added and then by core number, on which they
meet their deadline. When no core fits, machines are added as CDF adds them
(most capacious unused PM first) until one does; once every PM is in use, a
VM is rented *for the task at hand*: C1 is "the type finishes this task
alone", then C2-C3 as in CDF.

Proof of progress: each task adds at most one machine per PM plus one VM, and
that VM's empty core takes the task; when no PM is left and no VM type can
finish the task alone, FFD stops with :class:`MethodFailedError` naming the
task (renting more VMs could never place it). First fit is vectorised over all
cores with numpy, with the checker's own test ``load + w / r <= d + TIME_TOL``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hybridsched.errors import MethodFailedError
from hybridsched.heuristics.machine_pool import MachinePool, RemainingTasks
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences


class _CoreTable:
    """Growable arrays of every core added so far (load, capacity, machine, core)."""

    def __init__(self) -> None:
        self.size = 0
        self.load = np.zeros(64)
        self.capacity = np.ones(64)
        self.machine = np.zeros(64, dtype=int)
        self.core = np.zeros(64, dtype=int)

    def add_machine(self, number: int, cores: int, capacity: float) -> None:
        while self.size + cores > len(self.load):
            grow = len(self.load)
            self.load = np.concatenate([self.load, np.zeros(grow)])
            self.capacity = np.concatenate([self.capacity, np.ones(grow)])
            self.machine = np.concatenate([self.machine, np.zeros(grow, dtype=int)])
            self.core = np.concatenate([self.core, np.zeros(grow, dtype=int)])
        span = slice(self.size, self.size + cores)
        self.capacity[span] = capacity
        self.machine[span] = number
        self.core[span] = np.arange(cores)
        self.size += cores

    def first_fit(self, work: float, deadline: float) -> int | None:
        n = self.size
        fits = self.load[:n] + work / self.capacity[:n] <= deadline + TIME_TOL
        k = int(np.argmax(fits)) if n else 0
        return k if n and fits[k] else None


def ffd(
    instance: Instance, *, seed: int | None = None, time_limit: float | None = None
) -> Solution:
    """Schedule ``instance`` with First Fit Decreasing (deterministic).

    Raises
    ------
    MethodFailedError
        If the VM limit is reached or a task fits no core that can still be added.
    """
    remaining = RemainingTasks(instance)
    pool = MachinePool(instance)
    table = _CoreTable()
    sequences: dict[tuple[int, int], list[int]] = {}
    order = np.lexsort((np.arange(instance.n_tasks), -instance.work))
    for task in order.tolist():
        work, deadline = float(instance.work[task]), float(instance.deadline[task])
        k = table.first_fit(work, deadline)
        while k is None:
            machine = pool.add_next(remaining, task)
            table.add_machine(machine.number, machine.cores, machine.capacity)
            k = table.first_fit(work, deadline)
            if k is None and machine.vm_type is not None:  # unreachable: rented for this task
                raise MethodFailedError(
                    f"task {instance.task_ids[task]} does not fit the VM rented for it"
                )
        table.load[k] += work / table.capacity[k]
        sequences.setdefault((int(table.machine[k]), int(table.core[k])), []).append(task)
        remaining.remove(task)
    solution = from_core_sequences(
        instance.n_tasks, pool.vm_types, sequences, durations_function(instance, pool.vm_types)
    )
    return replace(solution, notes={"machine_order": tuple(pool.added)})
