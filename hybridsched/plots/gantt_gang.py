"""Gantt chart of a ``gang`` schedule: one row per VM used, one bar per task.

Bars are coloured by job; beyond ``max_rows`` rows, VMs are sampled evenly
and the title says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from hybridsched.gang.checker import evaluate
from hybridsched.plots import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from hybridsched.gang.instance import Instance
    from hybridsched.gang.solution import Solution


def gantt_chart_gang(instance: Instance, solution: Solution, *, max_rows: int = 60,
                     title: str | None = None, ax: Axes | None = None) -> Figure:
    """Draw the schedule (see the module docstring)."""
    used = np.unique(solution.task_vm)
    shown, row = style.spread_rows(used, max_rows)
    figure, axes = style.axes(ax, (10, 0.25 * max(len(shown), 1) + 1.8))
    colours = style.colours(min(instance.n_jobs, 20))
    begin = solution.start[solution.task_job]
    length = instance.instructions[solution.task_job] / instance.speed[solution.task_vm]
    for k in range(len(solution.task_job)):
        v = int(solution.task_vm[k])
        if v in row:
            axes.barh(row[v], length[k], left=begin[k], height=0.7, edgecolor="black",
                      linewidth=0.3, color=colours[int(solution.task_job[k]) % len(colours)])
    axes.set_yticks(np.arange(len(shown)), [instance.vm_ids[v] for v in shown], fontsize=7)
    axes.set_ylim(max(len(shown), 1) - 0.5, -0.5)  # one empty row when no job ran
    axes.set_xlabel("time (time units)")
    metrics = evaluate(instance, solution).metrics
    cut = f"; {len(shown)} of {len(used)} VMs shown" if len(shown) < len(used) else ""
    axes.set_title(title or f"{instance.name}: {metrics['finished']} finished, "
                            f"{metrics['unfinished']} unfinished{cut}", fontsize=9)
    return figure
