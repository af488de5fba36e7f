"""Gantt chart of a ``pull`` schedule: one row per host, availability shaded, tasks by outcome.

Grey spans are the host's availability windows (up to the makespan's end);
bars are its tasks, coloured by outcome (correct, wrong, never returned,
lost when the host left, cancelled at the end). Beyond ``max_rows`` rows,
hosts are sampled evenly across the DCIs and the title says so.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from hybridsched.plots import style
from hybridsched.pull.checker import evaluate
from hybridsched.pull.solution import OUTCOMES

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from hybridsched.pull.instance import Instance
    from hybridsched.pull.solution import Solution

#: Colour of each outcome.
COLOURS = {"correct": "tab:green", "wrong": "tab:red", "never": "tab:orange",
           "lost": "tab:purple", "cancelled": "tab:gray"}


def gantt_chart_pull(instance: Instance, solution: Solution, *, max_rows: int = 60,
                     title: str | None = None, ax: Axes | None = None) -> Figure:
    """Draw the schedule (see the module docstring)."""
    from matplotlib.patches import Patch

    used = np.unique(solution.host)
    shown, row = style.spread_rows(used, max_rows)
    figure, axes = style.axes(ax, (10, 0.25 * max(len(shown), 1) + 1.8))
    horizon = float(solution.end.max()) if solution.n_tasks else 1.0
    for h, k in row.items():
        for a, b in instance.windows[h]:
            if a >= horizon:
                break
            axes.barh(k, min(b, horizon) - a, left=a, height=0.9, color="0.9", linewidth=0)
    for t in range(solution.n_tasks):
        k = row.get(int(solution.host[t]))
        if k is not None:
            axes.barh(k, solution.end[t] - solution.start[t], left=solution.start[t],
                      height=0.6, edgecolor="black", linewidth=0.2,
                      color=COLOURS[OUTCOMES[solution.outcome[t]]])
    axes.set_yticks(np.arange(len(shown)), [instance.host_ids[h] for h in shown], fontsize=7)
    axes.set_ylim(len(shown) - 0.5, -0.5)
    axes.set_xlabel("time (s)")
    axes.legend(handles=[Patch(color=c, label=o) for o, c in COLOURS.items()], fontsize=7,
                loc="upper center", bbox_to_anchor=(0.5, -0.6 / max(len(shown), 1) - 0.04),
                ncols=5, frameon=False)
    makespan = evaluate(instance, solution).objective
    cut = f"; {len(shown)} of {len(used)} hosts shown" if len(shown) < len(used) else ""
    span = f"makespan {makespan:.4g} s" if math.isfinite(makespan) else "incomplete"
    axes.set_title(title or f"{instance.name}: {solution.n_tasks} tasks, {span}{cut}",
                   fontsize=9)
    return figure
