"""The verdict rule of the reproduction (issue 34): a claim's class from its paired 95% interval.

A paper's claim is tested by a paired effect (:mod:`hybridsched.experiments.paired`):
the mean of the differences *method - baseline* over paired seeds, with its
95% Student-t interval ``[ci_low, ci_high]``. :func:`classify` places that
interval against the paper's figure and gives one of five classes
(:data:`CLASSES`); :func:`stability` and :func:`until_stable` decide whether
the class would survive new seeds.

**The figure's sign.** The caller writes the paper's figure as the effect it
expects in the table's units, *method - baseline*: "CPLMT leaves 32.73% fewer
unfinished jobs than CMMS" is ``-32.73`` for CPLMT against CMMS in percent of
the baseline (``hybridsched effects`` prints percent by default), "Level is
12.86% slower than Linear" is ``+12.86`` for Level against Linear, "GMO's
makespan is about 5% better" is ``-5`` (a smaller makespan is better). With
``--absolute`` the figure is in the measure's own unit.

**Kinds of claims** (:data:`KINDS`):

``difference`` (the default)
    The claim is an effect of a given size and sign (the figure is not 0).
    *reproduced*: the interval holds the figure and excludes 0;
    *inconclusive*: it holds both the figure and 0;
    *direction only*: it excludes 0 on the figure's side but not the figure
    (too small, or overshooting it);
    *not reproduced*: it holds 0 but not the figure (no effect shown, and the
    paper's effect is excluded);
    *contradicted*: it excludes 0 on the side opposite the figure.
``level``
    The claim is a value, not a difference from 0: "Jain's fairness is about
    0.99" (a one-sample interval of the fairness), or "the two yield similar
    makespans" (a paired interval, figure 0: an equivalence). 0 means nothing
    special, and there is no direction to get right or wrong:
    *reproduced*: the interval holds the figure; *not reproduced*: it does not.
``direction``
    The paper gives a direction but no figure ("better on all metrics"); only
    the figure's sign counts. *reproduced*: the interval excludes 0 on its side;
    *inconclusive*: it holds 0; *contradicted*: it excludes 0 on the other side.

The interval is closed: an endpoint equal to 0 holds 0, one equal to the
figure holds the figure. An effect without an interval (one pair, so
``NaN`` endpoints) is *inconclusive* for every kind: it shows nothing either
way, and more seeds decide.

**A level claim is weaker than it looks:** a wide interval holds any figure.
Its *reproduced* is only as strong as the interval is narrow, which is why
the seed rule reports the half-width.

This module imports only the standard library at the top, so that the command
line can check a claim's figure before it imports numpy (``cli/campaigns.py``);
the statistics come from :mod:`hybridsched.experiments.paired` when needed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

REPRODUCED = "reproduced"
DIRECTION_ONLY = "direction only"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"
CONTRADICTED = "contradicted"
#: The classes of :func:`classify`, from the strongest support of the claim to the weakest.
CLASSES = (REPRODUCED, DIRECTION_ONLY, INCONCLUSIVE, NOT_REPRODUCED, CONTRADICTED)
#: The kinds of claims :func:`classify` knows (see the module's documentation).
KINDS = ("difference", "level", "direction")
#: Default of ``narrow`` (:func:`stability`): half-width under a tenth of the claimed effect.
NARROW = 0.1

#: A paper's figure: one number, or a range ``(low, high)`` on one side of 0 ("36-47.6%").
Figure = float | tuple[float, float]

HALVES_AGREE = "halves agree"
IS_NARROW = "narrow"
CAP_REACHED = "cap reached"

#: What each class means, per kind: the legend under a table of verdicts.
_LEGENDS = {
    "difference": (
        "verdict against the paper's figure F (method - baseline): reproduced = the 95% "
        "interval holds F and excludes 0; inconclusive = it holds F and 0; direction only = "
        "it excludes 0 on F's side but not F; not reproduced = it holds 0 but not F; "
        "contradicted = it excludes 0 on the other side; no interval (1 pair) = inconclusive"),
    "level": (
        "verdict against the paper's level F: reproduced = the 95% interval holds F; not "
        "reproduced = it does not (0 has no special meaning; a wide interval holds anything); "
        "no interval (1 pair) = inconclusive"),
    "direction": (
        "verdict against the paper's direction (the sign of F): reproduced = the 95% interval "
        "excludes 0 on F's side; inconclusive = it holds 0; contradicted = it excludes 0 on the "
        "other side; no interval (1 pair) = inconclusive"),
}


def figure_ends(figure: Figure) -> tuple[float, float]:
    """A figure as ``(low, high)``: equal ends for one number.

    Examples
    --------
    >>> figure_ends(-32.73), figure_ends((-47.6, -36.0))
    ((-32.73, -32.73), (-47.6, -36.0))
    """
    if isinstance(figure, tuple | list):
        low, high = (float(end) for end in figure)
        return low, high
    return float(figure), float(figure)


def check_claim(figure: Figure, kind: str = "difference") -> None:
    """Raise ``ValueError`` unless ``figure`` and ``kind`` make a claim :func:`classify` reads.

    The figure must be finite, the kind one of :data:`KINDS`, and a difference
    or a direction needs a sign: a claim of no difference is a ``level``
    claim with figure 0.

    Examples
    --------
    >>> check_claim(-32.73)
    >>> check_claim(0.0, "level")
    >>> check_claim(0.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a difference claim needs a figure other than 0, on one side of 0 ...
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind of claim {kind!r} (choose from: {', '.join(KINDS)})")
    low, high = figure_ends(figure)
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"the paper's figure must be a finite number, got {figure!r}")
    if low > high:
        raise ValueError(f"the figure's range {figure!r} runs backwards")
    if kind != "level" and (low <= 0.0 <= high):
        raise ValueError(f"a {kind} claim needs a figure other than 0, on one side of 0 (a "
                         "claim of no difference is a level claim with figure 0)")


