"""First Fit Decreasing (FFD), the baseline of Wang et al. (2016).

"FFD is assigning the longest task to the first core on which it will fit"
(Section 4.1, after reference [32], López et al., "Utilization Bounds for EDF
Scheduling on Real-Time Multiprocessor Systems"). Tasks in decreasing order of
work (ties: lowest index) each go to the first core, in the order machines
were added and then by core number, on which they fit.

What "fit" means is the option ``fit`` (a reading; see
:mod:`hybridsched.heuristics.hybrid_deadline.edf_core`):

``"edf"`` (default, the literal one)
    The core's tasks, with the new one, run by ascending deadline and all
    meet their deadlines: the model's own rule ("they can run in sequential
    order by their deadlines in ascending fashion", Section 3.1) and the
    EDF-first-fit of reference [32]. A short task can go before the long
    ones already on a core, as long as they still finish in time.
``"append"``
    The task runs after the core's last task and meets its deadline there;
    the tasks already placed never move. Before issue 19 this was the only
    behaviour.

"Longest" is read as the most work (equivalently the longest run time on any
given core); the paper leaves ties open (lowest index first here). On
instances imported from a trace by record or by job, deadlines grow with
work, so ordering by latest deadline first would give the same order.

When no core fits, machines are added as CDF adds them
(most capacious unused PM first) until one does; once every PM is in use, a
VM is rented *for the task at hand*: C1 is "the type finishes this task
alone", then C2-C3 as in CDF.

Proof of progress: each task adds at most one machine per PM plus one VM, and
that VM's empty core takes the task; when no PM is left and no VM type can
finish the task alone, FFD stops with :class:`MethodFailedError` naming the
task (renting more VMs could never place it). First fit is vectorised over all
cores with numpy, with the checker's own test ``load + w / r <= d + TIME_TOL``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hybridsched.budget import TimeBudget
from hybridsched.errors import MethodFailedError
from hybridsched.heuristics.hybrid_deadline.edf_core import EdfCore
from hybridsched.heuristics.hybrid_deadline.machine_pool import MachinePool, RemainingTasks
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution, durations_function, from_core_sequences
from hybridsched.readings import check_choice


class _CoreTable:
    """Growable arrays of every core added so far (load, capacity, machine, core)."""

    def __init__(self) -> None:
        self.size = 0
        self.load = np.zeros(64)
        self.capacity = np.ones(64)
        self.machine = np.zeros(64, dtype=int)
        self.core = np.zeros(64, dtype=int)

    def add_machine(self, number: int, cores: int, capacity: float) -> None:
        while self.size + cores > len(self.load):
            grow = len(self.load)
            self.load = np.concatenate([self.load, np.zeros(grow)])
            self.capacity = np.concatenate([self.capacity, np.ones(grow)])
            self.machine = np.concatenate([self.machine, np.zeros(grow, dtype=int)])
            self.core = np.concatenate([self.core, np.zeros(grow, dtype=int)])
        span = slice(self.size, self.size + cores)
        self.capacity[span] = capacity
        self.machine[span] = number
        self.core[span] = np.arange(cores)
        self.size += cores

    def first_fit(self, work: float, deadline: float) -> int | None:
        n = self.size
        fits = self.load[:n] + work / self.capacity[:n] <= deadline + TIME_TOL
        k = int(np.argmax(fits)) if n else 0
        return k if n and fits[k] else None


#: Readings of "the first core on which it will fit" (see the module docstring).
FITS = ("edf", "append")

#: Seconds of FFD per task, and per task and core (first fit scans every core added so
#: far). Measured on generated instances (mixed alpha, seed 1) against the cores of the
#: CDF+RA schedule: 5,000 tasks, 504 cores: 0.24 s; 20,000 tasks, 2,052 cores: 1.2 s;
#: 200,000 tasks, 20,254 cores: 46 s.
SECONDS_PER_TASK = 40e-6
SECONDS_PER_TASK_CORE = 10e-9
#: Tasks placed between two checks of a time budget.
_CHECK_EVERY = 256


def estimated_seconds(n_tasks: int, cores: int) -> float:
    """FFD's time on ``n_tasks`` tasks ending with about ``cores`` cores (quadratic)."""
    return n_tasks * (SECONDS_PER_TASK + SECONDS_PER_TASK_CORE * cores)


def check_fit(fit: object) -> None:
    """Refuse an unknown ``fit`` reading (one-line :class:`InputError`)."""
    check_choice("fit", fit, FITS)


