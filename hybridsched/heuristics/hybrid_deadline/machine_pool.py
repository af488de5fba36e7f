"""Machine provisioning shared by the hybrid-deadline heuristics (CDF, FFD).

Both heuristics grow the pool of cores the same way (Algorithm 1, lines 2-14
of Wang et al. 2016): first the unused PM with the most capacity, then, when
no PM is left, a VM of the type chosen by rules C1-C3.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

import numpy as np

from hybridsched.errors import MethodFailedError
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance

#: Relative width of the window around a fit boundary in which a latest-start key
#: (``d - w / r``, rounded) is re-checked with the checker's own expression.
KEY_SLACK = 1e-12


class RemainingTasks:
    """The unassigned tasks, with one latest-start ordering per core capacity.

    For a core of capacity ``r`` the *latest start* of task ``i`` is
    ``a_i = d_i - w_i / r``: the task meets its deadline on a core whose
    current load is ``L`` exactly when ``a_i >= L``. Each ordering is a sorted
    list of ``(a_i, i)``, built on first use and kept in step with removals,
    so "the tightest task that still fits" is one binary search.

    Rounding: the key ``d - w / r`` and the checker's test
    ``load + w / r <= d + TIME_TOL`` can disagree in the last bits near the
    boundary. The binary search therefore starts a hair early and every
    candidate is confirmed with the checker's expression (the same floating
    point operations as the finish times :func:`from_core_sequences`
    computes), so a heuristic never places a task the checker would reject.
    """

    def __init__(self, instance: Instance):
        self._instance = instance
        self._left = np.ones(instance.n_tasks, dtype=bool)
        self._count = instance.n_tasks
        self._orders: dict[float, list[tuple[float, int]]] = {}
        self._keys: dict[float, np.ndarray] = {}
        self._scale = max(1.0, float(np.abs(instance.deadline).max(initial=0.0)))

    def __len__(self) -> int:
        return self._count

    def __contains__(self, task: int) -> bool:
        return bool(self._left[task])

    def indices(self) -> np.ndarray:
        """Indices of the unassigned tasks, ascending."""
        return np.flatnonzero(self._left)

    def order(self, capacity: float) -> list[tuple[float, int]]:
        """Sorted ``(latest start, task)`` pairs of unassigned tasks for ``capacity``."""
        if capacity not in self._orders:
            keys = self._instance.deadline - self._instance.work / capacity
            idx = self.indices()
            ranked = idx[np.lexsort((idx, keys[idx]))]
            self._keys[capacity] = keys
            self._orders[capacity] = list(zip(keys[ranked].tolist(), ranked.tolist(), strict=True))
        return self._orders[capacity]

    def tightest_fit(self, capacity: float, load: float) -> tuple[float, int] | None:
        """The unassigned task with the smallest slack on a core at ``load``.

        Returns ``(slack, task)``; ties go to the lowest task index.
        """
        order = self.order(capacity)
        slack = KEY_SLACK * max(self._scale, abs(load))
        work, deadline = self._instance.work, self._instance.deadline
        for pos in range(bisect_left(order, (load - TIME_TOL - slack, -1)), len(order)):
            latest_start, task = order[pos]
            if load + work[task] / capacity <= deadline[task] + TIME_TOL:
                return latest_start - load, task
        return None

    def fits(self, task: int, capacity: float, load: float = 0.0) -> bool:
        """Whether ``task`` meets its deadline on a core of ``capacity`` at ``load``.

        The checker's own test (finish ``load + w / r`` against ``d + TIME_TOL``).
        """
        inst = self._instance
        return bool(load + inst.work[task] / capacity <= inst.deadline[task] + TIME_TOL)

    def fitting_alone(self, capacity: float) -> int:
        """How many unassigned tasks meet their deadline alone on a core of ``capacity``."""
        return int(np.count_nonzero(self._instance.fits_alone(capacity) & self._left))

    def remove(self, task: int) -> None:
        """Mark ``task`` as assigned."""
        self._left[task] = False
        self._count -= 1
        for capacity, order in self._orders.items():
            entry = (float(self._keys[capacity][task]), task)
            pos = bisect_left(order, entry)
            if pos < len(order) and order[pos] == entry:
                order.pop(pos)


@dataclass(frozen=True)
class NewMachine:
    """A machine just added to the pool: its solution number and core shape."""

    number: int
    cores: int
    capacity: float
    vm_type: int | None = None


class MachinePool:
    """Adds machines in the paper's order and records which VMs were rented."""

    def __init__(self, instance: Instance):
        self._instance = instance
        # Most total capacity first; then faster cores; then instance order.
        self._pm_queue = sorted(
            range(len(instance.pms)),
            key=lambda k: (-instance.pms[k].cores * instance.pms[k].capacity,
                           -instance.pms[k].capacity, k),
        )
        self.vm_types: list[int] = []
        #: Machine numbers in the order they were added (PMs, then VMs).
        self.added: list[int] = []

    @property
    def pms_left(self) -> int:
        """Number of PMs not yet added."""
        return len(self._pm_queue)

    def add_next(self, remaining: RemainingTasks, task: int | None = None) -> NewMachine:
        """Add the next PM, or rent a VM once every PM is in use.

        ``task``: the task a VM is rented for (FFD); see :meth:`choose_vm_type`.
        """
        if self._pm_queue:
            k = self._pm_queue.pop(0)
            pm = self._instance.pms[k]
            self.added.append(k)
            return NewMachine(k, pm.cores, pm.capacity)
        return self.rent_vm(remaining, task)

    def choose_vm_type(self, remaining: RemainingTasks, task: int | None = None) -> int:
        """Pick a VM type by the paper's rules C1-C3.

        C1: the type can finish every remaining task running alone. C2: best
        cost-performance ratio (GHz of all cores per dollar-hour). C3: lowest
        price. Reading for the case the paper leaves open: when no type meets
        C1, C1 is relaxed to "finishes the most remaining tasks alone", so the
        tasks that only fast types can run still find one.

        With ``task`` (FFD, which places one given task at a time), C1 is
        "finishes ``task`` alone": the VM is rented for the task at hand, so
        renting it always places that task (a proof of progress).

        Raises
        ------
        MethodFailedError
            When no type can finish any remaining task (or ``task``) alone:
            renting more VMs could never place it.
        """
        types = self._instance.vm_types
        if task is not None:
            candidates = [t for t, vm in enumerate(types) if remaining.fits(task, vm.capacity)]
            if not candidates:
                raise MethodFailedError(
                    f"task {self._instance.task_ids[task]} fits on no core left: every PM is "
                    "in use and no VM type can finish it alone by its deadline"
                )
        else:
            fitting = [remaining.fitting_alone(vm.capacity) for vm in types]
            most = max(fitting, default=0)
            if most == 0:
                raise MethodFailedError(
                    "no VM type can finish any of the remaining tasks: "
                    + ", ".join(self._instance.task_ids[i] for i in remaining.indices()[:10])
                )
            candidates = [t for t, f in enumerate(fitting) if f == most]
        return min(candidates, key=lambda t: (-types[t].performance_per_dollar, types[t].price, t))

    def rent_vm(self, remaining: RemainingTasks, task: int | None = None) -> NewMachine:
        """Rent one VM of the type :meth:`choose_vm_type` selects."""
        limit = self._instance.max_vms
        if limit is not None and len(self.vm_types) >= limit:
            raise MethodFailedError(
                f"VM limit ({limit}) reached with {len(remaining)} tasks unassigned"
            )
        t = self.choose_vm_type(remaining, task)
        self.vm_types.append(t)
        vm = self._instance.vm_types[t]
        number = len(self._instance.pms) + len(self.vm_types) - 1
        self.added.append(number)
        return NewMachine(number, vm.cores, vm.capacity, t)
