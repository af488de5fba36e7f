"""Exact model of the hybrid-deadline problem: the paper's BNP, linearised.

Wang et al. (2016) state a binary *nonlinear* program (the lease term takes
the ceiling of each VM's latest finish). It is linearised here:

* ``x[i, c]`` = 1 when task ``i`` runs on core ``c``; pairs where the task
  cannot meet its deadline even alone on ``c`` are not created.
* Every task on exactly one core.
* Deadlines, per core, as EDF prefix sums: for every deadline value ``D`` of
  the tasks that may run on ``c``, the run time of ``c``'s tasks with deadline
  ``<= D`` is at most ``D``. Tasks of one core run in EDF order, which meets
  every deadline exactly when these inequalities hold. Inequalities that
  cannot bind are dropped.
* VMs are *slots* of a type; ``h[s]`` (integer) are the billed hours of slot
  ``s``, at least the load of each of its cores (VMs start at time 0).
* Objective: ``sum price[type(s)] * h[s]``.

Strengthening and symmetry breaking:

* PM cores are free, so all PM cores of equal capacity are interchangeable:
  their loads are ordered non-increasingly.
* Within a VM slot, core loads are non-increasing, so only core 0 bounds
  ``h[s]``; across slots of one type, core-0 loads are non-increasing.
* Slot counts come from a feasible heuristic solution of cost ``UB``: a
  solution at most as expensive rents at most ``floor(UB / price)`` VMs of a
  type (each rented VM bills at least one hour), so the model never misses a
  better solution because too few slots were created. Slots are also capped
  by the number of tasks that can run on the type and by ``max_vms``.
* The heuristic solution, permuted to satisfy the ordering, is given to
  HiGHS as a warm start, and ``h[s] <= floor(UB / price)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from hybridsched.hybrid_deadline.checker import billed_hours, rent_cost
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences
from hybridsched.models.highs import SolveOutcome, solve_with_highs
from hybridsched.result import Result, Status


@dataclass(frozen=True)
class Core:
    """A core of the model: on PM ``owner`` or on VM slot ``owner``."""

    on_vm: bool
    owner: int
    number: int
    capacity: float


@dataclass
class BNPModel:
    """A built model and the maps needed to read a schedule back from it.

    Attributes
    ----------
    model:
        The Pyomo model (variables ``x``, ``h``; objective ``rent_cost``).
    cores:
        Model cores, indexed like the second index of ``x``.
    slot_types:
        VM type index of each slot.
    pairs:
        Allowed ``(task, core)`` pairs.
    upper_bound:
        Cost of the warm-start solution (``None`` without one).
    """

    model: pyo.ConcreteModel
    instance: Instance
    cores: list[Core]
    slot_types: list[int]
    pairs: list[tuple[int, int]]
    upper_bound: float | None


def _slot_counts(instance: Instance, upper_bound: float | None) -> list[int]:
    counts = []
    for vm in instance.vm_types:
        n = int(instance.fits_alone(vm.capacity).sum())
        if upper_bound is not None:
            n = min(n, math.floor(upper_bound / vm.price + 1e-9))
        if instance.max_vms is not None:
            n = min(n, instance.max_vms)
        counts.append(n)
    return counts


def build(instance: Instance, start: Solution | None = None) -> BNPModel:
    """Build the linearised BNP, sized (and warm-started) by ``start``.

    Parameters
    ----------
    instance:
        The instance.
    start:
        A feasible solution; its cost bounds the VM slots and it becomes
        the MIP start. Without it, each type gets as many slots as tasks.
    """
    upper_bound = rent_cost(instance, start) if start is not None else None
    cores: list[Core] = []
    pm_groups: dict[float, list[int]] = {}
    for k, pm in enumerate(instance.pms):
        for l_ in range(pm.cores):
            pm_groups.setdefault(pm.capacity, []).append(len(cores))
            cores.append(Core(False, k, l_, pm.capacity))
    slot_types: list[int] = []
    slot_cores: list[list[int]] = []
    for t, count in enumerate(_slot_counts(instance, upper_bound)):
        vm = instance.vm_types[t]
        for _ in range(count):
            s = len(slot_types)
            slot_types.append(t)
            slot_cores.append(list(range(len(cores), len(cores) + vm.cores)))
            cores.extend(Core(True, s, l_, vm.capacity) for l_ in range(vm.cores))

    work, deadline = instance.work, instance.deadline
    allowed = {c: np.flatnonzero(instance.fits_alone(core.capacity)) for c, core in
               enumerate(cores)}
    pairs = [(int(i), c) for c in range(len(cores)) for i in allowed[c]]
    run = {(i, c): float(work[i] / cores[c].capacity) for i, c in pairs}
    on_core: dict[int, list[int]] = {c: [int(i) for i in allowed[c]] for c in allowed}
    on_task: dict[int, list[int]] = {i: [] for i in range(instance.n_tasks)}
    for i, c in pairs:
        on_task[i].append(c)

    m = pyo.ConcreteModel(name=f"bnp[{instance.name}]")
    m.x = pyo.Var(pairs, domain=pyo.Binary)
    hour_cap = [
        math.floor(upper_bound / instance.vm_types[t].price + 1e-9)
        if upper_bound is not None
        else math.ceil(float(deadline.max(initial=0.0)) - TIME_TOL)
        for t in slot_types
    ]
    m.h = pyo.Var(range(len(slot_types)), domain=pyo.NonNegativeIntegers,
                  bounds=lambda _m, s: (0, hour_cap[s]))

    def load(c: int):
        return sum(run[i, c] * m.x[i, c] for i in on_core[c])

    m.assign = pyo.Constraint(range(instance.n_tasks),
                              rule=lambda _m, i: sum(m.x[i, c] for c in on_task[i]) == 1)
    m.deadlines = pyo.ConstraintList()
    for c, tasks in on_core.items():
        ordered = sorted(tasks, key=lambda i: deadline[i])
        total = 0.0
        prefix: list[int] = []
        for pos, i in enumerate(ordered):
            prefix.append(i)
            total += run[i, c]
            last_of_value = pos + 1 == len(ordered) or deadline[ordered[pos + 1]] > deadline[i]
            if last_of_value and total > deadline[i] + TIME_TOL:
                m.deadlines.add(sum(run[j, c] * m.x[j, c] for j in prefix) <= float(deadline[i]))
    m.lease = pyo.Constraint(range(len(slot_types)),
                             rule=lambda _m, s: m.h[s] >= load(slot_cores[s][0]))
    m.symmetry = pyo.ConstraintList()
    for group in pm_groups.values():
        for a, b in zip(group, group[1:], strict=False):
            m.symmetry.add(load(a) >= load(b))
    for s, owned in enumerate(slot_cores):
        for a, b in zip(owned, owned[1:], strict=False):
            m.symmetry.add(load(a) >= load(b))
        if s + 1 < len(slot_types) and slot_types[s + 1] == slot_types[s]:
            m.symmetry.add(load(owned[0]) >= load(slot_cores[s + 1][0]))
    if instance.max_vms is not None and slot_types:
        m.used = pyo.Var(range(len(slot_types)), domain=pyo.Binary)
        m.use_link = pyo.Constraint(range(len(slot_types)),
                                    rule=lambda _m, s: m.h[s] <= hour_cap[s] * m.used[s])
        m.vm_limit = pyo.Constraint(expr=sum(m.used.values()) <= instance.max_vms)
    m.rent_cost = pyo.Objective(
        expr=sum(instance.vm_types[t].price * m.h[s] for s, t in enumerate(slot_types)),
        sense=pyo.minimize,
    )
    built = BNPModel(m, instance, cores, slot_types, pairs, upper_bound)
    if start is not None:
        _set_start(built, start, pm_groups, slot_cores)
    return built


def _set_start(
    built: BNPModel, start: Solution, pm_groups: dict[float, list[int]],
    slot_cores: list[list[int]],
) -> None:
    """Load ``start`` into the variables, permuted to respect symmetry breaking."""
    instance, m = built.instance, built.model
    n_pm = len(instance.pms)
    run_time = start.finish - start.start
    per_core: dict[tuple[int, int], list[int]] = {}
    for i in range(instance.n_tasks):
        per_core.setdefault((int(start.machine[i]), int(start.core[i])), []).append(i)

    def core_load(key: tuple[int, int]) -> float:
        return float(sum(run_time[i] for i in per_core.get(key, [])))

    placement: dict[int, list[int]] = {}
    for group in pm_groups.values():
        real = [(built.cores[c].owner, built.cores[c].number) for c in group]
        real.sort(key=lambda key: -core_load(key))
        for c, key in zip(group, real, strict=True):
            placement[c] = per_core.get(key, [])
    by_type: dict[int, list[int]] = {}
    for j, t in enumerate(start.vm_types):
        by_type.setdefault(t, []).append(n_pm + j)
    hours = {}
    for t, vms in by_type.items():
        cores = instance.vm_types[t].cores
        ranked = [sorted(((vm, c) for c in range(cores)), key=lambda key: -core_load(key))
                  for vm in vms]
        ranked.sort(key=lambda keys: -core_load(keys[0]))
        slots = [s for s, st in enumerate(built.slot_types) if st == t]
        for s, keys in zip(slots, ranked, strict=False):
            for c, key in zip(slot_cores[s], keys, strict=True):
                placement[c] = per_core.get(key, [])
            hours[s] = billed_hours(core_load(keys[0]))
    for i, c in built.pairs:
        m.x[i, c].set_value(0)
    for c, tasks in placement.items():
        for i in tasks:
            m.x[i, c].set_value(1)
    for s in range(len(built.slot_types)):
        m.h[s].set_value(hours.get(s, 0))
    if hasattr(m, "used"):
        for s in range(len(built.slot_types)):
            m.used[s].set_value(1 if hours.get(s, 0) > 0 else 0)


def extract(built: BNPModel) -> Solution:
    """Read the schedule from the variables' values: EDF order on every core."""
    instance = built.instance
    chosen: dict[int, list[int]] = {}
    for i, c in built.pairs:
        value = built.model.x[i, c].value
        if value is not None and value > 0.5:
            chosen.setdefault(c, []).append(i)
    used_slots = sorted({built.cores[c].owner for c in chosen if built.cores[c].on_vm})
    vm_number = {s: j for j, s in enumerate(used_slots)}
    vm_types = [built.slot_types[s] for s in used_slots]
    n_pm = len(instance.pms)
    sequences = {}
    for c, tasks in chosen.items():
        core = built.cores[c]
        machine = n_pm + vm_number[core.owner] if core.on_vm else core.owner
        sequences[(machine, core.number)] = sorted(tasks, key=lambda i: (instance.deadline[i], i))

    return from_core_sequences(instance.n_tasks, vm_types, sequences,
                               durations_function(instance, vm_types))


