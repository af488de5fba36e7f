"""Figures of a campaign's results table: performance profiles, gap boxes, run time scaling.

They read the results table of a campaign (one row per run, the columns of
:func:`hybridsched.experiments.store_read.load_results`) or, for the profiles,
its long table of :func:`hybridsched.experiments.profiles.performance_profile`,
always passed in as a ``DataFrame``; labels carry the objective's name when
a table mixes several (``exact (cost)``). The run time plot fits the
scaling exponent itself (:func:`scaling_exponent`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from hybridsched.plots import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


#: Ticks the tau axis may carry, by how far the ratios go: ratios a reader can name
#: (1.1: 10% above the best), then doublings, then decades.
TAU_SCALES = (
    (1.0, 1.01, 1.02, 1.05, 1.1, 1.25, 1.5, 2.0),
    (1.0, 1.25, 1.5, 2.0, 3.0, 4.0),
    (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0),
    tuple(10.0 ** k for k in range(16)),
)
#: Most ticks on the tau axis.
MAX_TAU_TICKS = 8
#: Share of the axis (in log tau) left free left of tau = 1 and right of the last tick.
X_MARGIN = 0.045
#: Room below 0 and above 1 on the rho axis, so that no curve runs along the frame.
Y_MARGIN = 0.05
#: Line styles of curves that coincide: each copy shows in the gaps of the next.
TIED_STYLES = ("-", (0, (5, 3)), (0, (1, 2)), (0, (6, 2, 1, 2)))
#: Horizontal steps shorter than this share of the axis carry no marker.
MARKED_STEP = 0.05


def tau_ticks(top: float, most: int = MAX_TAU_TICKS) -> list[float]:
    """Ticks from 1 to the first nameable ratio at or above ``top`` (at most ``most``).

    The ticks come from the first scale of :data:`TAU_SCALES` that reaches
    ``top`` (at least 1.1), spread on the log axis: a tick is kept when it
    lies far enough from the ticks beside it (``1 / (1.5 most)`` of the axis,
    wider when that gives more than ``most`` ticks); 1 and the end tick
    always are.

    Examples
    --------
    >>> tau_ticks(1.833)
    [1.0, 1.1, 1.25, 1.5, 2.0]
    >>> tau_ticks(1.0)
    [1.0, 1.01, 1.02, 1.05, 1.1]
    >>> tau_ticks(1.25), tau_ticks(17.0)
    ([1.0, 1.02, 1.05, 1.1, 1.25], [1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    >>> tau_ticks(3000.0)
    [1.0, 10.0, 100.0, 1000.0, 10000.0]
    """
    top = max(float(top), 1.1) if np.isfinite(top) else 2.0
    scale = next((s for s in TAU_SCALES if s[-1] >= top * (1 - 1e-12)), TAU_SCALES[-1])
    end = next((t for t in scale if t >= top * (1 - 1e-12)), scale[-1])
    for room in (1.5 * most, most, most / 2):  # the finest spacing that keeps to ``most``
        step = math.log(end) / room
        chosen = [1.0]
        for tick in scale[1:]:
            if tick >= end:
                break
            if math.log(tick / chosen[-1]) >= step and math.log(end / tick) >= step:
                chosen.append(tick)
        if len(chosen) < most:
            break
    return [*chosen, end]


def _tick_text(tau: float) -> str:
    """``1.25``, ``100``; from 1000 on a power of ten (``$10^{3}$``)."""
    power = math.log10(tau)
    return f"$10^{{{round(power)}}}$" if tau >= 1e3 and power == round(power) else f"{tau:g}"


def plot_performance_profile(profile: pd.DataFrame, ax: Axes | None = None,
                             title: str = "Performance profile", *,
                             measure: str | None = None,
                             instances: int | None = None) -> Figure:
    """Step plot of ``rho(tau)`` per method on a log ``tau`` axis, readable at any size.

    ``profile`` is the long table of
    :func:`~hybridsched.experiments.profiles.performance_profile`. Ratios of
    different objectives are not comparable, so without ``ax`` each
    ``(family, objective_name)`` gets its own panel; into ``ax`` every curve
    is drawn, labelled with its objective when there are several.

    ``measure`` names what the ratios are of, with its unit, on the tau axis:
    ``"run time (s)"`` for a profile on run time; :data:`OBJECTIVE` for one
    on the objective, named then in each panel from the family's measures
    (``"unfinished jobs (count)"``); ``None`` (the table does not say which
    it holds) for ``"value"``. ``instances``, when given, is said in the
    title beside the number of problems compared.

    Every method has its own colour, marker and line style; the tau axis has
    ticks at nameable ratios over the data's range, and both axes leave a
    margin so that no curve runs along the frame. Curves that coincide are
    all drawn, in line styles that show through one another and with their
    markers at other places, and the legend says ``(same curve as X)``.
    """
    groups = ([(key, part) for key, part in profile.groupby(["family", "objective_name"],
                                                            sort=False, dropna=False)]
              if len(profile) else [])
    if ax is not None or len(groups) <= 1:
        figure, axes = style.axes(ax, (8.0, 4.6))
        _profile_panel(axes, profile, title, _measure(profile, measure), instances)
        return figure
    from matplotlib.figure import Figure

    columns = min(len(groups), 2)
    rows = -(-len(groups) // columns)
    figure = Figure(figsize=(7.6 * columns, 4.4 * rows), layout="constrained")
    for n, ((_, objective), part) in enumerate(groups):
        # A panel holds the problems of one objective, whatever the ratios are of.
        _profile_panel(figure.add_subplot(rows, columns, n + 1), part,
                       f"{title}: {objective}", _measure(part, measure), instances)
    return figure


#: ``measure`` of :func:`plot_performance_profile` for a profile on the objective.
OBJECTIVE = "objective"


def _measure(profile: pd.DataFrame, measure: str | None) -> str:
    """What the ratios of ``profile`` are of: ``measure``, or its objective's label."""
    if measure is None:
        return "value"
    if measure != OBJECTIVE:
        return measure
    if profile.empty:
        return "objective"
    from hybridsched.io.display import objective_label

    pairs = profile[["family", "objective_name"]].drop_duplicates()
    labels = dict.fromkeys(objective_label(f, o if isinstance(o, str) else None)
                           for f, o in pairs.itertuples(index=False))
    return "objective" if len(labels) != 1 else next(iter(labels))


def _curves(profile: pd.DataFrame) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(label, tau, rho)`` of each method, sorted by tau; the best curves first.

    Best: most problems won (``rho`` at 1), then the largest area under the
    curve on the log tau axis, so that the legend reads as a ranking.
    """
    profile = profile.assign(label=style.labels(profile))
    curves = [(str(label), part["tau"].to_numpy(dtype=float), part["rho"].to_numpy(dtype=float))
              for label, part in ((label, part.sort_values("tau", kind="stable"))
                                  for label, part in profile.groupby("label", sort=False))]

    def rank(curve: tuple[str, np.ndarray, np.ndarray]) -> tuple[float, float]:
        _, tau, rho = curve
        finite = np.isfinite(tau)
        area = float(np.sum(np.diff(np.log(tau[finite])) * rho[finite][:-1]))
        return -float(rho[0]), -area

    return sorted(curves, key=rank)


def tied_with(curves: Sequence[tuple[str, np.ndarray, np.ndarray]],
              groups: Sequence[object] | None = None) -> list[int]:
    """For each curve, the index of the first curve it coincides with (itself if none).

    Two curves coincide when their ``rho`` agree at every tau of either and,
    given ``groups`` (one key per curve), they belong to the same group:
    profiles of different objectives never coincide, whatever they draw.

    Examples
    --------
    >>> one = ("a", np.array([1.0, 2.0]), np.array([0.5, 1.0]))
    >>> tied_with([one, ("b", one[1], one[2]), ("c", one[1], np.array([0.0, 1.0]))])
    [0, 0, 2]
    >>> tied_with([one, ("b", one[1], one[2])], groups=["cost", "makespan"])
    [0, 1]
    """
    def rho_at(curve: tuple[str, np.ndarray, np.ndarray], taus: np.ndarray) -> np.ndarray:
        _, tau, rho = curve
        where = np.searchsorted(tau, taus, side="right") - 1
        return np.where(where >= 0, rho[np.maximum(where, 0)], 0.0)

    keys = list(groups) if groups is not None else [None] * len(curves)
    firsts: list[int] = []
    for n, curve in enumerate(curves):
        match = n
        for m in sorted(set(firsts)):
            if keys[m] != keys[n]:
                continue
            taus = np.union1d(curve[1], curves[m][1])
            if np.allclose(rho_at(curve, taus), rho_at(curves[m], taus), rtol=0, atol=1e-12):
                match = m
                break
        firsts.append(match)
    return firsts


def _profile_panel(axes: Axes, profile: pd.DataFrame, title: str, measure: str,
                   instances: int | None = None) -> None:
    """Draw the curves of ``profile`` into ``axes`` (see :func:`plot_performance_profile`)."""
    if profile.empty:
        style.empty(axes, "no problem on which every method ran")
        axes.set_title(style.text(title))
        return
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator, NullLocator

    curves = _curves(profile)
    changes = [t[np.r_[True, np.diff(r) != 0]] for _, t, r in curves]
    top = max((float(c.max()) for c in changes if c.size), default=1.0)
    ticks = tau_ticks(top)
    span = math.log(ticks[-1])
    left, right = math.exp(-X_MARGIN * span), math.exp((1 + X_MARGIN) * span)
    colours = style.colours(len(curves))
    keys = profile["family"].astype(str) + "/" + profile["objective_name"].fillna("").astype(str)
    objective_of = dict(zip(style.labels(profile), keys, strict=True))
    firsts = tied_with(curves, [objective_of[label] for label, _, _ in curves])
    handles = []
    for n, (label, tau, rho) in enumerate(curves):
        copy = firsts[:n].count(firsts[n]) if firsts[n] != n else 0
        # Where rho changes, then flat to the right edge: an exact step function.
        keep = np.r_[True, np.diff(rho) != 0]
        xs, ys = np.r_[tau[keep], right], np.r_[rho[keep], rho[keep][-1]]
        if copy or firsts.count(n) > 1:  # a tied group: solid first, its copies dashed on it
            linestyle = TIED_STYLES[copy % len(TIED_STYLES)]
        else:
            linestyle = style.LINESTYLES[n % len(style.LINESTYLES)]
        width = 2.4 if not copy else 1.8
        marker = style.MARKERS[n % len(style.MARKERS)]
        shown = label if firsts[n] == n else f"{label} (same curve as {curves[firsts[n]][0]})"
        never = round((1 - float(rho[-1])) * int(profile["problems"].max()))
        if never:  # unsolved, or a positive value where the best is 0 (an infinite ratio)
            shown += f" ({never} never within any τ)"
        axes.step(xs, ys, where="post", color=colours[n], linestyle=linestyle,
                  linewidth=width, alpha=0.9, zorder=2 + copy, label=style.text(shown))
        # Markers on the long flat steps, at a place of their own for each method, so that
        # curves sharing a step (or all of it) each show theirs.
        where = (n + 1) / (len(curves) + 1)
        lo, hi = np.log(np.maximum(xs[:-1], left)), np.log(np.minimum(xs[1:], right))
        long = (hi - lo) >= MARKED_STEP * (math.log(right) - math.log(left))
        axes.plot(np.exp(lo + where * (hi - lo))[long], ys[:-1][long], linestyle="none",
                  marker=marker, markersize=6.5, color=colours[n], zorder=3 + copy,
                  markeredgecolor="white", markeredgewidth=0.6, label="_markers")
        handles.append(Line2D([], [], color=colours[n], linestyle=linestyle, linewidth=width,
                              marker=marker, markeredgecolor="white", label=style.text(shown)))
    axes.set_xscale("log")
    axes.set_xlim(left, right)
    axes.xaxis.set_major_locator(FixedLocator(ticks))
    axes.xaxis.set_minor_locator(NullLocator())
    axes.set_xticks(ticks, [_tick_text(t) for t in ticks])
    axes.set_ylim(-Y_MARGIN, 1 + Y_MARGIN)
    problems = sorted(int(p) for p in profile["problems"].unique())
    if len(problems) == 1 and problems[0] <= 10:
        axes.set_yticks(np.arange(problems[0] + 1) / problems[0])
    axes.set_xlabel(r"$\tau$: ratio to the best method's " + style.text(measure))
    counted = " or ".join(str(p) for p in problems)
    axes.set_ylabel(rf"share of the {counted} problems within $\tau$")
    if instances is None:
        said = f"{counted} problems"
    elif problems == [instances]:
        said = f"{instances} instances"
    else:
        said = f"{instances} instances, {counted} problems (instance x seed)"
    # "(4 instances)", or ", 4 instances" after a title that ends in a unit's parenthesis.
    axes.set_title(style.text(title) + (f", {said}" if title.endswith(")") else f" ({said})"))
    axes.grid(alpha=0.3)
    axes.legend(handles=handles, fontsize="small", loc="upper left",
                bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False)


def plot_gap_boxes(df: pd.DataFrame, ax: Axes | None = None,
                   title: str = "Gap to the reference") -> Figure:
    """Box plot of each method's finite gaps, in percent.

    A method's tick label counts its infinite gaps (a reference of 0 beaten
    by a positive value); methods without any gap are left out.
    """
    figure, axes = style.axes(ax, (6.4, 4.2))
    axes.set_title(style.text(title))
    boxes = []
    if len(df):
        gaps = pd.Series(pd.to_numeric(df["gap"], errors="coerce").to_numpy(dtype=float),
                         index=style.labels(df).to_numpy())
        for label, values in gaps.groupby(level=0, sort=False):
            finite = values.to_numpy()[np.isfinite(values.to_numpy())]
            if finite.size:
                boxes.append((label, 100 * finite, int(np.isinf(values.to_numpy()).sum())))
    if not boxes:
        style.empty(axes, "no finite gap (nothing known to measure against)")
        return figure
    labels = [style.text(label) + (f"\n({inf} inf)" if inf else "") for label, _, inf in boxes]
    axes.boxplot([values for _, values, _ in boxes], tick_labels=labels)
    axes.set_ylabel(style.text(f"gap of the {style.measure_of(df)} to the reference (%)"))
    axes.grid(alpha=0.3, axis="y")
    if len(boxes) > 4:
        axes.tick_params(axis="x", labelrotation=30, labelsize="small")
    return figure


def plot_runtime_scaling(df: pd.DataFrame, ax: Axes | None = None,
                         title: str = "Run time vs instance size") -> Figure:
    """Log-log run time against ``instance_size`` per method, with the fitted exponent.

    Solved runs with a positive run time and size are drawn (points, and a
    line through the median of each size); the legend gives ``b`` of
    ``runtime ~ size^b`` fitted on every point (:func:`scaling_exponent`).
    """
    figure, axes = style.axes(ax, (6.4, 4.2))
    axes.set_title(style.text(title))
    if len(df):
        size = pd.to_numeric(df["instance_size"], errors="coerce").astype(float)
        runtime = pd.to_numeric(df["runtime_s"], errors="coerce").astype(float)
        keep = style.solved(df) & (size > 0) & (runtime > 0)
        points = pd.DataFrame({"label": style.labels(df), "size": size,
                               "runtime": runtime})[keep]
    else:
        points = pd.DataFrame()
    if points.empty:
        style.empty(axes, "no solved run with a positive run time")
        return figure
    colours = style.colours(points["label"].nunique())
    for n, (label, group) in enumerate(points.groupby("label", sort=False)):
        b, _ = scaling_exponent(group["size"], group["runtime"])
        fitted = f"b = {b:.2f}" if np.isfinite(b) else "b: one size only"
        axes.scatter(group["size"], group["runtime"], s=12, alpha=0.5, color=colours[n],
                     marker=style.MARKERS[n % len(style.MARKERS)])
        medians = group.groupby("size")["runtime"].median()
        axes.plot(medians.index, medians.to_numpy(), color=colours[n],
                  marker=style.MARKERS[n % len(style.MARKERS)],
                  label=f"{style.text(label)} ({fitted})")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel(f"instance size ({style.size_of(df)})")
    axes.set_ylabel("run time (s)")
    axes.grid(alpha=0.3, which="both")
    axes.legend(fontsize="x-small")
    return figure


def scaling_exponent(sizes: Sequence[float] | np.ndarray | pd.Series,
                     runtimes: Sequence[float] | np.ndarray | pd.Series
                     ) -> tuple[float, float]:
    """Least-squares fit of ``log runtime = a + b log size``; returns ``(b, a)``.

    Natural logarithms; pairs with a non-positive or non-finite size or run
    time are left out. ``(nan, nan)`` when fewer than 2 distinct sizes remain.

    Examples
    --------
    >>> b, a = scaling_exponent([10, 20, 40], [0.3, 1.2, 4.8])
    >>> round(b, 6), round(float(np.exp(a)), 6)
    (2.0, 0.003)
    """
    x = np.asarray(sizes, dtype=float)
    y = np.asarray(runtimes, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"sizes and runtimes differ in length ({x.size} != {y.size})")
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y = np.log(x[keep]), np.log(y[keep])
    if np.unique(x).size < 2:
        return math.nan, math.nan
    b, a = np.polyfit(x, y, 1)
    return float(b), float(a)
