"""Closest Deadline First (CDF): the heuristic algorithm "HA" of Wang et al. (2016).

Algorithm 1 of the paper: while tasks remain, add a machine when no
(task, core) pair fits; otherwise make the assignment, over all unassigned
tasks and available cores, that meets its deadline with the smallest slack
``deadline - finish``.

Readings (options; the paper's words, Section 3.2 unless said):

``fit`` -- what a task's finish time on a core is.
    ``"append"`` (default): the task runs after the core's last task,
    finishing at ``load + w / r``. Algorithm 1's Step 2 "examines the finish
    times of the tasks and selects the assignment that the difference between
    the finish time of the task and its deadline is minimal and that the task
    is finished within its deadline": it speaks of the task's own finish time
    only and of no task being moved, so the literal reading appends.
    ``"edf"``: the core's tasks run by ascending deadline, as the model of
    Section 3.1 orders them ("they can run in sequential order by their
    deadlines in ascending fashion"): the new task's finish is its finish in
    that order, and the tasks it delays must still meet their deadlines
    (:mod:`hybridsched.heuristics.hybrid_deadline.edf_core`).
``scan`` -- which cores Step 2 compares.
    ``"all"`` (default): "For all of assignments between unassigned tasks and
    available cores, the algorithm examines the finish times" (Step 2).
    ``"current"``: the abstract's summary, "assigning the task closest to its
    deadline to current core until the core cannot finish any task within its
    deadline": one core is filled at a time, in core order, before the next.

Implementation note (same schedule as the definition, better complexity):
when a machine is added, no remaining task fits on any earlier core, and
earlier cores never change again, so only the newest machine's cores can take
tasks (under both fits: loads only grow and tasks only leave). On those
identical cores, with ``fit="append"``, the tightest task for a core at load
``L`` is the one with the smallest latest start ``d - w/r >= L``: one binary
search per core in an order sorted once per capacity
(:mod:`hybridsched.heuristics.hybrid_deadline.latest_starts`, which skips assigned tasks
instead of deleting them), and a core is asked again only when its answer can
have changed (:func:`_fill_append`). That run is ``O(T (log T + c) + M T log T)``
for ``c`` cores per machine and ``M`` capacities, instead of the paper's
``O(T (P + T + N_RV))`` scan (issue 21: it had grown quadratic through a list
edit per removal and a scan of every task per VM rented); ``fit="edf"``
screens every remaining task per core with numpy at each step (``O(T^2 c)``
element operations).

Tie-breaking (the paper gives none): equal slack goes to the lowest task
index, then the lowest core.

Proof of progress: the outer loop adds a machine per round. PMs are finite;
a VM is only rented of a type that finishes at least one remaining task
alone (otherwise :class:`MethodFailedError`), and an empty core of that type
takes such a task, so every VM round places at least one task. The loop
therefore ends after at most ``P + T`` rounds; a VM round that placed nothing
would be a bug and fails explicitly instead of renting forever.

The decisions, in order, are recorded in ``notes["placements"]`` as
``(task, machine, core)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from hybridsched.errors import MethodFailedError
from hybridsched.heuristics.hybrid_deadline.edf_core import EdfCore
from hybridsched.heuristics.hybrid_deadline.latest_starts import LatestStarts
from hybridsched.heuristics.hybrid_deadline.machine_pool import (
    MachinePool,
    NewMachine,
    RemainingTasks,
)
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences
from hybridsched.readings import check_choice

#: Readings of the finish time of a task on a core (module docstring).
FITS = ("append", "edf")
#: Readings of which cores Step 2 compares (module docstring).
SCANS = ("all", "current")


def check_cdf_options(options: Mapping[str, Any]) -> None:
    """Refuse unknown ``fit`` / ``scan`` readings (one-line :class:`InputError`)."""
    for name, allowed in (("fit", FITS), ("scan", SCANS)):
        if name in options:
            check_choice(name, options[name], allowed)


def cdf(
    instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
    fit: str = "append", scan: str = "all",
) -> Solution:
    """Schedule ``instance`` with Closest Deadline First.

    Parameters
    ----------
    instance:
        The hybrid-deadline instance.
    seed, time_limit:
        Accepted for the common method signature; CDF is deterministic.
    fit, scan:
        Readings of Algorithm 1 (module docstring).

    Raises
    ------
    InputError
        For an unknown reading.
    MethodFailedError
        If the VM limit is reached or no machine can take a remaining task.
    """
    check_cdf_options({"fit": fit, "scan": scan})
    remaining = LatestStarts(instance)
    pool = MachinePool(instance)
    sequences: dict[tuple[int, int], list[int]] = {}
    placements: list[tuple[int, int, int]] = []
    while len(remaining):
        machine = pool.add_next(remaining)
        before = len(remaining)
        if fit == "append":
            queues = [sequences.setdefault((machine.number, c), [])
                      for c in range(machine.cores)]
            _fill_append(instance, remaining, machine, queues, scan, placements)
        else:
            cores = _fill_edf(instance, remaining, machine, scan, placements)
            for c, core in enumerate(cores):
                sequences[machine.number, c] = list(core.tasks)
        if machine.vm_type is not None and len(remaining) == before:
            raise MethodFailedError(  # unreachable: the type was chosen because a task fits
                f"the VM rented as machine {machine.number} could take no remaining task"
            )
    solution = from_core_sequences(
        instance.n_tasks, pool.vm_types, sequences, durations_function(instance, pool.vm_types)
    )
    return replace(solution, notes={"machine_order": tuple(pool.added),
                                    "placements": tuple(placements)})


def _fill_append(instance: Instance, remaining: LatestStarts, machine: NewMachine,
                 queues: list[list[int]], scan: str,
                 placements: list[tuple[int, int, int]]) -> None:
    """Step 2 on ``machine``'s cores, each task appended after the core's last one.

    Each core's tightest fit is kept between decisions and asked again only
    when it can have changed: for the core that took a task (its load grew)
    and for the cores whose answer was that task (it left). Removing any
    other task leaves an answer as it was, and a core with no fit never gets
    one back, so the decisions are those of asking every core every time.
    """
    loads = [0.0] * machine.cores
    answers: list[tuple[float, int] | None] = [None] * machine.cores
    stale = [True] * machine.cores
    current = 0
    while len(remaining) and current < machine.cores:
        best: tuple[float, int, int] | None = None
        asked: dict[float, tuple[float, int] | None] = {}  # cores at one load share an answer
        for c in range(machine.cores) if scan == "all" else (current,):
            if stale[c]:
                load = loads[c]
                if load not in asked:
                    asked[load] = remaining.tightest_fit(machine.capacity, load)
                answers[c], stale[c] = asked[load], False
            found = answers[c]
            if found is not None and (best is None or (found[0], found[1], c) < best):
                best = (found[0], found[1], c)
        if best is None:
            if scan == "all":
                return  # this machine's cores are exhausted
            current += 1  # this core is full: the next one becomes current
            continue
        _, task, c = best
        loads[c] += instance.work[task] / machine.capacity
        queues[c].append(task)
        placements.append((task, machine.number, c))
        remaining.remove(task)
        stale[c] = True
        for k, found in enumerate(answers):
            if found is not None and found[1] == task:
                stale[k] = True


def _fill_edf(instance: Instance, remaining: RemainingTasks, machine: NewMachine, scan: str,
              placements: list[tuple[int, int, int]]) -> list[EdfCore]:
    """Step 2 on ``machine``'s cores, each core's tasks run by ascending deadline."""
    cores = [EdfCore(instance, machine.capacity) for _ in range(machine.cores)]
    refused: set[tuple[int, int]] = set()  # (core, task) screens passed but confirm refused
    current = 0
    while len(remaining) and current < machine.cores:
        tasks = remaining.indices()
        best: tuple[float, int, int] | None = None
        for c in range(machine.cores) if scan == "all" else (current,):
            finish, fits = cores[c].screen(tasks)
            for k, t in refused:
                if k == c:
                    fits &= tasks != t
            if not fits.any():
                continue
            slack = np.where(fits, instance.deadline[tasks] - finish, np.inf)
            pick = int(np.argmin(slack))  # first minimum: the lowest task index
            if best is None or (float(slack[pick]), int(tasks[pick]), c) < best:
                best = (float(slack[pick]), int(tasks[pick]), c)
        if best is None:
            if scan == "all":
                break
            current += 1
            continue
        _, task, c = best
        if not cores[c].confirm(task):  # rounding at the boundary: the checker would refuse
            refused.add((c, task))
            continue
        cores[c].insert(task)
        placements.append((task, machine.number, c))
        remaining.remove(task)
    return cores
