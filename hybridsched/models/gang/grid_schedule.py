"""Schedules with every start on a time grid, by a MIP (HiGHS): better best-known at 200 jobs.

The restriction of :mod:`hybridsched.gang.time_index`'s relaxation that
keeps only real schedules: job ``j`` starts at a grid point ``g_i >= arrival``
(``w_ji`` binary, at most one), with ``x_jci`` of its tasks on class ``c``
(integer, ``sum_c x_jci = q_j w_ji``, at most the class's VMs that may run
it), each occupying the whole grid cells ``[g_i, g_{i + n})`` that its
slowest eligible task time in the class (plus :data:`SLACK`) reaches, and at
most ``m_c`` tasks of a class in every cell. The last start keeps ``g_i +
time <= due`` in the checker's floats, the tolerance left unused.

On a class of identical VMs the cells' counts are exactly what interval
colouring needs: the tasks sorted by start are placed greedily on a VM free
by then (:func:`extract`). Classes of unlike VMs (speed bands) may leave a
task without a VM that meets its demands; such a job is dropped. Then the
schedule is checked, and any job the checker finds late is dropped too
(which only frees VMs), until it passes: the result always passes the checker.

Objective: most jobs started, then most instructions (weights summing to
below one job). It proves nothing (a restriction); the bound comes from
:mod:`.bound`. On table 2's 200-job files (grid 1/16) it finds UFJ 107 and 98
in 90 s of HiGHS, 106 and 97 within the ``grid`` method's 300 s, where the
library's best known were 113 and 110 (CP-SAT, 60 s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import highspy
import numpy as np

from hybridsched.budget import TimeBudget
from hybridsched.gang.checker import TIME_TOL, check, could_finish, finish_times, rank
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts
from hybridsched.gang.time_index import default_classes
from hybridsched.memory import require
from hybridsched.models.solvers.highs_stop import Deadline, watch

#: Grid step (time units; a power of two, so grid points are exact binary64 numbers).
STEP = 0.0625
#: Time added to a task before counting the cells it occupies, so that its real end
#: (binary64) is never after the next task's grid start on its VM.
SLACK = 4 * TIME_TOL
#: Bytes per nonzero of the MIP (numpy build, HiGHS's model and its branch and bound):
#: the time-indexed LP's measure (:data:`.bound.BYTES_PER_NONZERO`) doubled for the search.
BYTES_PER_NONZERO = 600
#: Most columns of one MIP: beyond this HiGHS finds few improvements in minutes.
MAX_COLUMNS = 40_000
#: Seconds of the time limit kept for reading the schedule back and checking it.
RESERVE = 1.0
#: Weight of all instructions together in the objective (below one job).
SIN_WEIGHT = 0.5


@dataclass(frozen=True)
class GridMip:
    """The MIP's columns: ``w`` (job, grid index) and ``x`` (job, class, grid index, cells)."""

    origin: float
    step: float
    classes: list[list[int]]
    w_job: np.ndarray
    w_index: np.ndarray
    x_w: np.ndarray
    x_class: np.ndarray
    x_cells: np.ndarray
    x_upper: np.ndarray


def columns(instance: Instance, step: float = STEP) -> GridMip:
    """The grid MIP's columns (module docstring), decided with the checker's floats."""
    ok = could_finish(instance)
    q = instance.parallelism
    classes = default_classes(instance)
    origin = math.floor(float(instance.arrival.min()) / step) * step if instance.n_jobs else 0.0
    w_job, w_index, x_w, x_class, x_cells, x_upper = [], [], [], [], [], []
    for j in np.flatnonzero(ok.sum(axis=1) >= q).tolist():
        arrival, due = float(instance.arrival[j]), float(instance.due[j])
        first = math.ceil((arrival - origin) / step)
        while origin + first * step < arrival:
            first += 1
        spans = []
        for c, part in enumerate(classes):
            eligible = [v for v in part if ok[j, v]]
            if not eligible:
                continue
            time = float(instance.instructions[j] / instance.speed[eligible].min())
            last = math.floor((due - time - origin) / step)
            while last >= first and (origin + last * step) + time > due:
                last -= 1
            if last >= first:
                spans.append((c, time, last, min(int(q[j]), len(eligible))))
        if sum(span[3] for span in spans) < q[j]:
            continue
        for i in range(first, max(span[2] for span in spans) + 1):
            w = len(w_job)
            w_job.append(j)
            w_index.append(i)
            for c, time, last, upper in spans:
                if i <= last:
                    x_w.append(w)
                    x_class.append(c)
                    x_cells.append(math.ceil((time + SLACK) / step))
                    x_upper.append(upper)
    as_int = lambda values: np.asarray(values, dtype=np.int64)  # noqa: E731
    return GridMip(origin, step, classes, as_int(w_job), as_int(w_index), as_int(x_w),
                   as_int(x_class), as_int(x_cells), as_int(x_upper))


