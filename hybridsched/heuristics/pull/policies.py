"""The Promethee scheduler of Moca et al. (2016) and its FCFS baseline, as pull policies.

When a host pulls work, :class:`PrometheeScheduler` evaluates the queued
tasks on three criteria, in this order:

``ECT``    expected completion time on the pulling host, ``noi / cpu``;
``price``  ``ECT x price`` of the host (0 on free hosts);
``EEI``    expected error impact (Table 1) from the host's reputation,

ranks them with PROMETHEE II (:mod:`hybridsched.heuristics.pull.promethee`;
each criterion has a min/max target and a weight, weights summing to 1) and
sends the task with the highest net flow (the first one on ties).

**Strategy** (options ``targets`` and ``weights``, in the order ECT, price,
EEI; Table 7 lists Price first). The default is the paper's final SOFT
winner s4,26. Table 6 (section 6.3.3, "Linear, Level, Gaussian and FCFS",
120 runs each) does not say which strategy it ran: under s4,26 every
criterion prefers the larger task on any host (EEI grows with the task's
size), so the three functions all pick a largest task (Level up to its ties
within the indifference band); the fidelity campaigns
use s3,1 (price max, ECT max, EEI min, weights 1/3, the Win_abs winner of
Table 10), whose mixed targets let them differ.

**Thresholds.** The paper's Linear function is ``P(d) = d / sigma`` up to
``sigma``, the standard deviation of the criterion's pairwise deviations at
this decision, so thresholds are given by default *in units of sigma*
(option ``thresholds``, :mod:`.promethee_thresholds`), for every criterion
and function alike: ``linear`` uses ``(q, p)`` (default ``(0, 1)``: the
paper's function), ``level`` uses ``(q, p)`` (default ``(0.5, 1)``; the
paper gives no values), ``gaussian`` uses ``s = p x sigma`` (default ``p =
1``: the paper's ``2 sigma^2``). When sigma is 0 (equal values) every
function reads as its limit, the usual criterion (any positive deviation is
a full preference), as the paper's Linear does literally (``P = 1`` for ``d
> sigma``). With ``thresholds = "absolute"``, ``q`` and ``p`` (the
Gaussian's ``s``) are in each criterion's own units, seconds for ECT, money
for the price, EEI's own for EEI; ``p`` is then required. Either way ``q``
and ``p`` take one value for every criterion or one per criterion.

**Which sigma** (option ``spread``). The paper: "sigma is the standard
deviation of the differences d_ic for all pairs of tasks", with
"d_ic(t1, t2) = a_ic,1 - a_ic,2" (section 6.3.2). Read literally
(``signed-pairs``, the default): the signed differences over every ordered
pair of distinct queued tasks, whose mean is 0, so sigma is ``sqrt(2)``
times the values' sample standard deviation. The other reading
(``absolute-pairs``, this toolkit's default before issue 19): the standard
deviation of ``|a_i - a_j|`` over the unordered pairs, about 1.7 times
smaller for uniform values, so the same ``p = 1`` is a steeper Linear
function. With two queued tasks the signed reading gives their distance, the
absolute one 0 (one pair has no spread).

**Window mu** (section 6.3.4): rank a random fraction ``window`` of the
queued tasks (at least one), drawn with the method's seeded generator.

**NOI_max** (option ``noi_max``). Algorithm 1: "Calculate the relative
utility Upsilon(t_i) = NOI(t_i) / NOI_max {The utility of task t_i relative
to its size}", and Table 1 bands Upsilon at 0.5 and 0.7; the text does not
say the largest of what. ``workload`` (the default, unchanged): the largest
work unit of the application, fixed for the run, so a task's band depends
on its size alone; ``ranked``: the largest of the tasks ranked at this
decision (the BoT "for a particular pulling host", section 3.1), so the
bands move up as the large tasks complete.

**ECT and price share one ranking** (:meth:`PrometheeScheduler.net_flows`).
The paper: ECT "is calculated by dividing the number of instructions (NOI)
of a task by the computing capacity (CPU) of the host", the pulling one
(section 3.2), and the price is "a product between the ECT and the
price/time unit required by host". At one decision both columns are NOI
times a positive constant, and every threshold is a multiple of the
column's own sigma, so their preferences are those of NOI: an identity,
not a reading (tests/pull/test_literal_promethee.py checks the whole
decision against the paper's formulas on the full matrix). It needs the same
thresholds in sigmas for both; with absolute thresholds (or different ones)
the two columns are ranked each on its own, in its own units: an absolute
threshold in seconds means more instructions on a fast host than on a slow
one, and one in money means nothing on a free host (whose price column is 0).

**Level's boundaries.** The paper's Level is "0 if d < q, 1/2 if q <= d <
p, 1 if d >= p" (section 6.3.2); Brans' (:mod:`.promethee`'s default) puts
the equalities on the other side. They differ only for deviations exactly at
a threshold, but with two tasks and the signed sigma every deviation is one
(sigma = |d|, so d = p): the scheduler uses the paper's (``closed``
criteria). At ``d = q = 0`` (a tie) the paper's gives 1/2 both ways, which
cancels in the net flow.

**Replicas** (option ``replicas``, both methods): what the replicas'
"lower priority" orders, read in :mod:`hybridsched.heuristics.pull.simulation`.

**FCFS** (section 6.3.1): "The FCFS (First-Come-First-Served) method
assumes that the scheduler randomly selects a task and assigns it to a
pulling host". Option ``order``: ``random`` (the default, the text's
words), a uniform draw among the tasks of the highest priority; ``oldest``,
what the name says: of those, the task created first (a unit's first task
when it arrives, each replica when the previous one is scheduled, section
2.2), so a unit whose task failed waits behind the tasks created before its
replica.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from hybridsched.errors import InputError
from hybridsched.heuristics.pull.promethee import (
    SPREADS,
    BoundedSums,
    Criterion,
    bounded_sums,
    check_criteria,
    criterion_sums,
    flows,
)
from hybridsched.heuristics.pull.promethee_thresholds import (
    DEFAULT_THRESHOLDS,
    SIGMA_DEFAULTS,
    Threshold,
    check_kind,
    parse_threshold,
    per_criterion,
)
from hybridsched.heuristics.pull.simulation import PullPolicy, check_replicas
from hybridsched.pull.reputation import eei

#: Criteria the scheduler evaluates, in order.
CRITERIA = ("ect", "price", "eei")
#: Preference functions of the paper, and their default thresholds (q, p) in sigmas.
PREFERENCES = SIGMA_DEFAULTS
#: The default strategy, the paper's final SOFT winner s_{4,26}: every target max,
#: weights (ECT, price, EEI) = (0.6, 0.1, 0.3) (Tables 7, 8 and 11).
DEFAULT_WEIGHTS = (0.6, 0.1, 0.3)
DEFAULT_TARGETS = ("max", "max", "max")
#: The literal reading of the paper's sigma (module doc, "Which sigma").
DEFAULT_SPREAD = "signed-pairs"
#: Readings of Algorithm 1's NOI_max (module doc, "NOI_max").
NOI_MAX = ("workload", "ranked")
#: Readings of FCFS (module doc, "FCFS").
FCFS_ORDERS = ("random", "oldest")
#: The options of the promethee method, as the registry's check and the CLI know them.
OPTIONS = ("preference", "weights", "targets", "q", "p", "window", "spread", "noi_max",
           "thresholds")
#: The options of the fcfs method (``replicas`` is the simulation's, taken by both).
FCFS_OPTIONS = ("order",)


@dataclass(frozen=True)
class Strategy:
    """Targets, weights and preference function of the three criteria."""

    targets: tuple[str, ...] = DEFAULT_TARGETS
    weights: tuple[float, ...] = DEFAULT_WEIGHTS
    preference: str = "linear"
    q: Threshold = None
    p: Threshold = None
    window: float = 1.0
    spread: str = DEFAULT_SPREAD
    noi_max: str = "workload"
    thresholds: str = DEFAULT_THRESHOLDS

    @property
    def pairs(self) -> tuple[tuple[float, float], ...]:
        """``(q, p)`` of each criterion (ECT, price, EEI), in :attr:`thresholds` units."""
        return per_criterion(self.preference, self.thresholds, self.q, self.p)


def _items(value: str | Sequence, what: str) -> list:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",")]
    if isinstance(value, list | tuple):
        return list(value)
    raise InputError(f"option --{what}: expected a comma-separated list, got {value!r}")


def parse_weights(value: str | Sequence[float]) -> tuple[float, ...]:
    """Three finite weights >= 0 summing to 1 (``"0.5,0.3,0.2"`` or a sequence)."""
    items = _items(value, "weights")
    try:
        weights = tuple(float(v) for v in items)
    except (TypeError, ValueError):
        raise InputError(f"option --weights: {value!r} is not a list of numbers") from None
    if len(weights) != len(CRITERIA):
        raise InputError(f"option --weights: give {len(CRITERIA)} weights "
                         f"({', '.join(CRITERIA)}), got {len(weights)}")
    check_criteria([Criterion(weight=w) for w in weights], "option --weights")
    return weights


def parse_targets(value: str | Sequence[str]) -> tuple[str, ...]:
    """Three targets ``min`` or ``max`` (``"min,max,min"`` or a sequence)."""
    targets = tuple(str(t).strip().lower() for t in _items(value, "targets"))
    if len(targets) != len(CRITERIA):
        raise InputError(f"option --targets: give {len(CRITERIA)} targets "
                         f"({', '.join(CRITERIA)}), got {len(targets)}")
    bad = [t for t in targets if t not in ("min", "max")]
    if bad:
        raise InputError(f"option --targets: each target is min or max, got {bad[0]!r}")
    return targets


def strategy(*, preference: str = "linear", weights: str | Sequence[float] = DEFAULT_WEIGHTS,
             targets: str | Sequence[str] = DEFAULT_TARGETS,
             q: float | str | Sequence[float] | None = None,
             p: float | str | Sequence[float] | None = None, window: float = 1.0,
             spread: str = DEFAULT_SPREAD, noi_max: str = "workload",
             thresholds: str = DEFAULT_THRESHOLDS) -> Strategy:
    """A checked :class:`Strategy` (one-line :class:`InputError` naming the bad option).

    ``q`` and ``p``: one number, or one per criterion (ECT, price, EEI) as a
    sequence or a comma-separated string, in the unit ``thresholds`` names
    (:mod:`.promethee_thresholds`).
    """
    if noi_max not in NOI_MAX:
        raise InputError(f"option --noi-max: unknown reading of NOI_max {noi_max!r} "
                         f"(choose from: {', '.join(NOI_MAX)})")
    if spread not in SPREADS:
        raise InputError(f"option --spread: unknown reading of sigma {spread!r} "
                         f"(choose from: {', '.join(SPREADS)})")
    if preference not in PREFERENCES:
        raise InputError(f"option --preference: unknown preference function {preference!r} "
                         f"(choose from: {', '.join(PREFERENCES)})")
    check_kind(thresholds)
    q, p = parse_threshold(q, "q"), parse_threshold(p, "p")
    if (isinstance(window, bool) or not isinstance(window, int | float)
            or not 0 < window <= 1):
        raise InputError(f"option --window: the fraction of the queue ranked must be in "
                         f"(0, 1], got {window!r}")
    chosen = Strategy(parse_targets(targets), parse_weights(weights), preference, q, p,
                      float(window), spread, noi_max, thresholds)
    per_criterion(preference, thresholds, q, p)  # q <= p (and more) for each criterion
    return chosen


def check_strategy_options(options: dict) -> None:
    """The registry's option check of promethee: a :class:`Strategy`, and ``replicas``."""
    strategy(**{k: v for k, v in options.items() if k in OPTIONS})
    check_replicas(options.get("replicas", "tiered"))


