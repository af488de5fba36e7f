"""A better starting schedule for large bot-sites assignment models: CP-SAT on machine subsets.

On large unrelated-machine instances (Braun's 512 x 16 ETC matrices: one
task per BoT, no DAG, no hard limits) CP-SAT's own search barely improves the
heuristic warm start: a minute of two workers leaves a list-scheduling
schedule where it was. This module improves it first: the fluid LP's largest
share per BoT (:func:`lp_rounding`), repaired by move/swap descent
(:func:`descend`), replaces the start when better; then *large neighbourhood
search*: repeatedly take the most loaded processor and ``NEIGHBOURHOOD - 1``
others (drawn by a seeded generator), free every task on them, and let a
small CP-SAT model reassign those tasks among those processors minimising
their largest load, starting from the current assignment (a hint). The
result is kept when the processors' loads, sorted in decreasing order, get
lexicographically smaller (so the makespan never grows and ties on the
makespan still make progress).

What it may claim: nothing. It only proposes a schedule, which the caller
(:mod:`hybridsched.models.bot_sites.cpsat`) checks with the family checker and
keeps only when its real makespan is the best known; it then becomes the
main model's hint and horizon. Loads are compared in the main model's
integer units (:func:`~hybridsched.models.bot_sites.cpsat_build.time_scaling`),
exact for decimal data, rounded otherwise (harmless: the checker decides).

Repeatability: the subsolves run one worker with a *deterministic* time
limit and a seed drawn from ``seed``, and the number of rounds is capped
(:data:`MAX_ROUNDS`, :data:`STALL_ROUNDS`), so without a time limit the same
seed gives the same schedule. Under a time limit the search also stops at
its share (:data:`TIME_SHARE`) of the remaining time, like any timed search.
"""

from __future__ import annotations

import highspy
import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import allowed_pairs, limited, retime
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import TimeBudget
from hybridsched.models.bot_sites.cpsat_build import scaled_durations, time_scaling
from hybridsched.models.solvers.cpsat import require_ortools

#: Smallest model (BoTs x processors) worth the search: CP-SAT alone does well below it.
MIN_SIZE = 2000

#: Processors freed together in one round.
NEIGHBOURHOOD = 4

#: Most rounds, and rounds in a row without improvement before stopping.
MAX_ROUNDS = 1500
STALL_ROUNDS = 300

#: CP-SAT's deterministic time per round (its own work units, about seconds).
ROUND_EFFORT = 0.2

#: Share of the method's remaining time the search may use (the rest goes to the
#: main model, whose bound is the proof).
TIME_SHARE = 0.5


def eligible(instance: Instance) -> bool:
    """A large assignment model with one task per BoT (the case this search is for)."""
    return (not len(instance.edges) and not limited(instance)
            and bool(np.all(np.asarray(instance.tasks) == 1))
            and instance.n_procs > NEIGHBOURHOOD
            and instance.n_bots * instance.n_procs >= MIN_SIZE)


def improve(instance: Instance, start: Solution, *, horizon: float, seed: int = 0,
            budget: TimeBudget | None = None) -> Solution | None:
    """A schedule at least as good as ``start`` in model units (module docstring), or ``None``.

    Parameters
    ----------
    instance:
        The instance (:func:`eligible`; ``None`` is returned otherwise).
    start:
        A valid schedule (every BoT's single task on one processor).
    horizon:
        Its makespan (fixes the time scaling, as in the main model).
    seed:
        Seeds the choice of processors and the subsolves.
    budget:
        The method's budget; the search uses :data:`TIME_SHARE` of what remains.
    """
    if not eligible(instance):
        return None
    site, off = instance.proc_site, instance.proc_offset
    assign = np.full(instance.n_bots, -1, dtype=np.int64)
    assign[start.bot] = off[start.site] + start.proc
    if (assign < 0).any():
        return None
    scaling = time_scaling(instance, horizon)
    dur = scaled_durations(instance, scaling)[:, site]           # (K, N) model units
    ok = allowed_pairs(instance)[:, site]
    deadline = _deadline(budget)
    search = _Search(dur, ok, assign, seed, deadline)
    rounded = descend(dur, ok, lp_rounding(dur, ok))
    if max_load(dur, rounded) < search.loads.max():
        search = _Search(dur, ok, rounded, seed, deadline)
    search.run()
    if search.loads.max() >= max_load(dur, assign):
        return None
    bots = np.arange(instance.n_bots)
    return retime(instance, bots, search.assign, np.ones_like(bots), bots.astype(float),
                  notes={"method": "exact", "backend": "cpsat", "start": "neighbourhood search"})


def max_load(dur: np.ndarray, assign: np.ndarray) -> int:
    """Largest processor load of ``assign`` (processor per BoT) in model units."""
    return int(np.bincount(assign, dur[np.arange(len(assign)), assign].astype(float),
                           minlength=dur.shape[1]).max())