def classify(ci_low: float, ci_high: float, figure: Figure, *, kind: str = "difference") -> str:
    """The class of a claim whose effect has the 95% interval ``[ci_low, ci_high]``.

    Parameters
    ----------
    ci_low, ci_high:
        The interval's ends (``NaN`` when there is none: one pair).
    figure:
        The paper's figure in the interval's units, signed as *method -
        baseline* (see the module's documentation), or a range ``(low,
        high)``: the interval holds it when they overlap.
    kind:
        ``"difference"`` (default), ``"level"`` or ``"direction"``.

    Returns
    -------
    str
        One of :data:`CLASSES`.

    Examples
    --------
    "CPLMT leaves 32.73% fewer unfinished jobs than CMMS": ``-32.73`` (CPLMT - CMMS).

    >>> classify(-35.8, -29.8, -32.73)
    'reproduced'
    >>> classify(-32.0, -23.0, -32.73)
    'direction only'
    >>> classify(-1.43, 1.35, 1.21)  # Gaussian against Linear: holds 0 and the figure
    'inconclusive'
    >>> classify(-1.00, 1.97, 12.86)  # Level against Linear: holds 0 only
    'not reproduced'
    >>> classify(1.3, 2.7, -32.73)  # CPLMT leaves more unfinished jobs
    'contradicted'
    >>> classify(0.978, 0.989, 0.99, kind="level")  # Jain's fairness about 0.99
    'not reproduced'
    >>> classify(-1.43, 1.35, 0.0, kind="level")  # "similar makespan values"
    'reproduced'
    >>> classify(-15.4, -11.7, -1, kind="direction")  # "better", no figure
    'reproduced'
    >>> classify(float("nan"), float("nan"), -32.73)  # one pair: no interval
    'inconclusive'
    >>> classify(-50.0, -40.0, (-47.6, -36.0))  # "by 36-47.6%": the interval meets the range
    'reproduced'
    """
    check_claim(figure, kind)
    if math.isnan(ci_low) or math.isnan(ci_high):
        return INCONCLUSIVE
    if ci_low > ci_high:
        raise ValueError(f"the interval's low end {ci_low!r} is above its high end {ci_high!r}")
    low, high = figure_ends(figure)
    holds_figure = ci_low <= high and low <= ci_high
    if kind == "level":
        return REPRODUCED if holds_figure else NOT_REPRODUCED
    holds_zero = ci_low <= 0.0 <= ci_high
    if holds_zero:
        if kind == "direction":
            return INCONCLUSIVE
        return INCONCLUSIVE if holds_figure else NOT_REPRODUCED
    # 0 is outside: the interval lies wholly on one side of it.
    if (ci_low > 0.0) != (low > 0.0):
        return CONTRADICTED
    if kind == "direction":
        return REPRODUCED
    return REPRODUCED if holds_figure else DIRECTION_ONLY


