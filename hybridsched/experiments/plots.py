"""Plots: Gantt charts of schedules and method comparisons."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from hybridsched.hybrid_deadline.checker import vm_billed_hours
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution


def gantt_chart(instance: Instance, solution: Solution, *, max_rows: int = 60,
                title: str | None = None) -> Figure:
    """One row per used core; tasks as bars coloured by slack, VM billed hours shaded.

    Only the first ``max_rows`` used cores are drawn (PMs first), so charts of
    trace-scale schedules stay readable.
    """
    n_pm = len(instance.pms)
    rows = sorted({(int(m), int(c)) for m, c in zip(solution.machine, solution.core,
                                                     strict=True)})[:max_rows]
    row_of = {key: r for r, key in enumerate(rows)}
    figure, axes = plt.subplots(figsize=(10, 0.25 * len(rows) + 1.5))
    slack = instance.deadline - solution.finish
    norm = plt.Normalize(0, max(float(slack.max(initial=0.0)), 1e-9))
    cmap = plt.get_cmap("viridis")
    hours = vm_billed_hours(instance, solution)
    for (m, _core), r in row_of.items():
        if m >= n_pm and hours[m - n_pm]:
            axes.barh(r, hours[m - n_pm], left=0, height=0.9, color="0.92", zorder=0)
    for i in range(instance.n_tasks):
        key = (int(solution.machine[i]), int(solution.core[i]))
        if key in row_of:
            axes.barh(row_of[key], solution.finish[i] - solution.start[i],
                      left=solution.start[i], height=0.7, color=cmap(norm(slack[i])),
                      edgecolor="black", linewidth=0.3)
    labels = [f"{instance.pms[m].id}/{c}" if m < n_pm else f"vm-{m - n_pm}/{c}"
              for m, c in rows]
    axes.set_yticks(np.arange(len(rows)), labels, fontsize=7)
    axes.invert_yaxis()
    axes.set_xlabel("time (hours); grey: billed VM hours")
    axes.set_title(title or f"{instance.name}: {len(solution.vm_types)} VMs rented")
    figure.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=axes,
                    label="slack to deadline (h)")
    figure.tight_layout()
    return figure
