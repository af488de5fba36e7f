"""Configuration LP by column generation at one capacity ``T``: find Lagrangian multipliers.

The LP (:mod:`hybridsched.bot_sites.bound_check`'s docstring) asks whether the
tasks of a set of BoTs can be split into per-processor configurations of load
at most ``T`` within the sites' processor counts and time-averaged hard
limits. Phase-1 form: minimise the uncovered tasks ``sum_k s_k`` subject to
``sum_c a_kc x_c + s_k >= n_k`` (duals ``u_k``), ``sum_{c on i} x_c <= m_i``
(duals ``-v_i``) and ``sum_c use_c x_c <= limit_i T`` (duals ``-w_i``). Columns
are priced by the same rounded knapsack the verifier uses
(:func:`price`, weights ``floor(p * grid / T)``), so at convergence the
optimum is exactly what the verifier's dynamic program can confirm; an
optimum above 0 means ``T`` is too small, and its duals are the proof.

Nothing here is trusted: :func:`solve_at` only *proposes* multipliers, and
the caller keeps them only when
:func:`~hybridsched.bot_sites.bound_check.configuration_excess` (exact)
confirms them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import highspy
import numpy as np

from hybridsched.bot_sites.bound_check import resource_rows
from hybridsched.bot_sites.checker import LIMIT_TOL
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.knapsack_bound import (
    EXACT_COPIES,
    MAX_DP_PIECES,
    dp_pieces,
    exact_knapsack,
)
from hybridsched.bot_sites.limits import allowed_pairs
from hybridsched.budget import TimeBudget

#: A column enters when its value beats its site's dual by this much (relative to 1).
ENTER_TOL = 1e-9

#: Most column-generation rounds at one capacity.
MAX_ROUNDS = 400

#: Items per site the fast (restricted) pricing considers, by value per unit of time; full
#: pricing runs only when the restricted one finds nothing (Braun: about 32 tasks fit a
#: machine, so 160 candidates nearly always hold the best configuration).
PRICE_ITEMS = 160

#: Grid of the fast pricing (weights rounded up: its columns are true configurations).
COARSE_GRID = 1 << 12

#: Wentges smoothing weight of the stability centre (the best Lagrangian point so far).
SMOOTHING = 0.7



@dataclass
class Multipliers:
    """Multipliers proposed at one capacity, and whether column generation converged."""

    capacity: float
    bots: np.ndarray            # (K,) u_k (0 outside the subset)
    resources: dict[str, np.ndarray]  # name -> (M,) w_i
    uncovered: float            # the master LP's optimum (tasks left uncovered)
    converged: bool


def price(weight: np.ndarray, value: np.ndarray, mult: np.ndarray, grid: int,
          keep: int | None = None) -> tuple[float, np.ndarray]:
    """Best bounded knapsack on integer weights within ``grid``: (value, count per item).

    Items of weight 0 are taken in full; the rest by binary splitting, with
    the decisions kept for reconstruction (``pieces x (grid + 1)`` booleans).
    ``keep`` restricts the search to that many items of best value per unit
    of weight (a heuristic pricing: the configuration found is still valid,
    its value only a lower estimate of the best).
    """
    counts = np.zeros(len(weight), dtype=np.int64)
    free = (weight == 0) & (value > 0) & (mult > 0)
    counts[free] = mult[free]
    base = float(np.dot(value[free], mult[free]))
    pieces: list[tuple[int, int, float, int]] = []   # item, number, value, weight
    items = np.flatnonzero(~free & (value > 0) & (mult > 0) & (weight <= grid))
    if keep is not None and len(items) > keep:
        ratio = value[items] / np.maximum(weight[items], 1)
        items = np.sort(items[np.argsort(-ratio, kind="stable")[:keep]])
    for j in items:
        left, piece = int(mult[j]), 1
        while left > 0:
            n = min(piece, left)
            if n * weight[j] <= grid:
                pieces.append((int(j), n, n * float(value[j]), n * int(weight[j])))
            left -= n
            piece *= 2
    table = np.zeros(grid + 1)
    taken = np.zeros((len(pieces), grid + 1), dtype=bool)
    for r, (_, _, v, w) in enumerate(pieces):
        shifted = table[:grid + 1 - w] + v
        better = shifted > table[w:]
        taken[r, w:] = better
        table[w:] = np.where(better, shifted, table[w:])
    cap = int(np.argmax(table))
    best = float(table[cap])
    for r in range(len(pieces) - 1, -1, -1):
        if taken[r, cap]:
            j, n, _, w = pieces[r]
            counts[j] += n
            cap -= w
    return base + best, counts


def greedy_configuration(p: np.ndarray, value: np.ndarray, mult: np.ndarray,
                         capacity: float) -> tuple[float, np.ndarray]:
    """A good configuration fast: items by value per unit of time, whole copies while they fit.

    Its value is the fractional knapsack's (an over-estimate of the
    configuration's, as the verifier counts it on such sites).
    """
    counts = np.zeros(len(p), dtype=np.int64)
    room, frac = capacity, 0.0
    for j in np.argsort(-(value / p), kind="stable"):
        if value[j] <= 0 or room <= 0:
            break
        whole = int(min(mult[j], math.floor(room / p[j])))
        counts[j] = whole
        take = min(float(mult[j]), room / p[j])
        frac += take * value[j]
        room -= whole * p[j]
        if whole < mult[j]:
            room -= (take - whole) * p[j]
    return frac, counts


class Master:
    """The phase-1 configuration LP at one capacity, with its columns (one site each)."""

    def __init__(self, instance: Instance, subset: np.ndarray, capacity: float, grid: int):
        self.instance, self.capacity, self.grid = instance, capacity, grid
        K, M = instance.n_bots, instance.n_sites
        self.subset = subset
        self.ok = allowed_pairs(instance) & subset[:, None] & (instance.p <= capacity)
        self.resources = resource_rows(instance)
        self.names = list(self.resources)
        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("threads", 1)
        inf = highspy.kHighsInf
        tasks = instance.tasks.astype(float)
        demand = np.where(subset, tasks, 0.0)
        lower = np.concatenate((demand, np.full(M * (1 + len(self.names)), -inf)))
        upper = np.concatenate((np.full(K, inf), instance.procs.astype(float)))
        for name in self.names:
            upper = np.concatenate((upper, self.resources[name][1] * capacity * (1 + LIMIT_TOL)))
        self.h.addRows(len(lower), lower, upper, 0, np.zeros(0, np.int32), np.zeros(0, np.int32),
                       np.zeros(0))
        # Slack columns (cost 1): the uncovered tasks.
        for k in np.flatnonzero(subset):
            self.h.addCol(1.0, 0.0, inf, 1, np.array([k], np.int32), np.array([1.0]))
        self.weights = np.zeros((K, M), dtype=np.int64)
        self.coarse = np.zeros((K, M), dtype=np.int64)
        self.mult = np.zeros((K, M), dtype=np.int64)
        for k, i in zip(*np.nonzero(self.ok), strict=True):
            p = float(instance.p[k, i])
            self.weights[k, i] = math.floor(p * grid / capacity)
            # Rounded up (and a hair more for float error): coarse columns truly fit.
            self.coarse[k, i] = math.ceil(p * COARSE_GRID / capacity * (1 + 1e-12))
            self.mult[k, i] = min(int(instance.tasks[k]), math.floor(capacity / p))
        # Sites with many small tasks are priced greedily (the verifier bounds them by the
        # fractional knapsack alone), sites with few task copies exactly, as it does.
        self.frac_only = [dp_pieces([int(n) for n in self.mult[:, i] if n > 0]) > MAX_DP_PIECES
                          for i in range(M)]
        self.exact_p: list[list[Fraction] | None] = []
        for i in range(M):
            if int(self.mult[:, i].sum()) <= EXACT_COPIES:
                self.exact_p.append([Fraction(float(instance.p[k, i])) for k in range(K)])
            else:
                self.exact_p.append(None)
        self.columns = 0
        for k, i in zip(*np.nonzero(self.ok), strict=True):   # one BoT per processor
            counts = np.zeros(K, dtype=np.int64)
            counts[k] = self.mult[k, i]
            self.add(int(i), counts)

    def add(self, site: int, counts: np.ndarray) -> None:
        """Add the configuration ``counts`` (tasks per BoT) on ``site``."""
        K, M = self.instance.n_bots, self.instance.n_sites
        ks = np.flatnonzero(counts)
        rows = [*ks.tolist(), K + site]
        vals = [*counts[ks].astype(float).tolist(), 1.0]
        for r, name in enumerate(self.names, start=1):
            use = float(np.dot(self.resources[name][0][ks, site], counts[ks]))
            rows.append(K + r * M + site)
            vals.append(use)
        self.h.addCol(0.0, 0.0, highspy.kHighsInf, len(rows), np.array(rows, np.int32),
                      np.array(vals))
        self.columns += 1

    def _duals(self) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        K, M = self.instance.n_bots, self.instance.n_sites
        dual = np.array(self.h.getSolution().row_dual)
        u = np.where(self.subset, np.maximum(dual[:K], 0.0), 0.0)
        v = np.maximum(-dual[K:K + M], 0.0)
        w = {name: np.maximum(-dual[K + r * M:K + (r + 1) * M], 0.0)
             for r, name in enumerate(self.names, start=1)}
        return u, v, w

    def _price_all(self, u: np.ndarray, w: dict[str, np.ndarray], keep: int | None = None,
                   coarse: bool = False) -> tuple[float, list[tuple[int, float, np.ndarray]]]:
        """Lagrangian value of ``(u, w)`` and each site's best configuration.

        With ``keep`` (restricted pricing) or ``coarse`` (weights rounded up on
        :data:`COARSE_GRID`: fast, and every configuration found truly fits)
        the value is an over-estimate.
        """
        weights, grid = (self.coarse, COARSE_GRID) if coarse else (self.weights, self.grid)
        M = self.instance.n_sites
        bound = float(np.dot(u, self.instance.tasks))
        found = []
        for i in range(M):
            value = u.copy()
            for name in self.names:
                value -= w[name][i] * self.resources[name][0][:, i]
                bound -= w[name][i] * float(self.resources[name][1][i]) * self.capacity
            value = np.where(self.ok[:, i], value, 0.0)
            if self.frac_only[i]:
                best, counts = greedy_configuration(self.instance.p[:, i], value,
                                                    self.mult[:, i], self.capacity)
            elif self.exact_p[i] is not None:
                top, chosen = exact_knapsack(self.exact_p[i], value.tolist(),
                                             self.mult[:, i].tolist(), Fraction(self.capacity))
                best, counts = float(top), np.array(chosen, dtype=np.int64)
            else:
                best, counts = price(weights[:, i], value, self.mult[:, i], grid, keep)
            bound -= float(self.instance.procs[i]) * best
            found.append((i, best, counts))
        return bound, found

    def run(self, budget: TimeBudget) -> Multipliers:
        """Stabilised column generation until convergence, a proof, ``MAX_ROUNDS`` or the budget.

        Starts from the fluid LP's duals (:func:`fluid_duals`) as the
        stability centre; prices with Wentges' smoothing (duals pulled towards
        the centre, :data:`SMOOTHING`) on the :data:`PRICE_ITEMS` most
        promising tasks of each site, and with full pricing only when that
        finds nothing. The centre moves to any point whose (fully priced)
        Lagrangian value is better; the generation stops once that value is
        positive: a proof, which the caller checks exactly.
        """
        K = self.instance.n_bots
        best_l, objective, converged = -math.inf, math.inf, False
        center = fluid_duals(self.instance, self.subset, self.capacity)
        if center is not None:
            best_l, found = self._price_all(*center)
            self._enter(found, *center, np.zeros(self.instance.n_sites))
        modes = ((SMOOTHING, PRICE_ITEMS, True), (0.0, PRICE_ITEMS, True),
                 (0.0, PRICE_ITEMS, False), (0.0, None, False))
        for _ in range(MAX_ROUNDS):
            if best_l > 0 or budget.expired():
                break
            left = budget.remaining()
            if left is not None:
                self.h.setOptionValue("time_limit", max(left, 1e-3))
            self.h.run()
            if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                break
            objective = float(self.h.getInfo().objective_function_value)
            u, v, w = self._duals()
            entered = 0
            for alpha, keep, coarse in modes:
                if budget.expired():
                    break
                if alpha and center is not None:
                    pu = alpha * center[0] + (1 - alpha) * u
                    pw = {n: alpha * center[1][n] + (1 - alpha) * w[n] for n in self.names}
                elif alpha:
                    continue
                else:
                    pu, pw = u, w
                value_l, found = self._price_all(pu, pw, keep, coarse)
                if value_l > best_l:
                    if keep is not None or coarse:   # an over-estimate: confirm it
                        value_l, found_full = self._price_all(pu, pw)
                        entered += self._enter(found_full, u, w, v)
                    if value_l > best_l:
                        best_l, center = value_l, (pu, pw)
                entered += self._enter(found, u, w, v)
                if entered or best_l > 0:
                    break
            if not entered and best_l <= 0:
                converged = True
                break
        if center is None:
            return Multipliers(self.capacity, np.zeros(K), {}, objective, converged)
        return Multipliers(self.capacity, center[0], center[1], objective, converged)

    def _enter(self, found: list[tuple[int, float, np.ndarray]], u: np.ndarray,
               w: dict[str, np.ndarray], v: np.ndarray) -> int:
        """Add the configurations of ``found`` profitable at the LP duals ``(u, v, w)``."""
        entered = 0
        for i, _, counts in found:
            if not counts.any():
                continue
            worth = float(np.dot(u, counts))
            for name in self.names:
                worth -= w[name][i] * float(np.dot(self.resources[name][0][:, i], counts))
            if worth > v[i] + ENTER_TOL:
                self.add(i, counts)
                entered += 1
        return entered


def fluid_duals(instance: Instance, subset: np.ndarray, capacity: float
                ) -> tuple[np.ndarray, dict[str, np.ndarray]] | None:
    """Duals of the fluid LP over ``subset`` restricted to ``p <= capacity``, scaled to max 1.

    The fluid LP (``min C``: tasks split over sites, each site's work within
    ``m_i C`` and its resource-time within ``limit_i C``) is the configuration
    LP with fractional configurations; its duals are a good first Lagrangian
    point (positive value whenever ``capacity`` is below the fluid optimum),
    from which the stabilised column generation starts.
    """
    K, M = instance.n_bots, instance.n_sites
    ok = allowed_pairs(instance) & subset[:, None] & (instance.p <= capacity)
    if not ok[subset].any(axis=1).all():
        return None
    resources = resource_rows(instance)
    names = list(resources)
    kk, ii = np.nonzero(ok)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    inf = highspy.kHighsInf
    n_rows = K + M * (1 + len(names))
    demand = np.where(subset, instance.tasks.astype(float), 0.0)
    h.addRows(n_rows, np.concatenate((demand, np.full(n_rows - K, -inf))),
              np.concatenate((demand, np.zeros(n_rows - K))), 0, np.zeros(0, np.int32),
              np.zeros(0, np.int32), np.zeros(0))
    for k, i in zip(kk.tolist(), ii.tolist(), strict=True):
        rows = [k, K + i] + [K + r * M + i for r in range(1, len(names) + 1)]
        vals = [1.0, float(instance.p[k, i])] + [float(resources[n][0][k, i]) for n in names]
        h.addCol(0.0, 0.0, inf, len(rows), np.array(rows, np.int32), np.array(vals))
    rows = list(range(K, n_rows))
    vals = [-float(m) for m in instance.procs] + [
        -float(resources[n][1][i]) * (1 + LIMIT_TOL) for n in names for i in range(M)]
    h.addCol(1.0, 0.0, inf, len(rows), np.array(rows, np.int32), np.array(vals))
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    dual = np.array(h.getSolution().row_dual)
    u = np.where(subset, np.maximum(dual[:K], 0.0), 0.0)
    if not u.any():
        return None
    scale = float(u.max())
    w = {n: np.maximum(-dual[K + r * M:K + (r + 1) * M], 0.0) / scale
         for r, n in enumerate(names, start=1)}
    return u / scale, w


def solve_at(instance: Instance, subset: np.ndarray, capacity: float, grid: int,
             budget: TimeBudget) -> Multipliers:
    """Column generation at ``capacity`` over the BoTs in ``subset`` (booleans)."""
    return Master(instance, subset, capacity, grid).run(budget)