def check_fcfs_order(order: object) -> None:
    """One-line :class:`InputError` for an unknown reading of FCFS."""
    if order not in FCFS_ORDERS:
        raise InputError(f"option --order: unknown reading of FCFS {order!r} "
                         f"(choose from: {', '.join(FCFS_ORDERS)})")


def check_fcfs_options(options: dict) -> None:
    """The registry's option check of fcfs: ``order`` and ``replicas``."""
    check_fcfs_order(options.get("order", "random"))
    check_replicas(options.get("replicas", "tiered"))


class PrometheeScheduler(PullPolicy):
    """Pick the best-ranked queued task for a pulling host (module docstring)."""

    def __init__(self, chosen: Strategy, rng: np.random.Generator, flows_method: str = "auto"
                 ) -> None:
        super().__init__(rng)
        self.strategy = chosen
        # "auto": the fast path where it applies, the bounded series for the Gaussian
        # (:meth:`best_gaussian`, the same choices); "pairwise": the definition.
        self.flows_method = flows_method
        relative = chosen.thresholds == "sigma"
        self._criteria = [Criterion(target=t, weight=w, function=chosen.preference,
                                    q=q, p=p, s=p, relative=relative, spread=chosen.spread,
                                    closed=True)
                          for t, w, (q, p) in zip(chosen.targets, chosen.weights, chosen.pairs,
                                                  strict=True)]
        ect, price = self._criteria[:2]
        # One ranking of NOI serves ECT and price when both thresholds are the same
        # multiples of each column's sigma (module doc, "ECT and price share one ranking").
        self._shared = relative and (replace(ect, target="max", weight=0.0)
                                     == replace(price, target="max", weight=0.0))

    def matrix(self, noi: np.ndarray, cpu: float, price: float, noi_max: float,
               reputation: float) -> np.ndarray:
        """Evaluation matrix ``A`` of tasks of sizes ``noi`` for one host (ECT, price, EEI)."""
        ect = noi / cpu
        return np.column_stack([ect, ect * price, eei(noi, noi_max, reputation)])

    def rank(self, matrix: np.ndarray) -> np.ndarray:
        """Net flows of the rows of ``matrix`` (each column's thresholds, sigma its own)."""
        return flows(matrix, self._criteria, self.flows_method)[2]

    def _columns(self, noi: np.ndarray, cpu: float, price: float
                 ) -> list[tuple[Criterion, np.ndarray]]:
        """The ECT and price criteria with the values their sums are taken of (target max).

        Shared: NOI for both (module doc); otherwise the columns of :meth:`matrix`.
        A free host's price column is constant and adds nothing: left out.
        """
        ect, price_c = self._criteria[:2]
        used = (ect, price_c) if price > 0 else (ect,)
        if self._shared:
            return [(c, noi) for c in used]
        seconds = noi / cpu
        return [(c, seconds if c is ect else seconds * price) for c in used]

    def net_flows(self, noi: np.ndarray, cpu: float, price: float, noi_max: float,
                  reputation: float) -> np.ndarray:
        """:meth:`rank` of :meth:`matrix`, ranking the ECT and price columns once if they share.

        Both are ``noi`` times a positive constant, and with thresholds in
        sigmas their preference sums are those of ``noi`` (swapped for a min
        target); a free host's price column is constant and adds nothing.
        """
        n = len(noi)
        if n < 2:
            return np.zeros(n)
        columns = self._columns(noi, cpu, price)
        sums: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for c, values in columns:  # a shared NOI column is ranked once
            if id(values) not in sums:
                sums[id(values)] = criterion_sums(values, replace(c, target="max"),
                                                  self.flows_method)
        return self._combine([(c, sums[id(values)]) for c, values in columns],
                             criterion_sums(eei(noi, noi_max, reputation), self._criteria[2],
                                            self.flows_method), n)

    def _combine(self, columns: list[tuple[Criterion, tuple[np.ndarray, np.ndarray]]],
                 eei_sums: tuple[np.ndarray, np.ndarray], n: int) -> np.ndarray:
        """Net flows from the ECT and price sums (target max) and EEI's, for any rows.

        The same float operations on any rows: a subset's flows are the
        whole's at those rows, bit for bit.
        """
        eei_c = self._criteria[2]
        up, down = eei_sums
        plus, minus = np.zeros(len(up)), np.zeros(len(up))
        for c, (given, taken) in columns:
            c_up, c_down = (given, taken) if c.target == "max" else (taken, given)
            plus += c.weight * c_up
            minus += c.weight * c_down
        plus += eei_c.weight * up
        minus += eei_c.weight * down
        return (plus - minus) / (n - 1)

    def best_gaussian(self, noi: np.ndarray, cpu: float, price: float, noi_max: float,
                      reputation: float) -> int:
        """The row of the best net flow, as the pairwise flows pick it, without their matrix.

        Approximate flows (:func:`~.promethee.bounded_sums`) are each within
        ``bound`` of the pairwise path's floats, so a row more than
        ``2 bound`` below the best approximate flow is below the pairwise
        best: only the rows within ``2 bound`` can be the pairwise argmax.
        Their pairwise flows, recomputed bit for bit, settle it (the first
        of equal ones, as :func:`numpy.argmax`).
        """
        n = len(noi)
        if n < 2:
            return 0
        eei_c = self._criteria[2]
        columns = self._columns(noi, cpu, price)
        bounded: dict[int, tuple[float, BoundedSums]] = {}  # values -> (weight, sums)
        for c, values in columns:
            weight, sums = bounded.get(id(values), (0.0, None))
            if sums is None:
                sums = bounded_sums(values, replace(c, target="max"))
            bounded[id(values)] = (weight + c.weight, sums)
        of = [(c, bounded[id(values)][1]) for c, values in columns]
        risk = bounded_sums(eei(noi, noi_max, reputation), eei_c)
        net = self._combine([(c, (b.given, b.taken)) for c, b in of],
                            (risk.given, risk.taken), n)
        # Each flow: weights x (given + taken errors) / (n - 1), and the sums' own rounding.
        error = sum(w * 2 * b.error for w, b in bounded.values()) + eei_c.weight * 2 * risk.error
        bound = error / (n - 1) * (1 + 1e-9) + 64 * np.finfo(float).eps
        close = np.flatnonzero(net >= net.max() - 2 * bound)
        if len(close) == 1:
            return int(close[0])
        exact = self._combine([(c, b.exact(close)) for c, b in of], risk.exact(close), n)
        return int(close[int(np.argmax(exact))])

    def choose(self, candidates: np.ndarray, noi: np.ndarray, cpu: float, price: float,
               noi_max: float, reputation: float) -> int:
        """The best net flow among ``candidates`` (or a random window of them)."""
        chosen = candidates
        if self.strategy.window < 1 and len(candidates) > 1:
            size = max(1, math.ceil(self.strategy.window * len(candidates)))
            chosen = np.sort(self.rng.choice(candidates, size, replace=False))
        if self.strategy.noi_max == "ranked":
            noi_max = float(noi[chosen].max())
        if self.strategy.preference == "gaussian" and self.flows_method == "auto":
            return int(chosen[self.best_gaussian(noi[chosen], cpu, price, noi_max,
                                                 reputation)])
        net = self.net_flows(noi[chosen], cpu, price, noi_max, reputation)
        return int(chosen[int(np.argmax(net))])


class Fcfs(PullPolicy):
    """The paper's FCFS: a uniformly random queued task, or the oldest (module doc)."""

    def __init__(self, rng: np.random.Generator, order: str = "random") -> None:
        check_fcfs_order(order)
        super().__init__(rng)
        self.order = order

    def choose(self, candidates: np.ndarray, noi: np.ndarray, cpu: float, price: float,
               noi_max: float, reputation: float) -> int:
        """A random unit of ``candidates``, or the one whose pending task is oldest."""
        if self.order == "random":
            return int(candidates[self.rng.integers(len(candidates))])
        if self.created is None:
            raise ValueError("FCFS 'oldest' needs the creation times of a simulation")
        return int(candidates[int(np.argmin(self.created[candidates]))])
