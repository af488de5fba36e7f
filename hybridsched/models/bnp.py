"""Exact model of the hybrid-deadline problem: the paper's BNP, linearised.

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

Soundness (the checker is ground truth): the feasible set contains every
schedule the checker accepts in which tasks run for their full duration
without overlapping (tolerances are applied on the same side as the checker),
so a proof of infeasibility and the dual bound hold for the real problem.
Reading of the checker: it also tolerates 1e-9 h of overlap between two
consecutive tasks and of error on each duration; a schedule that accumulates
those slacks to pack more than ``D + TIME_TOL`` of work before ``D`` is not
counted as feasible.

Conversely HiGHS accepts violations up to its feasibility tolerance (1e-9,
as large as the checker's own), so it may return a schedule that breaks a
deadline or an hour boundary by a hair, and its bound may rest on such a
schedule. :func:`solve` therefore re-checks every extracted schedule with the
family checker; when it fails (or the checker bills more hours than the
model counted), the combination at fault (the tasks due by
the missed deadline on that core, or the tasks that push a VM into one more
billed hour) is forbidden by a *no-good cut* with integer coefficients, valid
for every core of that capacity (no tolerance can blur an integer cut), and
the model is solved again (at most :data:`MAX_CUT_ROUNDS` rounds). The cuts
remove only what the checker rejects, so the bound stays valid and converges
to the checker's optimum. ``optimal`` is claimed only when a checked
schedule's recomputed cost meets a proven bound (:func:`proves_optimal`);
a HiGHS bound above a checked schedule's cost is a numerical failure and is
discarded.

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
* The warm start is given to HiGHS.

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

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.hybrid_deadline.checker import billed_hours, check, rent_cost
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences
from hybridsched.models.bnp_bounds import infeasible_tasks, lower_bound, round_up_to_cost
from hybridsched.models.highs import SolveOutcome, solve_with_highs
from hybridsched.result import Result, Status

#: Relative tolerance when comparing a checked cost with a proven bound.
OPTIMALITY_RTOL = 1e-9
#: Absolute tolerance (dollars) of the same comparison.
OPTIMALITY_ATOL = 1e-9
#: HiGHS options of every solve (the gaps: optimality is judged here, on checked costs).
_OPTIONS = {"mip_abs_gap": 1e-9}
#: Rounds of no-good cuts before giving up on a solver schedule the checker rejects.
MAX_CUT_ROUNDS = 20
#: Deadline rows of a core switch to cumulative-load variables when their prefix
#: sums would hold more than this many terms per task of the core.
CHAIN_FROM = 40
#: Seconds HiGHS needs to receive the model per second spent building it (measured:
#: 1.4-5); a time-limited run that cannot afford it returns the warm start at once.
TRANSLATE_PER_BUILD_S = 3.0
#: Rows built between two checks of the time budget.
_CHECK_EVERY = 200

FAMILY = "hybrid-deadline"


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


def slot_counts(instance: Instance, upper_bound: float | None) -> list[int]:
    """VM slots per type that cannot cut off a solution costing at most ``upper_bound``.

    A nonempty VM holds a task that fits alone on its type; with a cost at
    most ``UB``, at most ``floor(UB / price)`` VMs of a type bill an hour or
    more, and a VM billed 0 hours holds only tasks of run time within
    ``TIME_TOL`` (at most one such VM per such task is ever useful).
    """
    counts = []
    for vm in instance.vm_types:
        fits = instance.fits_alone(vm.capacity)
        n = int(fits.sum())
        if upper_bound is not None:
            free = int(np.count_nonzero(instance.work / vm.capacity <= TIME_TOL))
            n = min(n, _floor_ratio(upper_bound, vm.price) + free)
        if instance.max_vms is not None:
            n = min(n, instance.max_vms)
        counts.append(max(0, n) if vm.cores > 0 else 0)
    return counts


def _floor_ratio(value: float, price: float) -> int:
    """``floor(value / price)``, rounded generously (never below the true ratio)."""
    return math.floor(value / price * (1 + 1e-9) + 1e-9)


def _hour_cap(instance: Instance, t: int, upper_bound: float | None) -> int:
    """Largest useful billed hours of a VM of type ``t``."""
    vm = instance.vm_types[t]
    fits = instance.fits_alone(vm.capacity)
    latest = float(instance.deadline[fits].max(initial=0.0))
    cap = math.ceil(latest) + 1  # billed = ceil(lease - TOL) with lease <= latest + TOL
    if upper_bound is not None:
        cap = min(cap, _floor_ratio(upper_bound, vm.price))
    return max(0, cap)


def _linear(coefs: list[float], variables: list) -> LinearExpression:
    return LinearExpression(constant=0.0, linear_coefs=coefs, linear_vars=variables)


def build(
    instance: Instance,
    start: Solution | None = None,
    *,
    budget: TimeBudget | None = None,
) -> BNPModel:
    """Build the linearised BNP, sized (and warm-started) by ``start``.

    Parameters
    ----------
    instance:
        The instance.
    start:
        A solution the checker accepts; its cost bounds the VM slots and
        hours and it becomes the MIP start. Without it, each type gets as
        many slots as tasks that fit on it.
    budget:
        Checked while rows are built (every few hundred rows).

    Raises
    ------
    BudgetExpired
        When the budget runs out while building.
    """
    budget = budget or TimeBudget(None)
    upper_bound = rent_cost(instance, start) if start is not None else None
    cores: list[Core] = []
    pm_groups: dict[float, list[int]] = {}
    for k, pm in enumerate(instance.pms):
        for l_ in range(pm.cores):
            pm_groups.setdefault(pm.capacity, []).append(len(cores))
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

    m = pyo.ConcreteModel(name=f"bnp[{instance.name}]")
    m.x = pyo.Var(pairs, domain=pyo.Binary)
    caps = {t: _hour_cap(instance, t, upper_bound) for t in set(slot_types)}
    m.h = pyo.Var(range(len(slot_types)), domain=pyo.NonNegativeIntegers,
                  bounds=lambda _m, s: (0, caps[slot_types[s]]))
    built = BNPModel(m, instance, cores, slot_types, slot_cores, pairs, upper_bound)
    rows = [0]

    def tick() -> None:
        rows[0] += 1
        if rows[0] % _CHECK_EVERY == 0:
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
        m.assign.add(_linear([1.0] * len(on_task[i]), [m.x[i, c] for c in on_task[i]]) == 1)
        tick()

    m.deadlines = pyo.ConstraintList()
    m.cumulative = pyo.VarList(domain=pyo.NonNegativeReals)
    for c, core in enumerate(cores):
        tasks = allowed_by_capacity[core.capacity].tolist()
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
                m.deadlines.add(_linear([float(run[j]) for j in prefix],
                                        [m.x[j, c] for j in prefix]) <= rhs)
                tick()
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
            m.deadlines.add(_linear(coefs, variables) == 0)
            built.chains.append((cumulative, previous, [(float(run[j]), m.x[j, c]) for j in part]))
            tick()
            previous, done = cumulative, pos + 1

    m.lease = pyo.ConstraintList()
    m.task_hours = pyo.ConstraintList()
    for s, owned in enumerate(slot_cores):
        for c in owned:
            coefs, variables = load(c)
            if variables:
                m.lease.add(_linear([-1.0] + coefs,
                                    [m.h[s]] + variables) <= TIME_TOL)
                tick()
        core = cores[owned[0]]
        for i in allowed_by_capacity[core.capacity].tolist():
            # A task on the slot (on any one of its cores) needs ceil(run) billed hours.
            hours = math.ceil(float(run_on[core.capacity][i]) - 4 * TIME_TOL)
            if hours >= 1:
                m.task_hours.add(_linear([1.0] + [-float(hours)] * len(owned),
                                         [m.h[s]] + [m.x[i, c] for c in owned]) >= 0)
                tick()

    if instance.max_vms is not None and slot_types:
        m.used = pyo.Var(range(len(slot_types)), domain=pyo.Binary)
        m.use_link = pyo.ConstraintList()
        for s, owned in enumerate(slot_cores):
            variables = [m.x[i, c] for c in owned
                         for i in allowed_by_capacity[cores[c].capacity].tolist()]
            if variables:
                m.use_link.add(_linear([1.0] * len(variables) + [-float(len(variables))],
                                       variables + [m.used[s]]) <= 0)
                tick()
        m.vm_limit = pyo.Constraint(expr=sum(m.used.values()) <= instance.max_vms)
    m.rent_cost = pyo.Objective(
        expr=sum(instance.vm_types[t].price * m.h[s] for s, t in enumerate(slot_types)),
        sense=pyo.minimize,
    )
    if start is not None:
        built.warm_start_loaded = _set_start(built, start, pm_groups)
    return built


def _set_start(built: BNPModel, start: Solution, pm_groups: dict[float, list[int]]) -> bool:
    """Load ``start`` into the variables (PM cores of a capacity by decreasing load).

    Returns whether the whole schedule could be mapped onto the model.
    """
    instance, m = built.instance, built.model
    n_pm = len(instance.pms)
    per_core: dict[tuple[int, int], list[int]] = {}
    for i in range(instance.n_tasks):
        per_core.setdefault((int(start.machine[i]), int(start.core[i])), []).append(i)
    durations = durations_function(instance, start.vm_types)

    def core_load(key: tuple[int, int]) -> float:
        tasks = per_core.get(key, [])
        return float(durations(key[0])[tasks].sum()) if tasks else 0.0

    placement: dict[int, list[int]] = {}
    for group in pm_groups.values():
        real = [(built.cores[c].owner, built.cores[c].number) for c in group]
        real.sort(key=lambda key: -core_load(key))
        for c, key in zip(group, real, strict=True):
            placement[c] = per_core.get(key, [])
    by_type: dict[int, list[int]] = {}
    for j, t in enumerate(start.vm_types):
        by_type.setdefault(t, []).append(n_pm + j)
    hours: dict[int, int] = {}
    complete = True
    for t, vms in by_type.items():
        cores = instance.vm_types[t].cores
        ranked = [sorted(((vm, c) for c in range(cores)), key=lambda key: -core_load(key))
                  for vm in vms]
        ranked = [keys for keys in ranked if any(per_core.get(key) for key in keys)]
        ranked.sort(key=lambda keys: -core_load(keys[0]))
        slots = [s for s, st in enumerate(built.slot_types) if st == t]
        complete &= len(ranked) <= len(slots)
        for s, keys in zip(slots, ranked, strict=False):
            for c, key in zip(built.slot_cores[s], keys, strict=True):
                placement[c] = per_core.get(key, [])
            hours[s] = billed_hours(core_load(keys[0]))
    pairs = set(built.pairs)
    for i, c in built.pairs:
        m.x[i, c].set_value(0)
    for c, tasks in placement.items():
        for i in tasks:
            if (i, c) in pairs:
                m.x[i, c].set_value(1)
            else:
                complete = False
    for s in range(len(built.slot_types)):
        m.h[s].set_value(min(hours.get(s, 0), int(m.h[s].ub)))
    if hasattr(m, "used"):
        for s in range(len(built.slot_types)):
            m.used[s].set_value(1 if any(placement.get(c) for c in built.slot_cores[s]) else 0)
    for variable, previous, terms in built.chains:
        value = (previous.value if previous is not None else 0.0) + sum(
            run * (x.value or 0) for run, x in terms)
        variable.set_value(value, skip_validation=True)
    return complete


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


def proves_optimal(cost: float, bound: float | None) -> bool:
    """Whether a checked ``cost`` meets a proven ``bound`` (within the stated tolerance)."""
    return bound is not None and cost <= bound * (1 + OPTIMALITY_RTOL) + OPTIMALITY_ATOL


def _result(status: Status, solution: Solution | None, bound: float | None,
            message: str) -> Result:
    return Result("exact", FAMILY, status, solution=solution, bound=bound, message=message)


def _finish(instance: Instance, solution: Solution | None, bound: float,
            timed_out: bool, message: str) -> Result:
    """Result for a checked ``solution`` (or none) and a valid ``bound``."""
    if solution is None:
        return _result(Status.NO_SOLUTION, None, bound, message)
    cost = rent_cost(instance, solution)
    if proves_optimal(cost, bound):
        return _result(Status.OPTIMAL, solution, min(bound, cost), message)
    return _result(Status.TIME_LIMIT if timed_out else Status.FEASIBLE, solution,
                   min(bound, cost), message)


def _checked(instance: Instance, solution: Solution | None) -> Solution | None:
    return solution if solution is not None and not check(instance, solution) else None


def _cheaper(instance: Instance, a: Solution | None, b: Solution | None) -> Solution | None:
    if a is None or b is None:
        return a if b is None else b
    return b if rent_cost(instance, b) < rent_cost(instance, a) else a


def solve(
    instance: Instance,
    start: Solution | None = None,
    *,
    time_limit: float | None = None,
    verbose: bool = False,
    budget: TimeBudget | None = None,
    known_bound: float | None = None,
) -> Result:
    """Build, solve and extract, within the time budget; never claim more than is proven.

    Parameters
    ----------
    instance:
        The instance.
    start:
        A warm start (typically the best heuristic schedule); ignored unless
        the checker accepts it.
    time_limit:
        Seconds for the whole call when no ``budget`` is given.
    verbose:
        Stream the HiGHS log.
    budget:
        The method's time budget (warm start heuristics included); a limit
        of 0 returns the warm start without building a model.
    known_bound:
        A lower bound already proven (e.g. by an earlier, shorter solve).

    Returns
    -------
    Result
        ``OPTIMAL`` (a checked schedule whose recomputed cost meets a proven
        bound), ``FEASIBLE`` or ``TIME_LIMIT`` (a checked schedule with the
        best proven bound), ``INFEASIBLE`` (proven: tasks no usable core can
        run, or the exact model is infeasible) or ``NO_SOLUTION``.
    """
    budget = budget or TimeBudget(time_limit)
    unplaceable = infeasible_tasks(instance)
    if unplaceable:
        return _result(Status.INFEASIBLE, None, None, "infeasible: " + ", ".join(unplaceable))
    start = _checked(instance, start)
    bound = max(lower_bound(instance), known_bound or 0.0)
    prices = [vm.price for vm in instance.vm_types]
    if start is not None and proves_optimal(rent_cost(instance, start), bound):
        return _finish(instance, start, bound, False,
                       "the warm start meets the cheap lower bound")
    if budget.warm_start_only:
        return _finish(instance, start, bound, True,
                       "time limit 0: warm start only, with the cheap lower bound")
    try:
        building = budget.elapsed()
        built = build(instance, start, budget=budget)
        if built.infeasible:
            return _result(Status.INFEASIBLE, None, None,
                           "infeasible: " + ", ".join(built.infeasible))
        translation = TRANSLATE_PER_BUILD_S * (budget.elapsed() - building) + 0.1
        remaining = budget.remaining()
        if remaining is not None and remaining < translation:
            raise BudgetExpired("handing the model to HiGHS (it would take about "
                                f"{translation:.1f} s more)", float(budget.seconds or 0.0))
        outcome: SolveOutcome = solve_with_highs(
            built.model, warm_start=built.warm_start_loaded, verbose=verbose, budget=budget,
            mip_rel_gap=1e-9, options=_OPTIONS,
        )
    except BudgetExpired as exc:
        kept = ("warm start returned" if start is not None
                else "no warm start (the heuristics failed)")
        return _finish(instance, start, bound, True,
                       f"time limit expired while {exc.stage}; {kept}, with the cheap "
                       "lower bound")
    except RuntimeError as exc:  # HiGHS stopped with an error and no solution
        return _finish(instance, start, bound, False, f"{exc}; warm start kept")
    cuts = 0
    candidate: Solution | None = None
    for _ in range(MAX_CUT_ROUNDS):
        if outcome.status is Status.INFEASIBLE or not outcome.has_incumbent:
            break
        checked = _checked(instance, extract(built))
        candidate = _cheaper(instance, candidate, checked)
        if checked is not None and outcome.objective is not None and proves_optimal(
                rent_cost(instance, checked), outcome.objective):
            break  # the checker agrees with the model's schedule and its cost
        added = _add_no_good_cuts(built)
        cuts += added
        remaining = budget.remaining()
        if added == 0 or (remaining is not None and remaining < translation):
            break
        if start is not None:
            _set_start(built, start, _pm_groups(built))
        try:
            outcome = solve_with_highs(built.model, warm_start=built.warm_start_loaded,
                                       verbose=verbose, budget=budget, mip_rel_gap=1e-9,
                                       options=_OPTIONS)
        except (BudgetExpired, RuntimeError):
            break
    note = f"; {cuts} no-good cuts against sub-tolerance violations" if cuts else ""
    if outcome.status is Status.INFEASIBLE:
        if start is None:
            return _result(Status.INFEASIBLE, None, None,
                           "infeasible: the exact model has no solution" + note)
        # A checked schedule exists, so "infeasible" can only be numerical trouble.
        return _finish(instance, start, bound, False,
                       "HiGHS reported the model infeasible although the warm start is "
                       "valid; warm start kept" + note)
    timed_out = outcome.status is Status.TIME_LIMIT or budget.expired()
    best = _cheaper(instance, start, candidate)
    if outcome.bound is not None:
        solver_bound = round_up_to_cost(outcome.bound, prices)
        if best is not None and not proves_optimal(solver_bound, rent_cost(instance, best)):
            note += "; HiGHS's bound exceeds a checked schedule's cost and was discarded"
        else:
            bound = max(bound, solver_bound)
    message = outcome.message + note
    if outcome.has_incumbent and candidate is None:
        message += "; the solver's schedule failed the checker, warm start kept"
    if best is None:
        message = ("time limit reached before any solution was found" if timed_out
                   else "no schedule found") + note
    return _finish(instance, best, bound, timed_out and best is not None
                   and not proves_optimal(rent_cost(instance, best), bound), message.strip("; "))


def _pm_groups(built: BNPModel) -> dict[float, list[int]]:
    groups: dict[float, list[int]] = {}
    for c, core in enumerate(built.cores):
        if not core.on_vm:
            groups.setdefault(core.capacity, []).append(c)
    return groups


def _add_no_good_cuts(built: BNPModel) -> int:
    """Forbid the task combinations of the current solution that the checker rejects.

    For each core, its tasks run back to back in EDF order with the
    checker's arithmetic; the first task that misses ``deadline +
    TIME_TOL`` makes its prefix ``S`` infeasible on any core of that
    capacity: ``sum_{j in S} x[j, c'] <= |S| - 1``. For each VM slot whose
    ``h`` is below the checker's billed hours ``H`` of a core with tasks
    ``S``: ``h[s'] >= H (sum_{j in S} x[j, c'] - |S| + 1)`` on every core of
    every slot of that type. Returns the number of cuts added.
    """
    instance, m = built.instance, built.model
    if not hasattr(m, "no_good"):
        m.no_good = pyo.ConstraintList()
    chosen: dict[int, list[int]] = {}
    for i, c in built.pairs:
        value = m.x[i, c].value
        if value is not None and value > 0.5:
            chosen.setdefault(c, []).append(i)
    pairs = set(built.pairs)
    added = 0
    lease_need: dict[int, tuple[int, list[int]]] = {}
    for c, tasks in chosen.items():
        core = built.cores[c]
        run = instance.work / core.capacity
        ordered = sorted(tasks, key=lambda i: (instance.deadline[i], i))
        clock = 0.0
        prefix: list[int] = []
        for i in ordered:
            clock = clock + run[i]
            prefix.append(i)
            if clock > instance.deadline[i] + TIME_TOL:
                for other, other_core in enumerate(built.cores):
                    if other_core.capacity == core.capacity and all(
                            (j, other) in pairs for j in prefix):
                        m.no_good.add(_linear([1.0] * len(prefix),
                                              [m.x[j, other] for j in prefix])
                                      <= len(prefix) - 1)
                        added += 1
                break
        if core.on_vm:
            hours = billed_hours(clock)
            value = m.h[core.owner].value or 0.0
            if hours > value + 0.5 and hours > lease_need.get(core.owner, (0, []))[0]:
                lease_need[core.owner] = (hours, ordered)
    for s, (hours, tasks) in lease_need.items():
        t = built.slot_types[s]
        for other, owned in enumerate(built.slot_cores):
            if built.slot_types[other] != t:
                continue
            for c in owned:
                if all((j, c) in pairs for j in tasks):
                    m.no_good.add(_linear([1.0] + [-float(hours)] * len(tasks),
                                          [m.h[other]] + [m.x[j, c] for j in tasks])
                                  >= -float(hours) * (len(tasks) - 1))
                    added += 1
    return added
