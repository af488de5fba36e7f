"""First Fit Decreasing (FFD), the baseline of Wang et al. (2016).

Tasks in decreasing order of work (ties: lowest index) each go to the first
core, in the order machines were added and then by core number, on which they
meet their deadline. When no core fits, machines are added exactly as CDF
adds them (most capacious unused PM, then a VM chosen by C1-C3) until one
does. First fit is vectorised over all cores with numpy.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

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
    """Schedule ``instance`` with First Fit Decreasing (deterministic)."""
    remaining = RemainingTasks(instance)
    pool = MachinePool(instance)
    table = _CoreTable()
    sequences: dict[tuple[int, int], list[int]] = {}
    order = np.lexsort((np.arange(instance.n_tasks), -instance.work))
    for task in order.tolist():
        work, deadline = float(instance.work[task]), float(instance.deadline[task])
        k = table.first_fit(work, deadline)
        while k is None:
            machine = pool.add_next(remaining)
            table.add_machine(machine.number, machine.cores, machine.capacity)
            k = table.first_fit(work, deadline)
        table.load[k] += work / table.capacity[k]
        sequences.setdefault((int(table.machine[k]), int(table.core[k])), []).append(task)
        remaining.remove(task)
    solution = from_core_sequences(
        instance.n_tasks, pool.vm_types, sequences, durations_function(instance, pool.vm_types)
    )
    return replace(solution, notes={"machine_order": tuple(pool.added)})
