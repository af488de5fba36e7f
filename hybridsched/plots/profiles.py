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


def plot_performance_profile(profile: pd.DataFrame, ax: Axes | None = None,
                             title: str = "Performance profile") -> Figure:
    """Step plot of ``rho(tau)`` per method on a log2 ``tau`` axis.

    ``profile`` is the long table of
    :func:`~hybridsched.experiments.profiles.performance_profile`. Ratios of
    different objectives are not comparable, so without ``ax`` each
    ``(family, objective_name)`` gets its own panel, titled with the number
    of problems compared; into ``ax`` every curve is drawn, labelled with its
    objective when there are several.
    """
    groups = ([(key, part) for key, part in profile.groupby(["family", "objective_name"],
                                                            sort=False, dropna=False)]
              if len(profile) else [])
    if ax is not None or len(groups) <= 1:
        figure, axes = style.axes(ax, (6.4, 4.2))
        _profile_panel(axes, profile, title)
        return figure
    from matplotlib.figure import Figure

    columns = min(len(groups), 3)
    rows = -(-len(groups) // columns)
    figure = Figure(figsize=(5.2 * columns, 4.0 * rows), layout="constrained")
    for n, ((_, objective), part) in enumerate(groups):
        _profile_panel(figure.add_subplot(rows, columns, n + 1), part,
                       f"{title}: {objective}")
    return figure


def _profile_panel(axes: Axes, profile: pd.DataFrame, title: str) -> None:
    """Draw the curves of ``profile`` into ``axes``."""
    if profile.empty:
        style.empty(axes, "no problem on which every method ran")
        axes.set_title(style.text(title))
        return
    profile = profile.assign(label=style.labels(profile))
    for n, (label, curve) in enumerate(profile.groupby("label", sort=False)):
        curve = curve.sort_values("tau")
        axes.step(curve["tau"], curve["rho"], where="post", label=style.text(label),
                  linestyle=style.LINESTYLES[n % len(style.LINESTYLES)], linewidth=1.6,
                  alpha=0.9)
    axes.set_xscale("log", base=2)
    axes.set_xlim(1, max(2.0, float(profile["tau"].max())))
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel(r"$\tau$ (ratio to the best method)")
    axes.set_ylabel(r"share of problems within $\tau$")
    problems = sorted(profile["problems"].unique())
    axes.set_title(f"{style.text(title)} ({', '.join(str(p) for p in problems)} problems)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize="x-small", loc="lower right")


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
    axes.set_ylabel("gap (%)")
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
    axes.set_xlabel("instance size (tasks)")
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
