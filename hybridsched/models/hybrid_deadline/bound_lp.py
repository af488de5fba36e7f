"""The energetic LP of :mod:`hybridsched.hybrid_deadline.bound_rows`, by HiGHS with row generation.

The LP starts with the assignment, billing and need rows and a few windows
``[0, b]`` per class; each round adds, per class, the windows whose energetic
row the current solution violates most (found by scanning the windows
between the tasks' characteristic times), until none is violated or the time
is up. Every round's duals prove a bound by weak duality, so a round cut
short by the clock still leaves a valid proof: the last solved one.

HiGHS is driven through ``highspy`` directly: new rows are appended to the
model it holds, so each round's simplex starts from the previous basis, and
the rows' triplets are dropped on the Python side once passed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import highspy
import numpy as np

from hybridsched.hybrid_deadline.bound_rows import (
    Layout,
    energy,
    hour_overlap,
    need_hours,
    run_exact,
)
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.memory import fits

#: Windows added per class and round (the most violated, one per left end).
CUTS_PER_ROUND = 60
#: A window is added when its row is violated by more than this (hours of core time).
VIOLATION_TOL = 1e-6
#: Largest ``left ends x right ends x tasks`` a separation scan may touch per class
#: (about 0.5 s of numpy); beyond it the candidate ends are thinned to quantiles.
SCAN_BUDGET = 4e7
#: Windows ``[0, b]`` each class starts with (quantiles of the deadlines).
INITIAL_WINDOWS = 40
#: ... and, above LARGE_TASKS tasks, this many: the first LP of the 18,066-task NASA
#: trace with 40 windows had 5.0 M nonzeros and took two minutes per solve.
INITIAL_WINDOWS_LARGE = 16
LARGE_TASKS = 2000
#: Resident bytes per LP nonzero (HiGHS's row- and column-wise copies, its factor,
#: the pending triplets), rounded up from a measurement: NASA trace alpha 2, 5.0 M
#: nonzeros, peak RSS 497 MB above the interpreter (99 B per nonzero).
BYTES_PER_NONZERO = 120


@dataclass
class EnergeticLP:
    """The LP under construction: row keys, rows not yet passed to HiGHS, the last solution."""

    instance: Instance
    lay: Layout
    run: np.ndarray  # per pair: run time on its class (h)
    due: np.ndarray  # per pair: deadline + TIME_TOL
    keys: list[tuple] = field(default_factory=list)
    windows: set[tuple] = field(default_factory=set)
    lower: list[float] = field(default_factory=list)  # pending rows (not yet in HiGHS)
    upper: list[float] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    cols: list[np.ndarray] = field(default_factory=list)
    vals: list[np.ndarray] = field(default_factory=list)
    nonzeros: int = 0
    pending_nonzeros: int = 0  # of the pending rows: where the next one starts (O(1) a row)
    highs: highspy.Highs | None = None
    x: np.ndarray | None = None
    duals: np.ndarray | None = None
    objective: float | None = None

    def add_row(self, key: tuple, coefficients: dict[int, float] | tuple[np.ndarray, np.ndarray],
                sense: str, rhs: float) -> None:
        """Append one row (coefficients as a dict or as ``(columns, values)`` arrays)."""
        if isinstance(coefficients, dict):
            columns = np.fromiter(coefficients, dtype=np.int32, count=len(coefficients))
            values = np.fromiter(coefficients.values(), dtype=float, count=len(coefficients))
        else:
            columns = np.asarray(coefficients[0], dtype=np.int32)
            values = np.asarray(coefficients[1], dtype=float)
        self.keys.append(key)
        self.lower.append(rhs if sense == ">=" else -highspy.kHighsInf)
        self.upper.append(rhs if sense == "<=" else highspy.kHighsInf)
        self.starts.append(self.pending_nonzeros)
        self.cols.append(columns)
        self.vals.append(values)
        self.nonzeros += len(columns)
        self.pending_nonzeros += len(columns)

    def add_window(self, k: int, a: float, b: float) -> bool:
        """Add the energetic row of class ``k`` over ``[a, b]`` (False if already there)."""
        lay = self.lay
        cls = lay.classes[k]
        key = ("v" if cls.kind == "vm" else "p", k, float(a), float(b))
        if key in self.windows or not b > a:
            return False
        self.windows.add(key)
        columns = np.flatnonzero(lay.pair_class == k)
        values = energy(self.run[columns], self.due[columns], a, b)
        keep = values > 0
        columns, values = columns[keep], values[keep]
        if cls.kind == "pm":
            self.add_row(key, (columns, values), "<=", cls.cores * (b - a))
            return True
        position = lay.vm_classes.index(k)
        hours = [h for h in range(1, lay.hours + 1) if hour_overlap(h, a, b) > 0]
        z_columns = np.array([lay.z_column(position, h) for h in hours], dtype=int)
        z_values = np.array([-cls.cores * hour_overlap(h, a, b) for h in hours])
        self.add_row(key, (np.concatenate([columns, z_columns]),
                           np.concatenate([values, z_values])),
                     "<=", cls.cores * lay.z_upper * TIME_TOL)
        return True

    def _model(self) -> highspy.Highs:
        """HiGHS holding the columns and every row added so far (single-threaded, quiet)."""
        lay = self.lay
        if self.highs is None:
            highs = highspy.Highs()
            for option, value in (("output_flag", False), ("threads", 1),
                                  ("presolve", "off")):
                highs.setOptionValue(option, value)
            costs = np.zeros(lay.n_columns)
            for position, k in enumerate(lay.vm_classes):
                start = lay.z_column(position, 1)
                costs[start:start + lay.hours] = lay.classes[k].price
            upper = np.r_[np.ones(lay.n_pairs),
                          np.full(lay.n_columns - lay.n_pairs, float(lay.z_upper))]
            highs.addCols(lay.n_columns, costs, np.zeros(lay.n_columns), upper, 0,
                          np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32),
                          np.zeros(0))
            self.highs = highs
        if self.cols:
            starts = np.array(self.starts, dtype=np.int32)
            self.highs.addRows(len(self.cols), np.array(self.lower), np.array(self.upper),
                               int(starts[-1] + len(self.cols[-1])) if len(starts) else 0,
                               starts, np.concatenate(self.cols), np.concatenate(self.vals))
            self.lower, self.upper, self.starts, self.cols, self.vals = [], [], [], [], []
            self.pending_nonzeros = 0
        return self.highs

    def solve(self, seconds: float | None) -> bool:
        """Re-solve with the rows added since (warm start); False when it did not finish."""
        highs = self._model()
        highs.setOptionValue("time_limit", highspy.kHighsInf if seconds is None
                             else max(0.01, seconds))
        highs.run()
        if highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return False
        solution = highs.getSolution()
        self.x = np.array(solution.col_value)
        self.duals = np.array(solution.row_dual)  # >= 0 on ">=" rows, <= 0 on "<=" rows
        self.objective = float(highs.getInfo().objective_function_value)
        return True


def build(instance: Instance, lay: Layout) -> EnergeticLP:
    """The LP with its static rows and the first windows ``[0, b]`` of every class."""
    cap = np.array([cls.capacity for cls in lay.classes])
    run = instance.work[lay.pair_task] / cap[lay.pair_class]
    due = instance.deadline[lay.pair_task] + TIME_TOL
    lp = EnergeticLP(instance, lay, run, due)
    starts = np.flatnonzero(np.r_[True, np.diff(lay.pair_task) != 0])
    ends = np.r_[starts[1:], lay.n_pairs]
    for i, (s, e) in zip(lay.pair_task[starts].tolist(), zip(starts, ends, strict=True),
                         strict=True):
        lp.add_row(("a", i), {j: 1.0 for j in range(s, e)}, ">=", 1.0)
    for position, k in enumerate(lay.vm_classes):
        for h in range(1, lay.hours):
            lp.add_row(("m", k, h), {lay.z_column(position, h): 1.0,
                                     lay.z_column(position, h + 1): -1.0}, ">=", 0.0)
        cls = lay.classes[k]
        for j in np.flatnonzero(lay.pair_class == k).tolist():
            i = int(lay.pair_task[j])
            hours = need_hours(run_exact(instance, i, cls))
            if 1 <= hours <= lay.hours:
                lp.add_row(("n", i, k), {lay.z_column(position, hours): 1.0, j: -1.0},
                           ">=", 0.0)
    if instance.max_vms is not None and lay.vm_classes:
        lp.add_row(("M",), {lay.z_column(p, 1): 1.0 for p in range(len(lay.vm_classes))},
                   "<=", float(instance.max_vms))
    count = INITIAL_WINDOWS if instance.n_tasks <= LARGE_TASKS else INITIAL_WINDOWS_LARGE
    levels = np.unique(np.quantile(instance.deadline, np.linspace(0, 1, count)))
    for k in range(len(lay.classes)):
        for b in levels:
            lp.add_window(k, 0.0, float(b) + TIME_TOL)
        if lay.classes[k].kind == "vm":
            for h in range(1, lay.hours + 1):
                lp.add_window(k, float(h - 1), float(h))
    return lp


def _thin(values: np.ndarray, count: int) -> np.ndarray:
    """At most ``count`` of the sorted unique ``values`` (quantiles, ends kept)."""
    values = np.unique(values)
    if len(values) <= count:
        return values
    return values[np.unique(np.linspace(0, len(values) - 1, count).round().astype(int))]


def separate(lp: EnergeticLP, k: int) -> list[tuple[float, float, float]]:
    """The windows of class ``k`` whose rows the current ``x`` (and ``z``) violate most.

    Returns ``(violation, a, b)`` triples, at most :data:`CUTS_PER_ROUND`, one per left end.
    """
    lay, x = lp.lay, lp.x
    assert x is not None
    cls = lay.classes[k]
    columns = np.flatnonzero((lay.pair_class == k) & (x[: lay.n_pairs] > 1e-9))
    if not len(columns):
        return []
    run, due, share = lp.run[columns], lp.due[columns], x[columns]
    lefts = np.r_[0.0, np.maximum(0.0, due - run)]
    rights = np.r_[run, due]
    if cls.kind == "vm":
        whole = np.arange(0, lay.hours + 1, dtype=float)
        lefts, rights = np.r_[lefts, whole], np.r_[rights, whole]
        position = lay.vm_classes.index(k)
        z = x[lay.z_column(position, 1): lay.z_column(position, 1) + lay.hours]
        knots = np.arange(0, lay.hours + 1, dtype=float)
        billed = np.r_[0.0, np.cumsum(z)]  # F(h): core-free VM-hours offered in [0, h]
    side = max(2, int(math.sqrt(SCAN_BUDGET / max(1, len(columns)))))
    lefts, rights = _thin(lefts, side), _thin(rights, side)
    found = []
    for a in lefts.tolist():
        b = rights[rights > a]
        if not len(b):
            continue
        load = share @ energy(run[:, None], due[:, None], a, b[None, :])
        if cls.kind == "pm":
            room = cls.cores * (b - a)
        else:
            room = cls.cores * (np.interp(b, knots, billed) - np.interp(a, knots, billed)
                                + lay.z_upper * TIME_TOL)
        excess = load - room
        best = int(np.argmax(excess))
        if excess[best] > VIOLATION_TOL:
            found.append((float(excess[best]), a, float(b[best])))
    found.sort(reverse=True)
    return found[:CUTS_PER_ROUND]


def solve_with_cuts(lp: EnergeticLP, deadline: float | None, max_rounds: int = 60) -> int:
    """Solve, add violated windows, re-solve until none or ``deadline`` (perf_counter).

    Returns the number of rounds whose LP was solved (the duals kept are the last
    solved round's).
    """
    solved = 0
    for _ in range(max_rounds):
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            break
        if not lp.solve(left):
            break
        solved += 1
        added = 0
        lay = lp.lay
        # A round adds at most CUTS_PER_ROUND windows per class; windows so far held
        # lp.nonzeros / rows entries each on average (twice that, to be safe).
        growth = 2 * CUTS_PER_ROUND * len(lay.classes) * lp.nonzeros / max(1, len(lp.keys))
        if not fits(BYTES_PER_NONZERO * growth):
            break  # another round of windows might not fit the memory budget: stop here
        for k in range(len(lp.lay.classes)):
            if deadline is not None and time.perf_counter() >= deadline:
                return solved
            for _, a, b in separate(lp, k):
                added += lp.add_window(k, a, b)
        if not added:
            break
    return solved
