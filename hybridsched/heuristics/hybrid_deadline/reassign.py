"""RA, the task reassigning algorithm of Wang et al. (2016), Algorithm 2.

For each PM and VM: take the task that finishes last on the machine; if
running it after the least-loaded core's last task finishes it strictly
earlier, move it there and repeat; otherwise stop with this machine. Only the
moved task changes: its finish time strictly decreases (so it still meets its
deadline) and no other task moves, so no finish time and no lease grows.
Lease hours are recomputed by the checker from the new finish times.

Tie-breaking: latest finish on the lowest core number; least-loaded core
with the lowest number.

Reading (option ``accept``): Section 3.3 says the algorithm "examines whether
the finish time of the task with latest finish time (lines 8-10) could be
reduced by reassigning the task to the core with the lightest load (lines
11-12) ... and, if so, reassigns the task to the core (lines 13-20). The
algorithm repeats the step until the latest finish time can not be reduced
(lines 21-22)."

``"task"`` (default, the literal one)
    A move is made when it reduces *the task's* finish time (the first
    sentence's test); RA stops at the first move that would not.
``"machine"``
    A move is made only when it reduces the machine's latest finish time
    (the stopping rule read as the test): when two cores tie for the latest
    finish, moving one of their last tasks does not, and RA stops there.

Proof of progress: every move strictly lowers one task's finish time and
changes no other, so the sum of finish times strictly decreases and no state
repeats: the loop ends. Its length is moreover capped at
:data:`MOVES_PER_TASK` moves per task of the machine (plus one per core);
every intermediate schedule is valid, so stopping at the cap is safe.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np

from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences
from hybridsched.readings import check_choice

#: Cap on RA moves per task of a machine (a guard; far above what RA needs).
MOVES_PER_TASK = 8


def _core_sequences(solution: Solution) -> dict[tuple[int, int], list[int]]:
    """Tasks of every core in start-time order."""
    sequences: dict[tuple[int, int], list[int]] = {}
    machine, core = solution.machine.tolist(), solution.core.tolist()
    # A stable sort, as sorted() was: equal starts keep task order.
    for task in np.argsort(solution.start, kind="stable").tolist():
        sequences.setdefault((machine[task], core[task]), []).append(task)
    return sequences


def _machine_cores(instance: Instance, solution: Solution, machine: int) -> int:
    n_pm = len(instance.pms)
    if machine < n_pm:
        return instance.pms[machine].cores
    return instance.vm_types[solution.vm_types[machine - n_pm]].cores


#: Readings of RA's acceptance test (module docstring).
ACCEPTS = ("task", "machine")


def check_accept(accept: object) -> None:
    """Refuse an unknown ``accept`` reading (one-line :class:`InputError`)."""
    check_choice("ra_accept", accept, ACCEPTS)


def reassign(instance: Instance, solution: Solution, *, accept: str = "task") -> Solution:
    """Return ``solution`` with every machine rebalanced by RA.

    Tasks keep their machine; on each core they run back to back in their
    current order, so idle gaps in ``solution`` (if any) are closed first,
    which can only make finish times earlier. ``accept`` is the reading of
    the acceptance test (module docstring). The moves, in order, are
    recorded in ``notes["moves"]`` as ``(task, machine, from core, to core)``.
    """
    check_accept(accept)
    moves: list[tuple[int, int, int, int]] = []
    durations_on = durations_function(instance, solution.vm_types)
    sequences = _core_sequences(solution)
    machines = sorted({m for m, _ in sequences})
    for m in machines:
        run = durations_on(m)
        cores = _machine_cores(instance, solution, m)
        queues = [sequences.setdefault((m, c), []) for c in range(cores)]
        # Prefix finish times per core, accumulated as the checker's cumsum does.
        finishes = [list(itertools.accumulate(run[t] for t in q)) for q in queues]
        moves_left = MOVES_PER_TASK * sum(len(q) for q in queues) + cores
        while cores > 1 and moves_left > 0:
            moves_left -= 1
            loads = [f[-1] if f else 0.0 for f in finishes]
            latest = max(range(cores), key=lambda c: (loads[c], -c))
            lightest = min(range(cores), key=lambda c: (loads[c], c))
            if lightest == latest or not queues[latest]:
                break
            task = queues[latest][-1]
            new_finish = loads[lightest] + run[task]
            if not new_finish < loads[latest]:
                break
            if accept == "machine":
                rest = [f[-1] if f else 0.0 for k, f in enumerate(finishes) if k != latest]
                shortened = finishes[latest][-2] if len(finishes[latest]) > 1 else 0.0
                if not max([new_finish, shortened, *rest]) < loads[latest]:
                    break
            queues[latest].pop()
            finishes[latest].pop()
            queues[lightest].append(task)
            finishes[lightest].append(new_finish)
            moves.append((task, m, latest, lightest))
    moved = from_core_sequences(instance.n_tasks, solution.vm_types, sequences, durations_on)
    return replace(moved, notes={**solution.notes, "moves": tuple(moves)})
