"""Reading a gang CP-SAT solution back as a schedule in real time units.

The model gives each running job a start (integer, scaled) and a number of
tasks per VM class. :func:`assign` gives the tasks VMs, class by class in
start order (a task takes VMs free at its start: the cumulative rule
guarantees enough of them, intervals on a line); :func:`read_back` then
places the jobs in that order on those VMs at their earliest *real* starts
(``max(arrival, VMs free)``, the checker's real times with its float
expressions: each stated start is the real one), dropping a job that would
end after ``due + TIME_TOL`` (the relaxed model may round in its favour;
the exact and restricted models need it only where binary64 rounds an exact
fit over the line). Earliest starts in a fixed order and VM choice only move
jobs earlier, so a job kept never becomes late because of it, and the
checker has the last word.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hybridsched.gang.checker import TIME_TOL
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts
from hybridsched.models.gang.cpsat_build import GangCpsat

#: How the read-back names the jobs it drops.
LATE = "ends after its deadline in real time (the relaxed model rounds times in its favour)"
NOT_RUN = "not in the offline optimum"


def solution_values(built: GangCpsat, solver: Any
                    ) -> tuple[dict[int, int], dict[tuple[int, int], int]]:
    """The integer starts of the running jobs and their task counts per class."""
    starts = {j: int(solver.value(built.start[j])) for j, run in built.run.items()
              if solver.boolean_value(run)}
    counts = {(j, c): int(solver.value(count)) for (j, c), count in built.count.items()
              if j in starts}
    return starts, {key: n for key, n in counts.items() if n}


def assign(built: GangCpsat, starts: dict[int, int], counts: dict[tuple[int, int], int]
           ) -> tuple[list[int], dict[int, list[int]]]:
    """The jobs in start order and the VMs of each (free at its integer start, least used first).

    A job whose class does not have enough free VMs (impossible in a
    solution of the model) gets none and is dropped by :func:`read_back`.
    """
    order = sorted(starts, key=lambda j: (starts[j], j))
    size = built.times.size
    free = {c: np.full(len(vms), np.iinfo(np.int64).min, dtype=np.int64)
            for c, vms in enumerate(built.classes)}
    per_job: dict[int, list[tuple[int, int]]] = {}
    for (j, c), n in counts.items():
        per_job.setdefault(j, []).append((c, n))
    vms: dict[int, list[int]] = {}
    for j in order:
        placed: list[int] = []
        for c, n in sorted(per_job.get(j, [])):
            ready = np.flatnonzero(free[c] <= starts[j])
            if len(ready) < n:
                placed = []
                break
            # The VMs freed earliest: the most room when real times differ from integer ones.
            pick = ready[np.argsort(free[c][ready], kind="stable")[:n]]
            free[c][pick] = starts[j] + size[j, built.classes[c][pick]]
            placed += built.classes[c][pick].tolist()
        vms[j] = sorted(placed)
    return order, vms


def read_back(instance: Instance, order: list[int], vms: dict[int, list[int]]
              ) -> tuple[Solution, int]:
    """The schedule of ``order`` on ``vms`` at earliest real starts; how many jobs it dropped."""
    times = instance.task_time()  # instructions / speed, the checker's division
    deadline = instance.due + TIME_TOL  # the checker's expression
    free = np.full(instance.n_vms, -np.inf)
    starts: dict[int, tuple[float, list[int]]] = {}
    dropped: dict[int, str] = {}
    for j in order:
        placed = vms[j]
        if len(placed) != instance.parallelism[j]:
            dropped[j] = LATE
            continue
        s = max(float(instance.arrival[j]), float(free[placed].max()))
        ends = s + times[j, placed]
        if (ends > deadline[j]).any():
            dropped[j] = LATE
            continue
        starts[j] = (s, placed)
        free[placed] = ends
    repaired = len(dropped)
    dropped.update({j: NOT_RUN for j in range(instance.n_jobs)
                    if j not in starts and j not in dropped})
    return from_starts(instance.n_jobs, starts, dropped), repaired


def extract(built: GangCpsat, solver: Any) -> tuple[Solution, int]:
    """The schedule of the solver's incumbent and how many jobs the read-back dropped."""
    starts, counts = solution_values(built, solver)
    return read_back(built.instance, *assign(built, starts, counts))