def solve(
    instance: Instance,
    start: Solution | None = None,
    *,
    time_limit: float | None = None,
    verbose: bool = False,
) -> Result:
    """Build, solve and extract; fall back on ``start`` when HiGHS has no incumbent.

    Returns a :class:`Result` with status ``OPTIMAL``, ``TIME_LIMIT`` (best
    incumbent with the proven bound) or ``INFEASIBLE``.
    """
    if start is not None and rent_cost(instance, start) == 0:
        # Nothing rented: no schedule is cheaper, so no model needs solving.
        return Result("exact", "hybrid-deadline", Status.OPTIMAL, solution=start, bound=0.0,
                      message="a heuristic schedule rents nothing")
    built = build(instance, start)
    outcome: SolveOutcome = solve_with_highs(
        built.model, time_limit=time_limit, warm_start=start is not None, verbose=verbose
    )
    if outcome.status is Status.INFEASIBLE:
        return Result("exact", "hybrid-deadline", Status.INFEASIBLE, message=outcome.message)
    solution = extract(built) if outcome.has_incumbent else start
    if solution is not None and start is not None and rent_cost(instance, start) < rent_cost(
        instance, solution
    ):
        solution = start
    if solution is None:
        return Result("exact", "hybrid-deadline", Status.NO_SOLUTION, bound=outcome.bound,
                      message="time limit reached before any solution was found")
    return Result("exact", "hybrid-deadline", outcome.status, solution=solution,
                  bound=outcome.bound, message=outcome.message)
