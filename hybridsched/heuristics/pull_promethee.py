"""The Promethee scheduler of Moca et al. (2016) and its FCFS baseline, as pull policies.

When a host pulls work, :class:`PrometheeScheduler` evaluates the queued
tasks on three criteria, in this order:

``ECT``    expected completion time on the pulling host, ``noi / cpu``;
``price``  ``ECT x price`` of the host (0 on free hosts);
``EEI``    expected error impact (Table 1) from the host's reputation,

ranks them with PROMETHEE II (:mod:`hybridsched.heuristics.promethee`;
each criterion has a min/max target and a weight, weights summing to 1) and
sends the task with the highest net flow (the first one on ties).

**Thresholds.** The paper's Linear function is ``P(d) = d / sigma`` up to
``sigma``, the standard deviation of the criterion's pairwise deviations at
this decision, so thresholds are given *in units of sigma*, for every
criterion and function alike: ``linear`` uses ``(q, p)`` (default ``(0,
1)``: the paper's function), ``level`` uses ``(q, p)`` (default ``(0.5,
1)``; the paper gives no values), ``gaussian`` uses ``s = p x sigma``
(default ``p = 1``: the paper's ``2 sigma^2``). When sigma is 0 (equal
values) every function reads as its limit, the usual criterion (any
positive deviation is a full preference), as the paper's Linear does
literally (``P = 1`` for ``d > sigma``).

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

**FCFS** (section 6.3.1): "the scheduler randomly selects a task", a
uniform draw among the queued tasks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from hybridsched.errors import InputError
from hybridsched.heuristics.promethee import (
    SPREADS,
    Criterion,
    check_criteria,
    criterion_sums,
    flows,
)
from hybridsched.pull.online import PullPolicy
from hybridsched.pull.reputation import eei

#: Criteria the scheduler evaluates, in order.
CRITERIA = ("ect", "price", "eei")
#: Preference functions of the paper, and their default thresholds (q, p) in sigmas.
PREFERENCES = {"linear": (0.0, 1.0), "level": (0.5, 1.0), "gaussian": (0.0, 1.0)}
#: The default strategy, the paper's final SOFT winner s_{4,26}: every target max,
#: weights (ECT, price, EEI) = (0.6, 0.1, 0.3) (Tables 7, 8 and 11).
DEFAULT_WEIGHTS = (0.6, 0.1, 0.3)
DEFAULT_TARGETS = ("max", "max", "max")
#: The literal reading of the paper's sigma (module doc, "Which sigma").
DEFAULT_SPREAD = "signed-pairs"
#: The options of the promethee method, as the registry's check and the CLI know them.
OPTIONS = ("preference", "weights", "targets", "q", "p", "window", "spread")


@dataclass(frozen=True)
class Strategy:
    """Targets, weights and preference function of the three criteria."""

    targets: tuple[str, ...] = DEFAULT_TARGETS
    weights: tuple[float, ...] = DEFAULT_WEIGHTS
    preference: str = "linear"
    q: float | None = None
    p: float | None = None
    window: float = 1.0
    spread: str = DEFAULT_SPREAD

    @property
    def thresholds(self) -> tuple[float, float]:
        """``(q, p)`` in sigmas, defaults filled in."""
        q0, p0 = PREFERENCES[self.preference]
        return (q0 if self.q is None else self.q, p0 if self.p is None else self.p)


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
             targets: str | Sequence[str] = DEFAULT_TARGETS, q: float | None = None,
             p: float | None = None, window: float = 1.0,
             spread: str = DEFAULT_SPREAD) -> Strategy:
    """A checked :class:`Strategy` (one-line :class:`InputError` naming the bad option)."""
    if spread not in SPREADS:
        raise InputError(f"option --spread: unknown reading of sigma {spread!r} "
                         f"(choose from: {', '.join(SPREADS)})")
    if preference not in PREFERENCES:
        raise InputError(f"option --preference: unknown preference function {preference!r} "
                         f"(choose from: {', '.join(PREFERENCES)})")
    for name, v in (("q", q), ("p", p)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)
                              or not math.isfinite(v) or v < 0):
            raise InputError(f"option --{name}: must be a finite number >= 0, got {v!r}")
    if (isinstance(window, bool) or not isinstance(window, int | float)
            or not 0 < window <= 1):
        raise InputError(f"option --window: the fraction of the queue ranked must be in "
                         f"(0, 1], got {window!r}")
    chosen = Strategy(parse_targets(targets), parse_weights(weights), preference, q, p,
                      float(window), spread)
    q_, p_ = chosen.thresholds
    if preference != "gaussian" and q_ > p_:
        raise InputError(f"option --q: q ({q_:g}) must not exceed p ({p_:g})")
    if preference == "linear" and q_ == p_:
        raise InputError(f"option --p: linear needs q < p, got q = p = {p_:g}")
    if preference == "gaussian" and p_ <= 0:
        raise InputError("option --p: the gaussian needs p > 0")
    return chosen


def check_strategy_options(options: dict) -> None:
    """The registry's option check: every value a :class:`Strategy` accepts."""
    strategy(**{k: v for k, v in options.items() if k in OPTIONS})


