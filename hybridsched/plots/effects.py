"""Forest plot of paired effects: each method's mean difference with its 95% interval.

It draws the table of :func:`hybridsched.experiments.paired.paired_effects`
(a ``DataFrame``), optionally with the figures a paper reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from hybridsched.plots import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def plot_effects(effects: pd.DataFrame, ax: Axes | None = None, *,
                 paper: dict[str, float] | None = None, title: str | None = None,
                 measure: str | None = None) -> Figure:
    """Forest plot of paired effects: each method's mean difference with its 95% interval.

    ``effects`` is the table of
    :func:`hybridsched.experiments.paired.paired_effects`; one row per
    (setting, method), the baseline's value at 0. ``paper`` maps a method
    label to the figure a paper reports for it (drawn as a cross), so a
    reading's interval can be seen to include it or not. ``measure`` names
    the compared measure with its unit on the axis (``"rent cost ($)"``);
    by default the table's ``measure`` column (``objective``).
    """
    rows = effects.reset_index(drop=True)
    figure, axes = style.axes(ax, (7.5, 1.8 + 0.38 * max(len(rows), 1)))
    if rows.empty:
        style.empty(axes, "no paired runs")
        return figure
    settings = rows["setting"].nunique() > 1
    labels = [style.text(f"{r.setting}: {r.method}" if settings else r.method)
              for r in rows.itertuples()]
    y = np.arange(len(rows))[::-1]
    mean = rows["mean"].to_numpy(dtype=float)
    low = np.nan_to_num(mean - rows["ci_low"].to_numpy(dtype=float))
    high = np.nan_to_num(rows["ci_high"].to_numpy(dtype=float) - mean)
    axes.errorbar(mean, y, xerr=[low, high], fmt="o", color="C0", capsize=3,
                  label="ours: mean, 95% CI")
    if paper:
        marked = [(value, y[k]) for k, r in enumerate(rows.itertuples())
                  if (value := paper.get(r.method)) is not None]
        if marked:
            axes.plot(*zip(*marked, strict=True), "x", color="C3", markersize=9,
                      label="paper")
    axes.axvline(0.0, color="0.5", linewidth=0.8)
    axes.set_yticks(y, labels, fontsize=8)
    first = rows.iloc[0]
    unit = " (% of the baseline)" if first["unit"] == "%" else ""
    named = measure or first["measure"]
    axes.set_xlabel(style.text(f"{named}{unit}:\nmethod - {first['baseline']}"))
    axes.legend(loc="best", fontsize=8)
    if title:
        axes.set_title(style.text(title))
    return figure