def lp_rounding(dur: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Each BoT on its largest share in the fluid LP (min C, loads <= C) over processors.

    A basic LP solution splits at most ``N - 1`` tasks, so this is close to
    the fluid optimum before :func:`descend` repairs the rounding.
    """
    K, N = dur.shape
    kk, qq = np.nonzero(ok)
    n = len(kk)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n + 1, K + N
    lp.col_cost_ = np.concatenate((np.zeros(n), [1.0]))
    lp.col_lower_ = np.zeros(n + 1)
    lp.col_upper_ = np.full(n + 1, np.inf)
    lp.row_lower_ = np.concatenate((np.ones(K), np.full(N, -np.inf)))
    lp.row_upper_ = np.concatenate((np.ones(K), np.zeros(N)))
    scale = float(dur.max()) or 1.0
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.concatenate((np.arange(n + 1) * 2, [2 * n + N])).astype(np.int32)
    lp.a_matrix_.index_ = np.concatenate((np.c_[kk, K + qq].ravel(),
                                          np.arange(K, K + N))).astype(np.int32)
    lp.a_matrix_.value_ = np.concatenate((np.c_[np.ones(n), dur[kk, qq] / scale].ravel(),
                                          -np.ones(N)))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.passModel(lp)
    h.run()
    share = np.full((K, N), -1.0)
    share[kk, qq] = np.asarray(h.getSolution().col_value)[:n]
    return share.argmax(axis=1)


def descend(dur: np.ndarray, ok: np.ndarray, assign: np.ndarray) -> np.ndarray:
    """Best move or swap off the most loaded processor while its load drops (steepest descent)."""
    assign = assign.copy()
    big = np.where(ok, dur, np.iinfo(np.int64).max // 4)
    ar = np.arange(len(assign))
    for _ in range(10 * len(assign)):
        loads = np.bincount(assign, dur[ar, assign].astype(float), minlength=dur.shape[1])
        a = int(loads.argmax())
        on, off = np.flatnonzero(assign == a), np.flatnonzero(assign != a)
        moved = np.maximum(loads[None, :] + big[on], (loads[a] - dur[on, a])[:, None])
        moved[:, a] = np.inf
        b = off if len(off) else ar[:0]
        swapped = np.maximum(loads[a] - dur[on, a][:, None] + big[b, a][None, :],
                             loads[assign[b]][None, :] - dur[b, assign[b]][None, :]
                             + big[on][:, assign[b]])
        i, q = np.unravel_index(moved.argmin(), moved.shape)
        best_move = moved[i, q]
        best_swap = swapped.min(initial=np.inf)
        if min(best_move, best_swap) >= loads[a]:
            break
        if best_move <= best_swap:
            assign[on[i]] = q
        else:
            i, t = np.unravel_index(swapped.argmin(), swapped.shape)
            assign[on[i]], assign[b[t]] = assign[b[t]], a
    return assign


def _deadline(budget: TimeBudget | None) -> tuple[float, TimeBudget] | None:
    """The budget's elapsed time at which the search stops, with the budget."""
    if budget is None or budget.remaining() is None:
        return None
    return budget.elapsed() + TIME_SHARE * budget.remaining(), budget


class _Search:
    """The neighbourhood search's state: assignment, loads, random generator."""

    def __init__(self, dur: np.ndarray, ok: np.ndarray, assign: np.ndarray, seed: int,
                 deadline: tuple[float, TimeBudget] | None) -> None:
        self.dur, self.ok, self.assign = dur, ok, assign.copy()
        self.rng = np.random.default_rng(seed)
        self.deadline = deadline
        self.loads = self._loads(self.assign)

    def _loads(self, assign: np.ndarray) -> np.ndarray:
        out = np.zeros(self.dur.shape[1], dtype=np.int64)
        np.add.at(out, assign, self.dur[np.arange(len(assign)), assign])
        return out

    def _time_left(self) -> float | None:
        if self.deadline is None:
            return None
        until, budget = self.deadline
        return until - budget.elapsed()

    def run(self) -> bool:
        """Rounds until a cap; True when the assignment improved."""
        improved, stall = False, 0
        for _ in range(MAX_ROUNDS):
            left = self._time_left()
            if (left is not None and left <= 0) or stall >= STALL_ROUNDS:
                break
            if self._round(left):
                improved, stall = True, 0
            else:
                stall += 1
        return improved

    def _round(self, left: float | None) -> bool:
        cp = require_ortools()
        N = self.dur.shape[1]
        top = int(np.argmax(self.loads))
        others = self.rng.choice(np.delete(np.arange(N), top), NEIGHBOURHOOD - 1,
                                 replace=False)
        procs = [top, *(int(q) for q in others)]
        tasks = np.flatnonzero(np.isin(self.assign, procs))
        model = cp.CpModel()
        worst = model.new_int_var(0, int(self.loads[top]), "C")
        x: dict[tuple[int, int], object] = {}
        for k in tasks:
            row = []
            for q in procs:
                if self.ok[k, q]:
                    x[k, q] = var = model.new_bool_var("")
                    model.add_hint(var, int(self.assign[k] == q))
                    row.append(var)
            model.add_exactly_one(row)
        for q in procs:
            terms = [(int(self.dur[k, q]), x[k, q]) for k in tasks if (k, q) in x]
            model.add(sum(c * v for c, v in terms) <= worst)
        model.minimize(worst)
        solver = cp.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = int(self.rng.integers(2**31 - 1))
        solver.parameters.max_deterministic_time = ROUND_EFFORT
        if left is not None:
            solver.parameters.max_time_in_seconds = max(1e-3, left)
        status = solver.solve(model)
        if status not in (cp.OPTIMAL, cp.FEASIBLE):
            return False
        new = self.assign.copy()
        for (k, q), var in x.items():
            if solver.boolean_value(var):
                new[k] = q
        loads = self._loads(new)
        if tuple(np.sort(loads)[::-1]) >= tuple(np.sort(self.loads)[::-1]):
            return False
        self.assign, self.loads = new, loads
        return True
