"""Closest Deadline First (CDF): the heuristic algorithm "HA" of Wang et al. (2016).

Algorithm 1 of the paper: while tasks remain, add a machine when no
(task, core) pair fits; otherwise make the assignment, over all unassigned
tasks and available cores, that meets its deadline with the smallest slack
``deadline - finish``.

Implementation note (same schedule as the definition, better complexity):
when a machine is added, no remaining task fits on any earlier core, and
earlier cores never change again, so only the newest machine's cores can take
tasks. On those identical cores, the tightest task for a core at load ``L`` is
the one with the smallest latest start ``d - w/r >= L``: one binary search in
a sorted list per core. The whole run is ``O(T (log T + c) + T M)`` for ``c``
cores per machine and ``M`` capacities, instead of the paper's
``O(T (P + T + N_RV))`` scan.

Tie-breaking (the paper gives none): equal slack goes to the lowest task
index, then the lowest core.

Proof of progress: the outer loop adds a machine per round. PMs are finite;
a VM is only rented of a type that finishes at least one remaining task
alone (otherwise :class:`MethodFailedError`), and an empty core of that type
takes such a task, so every VM round places at least one task. The loop
therefore ends after at most ``P + T`` rounds; a VM round that placed nothing
would be a bug and fails explicitly instead of renting forever.
"""

from __future__ import annotations

from dataclasses import replace

from hybridsched.errors import MethodFailedError
from hybridsched.heuristics.machine_pool import MachinePool, RemainingTasks
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences


def cdf(
    instance: Instance, *, seed: int | None = None, time_limit: float | None = None
) -> Solution:
    """Schedule ``instance`` with Closest Deadline First.

    Parameters
    ----------
    instance:
        The hybrid-deadline instance.
    seed, time_limit:
        Accepted for the common method signature; CDF is deterministic.

    Raises
    ------
    MethodFailedError
        If the VM limit is reached or no machine can take a remaining task.
    """
    remaining = RemainingTasks(instance)
    pool = MachinePool(instance)
    sequences: dict[tuple[int, int], list[int]] = {}
    work = instance.work
    while len(remaining):
        machine = pool.add_next(remaining)
        loads = [0.0] * machine.cores
        queues = [sequences.setdefault((machine.number, c), []) for c in range(machine.cores)]
        before = len(remaining)
        while len(remaining):
            best: tuple[float, int, int] | None = None
            for c, load in enumerate(loads):
                fit = remaining.tightest_fit(machine.capacity, load)
                if fit is not None and (best is None or (fit[0], fit[1], c) < best):
                    best = (fit[0], fit[1], c)
            if best is None:
                break  # this machine's cores are exhausted
            _, task, c = best
            loads[c] += work[task] / machine.capacity
            queues[c].append(task)
            remaining.remove(task)
        if machine.vm_type is not None and len(remaining) == before:
            raise MethodFailedError(  # unreachable: the type was chosen because a task fits
                f"the VM rented as machine {machine.number} could take no remaining task"
            )
    solution = from_core_sequences(
        instance.n_tasks, pool.vm_types, sequences, durations_function(instance, pool.vm_types)
    )
    return replace(solution, notes={"machine_order": tuple(pool.added)})
