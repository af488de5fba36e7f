"""The gang family's strong lower bound: the time-indexed relaxation, solved by HiGHS.

Energetic reasoning, with the gang start kept: a job finishes only if all its
``parallelism`` tasks start in one time bucket, and at every grid point a
class of VMs runs at most as many tasks as it has VMs
(:mod:`hybridsched.gang.time_index` states the LP and why every schedule the
checker accepts is a point of it). Its LP value bounds the jobs that can
finish; the bound on unfinished jobs is ``ceil(n - that)``. On table 2's
200-job files the LP's ``z`` come out almost integral (``large-200-s0``,
grid 0.1: 97 of 124 at 1, 2 fractional): what it misses is the exact
timing, which a finer grid recovers (UFJ >= 102 at grid 1/16, 103 at 1/32).

The proof is HiGHS's dual vector (nonzero entries, rounded to 9 decimals:
any vector is safe), and the value claimed is what
:func:`hybridsched.gang.bound_check.dual_value` makes of it in exact
arithmetic, the function ``verify_bound`` runs, never HiGHS's objective.

Grids from coarse to fine (:data:`STEPS`, powers of two, so grid points are
exact binary64 numbers): each finer one is solved while the time limit and
the memory budget leave room for it (its size estimated first,
:func:`estimate`), and the best proof is kept. With no room even for the
coarsest, the family's cheap bound comes back, its method saying why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import highspy
import numpy as np

from hybridsched.bound_proof import BoundCertificate, floor_float
from hybridsched.budget import TimeBudget
from hybridsched.gang.bound_check import dual_value, unfinished_bound
from hybridsched.gang.bounds import lower_bound
from hybridsched.gang.checker import could_finish
from hybridsched.gang.instance import Instance
from hybridsched.gang.time_index import TimeIndex, build_index, default_classes, grid_origin
from hybridsched.memory import ModelTooLarge, require
from hybridsched.models.solvers.highs_stop import Deadline, watch

#: Grid steps tried, coarse to fine (time units; powers of two).
STEPS = (1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625)
#: Bytes per nonzero of the LP, all copies together (numpy build, HiGHS's model and its
#: simplex factor): measured on table2 files (200 and 2,000 jobs, peak RSS growth of the
#: process over the nonzeros, 170-230 bytes), with a margin.
BYTES_PER_NONZERO = 300
#: Most nonzeros of one LP, whatever the budget: beyond it HiGHS's dual simplex takes
#: minutes (about 60 s at 3 million on this machine's cores).
MAX_NONZEROS = 4_000_000
#: Ratio of a finer grid's solve time to the last one's, assumed before trying it (LP
#: time grows a bit faster than its size, which roughly doubles per halved step).
GROWTH = 3.0
#: HiGHS's LP algorithm (see :func:`solve_lp`).
SOLVER = "ipm"
#: Decimals kept of each dual in a proof (any vector is valid; this keeps proofs short).
DUAL_DECIMALS = 9
#: Duals smaller than this are left out of a proof.
DUAL_EPSILON = 1e-9
#: Method name of the cheap fallback.
CHEAP = "could-finish count (the family's cheap bound)"


@dataclass(frozen=True)
class Size:
    """Columns, rows and nonzeros a grid's LP will have (estimated from the instance)."""

    columns: int
    rows: int
    nonzeros: int

    @property
    def bytes(self) -> float:
        """Estimated memory of the LP (:data:`BYTES_PER_NONZERO`)."""
        return float(self.nonzeros) * BYTES_PER_NONZERO


def estimate(instance: Instance, classes: list[list[int]], step: float) -> Size:
    """The LP's size on grid ``step``, from the jobs' windows (without building it)."""
    ok = could_finish(instance)
    jobs = ok.sum(axis=1) >= instance.parallelism
    if not jobs.any():
        return Size(0, 0, 0)
    window = instance.deadline[jobs] / step + 2  # buckets per job
    x = 0.0
    covered = 0.0
    for part in classes:
        usable = ok[jobs][:, part].any(axis=1)
        length = instance.instructions[jobs] / float(instance.speed[part].max())
        mine = usable * (np.maximum(instance.deadline[jobs] - length, 0.0) / step + 2)
        x += float(np.sum(mine))
        covered += float(np.sum(mine * length / step))
    columns = float(np.sum(window)) + int(jobs.sum()) + x
    nonzeros = float(np.sum(window)) * 3 + x * 3 + covered
    rows = float(np.sum(window)) + int(jobs.sum()) + len(classes) * (
        float(instance.due.max() - instance.arrival.min()) / step + 2)
    return Size(int(columns), int(rows), int(nonzeros))


