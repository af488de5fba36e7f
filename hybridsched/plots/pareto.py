"""Pareto fronts: the exact front of a bot-sites instance and a campaign's objective space.

:func:`plot_pareto` draws the front of
:func:`hybridsched.models.bot_sites.pareto_report.pareto_report` (proven or
partial) with each heuristic's point; :func:`plot_objective_space` draws
every solved run of one instance of a campaign's results table (a
``DataFrame``) and their empirical non-dominated set.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from hybridsched.plots import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from hybridsched.models.bot_sites.pareto_report import ParetoReport


def plot_pareto(report: ParetoReport, path: str | Path | None = None, ax: Any = None) -> Any:
    """Plot the front (staircase) with each heuristic's point; save to ``path`` if given.

    Returns the matplotlib ``Axes`` (a pyplot figure when ``ax`` is ``None``:
    ``hybridsched pareto`` and the notebooks rely on both).
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    xs = [p.makespan for p in report.front]
    ys = [p.cost for p in report.front]
    if xs:
        ax.step(xs, ys, where="post", color="black", lw=1, alpha=0.6)
        ax.plot(xs, ys, "ko", label="exact front" + ("" if report.complete else " (partial)"))
    markers = "s^vD<>pPX*hH+x1234"
    for n, (name, (ms, c)) in enumerate(sorted(report.heuristics.items())):
        ax.plot([ms], [c], markers[n % len(markers)], label=name, alpha=0.85)
    from hybridsched.io.display import measure_label

    ax.set_xlabel(style.text(measure_label("bot-sites", "makespan") or "makespan"))
    ax.set_ylabel(style.text(f"{measure_label('bot-sites', 'cost') or 'cost'}, Eq. 6"))
    ax.set_title(f"Pareto front: {report.instance}")
    ax.legend(fontsize="x-small", ncol=2)
    ax.grid(alpha=0.3)
    if path is not None:
        ax.figure.tight_layout()
        ax.figure.savefig(path, dpi=120)
    return ax


def non_dominated(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the points no other point dominates (both minimised), by increasing ``x``.

    Of equal points the first is kept.

    Examples
    --------
    >>> non_dominated(np.array([1.0, 2.0, 3.0, 2.0]), np.array([5.0, 2.0, 1.0, 3.0])).tolist()
    [0, 1, 2]
    """
    order = np.lexsort((y, x))
    ys = y[order]
    best_before = np.concatenate(([np.inf], np.minimum.accumulate(ys)[:-1]))
    return order[ys < best_before]


def plot_objective_space(df_one_instance: pd.DataFrame, ax: Axes | None = None, *,
                         x: str = "metric_makespan", y: str = "metric_cost",
                         title: str | None = None) -> Figure:
    """Every solved run of one instance in the ``(x, y)`` plane, and their empirical front.

    Each method's runs are drawn as points; the non-dominated set of all the
    points (both criteria minimised) is drawn as a staircase: the best
    trade-offs the campaign found, not a proven front.

    Raises
    ------
    ValueError
        When the table holds runs of several instances (``instance_hash``).
    """
    if df_one_instance["instance_hash"].nunique() > 1:
        raise ValueError("plot_objective_space: the table holds runs of "
                         f"{df_one_instance['instance_hash'].nunique()} instances; pass one")
    figure, axes = style.axes(ax, (6.4, 4.4))
    names = df_one_instance["instance"].dropna().unique()
    axes.set_title(style.text(title or f"Objective space: {names[0] if len(names) else '?'}"))
    points = pd.DataFrame()
    if len(df_one_instance) and {x, y} <= set(df_one_instance.columns):
        xs = pd.to_numeric(df_one_instance[x], errors="coerce").astype(float)
        ys = pd.to_numeric(df_one_instance[y], errors="coerce").astype(float)
        keep = style.solved(df_one_instance) & np.isfinite(xs) & np.isfinite(ys)
        points = pd.DataFrame({"label": df_one_instance["method"].astype(str),
                               "x": xs, "y": ys})[keep]
    if points.empty:
        style.empty(axes, f"no solved run with {x} and {y}")
        return figure
    colours = style.colours(points["label"].nunique())
    for n, (label, group) in enumerate(points.groupby("label", sort=False)):
        axes.scatter(group["x"], group["y"], s=36, alpha=0.8, color=colours[n],
                     marker=style.MARKERS[n % len(style.MARKERS)], label=style.text(label))
    front = non_dominated(points["x"].to_numpy(), points["y"].to_numpy())
    fx, fy = points["x"].to_numpy()[front], points["y"].to_numpy()[front]
    axes.step(fx, fy, where="post", color="black", linewidth=1, alpha=0.7,
              label=f"non-dominated ({len(front)} points)")
    from hybridsched.io.display import measure_label

    families = df_one_instance["family"].dropna().unique() if "family" in df_one_instance \
        else []
    for key, setter in ((x, axes.set_xlabel), (y, axes.set_ylabel)):
        name = key.removeprefix("metric_")
        label = measure_label(families[0], name) if len(families) == 1 else None
        setter(style.text(label or name))
    axes.grid(alpha=0.3)
    axes.legend(fontsize="x-small")
    return figure