def legend(kind: str = "difference", figure: Figure | None = None) -> str:
    """One line saying what each class means for claims of ``kind`` (under a table).

    Examples
    --------
    >>> legend("level", 0.99)[:48]
    "verdict against the paper's level F = 0.99: repr"
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind of claim {kind!r} (choose from: {', '.join(KINDS)})")
    low, high = (None, None) if figure is None else figure_ends(figure)
    named = ("F" if figure is None else f"F = {low:g}" if low == high
             else f"F = {low:g} to {high:g}")
    return _LEGENDS[kind].replace("F", named, 1)


def with_verdicts(effects: Any, figures: float | Mapping[str, float], *,
                  kind: str = "difference") -> Any:
    """A :func:`~hybridsched.experiments.paired.paired_effects` table with each row's class.

    ``figures`` is one figure for every method, or a figure per method label
    (rows of other methods get no figure and no verdict: missing values). A
    copy of the table gains ``paper_figure``, ``claim_kind`` and ``verdict``.
    """
    rows = list(effects.itertuples(index=False))
    paper = [figures.get(row.method) if isinstance(figures, Mapping) else figures
             for row in rows]
    verdicts = [None if f is None else classify(row.ci_low, row.ci_high, f, kind=kind)
                for row, f in zip(rows, paper, strict=True)]
    return effects.assign(paper_figure=paper, claim_kind=kind, verdict=verdicts)


def interval(values: Any) -> tuple[float, float, float]:
    """Mean and 95% Student-t interval of ``values`` (1-D), as ``paired_effects`` computes them.

    Non-finite values (failed runs) are left out; with fewer than 2 values
    left the ends are ``NaN``.

    Examples
    --------
    >>> [round(v, 3) for v in interval([1.0, 2.0, 3.0])]
    [2.0, -0.484, 4.484]
    """
    from hybridsched.experiments.paired import t_quantile_975

    data = _finite(values)
    n = len(data)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(data.mean())
    if n < 2:
        return mean, math.nan, math.nan
    half = t_quantile_975(n - 1) * float(data.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class Stability:
    """Whether a claim's class on some paired differences would survive new seeds.

    ``verdict`` is the class on all the differences; ``halves`` the classes on
    the first and the second half (disjoint, in seed order); ``reason`` says
    why the class is stable (``"halves agree"`` or ``"narrow"``), empty when
    it is not. ``half_width`` is half the interval's width and ``width_limit``
    the half-width under which the class counts as stable whatever the
    halves say (``None``: no such limit for this claim).
    """

    verdict: str
    stable: bool
    reason: str
    pairs: int
    mean: float
    ci_low: float
    ci_high: float
    halves: tuple[str, str]
    half_width: float
    width_limit: float | None


def stability(differences: Any, figure: Figure, *, kind: str = "difference",
              narrow: float | None = NARROW, scale: float | None = None) -> Stability:
    """Whether the claim's class on these paired differences is stable (issue 34, item 2).

    Stable when the class on the first half of the differences and on the
    second half (disjoint halves in seed order: the first ``n // 2``, then the
    rest) both equal the class on all of them, or when the interval's
    half-width is below ``narrow * scale``. An *inconclusive* class is never
    stable by its halves: each half's interval is wider than the whole one's,
    so the halves of an inconclusive effect are nearly always inconclusive
    too, and their agreement would say nothing; such a claim needs more seeds
    (or a narrow interval, or the cap of :func:`until_stable`).

    Parameters
    ----------
    differences:
        The paired differences *method - baseline*, one per pair, in seed
        order (1-D; non-finite values, failed runs, are left out).
    figure, kind:
        The claim (see :func:`classify`).
    narrow:
        The half-width, as a fraction of ``scale``, under which the class is
        stable (``None``: never by width). The default, 0.1, accepts an
        interval that pins the effect to within a tenth of the paper's figure:
        then the class can still flip between *reproduced* and *direction
        only*, but only over a gap smaller than the precision a paper's single
        figure carries (CPLMT against CMMS, figure -32.73: a half-width of 3.0
        is narrow, one of 4.5 is not).
    scale:
        The size ``narrow`` is a fraction of. Default: ``abs(figure)`` for a
        difference claim; none for a level or direction claim, whose figure
        is no size of effect (give one, e.g. ``1 - 0.99`` for a fairness of
        about 0.99, to allow a stable-by-width verdict).

    Examples
    --------
    >>> check = stability([-31.0, -33.0, -34.0, -32.0, -30.0, -35.0, -33.0, -32.0], -32.73)
    >>> check.verdict, check.stable, check.reason, check.halves
    ('reproduced', True, 'halves agree', ('reproduced', 'reproduced'))
    """
    check_claim(figure, kind)
    data = _finite(differences)
    mean, low, high = interval(data)
    verdict = classify(low, high, figure, kind=kind)
    middle = len(data) // 2
    halves = (classify(*interval(data[:middle])[1:], figure, kind=kind),
              classify(*interval(data[middle:])[1:], figure, kind=kind))
    half_width = (high - low) / 2.0
    limit = _width_limit(figure, kind, narrow, scale)
    reason = ""
    if verdict != INCONCLUSIVE and halves == (verdict, verdict):
        reason = HALVES_AGREE
    elif limit is not None and half_width < limit:  # NaN (no interval) is never narrow
        reason = IS_NARROW
    return Stability(verdict=verdict, stable=bool(reason), reason=reason, pairs=len(data),
                     mean=mean, ci_low=low, ci_high=high, halves=halves,
                     half_width=half_width, width_limit=limit)


@dataclass(frozen=True)
class StableVerdict(Stability):
    """What :func:`until_stable` found for one claim: its last check, and the seeds drawn.

    The fields of :class:`Stability` are those of the last check. ``seeds`` is
    the range of seeds drawn; ``reason`` is ``"halves agree"``, ``"narrow"``
    (then ``stable``) or ``"cap reached"`` (not stable at the cap);
    ``history`` the ``(seeds drawn, class)`` of each check, in order.
    """

    seeds: range = range(0)
    figure: Figure = 0.0
    kind: str = "difference"
    history: tuple[tuple[int, str], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON values (``seeds`` as ``[start, stop]``; NaN kept as NaN)."""
        return {"verdict": self.verdict, "stable": self.stable, "reason": self.reason,
                "seeds": [self.seeds.start, self.seeds.stop], "pairs": self.pairs,
                "mean": self.mean, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "halves": list(self.halves), "half_width": self.half_width,
                "width_limit": self.width_limit,
                "figure": list(self.figure) if isinstance(self.figure, tuple) else self.figure,
                "kind": self.kind,
                "history": [list(step) for step in self.history]}