@dataclass
class LpRows:
    """The float LP of a :class:`TimeIndex` and the key of each row (for the proof)."""

    costs: np.ndarray
    upper: np.ndarray
    row_upper: np.ndarray
    matrix: Any  # scipy.sparse.csr_matrix
    keys: list[tuple[str, tuple[int, ...]]]


def lp_rows(instance: Instance, index: TimeIndex) -> LpRows:
    """The LP of the module docstring in CSR form: columns ``z``, then ``w``, then ``x``."""
    from scipy import sparse

    nz, nw, nx = len(index.jobs), len(index.w_job), len(index.x_job)
    z_of = np.full(instance.n_jobs, -1, dtype=np.int64)
    z_of[index.jobs] = np.arange(nz)
    # w columns come job by job, buckets consecutive: w index = first[j] + (i - first bucket).
    first = np.zeros(instance.n_jobs, dtype=np.int64)
    first_bucket = np.zeros(instance.n_jobs, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, index.w_job[1:] != index.w_job[:-1]]) if nw else []
    first[index.w_job[starts]] = starts
    first_bucket[index.w_job[starts]] = index.w_bucket[starts]
    x_w = first[index.x_job] + index.x_bucket - first_bucket[index.x_job]
    q = instance.parallelism
    room_e = index.room[index.x_job, index.x_class]
    has_room = np.flatnonzero(room_e > 0)
    lo = np.maximum(index.x_first, 0)
    hi = np.minimum(index.x_last, index.points - 1)
    span = np.maximum(hi - lo + 1, 0)
    # Point rows: (class, point), only those some column covers.
    x_rep = np.repeat(np.arange(nx), span)
    offsets = np.arange(int(span.sum())) - np.repeat(np.cumsum(span) - span, span)
    point_key = index.x_class[x_rep] * max(index.points, 1) + lo[x_rep] + offsets
    used, point_row = np.unique(point_key, return_inverse=True)
    r_start, r_gang = 0, nz
    r_room = r_gang + nw
    r_point = r_room + len(has_room)
    n_rows = r_point + len(used)
    w0, x0 = nz, nz + nw
    rows = np.concatenate([
        np.arange(nz), r_start + z_of[index.w_job],                 # start rows
        r_gang + np.arange(nw), r_gang + x_w,                        # gang rows
        r_room + np.arange(len(has_room)), r_room + np.arange(len(has_room)),  # room rows
        r_point + point_row])                                        # point rows
    cols = np.concatenate([
        np.arange(nz), w0 + np.arange(nw),
        w0 + np.arange(nw), x0 + np.arange(nx),
        x0 + has_room, w0 + x_w[has_room],
        x0 + x_rep])
    values = np.concatenate([
        np.ones(nz), -np.ones(nw),
        q[index.w_job].astype(float), -np.ones(nx),
        np.ones(len(has_room)), -room_e[has_room].astype(float),
        np.ones(len(x_rep))])
    matrix = sparse.csr_matrix((values, (rows, cols)), shape=(n_rows, nz + nw + nx))
    row_upper = np.zeros(n_rows)
    point_class, point_k = np.divmod(used, max(index.points, 1))
    row_upper[r_point:] = index.capacity[point_class]
    keys: list[tuple[str, tuple[int, ...]]] = (
        [("start", (int(j),)) for j in index.jobs.tolist()]
        + [("gang", (j, i)) for j, i in zip(index.w_job.tolist(), index.w_bucket.tolist(),
                                            strict=True)]
        + [("room", (j, c, i)) for j, c, i in zip(index.x_job[has_room].tolist(),
                                                  index.x_class[has_room].tolist(),
                                                  index.x_bucket[has_room].tolist(),
                                                  strict=True)]
        + [("point", (c, k)) for c, k in zip(point_class.tolist(), point_k.tolist(),
                                             strict=True)])
    costs = np.r_[-np.ones(nz), np.zeros(nw + nx)]
    upper = np.r_[np.ones(nz + nw), index.x_upper.astype(float)]
    return LpRows(costs, upper, row_upper, matrix, keys)