class PrometheeScheduler(PullPolicy):
    """Pick the best-ranked queued task for a pulling host (module docstring)."""

    def __init__(self, chosen: Strategy, rng: np.random.Generator, flows_method: str = "auto"
                 ) -> None:
        super().__init__(rng)
        self.strategy = chosen
        self.flows_method = flows_method  # "auto" (the fast path where it applies) or "pairwise"
        q, p = chosen.thresholds
        self._criteria = [Criterion(target=t, weight=w, function=chosen.preference,
                                    q=q, p=p, s=p, relative=True, spread=chosen.spread)
                          for t, w in zip(chosen.targets, chosen.weights, strict=True)]

    def matrix(self, noi: np.ndarray, cpu: float, price: float, noi_max: float,
               reputation: float) -> np.ndarray:
        """Evaluation matrix ``A`` of tasks of sizes ``noi`` for one host (ECT, price, EEI)."""
        ect = noi / cpu
        return np.column_stack([ect, ect * price, eei(noi, noi_max, reputation)])

    def rank(self, matrix: np.ndarray) -> np.ndarray:
        """Net flows of the rows of ``matrix`` (thresholds scaled by each column's sigma)."""
        return flows(matrix, self._criteria, self.flows_method)[2]

    def net_flows(self, noi: np.ndarray, cpu: float, price: float, noi_max: float,
                  reputation: float) -> np.ndarray:
        """:meth:`rank` of :meth:`matrix`, ranking the ECT and price columns once.

        Both are ``noi`` times a positive constant, and thresholds are relative
        to each column's sigma, so their preference sums are those of ``noi``
        (swapped for a min target); a free host's price column is constant and
        adds nothing.
        """
        n = len(noi)
        if n < 2:
            return np.zeros(n)
        ect, price_c, eei_c = self._criteria
        base = replace(ect, target="max")
        given, taken = criterion_sums(noi, base, self.flows_method)
        plus, minus = np.zeros(n), np.zeros(n)
        for c in (ect, price_c) if price > 0 else (ect,):
            up, down = (given, taken) if c.target == "max" else (taken, given)
            plus += c.weight * up
            minus += c.weight * down
        up, down = criterion_sums(eei(noi, noi_max, reputation), eei_c, self.flows_method)
        plus += eei_c.weight * up
        minus += eei_c.weight * down
        return (plus - minus) / (n - 1)

    def choose(self, candidates: np.ndarray, noi: np.ndarray, cpu: float, price: float,
               noi_max: float, reputation: float) -> int:
        """The best net flow among ``candidates`` (or a random window of them)."""
        chosen = candidates
        if self.strategy.window < 1 and len(candidates) > 1:
            size = max(1, math.ceil(self.strategy.window * len(candidates)))
            chosen = np.sort(self.rng.choice(candidates, size, replace=False))
        net = self.net_flows(noi[chosen], cpu, price, noi_max, reputation)
        return int(chosen[int(np.argmax(net))])


class Fcfs(PullPolicy):
    """A uniformly random queued task (the paper's FCFS)."""

    def choose(self, candidates: np.ndarray, noi: np.ndarray, cpu: float, price: float,
               noi_max: float, reputation: float) -> int:
        """A random unit of ``candidates``."""
        return int(candidates[self.rng.integers(len(candidates))])
