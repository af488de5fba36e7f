"""Hybrid-deadline schedules as EDF task lists per core: the state both local searches edit.

:class:`State` holds a schedule as one task list per core (PM cores, then
the cores of each rented VM), each kept in EDF order (by deadline, then task
index), with the cores' loads and the VMs' billed hours. A task is inserted
only where every deadline of the core still holds, by the checker's own test
(finish ``<= deadline + TIME_TOL``, finishes as sequential sums), so every
state is a valid schedule. The ruin-and-recreate search
(:mod:`hybridsched.heuristics.hybrid_deadline.lns`) and the packing search
(:mod:`hybridsched.heuristics.hybrid_deadline.lns_packing`) both edit it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences


def billed(lease: float) -> int:
    """Billed hours of a lease, as the checker counts them."""
    return int(math.ceil(lease - TIME_TOL)) if lease > TIME_TOL else 0


@dataclass
class Core:
    """One core: its capacity, its machine (PM or rented VM) and its tasks in EDF order."""

    capacity: float
    vm: int | None  # index into State.vms, None for a PM core
    machine: int  # PM index (PM cores) or -1
    number: int
    tasks: list[int] = field(default_factory=list)  # EDF order
    load: float = 0.0


@dataclass
class VM:
    """A rented VM: its type, its cores (indices into :attr:`State.cores`), whether kept."""

    type: int
    cores: list[int]
    alive: bool = True


class State:
    """A schedule as EDF-ordered task lists per core, with VM costs."""

    def __init__(self, instance: Instance):
        self.inst = instance
        self.deadline = instance.deadline.tolist()
        self.limit = [d + TIME_TOL for d in self.deadline]
        self.key = [(d, i) for i, d in enumerate(self.deadline)]
        self.run: dict[float, list[float]] = {}
        self.cores: list[Core] = []
        self.vms: list[VM] = []
        self.where = [-1] * instance.n_tasks
        for k, pm in enumerate(instance.pms):
            for c in range(pm.cores):
                self.cores.append(Core(pm.capacity, None, k, c))

    def runs(self, capacity: float) -> list[float]:
        """Run time of every task on a core of this capacity (cached)."""
        if capacity not in self.run:
            self.run[capacity] = (self.inst.work / capacity).tolist()
        return self.run[capacity]

    def fits_alone(self, task: int, capacity: float) -> bool:
        """Whether ``task`` meets its deadline alone on a core of this capacity."""
        return self.runs(capacity)[task] <= self.limit[task]

    def add_vm(self, t: int) -> int:
        """Rent a VM of type ``t`` (its cores empty); return its index."""
        vm = self.inst.vm_types[t]
        numbers = list(range(len(self.cores), len(self.cores) + vm.cores))
        self.vms.append(VM(t, numbers))
        for c in range(vm.cores):
            self.cores.append(Core(vm.capacity, len(self.vms) - 1, -1, c))
        return len(self.vms) - 1

    def vm_hours(self, v: int) -> int:
        """Billed hours of VM ``v``: its most loaded core's."""
        return billed(max(self.cores[c].load for c in self.vms[v].cores))

    def cost(self) -> float:
        """Rent of the VMs kept."""
        return sum(self.inst.vm_types[vm.type].price * self.vm_hours(v)
                   for v, vm in enumerate(self.vms) if vm.alive)

    def vm_work(self) -> float:
        """Total load (run time) of the cores of the VMs kept."""
        return sum(core.load for core in self.cores if core.vm is not None
                   and self.vms[core.vm].alive)

    def spread(self) -> float:
        """Sum of the squared loads of the VM cores kept (larger: more concentrated)."""
        return sum(core.load ** 2 for core in self.cores if core.vm is not None
                   and self.vms[core.vm].alive)

    def try_insert(self, task: int, c: int) -> tuple[list[int], float] | None:
        """The core's task list and load with ``task`` inserted, if every deadline holds."""
        core = self.cores[c]
        run = self.runs(core.capacity)
        limit, key = self.limit, self.key
        mine = key[task]
        finish = 0.0
        pos = 0
        tasks = core.tasks
        for j in tasks:  # tasks due before ``task`` keep their (valid) finish times
            if key[j] > mine:
                break
            finish += run[j]
            pos += 1
        finish += run[task]
        if finish > limit[task]:
            return None
        for j in tasks[pos:]:
            finish += run[j]
            if finish > limit[j]:
                return None
        return tasks[:pos] + [task] + tasks[pos:], finish

    def place(self, task: int, c: int, tasks: list[int], load: float) -> None:
        """Put ``task`` on core ``c`` with the list and load :meth:`try_insert` gave."""
        core = self.cores[c]
        core.tasks, core.load = tasks, load
        self.where[task] = c

    def remove(self, task: int) -> None:
        """Take ``task`` off its core (the others keep their order)."""
        core = self.cores[self.where[task]]
        core.tasks.remove(task)
        run = self.runs(core.capacity)
        finish = 0.0
        for j in core.tasks:
            finish += run[j]
        core.load = finish
        self.where[task] = -1

    def alive_vms(self) -> int:
        """Number of VMs kept."""
        return sum(vm.alive for vm in self.vms)

    def copy(self) -> State:
        """An independent copy without the VMs given up (keeps the lists short)."""
        other = State.__new__(State)
        other.inst, other.deadline, other.limit = self.inst, self.deadline, self.limit
        other.key, other.run = self.key, self.run
        other.cores, other.vms = [], []
        remap: dict[int, int] = {}
        for c, core in enumerate(self.cores):
            if core.vm is None:
                remap[c] = len(other.cores)
                other.cores.append(Core(core.capacity, None, core.machine, core.number,
                                         list(core.tasks), core.load))
        for vm in self.vms:
            if not vm.alive:
                continue
            numbers = []
            for c in vm.cores:
                core = self.cores[c]
                remap[c] = len(other.cores)
                numbers.append(len(other.cores))
                other.cores.append(Core(core.capacity, len(other.vms), -1, core.number,
                                         list(core.tasks), core.load))
            other.vms.append(VM(vm.type, numbers))
        other.where = [remap[c] if c >= 0 else -1 for c in self.where]
        return other

    def to_solution(self) -> Solution:
        """The family's schedule of this state (VMs without tasks left out)."""
        n_pm = len(self.inst.pms)
        vm_types: list[int] = []
        number: dict[int, int] = {}
        for v, vm in enumerate(self.vms):
            if vm.alive and any(self.cores[c].tasks for c in vm.cores):
                number[v] = n_pm + len(vm_types)
                vm_types.append(vm.type)
        sequences: dict[tuple[int, int], list[int]] = {}
        for core in self.cores:
            if core.tasks:
                machine = core.machine if core.vm is None else number[core.vm]
                sequences[(machine, core.number)] = list(core.tasks)
        return from_core_sequences(self.inst.n_tasks, vm_types, sequences,
                                   durations_function(self.inst, vm_types))


def state_from(instance: Instance, solution: Solution) -> State | None:
    """The schedule as a :class:`State` (EDF order per core), or ``None`` if it fails."""
    state = State(instance)
    n_pm = len(instance.pms)
    for t in solution.vm_types:
        state.add_vm(int(t))
    offsets, total = [], 0
    for pm in instance.pms:
        offsets.append(total)
        total += pm.cores
    for i in sorted(range(instance.n_tasks), key=lambda i: state.key[i]):
        m, c = int(solution.machine[i]), int(solution.core[i])
        index = offsets[m] + c if m < n_pm else state.vms[m - n_pm].cores[c]
        inserted = state.try_insert(i, index)
        if inserted is None:
            return None
        state.place(i, index, *inserted)
    return state
