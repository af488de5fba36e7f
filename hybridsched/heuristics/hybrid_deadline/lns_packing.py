"""Packing search on hybrid-deadline schedules: depth first below a target cost, and its descent.

When a proven lower bound is below the best known cost, a schedule at the
bound is optimal, and tight packings that ruin-and-recreate
(:mod:`hybridsched.heuristics.hybrid_deadline.lns`) misses are often found by a systematic
search: :func:`pack_within` places the tasks one by one with backtracking,
never beyond a target cost; :func:`descend` asks it for ever cheaper
schedules. Both count nodes, not seconds, so their results do not depend on
the machine's speed unless a time cap binds. States are those of
:mod:`hybridsched.heuristics.hybrid_deadline.lns_state`.
"""

from __future__ import annotations

import math
import time

from hybridsched.heuristics.hybrid_deadline.lns_state import State, billed
from hybridsched.hybrid_deadline.checker import check, rent_cost
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution

#: Largest instance searched: the search recurses once per task placed, and Python's
#: default recursion limit (1,000 frames, some of them the caller's) must hold it.
MAX_TASKS_SEARCHED = 600


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
    two orders succeed on different instances; :func:`descend` tries both).
    Instances of more than :data:`MAX_TASKS_SEARCHED` tasks are not searched.
    """
    if instance.n_tasks == 0 or instance.n_tasks > MAX_TASKS_SEARCHED:
        return None
    started = time.perf_counter()
    state = State(instance)
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
            new_hours = billed(load)
            if new_hours <= hours[v]:
                options.append(((1, 0.0, -load), c, inserted, 0.0, hours[v]))
                continue
            delta = types[vms[v].type].price * (new_hours - hours[v])
            if cost[0] + delta <= budget:
                options.append(((1, delta, -load), c, inserted, delta, new_hours))
        if limit_vms is None or len(vms) < limit_vms:
            for t, vm in enumerate(types):
                if vm.cores and state.fits_alone(task, vm.capacity):
                    new_hours = billed(runs_of(vm.capacity)[task])
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
