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
test (:mod:`hybridsched.heuristics.hybrid_deadline.lns_state`), so every state is a valid
schedule. The search is seeded and counts iterations (its result does not
depend on the machine's speed unless the time budget cuts it short); it
stops early when the cost reaches ``target`` (a proven lower bound).

The exact method follows it with a systematic packing search below its
incumbent (:func:`hybridsched.heuristics.hybrid_deadline.lns_packing.descend`).
"""

from __future__ import annotations

import math
import random
import time

from hybridsched.heuristics.hybrid_deadline.lns_state import State, billed, state_from
from hybridsched.hybrid_deadline.checker import check, rent_cost
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution


def _recreate(state: State, tasks: list[int], rng: random.Random, blink: float) -> bool:
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
                new = billed(max(other, load))
                key = (prices[vm.type] * (new - old), 1, False, new - load)
            if best is None or key < best[0]:
                best = (key, c, inserted)
        limit = inst.max_vms
        if limit is None or state.alive_vms() < limit:
            for t, vm in enumerate(inst.vm_types):
                if vm.cores == 0 or not state.fits_alone(task, vm.capacity):
                    continue
                run = state.runs(vm.capacity)[task]
                key = (vm.price * billed(run), 2, False, -run)
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


def _ruin(state: State, rng: random.Random) -> list[int]:
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


#: Seconds per task of the search's fixed costs: reading the schedule into its state and
#: checking it (before the first round), writing and checking the result (after the
#: last). Measured at 200,000 generated tasks: 2.1 s before, 0.55 s after; at 20,000:
#: 0.08 s and 0.03 s. A cap too short for them leaves the schedule as it is.
SETUP_SECONDS_PER_TASK = 12e-6
FINISH_SECONDS_PER_TASK = 4e-6


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
        Wall-clock cap (``None``: none) on the whole call: a cap shorter than
        the fixed costs (:data:`SETUP_SECONDS_PER_TASK`) returns ``solution``
        at once, and no round starts that would end past the time kept for
        the result (:data:`FINISH_SECONDS_PER_TASK`).
    target:
        Stop as soon as the cost is at most this (a proven lower bound).
    """
    started = time.perf_counter()
    fixed = (SETUP_SECONDS_PER_TASK + FINISH_SECONDS_PER_TASK) * instance.n_tasks
    if instance.n_tasks == 0 or (max_seconds is not None and fixed > max_seconds):
        return solution
    if check(instance, solution):
        return solution
    state = state_from(instance, solution)
    if state is None:
        return solution
    rng = random.Random(seed)
    if iterations is None:
        iterations = min(5000, 100 + 40 * instance.n_tasks)
    work, deadline = instance.work.tolist(), instance.deadline.tolist()
    current = state
    score = (current.cost(), current.vm_work(), -current.spread())
    best, best_cost = current.copy(), score[0]
    stop = (None if max_seconds is None
            else started + max_seconds - FINISH_SECONDS_PER_TASK * instance.n_tasks)
    last = 0.0  # the previous round's seconds: the next one is expected to take as long
    for _ in range(iterations):
        if target is not None and best_cost <= target + 1e-9:
            break
        now = time.perf_counter()
        if stop is not None and now + last > stop:
            break
        trial = current.copy()
        removed = _ruin(trial, rng)
        _order(removed, rng, work, deadline)
        placed = _recreate(trial, removed, rng, blink=0.05)
        last = time.perf_counter() - now
        if not placed:
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
