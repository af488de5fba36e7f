"""Large-neighbourhood search (ruin and recreate) on hybrid-deadline schedules.

It improves a valid schedule (the warm start of the exact model) by
repeatedly removing a group of tasks and inserting them back greedily:

* *Ruin*: all tasks of one rented VM (lightly loaded ones more often) plus a
  few tasks of other cores; or a run of consecutive tasks (in deadline
  order) from each of a few cores; or a few random tasks.
* *Recreate*: tasks go back one by one (longest first, with random
  "blinks" that skip a candidate) to the position that raises the rent cost
  least: a PM core or a VM core within its billed hours costs nothing,
  otherwise a VM is extended or a new one rented. Among free positions, PM
  cores come first (work moved off VMs is what later empties a VM), then the
  tightest fit.
* *Accept* a new schedule when its cost is lower, or equal with no more
  work on VMs (ties go to more concentrated VM loads), so the search can
  drift across plateaus of equal cost towards emptier VMs.

Each core keeps its tasks in EDF order and is checked with the checker's own
test (finish ``<= deadline + TIME_TOL``, finishes as sequential sums), so
every state is a valid schedule. The search is seeded and counts iterations
(its result does not depend on the machine's speed unless the time budget
cuts it short); it stops early when the cost reaches ``target`` (a proven
lower bound).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from hybridsched.hybrid_deadline.checker import check, rent_cost
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences


def _billed(lease: float) -> int:
    """Billed hours of a lease, as the checker counts them."""
    return int(math.ceil(lease - TIME_TOL)) if lease > TIME_TOL else 0


@dataclass
class _Core:
    capacity: float
    vm: int | None  # index into _State.vms, None for a PM core
    machine: int  # PM index (PM cores) or -1
    number: int
    tasks: list[int] = field(default_factory=list)  # EDF order
    load: float = 0.0


@dataclass
class _VM:
    type: int
    cores: list[int]
    alive: bool = True


class _State:
    """A schedule as EDF-ordered task lists per core, with VM costs."""

    def __init__(self, instance: Instance):
        self.inst = instance
        self.deadline = instance.deadline.tolist()
        self.limit = [d + TIME_TOL for d in self.deadline]
        self.key = [(d, i) for i, d in enumerate(self.deadline)]
        self.run: dict[float, list[float]] = {}
        self.cores: list[_Core] = []
        self.vms: list[_VM] = []
        self.where = [-1] * instance.n_tasks
        for k, pm in enumerate(instance.pms):
            for c in range(pm.cores):
                self.cores.append(_Core(pm.capacity, None, k, c))

    def runs(self, capacity: float) -> list[float]:
        if capacity not in self.run:
            self.run[capacity] = (self.inst.work / capacity).tolist()
        return self.run[capacity]

    def fits_alone(self, task: int, capacity: float) -> bool:
        return self.runs(capacity)[task] <= self.limit[task]

    def add_vm(self, t: int) -> int:
        vm = self.inst.vm_types[t]
        numbers = list(range(len(self.cores), len(self.cores) + vm.cores))
        self.vms.append(_VM(t, numbers))
        for c in range(vm.cores):
            self.cores.append(_Core(vm.capacity, len(self.vms) - 1, -1, c))
        return len(self.vms) - 1

    def vm_hours(self, v: int) -> int:
        return _billed(max(self.cores[c].load for c in self.vms[v].cores))

    def cost(self) -> float:
        return sum(self.inst.vm_types[vm.type].price * self.vm_hours(v)
                   for v, vm in enumerate(self.vms) if vm.alive)

    def vm_work(self) -> float:
        return sum(core.load for core in self.cores if core.vm is not None
                   and self.vms[core.vm].alive)

    def spread(self) -> float:
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
        core = self.cores[c]
        core.tasks, core.load = tasks, load
        self.where[task] = c

    def remove(self, task: int) -> None:
        core = self.cores[self.where[task]]
        core.tasks.remove(task)
        run = self.runs(core.capacity)
        finish = 0.0
        for j in core.tasks:
            finish += run[j]
        core.load = finish
        self.where[task] = -1

    def alive_vms(self) -> int:
        return sum(vm.alive for vm in self.vms)

    def copy(self) -> _State:
        """An independent copy without the VMs given up (keeps the lists short)."""
        other = _State.__new__(_State)
        other.inst, other.deadline, other.limit = self.inst, self.deadline, self.limit
        other.key, other.run = self.key, self.run
        other.cores, other.vms = [], []
        remap: dict[int, int] = {}
        for c, core in enumerate(self.cores):
            if core.vm is None:
                remap[c] = len(other.cores)
                other.cores.append(_Core(core.capacity, None, core.machine, core.number,
                                         list(core.tasks), core.load))
        for vm in self.vms:
            if not vm.alive:
                continue
            numbers = []
            for c in vm.cores:
                core = self.cores[c]
                remap[c] = len(other.cores)
                numbers.append(len(other.cores))
                other.cores.append(_Core(core.capacity, len(other.vms), -1, core.number,
                                         list(core.tasks), core.load))
            other.vms.append(_VM(vm.type, numbers))
        other.where = [remap[c] if c >= 0 else -1 for c in self.where]
        return other

    def to_solution(self) -> Solution:
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


def _state_from(instance: Instance, solution: Solution) -> _State | None:
    """The schedule as a :class:`_State` (EDF order per core), or ``None`` if it fails."""
    state = _State(instance)
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


def _recreate(state: _State, tasks: list[int], rng: random.Random, blink: float) -> bool:
    """Insert ``tasks`` at their cheapest positions; False if one cannot be placed."""
    inst = state.inst
    prices = [vm.price for vm in inst.vm_types]
    for task in tasks:
        best: tuple | None = None
        for c, core in enumerate(state.cores):
            if core.vm is not None and not state.vms[core.vm].alive:
                continue
            if rng.random() < blink:
                continue
            inserted = state.try_insert(task, c)
            if inserted is None:
                continue
            _, load = inserted
            if core.vm is None:
                key = (0.0, 0, core.load == 0.0, -load)
            else:
                vm = state.vms[core.vm]
                old = state.vm_hours(core.vm)
                other = max((state.cores[o].load for o in vm.cores if o != c), default=0.0)
                new = _billed(max(other, load))
                key = (prices[vm.type] * (new - old), 1, False, new - load)
            if best is None or key < best[0]:
                best = (key, c, inserted)
        limit = inst.max_vms
        if limit is None or state.alive_vms() < limit:
            for t, vm in enumerate(inst.vm_types):
                if vm.cores == 0 or not state.fits_alone(task, vm.capacity):
                    continue
                run = state.runs(vm.capacity)[task]
                key = (vm.price * _billed(run), 2, False, -run)
                if best is None or key < best[0]:
                    best = (key, ("new", t), None)
        if best is None:
            return False
        _, where, inserted = best
        if isinstance(where, tuple):
            v = state.add_vm(where[1])
            c = state.vms[v].cores[0]
            inserted = state.try_insert(task, c)
            if inserted is None:  # cannot happen: the type fits the task alone
                return False
        else:
            c = where
        state.place(task, c, *inserted)
    return True


def _ruin(state: _State, rng: random.Random) -> list[int]:
    """Remove a group of tasks; return them."""
    removed: list[int] = []
    alive = [v for v, vm in enumerate(state.vms) if vm.alive]
    busy = [c for c, core in enumerate(state.cores) if core.tasks
            and (core.vm is None or state.vms[core.vm].alive)]
    mode = rng.random()
    if alive and mode < 0.45:
        loads = [sum(state.cores[c].load for c in state.vms[v].cores) for v in alive]
        top = max(loads) or 1.0
        weights = [top - load + 0.1 * top for load in loads]
        v = rng.choices(alive, weights=weights)[0]
        for c in state.vms[v].cores:
            removed.extend(state.cores[c].tasks)
        state.vms[v].alive = False
        for task in removed:
            state.where[task] = -1
        for c in state.vms[v].cores:
            state.cores[c].tasks, state.cores[c].load = [], 0.0
        others = [i for i in range(state.inst.n_tasks) if state.where[i] >= 0]
        for task in rng.sample(others, min(len(others), rng.randint(0, 4))):
            state.remove(task)
            removed.append(task)
    elif busy and mode < 0.8:
        for c in rng.sample(busy, min(len(busy), rng.randint(1, 3))):
            tasks = state.cores[c].tasks
            length = rng.randint(1, max(1, min(len(tasks), 4)))
            first = rng.randint(0, len(tasks) - length)
            for task in list(tasks[first:first + length]):
                state.remove(task)
                removed.append(task)
    else:
        placed = [i for i in range(state.inst.n_tasks) if state.where[i] >= 0]
        for task in rng.sample(placed, min(len(placed), rng.randint(2, 8))):
            state.remove(task)
            removed.append(task)
    for vm in state.vms:
        if vm.alive and not any(state.cores[c].tasks for c in vm.cores):
            vm.alive = False
    return removed


def _order(tasks: list[int], rng: random.Random, work: list[float],
           deadline: list[float]) -> None:
    """Sort removed tasks for reinsertion: by one of several keys, drawn at random."""
    mode = rng.random()
    if mode < 0.4:
        tasks.sort(key=lambda i: -work[i])
    elif mode < 0.6:
        tasks.sort(key=lambda i: (deadline[i], -work[i]))
    elif mode < 0.8:
        tasks.sort(key=lambda i: -work[i] / deadline[i] if deadline[i] > 0 else -math.inf)
    else:
        rng.shuffle(tasks)


def improve(
    instance: Instance,
    solution: Solution,
    *,
    seed: int | None = 0,
    iterations: int | None = None,
    max_seconds: float | None = None,
    target: float | None = None,
) -> Solution:
    """Return a schedule at most as expensive as ``solution`` (the checker decides).

    Parameters
    ----------
    instance, solution:
        The instance and a schedule the checker accepts.
    seed:
        Seed of the search (same seed, same result when no time cap binds).
    iterations:
        Ruin-and-recreate rounds (default ``100 + 40 * tasks``, at most 5000).
    max_seconds:
        Wall-clock cap (``None``: none).
    target:
        Stop as soon as the cost is at most this (a proven lower bound).
    """
    started = time.perf_counter()
    if instance.n_tasks == 0 or check(instance, solution):
        return solution
    state = _state_from(instance, solution)
    if state is None:
        return solution
    rng = random.Random(seed)
    if iterations is None:
        iterations = min(5000, 100 + 40 * instance.n_tasks)
    work, deadline = instance.work.tolist(), instance.deadline.tolist()
    current = state
    score = (current.cost(), current.vm_work(), -current.spread())
    best, best_cost = current.copy(), score[0]
    for _ in range(iterations):
        if target is not None and best_cost <= target + 1e-9:
            break
        if max_seconds is not None and time.perf_counter() - started > max_seconds:
            break
        trial = current.copy()
        removed = _ruin(trial, rng)
        _order(removed, rng, work, deadline)
        if not _recreate(trial, removed, rng, blink=0.05):
            continue
        new = (trial.cost(), trial.vm_work(), -trial.spread())
        if new[0] < score[0] - 1e-12 or (abs(new[0] - score[0]) <= 1e-12
                                         and new[1:] <= score[1:]) or rng.random() < 0.01:
            current, score = trial, new
            if new[0] < best_cost - 1e-12:
                best, best_cost = trial.copy(), new[0]
    improved = best.to_solution()
    if check(instance, improved) or rent_cost(instance, improved) > rent_cost(instance, solution):
        return solution
    return improved


class _OutOfNodes(Exception):  # noqa: N818 (a signal)
    """The packing search used up its node budget."""


def pack_within(
    instance: Instance,
    target: float,
    *,
    node_limit: int = 200_000,
    max_seconds: float | None = None,
    by_density: bool = False,
) -> Solution | None:
    """Search (depth first, with backtracking) for a schedule costing at most ``target``.

    A heuristic for the exact method: when a proven lower bound is below the
    best known cost, a schedule at the bound is optimal, and tight packings
    that local search misses are often found by a systematic search. Tasks
    are placed one by one (those no PM can run first, then longest first) on
    a PM core, a core of a rented VM, or a new VM (one per type: new VMs are
    interchangeable), never beyond ``target``; a branch is cut when the work
    left exceeds what the cores can still process by the latest deadline
    plus what the money left can rent. Returns ``None`` when the node budget
    or time runs out or no such schedule exists (not a proof: the search
    only cuts branches, it never claims infeasibility).

    ``by_density`` orders tasks by work over deadline instead of work (the
    two orders succeed on different instances; :func:`strengthen` tries both).
    """
    if instance.n_tasks == 0:
        return None
    started = time.perf_counter()
    state = _State(instance)
    work = instance.work.tolist()
    types = instance.vm_types
    best_rate = max((vm.cores * vm.capacity / vm.price for vm in types if vm.price > 0
                     and vm.cores > 0), default=0.0)
    free_types = any(vm.price <= 0 for vm in types)
    on_pm = [any(state.fits_alone(i, pm.capacity) for pm in instance.pms if pm.cores)
             for i in range(instance.n_tasks)]
    density = [w / d if d > 0 else math.inf for w, d in zip(work, state.deadline, strict=True)]
    size = density if by_density else work
    order = sorted(range(instance.n_tasks), key=lambda i: (on_pm[i], -size[i], i))
    budget = target + 1e-9 * max(1.0, target)
    nodes = [0]
    cost = [0.0]

    suffix_work = [0.0] * (len(order) + 1)
    suffix_deadline = [-math.inf] * (len(order) + 1)
    for k in range(len(order) - 1, -1, -1):
        suffix_work[k] = suffix_work[k + 1] + work[order[k]]
        suffix_deadline[k] = max(suffix_deadline[k + 1], state.deadline[order[k]])

    hours: list[int] = []  # billed hours of each VM opened by the search
    limit_vms = instance.max_vms
    cores, vms, runs_of = state.cores, state.vms, state.runs

    def room(k: int) -> bool:
        """Whether the work of tasks ``order[k:]`` can still fit (a necessary test).

        The cores can still run, before the latest deadline left (within a
        VM's billed hours), at most their idle time times their speed; the
        money left rents at most ``best_rate`` GHz-hours per dollar.
        """
        if free_types:
            return True
        latest = suffix_deadline[k] + TIME_TOL
        capacity = (budget - cost[0]) * best_rate
        deadline = state.limit
        for core in cores:
            if core.vm is not None:
                horizon = min(latest, hours[core.vm] + TIME_TOL)
            elif core.tasks:
                horizon = max(latest, deadline[core.tasks[-1]])
            else:
                horizon = latest
            if horizon > core.load:
                capacity += core.capacity * (horizon - core.load)
        return capacity >= suffix_work[k] * (1 - 1e-12)

    def dfs(k: int) -> bool:
        if k == len(order):
            return True
        nodes[0] += 1
        if nodes[0] > node_limit or (max_seconds is not None and nodes[0] % 64 == 0
                                     and time.perf_counter() - started > max_seconds):
            raise _OutOfNodes
        task = order[k]
        options = []
        empty_seen: set[tuple] = set()
        for c, core in enumerate(cores):
            if not core.tasks:  # empty cores of one PM capacity / one VM are interchangeable
                key = (core.capacity, core.vm)
                if key in empty_seen:
                    continue
                empty_seen.add(key)
            inserted = state.try_insert(task, c)
            if inserted is None:
                continue
            load = inserted[1]
            if core.vm is None:
                options.append(((0, not core.tasks, -load), c, inserted, 0.0, 0))
                continue
            v = core.vm
            new_hours = _billed(load)
            if new_hours <= hours[v]:
                options.append(((1, 0.0, -load), c, inserted, 0.0, hours[v]))
                continue
            delta = types[vms[v].type].price * (new_hours - hours[v])
            if cost[0] + delta <= budget:
                options.append(((1, delta, -load), c, inserted, delta, new_hours))
        if limit_vms is None or len(vms) < limit_vms:
            for t, vm in enumerate(types):
                if vm.cores and state.fits_alone(task, vm.capacity):
                    new_hours = _billed(runs_of(vm.capacity)[task])
                    delta = vm.price * new_hours
                    if cost[0] + delta <= budget:
                        options.append(((2, delta, 0.0), ("new", t), None, delta, new_hours))
        options.sort(key=lambda option: option[0])
        for _, where, inserted, delta, new_hours in options:
            opened = isinstance(where, tuple)
            if opened:
                v = state.add_vm(where[1])
                hours.append(0)
                c = vms[v].cores[0]
                inserted = state.try_insert(task, c)
            else:
                c = where
            core = cores[c]
            saved = (core.tasks, core.load)
            state.place(task, c, *inserted)
            if core.vm is not None:
                saved_hours = hours[core.vm]
                hours[core.vm] = new_hours
            cost[0] += delta
            if room(k + 1) and dfs(k + 1):
                return True
            cost[0] -= delta
            core.tasks, core.load = saved
            state.where[task] = -1
            if core.vm is not None:
                hours[core.vm] = saved_hours
            if opened:
                vms.pop()
                hours.pop()
                del cores[-types[where[1]].cores:]
        return False

    try:
        found = dfs(0)
    except _OutOfNodes:
        return None
    if not found:
        return None
    solution = state.to_solution()
    if check(instance, solution) or rent_cost(instance, solution) > budget:
        return None
    return solution


#: Node budgets of :func:`descend`'s packing searches (tasks by work, by density):
#: deterministic, so the result does not depend on the machine's speed.
DESCEND_NODES = (150_000, 75_000)


def descend(
    instance: Instance,
    solution: Solution,
    lower: float,
    *,
    max_seconds: float | None = None,
) -> Solution:
    """Ask :func:`pack_within` for ever cheaper schedules, from ``solution`` down to ``lower``.

    Each round asks for a schedule strictly cheaper than the best one, first
    with tasks by work, then by density (node budgets
    :data:`DESCEND_NODES`); it stops when a round fails, when ``max_seconds``
    is up (a safety for time-limited runs), or when the cost meets ``lower``
    (a proven bound, which makes the schedule optimal).
    """
    started = time.perf_counter()
    best, cost = solution, rent_cost(instance, solution)
    while cost > lower + 1e-9 * max(1.0, lower):
        target = cost * (1 - 1e-7) - 1e-9
        found = None
        for by_density, nodes in zip((False, True), DESCEND_NODES, strict=True):
            remaining = (None if max_seconds is None
                         else max_seconds - (time.perf_counter() - started))
            if remaining is not None and remaining <= 0:
                return best
            found = pack_within(instance, target, node_limit=nodes, max_seconds=remaining,
                                by_density=by_density)
            if found is not None:
                break
        if found is None:
            break
        best, cost = found, rent_cost(instance, found)
    return best