def solve_lp(lp: LpRows, seconds: float | None, seed: int) -> tuple[str, dict[str, list]]:
    """HiGHS's status and its nonzero duals by row kind (the proof's ``duals``)."""
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    highs.setOptionValue("random_seed", int(seed))
    # Interior point (with crossover, so the duals are a vertex's): 4x faster than the dual
    # simplex on table2's 2,000 jobs at grid 0.125 (40 s against 185 s).
    highs.setOptionValue("solver", SOLVER)
    deadline = Deadline()
    if seconds is not None:
        highs.setOptionValue("time_limit", max(seconds, 0.01))
        deadline.set(seconds)
    watch(highs, deadline)
    n = len(lp.costs)
    inf = highspy.kHighsInf
    highs.addCols(n, lp.costs, np.zeros(n), lp.upper, 0, np.zeros(0, dtype=np.int32),
                  np.zeros(0, dtype=np.int32), np.zeros(0))
    m = lp.matrix
    highs.addRows(m.shape[0], np.full(m.shape[0], -inf), lp.row_upper, m.nnz,
                  m.indptr[:-1].astype(np.int32), m.indices.astype(np.int32), m.data)
    highs.run()
    status = highs.modelStatusToString(highs.getModelStatus())
    solution = highs.getSolution()
    duals: dict[str, list] = {"start": [], "gang": [], "room": [], "point": []}
    if solution.dual_valid:
        y = np.round(np.minimum(np.asarray(solution.row_dual), 0.0), DUAL_DECIMALS)
        for r in np.flatnonzero(np.abs(y) > DUAL_EPSILON).tolist():
            kind, key = lp.keys[r]
            duals[kind].append([*key, float(y[r])])
    return status, duals


def cheap_certificate(instance: Instance, why: str = "") -> BoundCertificate:
    """The family's cheap bound as a certificate (empty proof), ``why`` in its method."""
    return BoundCertificate(lower_bound(instance), CHEAP + (f": {why}" if why else ""), {})


def strong_bound(instance: Instance, *, time_limit: float | None = None,
                 seed: int = 0, upper: float | None = None) -> BoundCertificate:
    """The best time-indexed bound on unfinished jobs within ``time_limit`` and the memory budget.

    Never below the family's cheap bound. Grids of :data:`STEPS` from
    coarse to fine; a finer grid is tried when its estimated size fits the
    budget and :data:`MAX_NONZEROS` and the time left is at least
    :data:`GROWTH` times the last solve's. ``seed`` is HiGHS's random seed
    (the result is deterministic for a seed). ``upper``: the unfinished jobs of a
    known schedule; no finer grid is tried once the bound meets it.
    """
    budget = TimeBudget(time_limit)
    best = cheap_certificate(instance)
    if budget.warm_start_only or instance.n_jobs == 0 or best.value >= instance.n_jobs:
        return best if not budget.warm_start_only else cheap_certificate(instance, "time limit 0")
    classes = default_classes(instance)
    last_seconds = 0.0
    reasons: list[str] = []
    solved: list[str] = []
    for step in STEPS:
        size = estimate(instance, classes, step)
        if size.nonzeros > MAX_NONZEROS:
            reasons.append(f"grid {step:g}: about {size.nonzeros:,} nonzeros, over "
                           f"{MAX_NONZEROS:,}")
            break
        try:
            require(f"the gang time-indexed LP (grid {step:g})", size.bytes)
        except ModelTooLarge as error:
            reasons.append(str(error))
            break
        remaining = budget.remaining()
        if remaining is not None and remaining < GROWTH * last_seconds:
            break
        began = time.perf_counter()
        try:
            found = _solve_grid(instance, classes, step, budget, seed)
        except MemoryError:
            reasons.append(f"grid {step:g}: out of memory")
            break
        last_seconds = time.perf_counter() - began
        if found is not None:
            solved.append(f"{step:g}")
        if found is not None and found.value > best.value:
            best = found
        if (budget.expired() or (found is None and budget.limited)
                or (upper is not None and best.value >= upper)):
            break
    if best.method == CHEAP and (reasons or solved):
        why = ([f"the LP on grids {', '.join(solved)} proved no more"] if solved else []) + reasons
        return cheap_certificate(instance, "; ".join(why))
    return best


def _solve_grid(instance: Instance, classes: list[list[int]], step: float,
                budget: TimeBudget, seed: int) -> BoundCertificate | None:
    """The certificate of one grid's LP (None when HiGHS returns no dual vector)."""
    origin = grid_origin(instance, step)
    index = build_index(instance, classes, origin, step)
    if budget.expired():
        return None
    lp = lp_rows(instance, index)
    status, duals = solve_lp(lp, budget.remaining(), seed)
    if not any(duals.values()):
        return None
    value = unfinished_bound(instance, dual_value(instance, index, duals))
    bound = max(float(value), lower_bound(instance))
    proof = {"classes": classes, "origin": origin, "step": step, "duals": duals,
             "lp_status": status}
    method = (f"time-indexed LP (grid {step:g}, {len(classes)} VM classes), "
              f"HiGHS dual: {status}")
    return BoundCertificate(floor_float(Fraction(bound)), method, proof)
