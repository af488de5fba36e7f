"""The hybrid-deadline exact model: the paper's BNP, linearised (Pyomo), and its building.

Wang et al. (2016) state a binary *nonlinear* program (the lease term takes
the ceiling of each VM's latest finish). It is linearised here:

* ``x[i, c]`` = 1 when task ``i`` runs on core ``c``; pairs where the task
  cannot meet its deadline even alone on ``c`` (the checker's test
  ``w / r <= d + TIME_TOL``) are not created.
* Every task on exactly one core.
* Deadlines, per core, as EDF prefix sums: for every deadline value ``D`` of
  the tasks that may run on ``c``, the run time of ``c``'s tasks with deadline
  ``<= D`` is at most ``D + TIME_TOL``. Tasks of one core run back to back in
  EDF order, which meets every deadline (as the checker tests it) exactly
  when these inequalities hold. Inequalities that cannot bind are dropped;
  on cores where the prefixes would be long (trace instances: hundreds of
  tasks), the same inequalities go through one cumulative-load variable per
  row, so the model grows linearly, not quadratically, with the tasks.
* VMs are *slots* of a type; ``h[s]`` (integer) are the billed hours of slot
  ``s``: ``h[s] >= load - TIME_TOL`` for its cores (the checker bills
  ``ceil(lease - TIME_TOL)`` hours from time 0), and ``h[s] >= ceil(run)`` for
  each task on it.
* Objective: ``sum price[type(s)] * h[s]``.

Soundness (the checker is ground truth): the checker judges a schedule by
its real timeline (:mod:`hybridsched.hybrid_deadline.timeline`): each core's
tasks back to back from their stated starts, real ends recomputed from the
work in exact arithmetic, ``TIME_TOL`` granted once per deadline and once
per hour boundary. By Jackson's rule the EDF order of a core's tasks meets
every deadline whenever any order does, so the feasible set here (EDF prefix
sums against ``D + TIME_TOL``, leases against ``H + TIME_TOL``) contains
every schedule the checker accepts, at a cost no higher; a proof of
infeasibility and the dual bound hold for the real problem.

Strengthening (none of it removes an optimum):

* Symmetry-breaking rows (ordering the loads of identical cores or slots)
  were measured and left out: HiGHS's own symmetry detection does better
  without them (60-task benchmark: maximum proof time 6.8 s instead of 15 s).
* Slot counts come from a checked solution of cost ``UB``: a solution at most
  as expensive rents at most ``floor(UB / price)`` VMs of a type that bill an
  hour or more, plus at most one free VM (billed 0 hours) per task whose run
  time is within ``TIME_TOL``. Slots are also capped by the number of tasks
  that can run on the type and by ``max_vms``; hours by ``UB / price`` and by
  the latest deadline.
* The warm start is given to HiGHS
  (:func:`~hybridsched.models.hybrid_deadline.milp_start.load_start`).

Rows that reduce to a constant (e.g. a lease row of a core that can run no
task, or the assignment row of a task that fits on no core) are decided when
built: skipped when true, recorded as a proof of infeasibility when false;
Pyomo never sees a trivial Boolean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.core.expr.numeric_expr import LinearExpression

from hybridsched.budget import TimeBudget
from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.models.hybrid_deadline.cores import Core
from hybridsched.models.hybrid_deadline.sizing import CHAIN_FROM, floor_ratio, slot_counts

#: Row terms built between two checks of the time budget (about 20 ms of building at
#: the measured 1.7-20 us per term, so a build overruns its budget by no more).
_CHECK_EVERY = 1_000


@dataclass
class BNPModel:
    """A built model and the maps needed to read a schedule back from it.

    Attributes
    ----------
    model:
        The Pyomo model (variables ``x``, ``h``; objective ``rent_cost``).
    cores:
        Model cores, indexed like the second index of ``x``.
    slot_types, slot_cores:
        VM type index and model cores of each slot.
    pairs:
        Allowed ``(task, core)`` pairs.
    upper_bound:
        Cost of the warm-start solution (``None`` without one).
    infeasible:
        Reasons found while building that prove the model infeasible (empty
        when none).
    """

    model: pyo.ConcreteModel
    instance: Instance
    cores: list[Core]
    slot_types: list[int]
    slot_cores: list[list[int]]
    pairs: list[tuple[int, int]]
    upper_bound: float | None
    infeasible: list[str] = field(default_factory=list)
    warm_start_loaded: bool = False
    #: Cumulative-load rows: (variable, previous variable or None, [(run, x), ...]).
    chains: list[tuple[Any, Any, list[tuple[float, Any]]]] = field(default_factory=list)


def _hour_cap(instance: Instance, t: int, upper_bound: float | None) -> int:
    """Largest useful billed hours of a VM of type ``t``."""
    vm = instance.vm_types[t]
    fits = instance.fits_alone(vm.capacity)
    latest = float(instance.deadline[fits].max(initial=0.0))
    cap = math.ceil(latest) + 1  # billed = ceil(lease - TOL) with lease <= latest + TOL
    if upper_bound is not None:
        cap = min(cap, floor_ratio(upper_bound, vm.price))
    return max(0, cap)


def linear(coefs: list[float], variables: list) -> LinearExpression:
    """``sum coefs[j] * variables[j]``, built directly (no expression tree to walk)."""
    return LinearExpression(constant=0.0, linear_coefs=coefs, linear_vars=variables)


def build_model(
    instance: Instance,
    start: Solution | None = None,
    *,
    budget: TimeBudget | None = None,
) -> BNPModel:
    """Build the linearised BNP, sized by ``start`` (not warm-started).

    :func:`~hybridsched.models.hybrid_deadline.milp.build` also loads ``start`` as the MIP start.

    Parameters
    ----------
    instance:
        The instance.
    start:
        A solution the checker accepts; its cost bounds the VM slots and
        hours. Without it, each type gets as many slots as tasks that fit
        on it.
    budget:
        Checked before the variables are made and while rows are built
        (every :data:`_CHECK_EVERY` row terms).

    Raises
    ------
    BudgetExpired
        When the budget runs out while building.
    """
    budget = budget or TimeBudget(None)
    upper_bound = rent_cost(instance, start) if start is not None else None
    cores: list[Core] = []
    for k, pm in enumerate(instance.pms):
        for l_ in range(pm.cores):
            cores.append(Core(False, k, l_, pm.capacity))
    slot_types: list[int] = []
    slot_cores: list[list[int]] = []
    for t, count in enumerate(slot_counts(instance, upper_bound)):
        vm = instance.vm_types[t]
        for _ in range(count):
            s = len(slot_types)
            slot_types.append(t)
            slot_cores.append(list(range(len(cores), len(cores) + vm.cores)))
            cores.extend(Core(True, s, l_, vm.capacity) for l_ in range(vm.cores))

    work, deadline = instance.work, instance.deadline
    allowed_by_capacity: dict[float, np.ndarray] = {}
    for core in cores:
        if core.capacity not in allowed_by_capacity:
            fits = np.flatnonzero(instance.fits_alone(core.capacity))
            allowed_by_capacity[core.capacity] = fits[np.lexsort((fits, deadline[fits]))]
    pairs = [(int(i), c) for c, core in enumerate(cores)
             for i in allowed_by_capacity[core.capacity]]
    on_task: dict[int, list[int]] = {i: [] for i in range(instance.n_tasks)}
    for i, c in pairs:
        on_task[i].append(c)

    budget.check("building the model")
    m = pyo.ConcreteModel(name=f"bnp[{instance.name}]")
    m.x = pyo.Var(pairs, domain=pyo.Binary)
    budget.check("building the model")
    caps = {t: _hour_cap(instance, t, upper_bound) for t in set(slot_types)}
    m.h = pyo.Var(range(len(slot_types)), domain=pyo.NonNegativeIntegers,
                  bounds=lambda _m, s: (0, caps[slot_types[s]]))
    built = BNPModel(m, instance, cores, slot_types, slot_cores, pairs, upper_bound)
    terms = [0]

    def tick(size: int) -> None:
        """Count ``size`` row terms; check the budget every :data:`_CHECK_EVERY`."""
        terms[0] += size
        if terms[0] >= _CHECK_EVERY:
            terms[0] = 0
            budget.check("building the model")

    run_on: dict[float, np.ndarray] = {cap: work / cap for cap in allowed_by_capacity}

    def load(c: int) -> tuple[list[float], list]:
        cap = cores[c].capacity
        tasks = allowed_by_capacity[cap]
        return [float(run_on[cap][i]) for i in tasks], [m.x[int(i), c] for i in tasks]

    m.assign = pyo.ConstraintList()
    for i in range(instance.n_tasks):
        if not on_task[i]:
            built.infeasible.append(instance.task_ids[i])
            continue
        m.assign.add(linear([1.0] * len(on_task[i]), [m.x[i, c] for c in on_task[i]]) == 1)
        tick(len(on_task[i]))

    m.deadlines = pyo.ConstraintList()
    m.cumulative = pyo.VarList(domain=pyo.NonNegativeReals)
    for c, core in enumerate(cores):
        tasks = allowed_by_capacity[core.capacity].tolist()
        tick(len(tasks))  # the scan below is as long as the core's tasks
        run = run_on[core.capacity]
        binding = []  # (position, right-hand side) of the rows that can bind
        total = 0.0
        for pos, i in enumerate(tasks):
            total += float(run[i])
            last_of_value = pos + 1 == len(tasks) or deadline[tasks[pos + 1]] > deadline[i]
            rhs = float(deadline[i]) + TIME_TOL
            if last_of_value and total > rhs:
                binding.append((pos, rhs))
        if sum(pos + 1 for pos, _ in binding) <= CHAIN_FROM * (len(tasks) + 1):
            for pos, rhs in binding:  # prefix rows: sum of run times due by D <= D + tol
                prefix = tasks[: pos + 1]
                m.deadlines.add(linear([float(run[j]) for j in prefix],
                                        [m.x[j, c] for j in prefix]) <= rhs)
                tick(len(prefix))
            continue
        # Many long prefixes: the same rows through cumulative-load variables
        # (load due by the r-th binding deadline), linear in size instead of quadratic.
        previous, done = None, 0
        for pos, rhs in binding:
            part = tasks[done: pos + 1]
            cumulative = m.cumulative.add()
            cumulative.setub(rhs)
            coefs = [1.0] + [-float(run[j]) for j in part]
            variables = [cumulative] + [m.x[j, c] for j in part]
            if previous is not None:
                coefs.append(-1.0)
                variables.append(previous)
            m.deadlines.add(linear(coefs, variables) == 0)
            built.chains.append((cumulative, previous, [(float(run[j]), m.x[j, c]) for j in part]))
            tick(len(variables))
            previous, done = cumulative, pos + 1

    m.lease = pyo.ConstraintList()
    m.task_hours = pyo.ConstraintList()
    for s, owned in enumerate(slot_cores):
        for c in owned:
            coefs, variables = load(c)
            if variables:
                m.lease.add(linear([-1.0] + coefs,
                                    [m.h[s]] + variables) <= TIME_TOL)
                tick(len(variables))
        core = cores[owned[0]]
        for i in allowed_by_capacity[core.capacity].tolist():
            # A task on the slot (on any one of its cores) needs ceil(run) billed hours.
            hours = math.ceil(float(run_on[core.capacity][i]) - 4 * TIME_TOL)
            if hours >= 1:
                m.task_hours.add(linear([1.0] + [-float(hours)] * len(owned),
                                         [m.h[s]] + [m.x[i, c] for c in owned]) >= 0)
                tick(len(owned))

    if instance.max_vms is not None and slot_types:
        m.used = pyo.Var(range(len(slot_types)), domain=pyo.Binary)
        m.use_link = pyo.ConstraintList()
        for s, owned in enumerate(slot_cores):
            variables = [m.x[i, c] for c in owned
                         for i in allowed_by_capacity[cores[c].capacity].tolist()]
            if variables:
                m.use_link.add(linear([1.0] * len(variables) + [-float(len(variables))],
                                       variables + [m.used[s]]) <= 0)
                tick(len(variables))
        m.vm_limit = pyo.Constraint(expr=sum(m.used.values()) <= instance.max_vms)
    m.rent_cost = pyo.Objective(
        expr=sum(instance.vm_types[t].price * m.h[s] for s, t in enumerate(slot_types)),
        sense=pyo.minimize,
    )
    return built