def nonzeros(grid: GridMip) -> int:
    """The MIP's nonzeros: ``w`` in its job row and gang row (2), ``x`` in its cells."""
    return 3 * len(grid.w_job) + int(grid.x_cells.sum()) + len(grid.x_w)


def solve(instance: Instance, budget: TimeBudget, seed: int = 0,
          step: float = STEP) -> tuple[Solution | None, str]:
    """The best grid schedule HiGHS finds within ``budget`` (checked), and what happened.

    ``None`` when the MIP is too large (:data:`MAX_COLUMNS`, the memory budget:
    ``ModelTooLarge`` is raised for the caller) or HiGHS found no schedule.
    """
    grid = columns(instance, step)
    n_w, n_x = len(grid.w_job), len(grid.x_w)
    if n_w + n_x > MAX_COLUMNS:
        return None, f"grid MIP: {n_w + n_x:,} columns, over {MAX_COLUMNS:,}: not built"
    if n_w == 0:
        return None, "grid MIP: no job can start on the grid"
    require("the gang grid MIP", nonzeros(grid) * BYTES_PER_NONZERO)
    values, status = _run(instance, grid, budget, seed)
    if values is None:
        return None, f"grid MIP: HiGHS {status}, no schedule"
    return extract(instance, grid, values), f"grid MIP (step {step:g}): HiGHS {status}"


