"""The energetic LP relaxation of the rent cost: its variables and rows, in floats and exactly.

One definition serves both sides: the LP solver builds its matrix from the
float functions here (:mod:`hybridsched.models.hybrid_deadline.bound`), and
the proof checker (:mod:`hybridsched.hybrid_deadline.bound_check`) rebuilds
every row it needs from the instance with :class:`fractions.Fraction`, so a
recorded bound never rests on the solver's matrix.

The relaxation (all tasks are released at time 0)
--------------------------------------------------
*Core classes.* Identical cores are pooled: one class per distinct PM
capacity (its ``cores`` summed over the PMs that have it) and one per VM
type. A task is *eligible* for a class when it can finish there alone by its
deadline; tasks may only go to eligible classes.

*Variables.* ``x[i, k]`` in ``[0, 1]``: the share of task ``i`` on class
``k`` (one per eligible pair), cost 0. ``z[t, h]`` in ``[0, U]``, ``h = 1 ..
H``: how many VMs of type ``t`` are billed at least ``h`` hours, cost
``price_t``; so ``sum_h z[t, h]`` is type ``t``'s billed hours. ``U`` is the
number of tasks (a VM without tasks may be dropped from any schedule without
raising its cost) or ``max_vms``.

*Rows* (keys as the proof stores them):

* ``("a", i)``: ``sum_k x[i, k] >= 1`` (every task runs somewhere);
* ``("m", t, h)``: ``z[t, h] - z[t, h + 1] >= 0`` (a VM billed ``h + 1`` hours is billed ``h``);
* ``("n", i, t)``: ``z[t, k_i] - x[i, t] >= 0`` with ``k_i = ceil(p_it - TOL)``: a task on
  a VM of type ``t`` ends after ``p_it``, so some VM is billed ``k_i`` hours;
* ``("M",)``: ``sum_t z[t, 1] <= max_vms`` when the catalogue is limited;
* ``("p", k, a, b)``: energetic reasoning on PM class ``k`` over the window
  ``[a, b]``: ``sum_i E_ik(a, b) x[i, k] <= cores_k (b - a)``;
* ``("v", t, a, b)``: the same on VM type ``t``, whose capacity in the window
  is what its billed VMs offer: ``sum_i E_it(a, b) x[i, t] - cores_t sum_h
  |[h - 1, h] & [a, b]| z[t, h] <= cores_t U TOL``.

``E_ik(a, b)`` is the least time task ``i`` must spend inside ``[a, b]`` on a
core of class ``k`` wherever it starts in ``[0, D_i - p_ik]`` (``p_ik`` its
run time there, ``D_i`` its deadline plus ``TOL``): the smaller overlap of
its two extreme placements (the overlap of a sliding interval with a fixed
window is unimodal, so the minimum is at an end).

*Why every schedule the checker accepts satisfies it* (reading of
:mod:`hybridsched.hybrid_deadline.timeline`): real starts are ``>= 0``, real
ends ``<= deadline + TOL``, tasks on a core never overlap in real time, so a
core of class ``k`` holds at most ``b - a`` of task time inside ``[a, b]``
and each task at least ``E_ik(a, b)``. A VM billed ``H`` hours has its latest
real end ``<= H + TOL``, so each of its cores offers at most ``|[0, H] & [a,
b]| + TOL`` inside the window; summed over the (at most ``U``) VMs that hold
a task this is the right-hand side above. Mapping a schedule to ``x`` (1 on
its class) and ``z`` (its VMs' billed hours) gives a feasible point whose
cost is the schedule's rent cost, so the LP minimum, and any dual bound on
it, is a lower bound.

Windows ``[a, b]`` are any binary64 numbers (the row is valid for every
window); the proof stores them as floats and the checker reads them exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.timeline import EXACT_TOL, decimal

#: Relative slack of the eligibility test: a pair a little beyond the float
#: test is kept (a relaxation may hold extra pairs; it must not lose one).
ELIGIBLE_RTOL = 1e-9


@dataclass(frozen=True)
class CoreClass:
    """Identical cores pooled: a PM capacity class or a VM type.

    Attributes
    ----------
    kind:
        ``"pm"`` or ``"vm"``.
    capacity:
        GHz per core.
    cores:
        Cores of the class (PM: all PMs of that capacity; VM: one VM's).
    price:
        Dollars per VM-hour (0 for PMs).
    type_index:
        Index in ``instance.vm_types`` (``-1`` for PMs).
    """

    kind: str
    capacity: float
    cores: int
    price: float = 0.0
    type_index: int = -1


@dataclass(frozen=True)
class Layout:
    """Variables of the relaxation of one instance (deterministic in the instance).

    Attributes
    ----------
    classes:
        PM classes by increasing capacity, then VM types in catalogue order.
    pair_task, pair_class:
        The eligible ``(task, class)`` pairs, column ``j`` is ``x[pair_task[j], pair_class[j]]``.
    hours:
        ``H``: the ``z`` columns of each VM class are ``h = 1 .. H``.
    vm_classes:
        Indices (in ``classes``) of the VM classes, in order; ``z[t, h]`` is
        column ``n_pairs + position(t) * H + h - 1``.
    z_upper:
        ``U``, the upper bound of every ``z``.
    """

    classes: tuple[CoreClass, ...]
    pair_task: np.ndarray
    pair_class: np.ndarray
    hours: int
    vm_classes: tuple[int, ...]
    z_upper: int

    @property
    def n_pairs(self) -> int:
        """Number of ``x`` columns."""
        return len(self.pair_task)

    @property
    def n_columns(self) -> int:
        """Number of columns (``x`` then ``z``)."""
        return self.n_pairs + len(self.vm_classes) * self.hours

    def z_column(self, vm_position: int, hour: int) -> int:
        """Column of ``z[t, hour]`` for the ``vm_position``-th VM class."""
        return self.n_pairs + vm_position * self.hours + hour - 1


def core_classes(instance: Instance) -> tuple[CoreClass, ...]:
    """PM capacity classes (increasing capacity) then usable VM types (catalogue order)."""
    pooled: dict[float, int] = {}
    for pm in instance.pms:
        if pm.cores > 0 and pm.capacity > 0:
            pooled[pm.capacity] = pooled.get(pm.capacity, 0) + pm.cores
    classes = [CoreClass("pm", cap, cores) for cap, cores in sorted(pooled.items())]
    if instance.max_vms != 0:
        classes += [CoreClass("vm", vm.capacity, vm.cores, vm.price, t)
                    for t, vm in enumerate(instance.vm_types)
                    if vm.cores > 0 and vm.capacity > 0]
    return tuple(classes)


def layout(instance: Instance) -> Layout:
    """The relaxation's columns for ``instance``."""
    classes = core_classes(instance)
    tasks, owners = [], []
    limit = (instance.deadline + TIME_TOL) * (1 + ELIGIBLE_RTOL) + 1e-12
    for k, cls in enumerate(classes):
        fits = np.flatnonzero(instance.work / cls.capacity <= limit)
        tasks.append(fits)
        owners.append(np.full(len(fits), k))
    pair_task = np.concatenate(tasks) if tasks else np.zeros(0, dtype=int)
    pair_class = np.concatenate(owners) if owners else np.zeros(0, dtype=int)
    order = np.lexsort((pair_class, pair_task))  # task-major: rows of one task are adjacent
    vm_classes = tuple(k for k, cls in enumerate(classes) if cls.kind == "vm")
    horizon = float(instance.deadline.max()) if instance.n_tasks else 0.0
    upper = instance.n_tasks if instance.max_vms is None else min(instance.n_tasks,
                                                                  instance.max_vms)
    return Layout(classes, pair_task[order].astype(int), pair_class[order].astype(int),
                  hours=max(1, math.ceil(horizon) + 1) if vm_classes else 0,
                  vm_classes=vm_classes, z_upper=max(0, upper))


def energy(run: np.ndarray, due: np.ndarray, a: float, b: np.ndarray | float) -> np.ndarray:
    """``E(a, b)`` in floats for tasks of run times ``run`` and deadlines ``due`` (+TOL).

    Broadcasts: ``run``/``due`` of shape ``(n, 1)`` and ``b`` of shape ``(m,)`` give ``(n, m)``.
    """
    left = np.minimum(run, b) - a
    right = np.minimum(due, b) - np.maximum(due - run, a)
    return np.maximum(0.0, np.minimum(left, right))


def energy_exact(run: Fraction, due: Fraction, a: Fraction, b: Fraction) -> Fraction:
    """``E(a, b)`` exactly (see the module docstring)."""
    left = min(run, b) - a
    right = min(due, b) - max(due - run, a)
    return max(Fraction(0), min(left, right))


def hour_overlap(hour: int, a: float, b: float) -> float:
    """``|[hour - 1, hour] & [a, b]|`` in floats."""
    return max(0.0, min(float(hour), b) - max(float(hour - 1), a))


def hour_overlap_exact(hour: int, a: Fraction, b: Fraction) -> Fraction:
    """``|[hour - 1, hour] & [a, b]|`` exactly."""
    return max(Fraction(0), min(Fraction(hour), b) - max(Fraction(hour - 1), a))


def run_exact(instance: Instance, task: int, cls: CoreClass) -> Fraction:
    """Exact run time of ``task`` on a core of ``cls`` (the decimals the file holds)."""
    return decimal(instance.work[task]) / decimal(cls.capacity)


def due_exact(instance: Instance, task: int) -> Fraction:
    """Exact latest real end of ``task``: its deadline plus ``TIME_TOL``."""
    return decimal(instance.deadline[task]) + EXACT_TOL


def need_hours(run: Fraction) -> int:
    """Billed hours a VM needs to hold a task of run time ``run`` (``ceil(run - TOL)``, >= 0)."""
    return max(0, math.ceil(run - EXACT_TOL))