def until_stable(draw_batch: Callable[[range], Any], figure: Figure, *,
                 kind: str = "difference", start: int = 10, step: int = 10, cap: int = 40,
                 first_seed: int = 0, narrow: float | None = NARROW,
                 scale: float | None = None) -> StableVerdict:
    """Draw paired seeds in batches until the claim's class is stable, or the cap is reached.

    Draws seeds ``first_seed .. first_seed + start - 1``, then ``step`` more at
    a time (the last batch cut to the cap), checking :func:`stability` after
    each batch on every difference drawn so far. One claim of
    :func:`until_all_stable`.

    Parameters
    ----------
    draw_batch:
        ``draw_batch(seeds)`` runs the claim's comparison on the new seeds (a
        ``range``) and returns their paired differences *method - baseline*
        in seed order (1-D; more than one per seed, e.g. replications, is
        fine; a failed pair may be ``NaN``, it is left out). Each call gets
        seeds no earlier call got.
    figure, kind, narrow, scale:
        The claim and the width rule (see :func:`stability`).
    start, step, cap:
        Seeds of the first batch, of each further batch, and at most in all.

    Examples
    --------
    >>> import numpy as np
    >>> def draw(seeds):
    ...     return np.array([-32.0 + 2 * (s % 5 - 2) for s in seeds])
    >>> found = until_stable(draw, -32.73)
    >>> found.verdict, found.reason, found.seeds
    ('reproduced', 'halves agree', range(0, 10))
    """
    claim = ClaimRule(figure, kind, narrow, scale)
    found = until_all_stable(lambda seeds, keys: {0: draw_batch(seeds)}, {0: claim},
                             start=start, step=step, cap=cap, first_seed=first_seed)
    return found[0]