class _EdfTable:
    """Every core added so far, kept in deadline order, with vectorised screens.

    Per core: load, earliest and latest deadline, least slack. A task due no
    earlier than a core's latest deadline is appended (finish ``load + w/r``);
    one due before its earliest goes first (fits when it meets its own deadline
    alone and the least slack absorbs its run time); other cores are tested
    in full. Every fit found is confirmed exactly (:meth:`EdfCore.confirm`).
    """

    def __init__(self, instance: Instance) -> None:
        self._instance = instance
        self.cores: list[EdfCore] = []
        self.machine: list[int] = []
        self.core: list[int] = []
        self._capacity = np.zeros(0)
        self._load = np.zeros(0)
        self._first = np.zeros(0)
        self._last = np.zeros(0)
        self._slack = np.zeros(0)

    def add_machine(self, number: int, cores: int, capacity: float) -> None:
        for c in range(cores):
            self.cores.append(EdfCore(self._instance, capacity))
            self.machine.append(number)
            self.core.append(c)
        self._capacity = np.concatenate([self._capacity, np.full(cores, capacity)])
        self._load = np.concatenate([self._load, np.zeros(cores)])
        self._first = np.concatenate([self._first, np.full(cores, np.inf)])
        self._last = np.concatenate([self._last, np.full(cores, -np.inf)])
        self._slack = np.concatenate([self._slack, np.full(cores, np.inf)])

    def first_fit(self, task: int) -> int | None:
        work = float(self._instance.work[task])
        deadline = float(self._instance.deadline[task])
        run = work / self._capacity
        at_end = deadline >= self._last
        at_front = ~at_end & (deadline < self._first)
        # In between, the last task is always delayed: its slack must absorb the run.
        # In front, every task is delayed: the least slack must absorb the run.
        fits = np.where(at_end, self._load + run <= deadline + TIME_TOL,
                        (run <= deadline + TIME_TOL)
                        & np.where(at_front, run <= self._slack + TIME_TOL,
                                   run <= self._last - self._load + TIME_TOL))
        one = np.array([task])
        for k in np.flatnonzero(fits).tolist():
            core = self.cores[k]
            screened = at_end[k] or at_front[k] or bool(core.screen(one)[1][0])
            if screened and core.confirm(task):
                return k
        return None

    def place(self, k: int, task: int) -> None:
        core = self.cores[k]
        core.insert(task)
        self._load[k] = core.load
        self._first[k] = core.deadlines[0]
        self._last[k] = core.deadlines[-1]
        self._slack[k] = core.suffix_slack[0]


def ffd(
    instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
    fit: str = "edf",
) -> Solution:
    """Schedule ``instance`` with First Fit Decreasing (deterministic).

    Parameters
    ----------
    instance:
        The hybrid-deadline instance.
    seed, time_limit:
        Accepted for the common method signature; FFD is deterministic.
    fit:
        ``"edf"`` or ``"append"``: what fitting a core means (module docstring).

    Raises
    ------
    InputError
        For an unknown ``fit``.
    MethodFailedError
        If the VM limit is reached or a task fits no core that can still be added.
    """
    return ffd_within(instance, TimeBudget(None), fit=fit)


def ffd_within(instance: Instance, budget: TimeBudget, *, fit: str = "edf") -> Solution:
    """:func:`ffd`, giving up when ``budget`` runs out (for a warm start under a time limit).

    Raises
    ------
    BudgetExpired
        When ``budget`` runs out before every task is placed (checked every
        :data:`_CHECK_EVERY` tasks).
    """
    check_fit(fit)
    remaining = RemainingTasks(instance)
    pool = MachinePool(instance)
    table: _CoreTable | _EdfTable = _CoreTable() if fit == "append" else _EdfTable(instance)
    placements: list[tuple[int, int, int]] = []
    order = np.lexsort((np.arange(instance.n_tasks), -instance.work))
    for placed, task in enumerate(order.tolist()):
        if placed % _CHECK_EVERY == 0:
            budget.check("FFD")
        k = _first_fit(table, instance, task)
        while k is None:
            machine = pool.add_next(remaining, task)
            table.add_machine(machine.number, machine.cores, machine.capacity)
            k = _first_fit(table, instance, task)
            if k is None and machine.vm_type is not None:  # unreachable: rented for this task
                raise MethodFailedError(
                    f"task {instance.task_ids[task]} does not fit the VM rented for it"
                )
        if isinstance(table, _CoreTable):
            table.load[k] += float(instance.work[task]) / table.capacity[k]
            placements.append((task, int(table.machine[k]), int(table.core[k])))
        else:
            table.place(k, task)
            placements.append((task, table.machine[k], table.core[k]))
        remaining.remove(task)
    sequences: dict[tuple[int, int], list[int]] = {}
    if isinstance(table, _EdfTable):
        for m, c, core in zip(table.machine, table.core, table.cores, strict=True):
            sequences[m, c] = list(core.tasks)
    else:
        for task, m, c in placements:
            sequences.setdefault((m, c), []).append(task)
    solution = from_core_sequences(
        instance.n_tasks, pool.vm_types, sequences, durations_function(instance, pool.vm_types)
    )
    return replace(solution, notes={"machine_order": tuple(pool.added),
                                    "placements": tuple(placements)})


def _first_fit(table: _CoreTable | _EdfTable, instance: Instance, task: int) -> int | None:
    if isinstance(table, _EdfTable):
        return table.first_fit(task)
    return table.first_fit(float(instance.work[task]), float(instance.deadline[task]))