def _run(instance: Instance, grid: GridMip, budget: TimeBudget,
         seed: int) -> tuple[np.ndarray | None, str]:
    from scipy import sparse

    q = instance.parallelism
    n_w, n_x = len(grid.w_job), len(grid.x_w)
    jobs, job_row = np.unique(grid.w_job, return_inverse=True)
    n_jobs = len(jobs)
    # Cells: (class, grid index) rows, one per cell some task occupies.
    reps = grid.x_cells
    x_rep = np.repeat(np.arange(n_x), reps)
    offset = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)
    cell = grid.w_index[grid.x_w][x_rep] + offset
    low = int(cell.min()) if cell.size else 0
    span = (int(cell.max()) - low + 1) if cell.size else 1
    used, cell_row = np.unique(grid.x_class[x_rep] * span + (cell - low), return_inverse=True)
    r_gang, r_cell = n_jobs, n_jobs + n_w
    rows = np.concatenate([job_row, r_gang + np.arange(n_w), r_gang + grid.x_w,
                           r_cell + cell_row])
    cols = np.concatenate([np.arange(n_w), np.arange(n_w), n_w + np.arange(n_x), n_w + x_rep])
    vals = np.concatenate([np.ones(n_w), q[grid.w_job].astype(float), -np.ones(n_x),
                           np.ones(len(x_rep))])
    n_rows = r_cell + len(used)
    matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(n_rows, n_w + n_x))
    capacity = np.array([len(part) for part in grid.classes], dtype=float)
    inf = highspy.kHighsInf
    row_low = np.r_[np.full(n_jobs, -inf), np.zeros(n_w), np.full(len(used), -inf)]
    row_up = np.r_[np.ones(n_jobs), np.zeros(n_w), capacity[used // span]]
    sin = q * instance.instructions
    weight = SIN_WEIGHT / (float(sin.sum()) + 1.0)
    costs = np.r_[-1.0 - weight * sin[grid.w_job], np.zeros(n_x)]
    upper = np.r_[np.ones(n_w), grid.x_upper.astype(float)]
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    highs.setOptionValue("random_seed", int(seed))
    deadline = Deadline()
    remaining = budget.remaining()
    if remaining is not None:
        # Keep a moment for the read-back and the checker (0.5-1 s at 200 jobs).
        remaining = max(remaining - max(RESERVE, 0.01 * remaining), 0.01)
        highs.setOptionValue("time_limit", remaining)
        deadline.set(remaining)
    watch(highs, deadline)
    n = n_w + n_x
    highs.addCols(n, costs, np.zeros(n), upper, 0, np.zeros(0, dtype=np.int32),
                  np.zeros(0, dtype=np.int32), np.zeros(0))
    highs.addRows(n_rows, row_low, row_up, matrix.nnz, matrix.indptr[:-1].astype(np.int32),
                  matrix.indices.astype(np.int32), matrix.data)
    highs.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                                np.full(n, highspy.HighsVarType.kInteger))
    highs.run()
    status = highs.modelStatusToString(highs.getModelStatus())
    solution = highs.getSolution()
    if not solution.value_valid:
        return None, status
    return np.asarray(solution.col_value), status


def extract(instance: Instance, grid: GridMip, values: np.ndarray) -> Solution:
    """The MIP's schedule on real VMs (greedy colouring per class), checked and repaired."""
    ok = could_finish(instance)
    n_w = len(grid.w_job)
    chosen = np.flatnonzero(values[:n_w] > 0.5)
    chosen = chosen[np.lexsort((grid.w_job[chosen], grid.w_index[chosen]))]
    tasks: dict[int, list[int]] = {}
    for x in np.flatnonzero(values[n_w:] > 0.5).tolist():
        tasks.setdefault(int(grid.x_w[x]), []).append(x)
    free = np.full(instance.n_vms, -np.inf)  # grid index from which each VM is free
    starts: dict[int, tuple[float, list[int]]] = {}
    dropped: dict[int, str] = {}
    for w in chosen.tolist():
        j, i = int(grid.w_job[w]), int(grid.w_index[w])
        placed: list[int] = []
        ends: list[int] = []
        for x in tasks.get(w, []):
            count = int(round(values[n_w + x]))
            part = [v for v in grid.classes[int(grid.x_class[x])]
                    if ok[j, v] and free[v] <= i and v not in placed]
            part.sort(key=lambda v: -free[v])  # the VM free the latest first (best fit)
            placed += part[:count]
            ends += [i + int(grid.x_cells[x])] * min(count, len(part))
        if len(placed) != instance.parallelism[j]:
            dropped[j] = "no VM left for it on the grid (a class of unlike VMs)"
            continue
        free[placed] = ends
        starts[j] = (grid.origin + i * grid.step, placed)
    solution = _with(instance, starts, dropped)
    for _ in range(instance.n_jobs):
        if not check(instance, solution):
            return solution
        late = np.flatnonzero(finish_times(instance, solution) > instance.due + TIME_TOL)
        if not late.size:
            break
        for j in late.tolist():
            starts.pop(j, None)
            dropped[j] = "ends after its deadline on the grid (rounding)"
        solution = _with(instance, starts, dropped)
    if check(instance, solution):  # never expected: the schedule that runs nothing
        return _with(instance, {}, {})
    return solution


def _with(instance: Instance, starts: dict[int, tuple[float, list[int]]],
          dropped: dict[int, str]) -> Solution:
    reasons = {j: dropped.get(j, "not in the grid schedule") for j in range(instance.n_jobs)
               if j not in starts}
    return from_starts(instance.n_jobs, starts, reasons)


def better(instance: Instance, first: Solution, second: Solution | None) -> bool:
    """Whether ``second`` ranks better than ``first`` (fewer unfinished, more instructions)."""
    return second is not None and rank(instance, second) < rank(instance, first)