@dataclass(frozen=True)
class ClaimRule:
    """A claim as the seed rule reads it: figure, kind and width rule (see :func:`stability`)."""

    figure: Figure
    kind: str = "difference"
    narrow: float | None = NARROW
    scale: float | None = None


def until_all_stable(draw_batch: Callable[[range, list[Any]], Mapping[Any, Any]],
                     claims: Mapping[Any, ClaimRule], *, start: int = 10, step: int = 10,
                     cap: int = 40, first_seed: int = 0) -> dict[Any, StableVerdict]:
    """:func:`until_stable` for several claims drawn together (one campaign per batch).

    Every claim gets the first ``start`` seeds; after each batch, each claim
    whose class is not yet stable, and only those, get the next ``step``
    seeds (up to ``cap``), so a claim stable at 10 seeds is not run further.

    Parameters
    ----------
    draw_batch:
        ``draw_batch(seeds, keys)`` runs the comparisons of the claims ``keys``
        on the new seeds and returns, per key, their paired differences in
        seed order (as in :func:`until_stable`).
    claims:
        The claims by key.

    Returns
    -------
    dict
        A :class:`StableVerdict` per key.
    """
    for claim in claims.values():
        check_claim(claim.figure, claim.kind)
    if not (2 <= start <= cap) or step < 1:
        raise ValueError(f"need 2 <= start <= cap and step >= 1, got start={start}, "
                         f"step={step}, cap={cap}")
    import numpy as np

    drawn: dict[Any, list[Any]] = {key: [] for key in claims}
    history: dict[Any, list[tuple[int, str]]] = {key: [] for key in claims}
    checks: dict[Any, Stability] = {}
    open_keys = list(claims)
    used, batch = 0, start
    while open_keys:
        seeds = range(first_seed + used, first_seed + used + batch)
        found = draw_batch(seeds, list(open_keys))
        used += batch
        for key in open_keys:
            values = np.asarray(found[key], dtype=float)
            if values.ndim != 1:
                raise ValueError(f"draw_batch({seeds}) returned an array of shape "
                                 f"{values.shape} for {key!r}, not one paired difference "
                                 "after another (1-D)")
            drawn[key].append(values)
            claim = claims[key]
            checks[key] = stability(np.concatenate(drawn[key]), claim.figure, kind=claim.kind,
                                    narrow=claim.narrow, scale=claim.scale)
            history[key].append((used, checks[key].verdict))
        open_keys = [key for key in open_keys if not checks[key].stable]
        if used >= cap:
            break
        batch = min(step, cap - used)
    return {key: StableVerdict(
        **{**vars(check), "reason": check.reason or CAP_REACHED},
        seeds=range(first_seed, first_seed + history[key][-1][0]),
        figure=claims[key].figure, kind=claims[key].kind, history=tuple(history[key]))
        for key, check in checks.items()}


def _width_limit(figure: Figure, kind: str, narrow: float | None,
                 scale: float | None) -> float | None:
    if narrow is None:
        return None
    if not (math.isfinite(narrow) and narrow > 0):
        raise ValueError(f"narrow must be a finite number > 0 or None, got {narrow!r}")
    if scale is None:
        low, high = figure_ends(figure)
        scale = min(abs(low), abs(high)) if kind == "difference" else None
    elif not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a finite number > 0 or None, got {scale!r}")
    return None if scale is None else narrow * scale


def _finite(values: Any) -> Any:
    """``values`` as a 1-D float array without its non-finite entries."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.ndim != 1:
        raise ValueError(f"expected paired differences one after another (1-D), got an array "
                         f"of shape {data.shape}")
    return data[np.isfinite(data)]
