"""Gantt chart of a ``malleable`` schedule: one row per cluster, one per cloud VM.

A cluster runs one job at a time on all its processors, so one row shows
it; a cloud shows one row per VM used. Bars are coloured by job; late jobs
are hatched. Beyond ``max_rows`` rows, VM rows are sampled evenly (clusters
are always shown) and the title says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from hybridsched.malleable.checker import evaluate
from hybridsched.plots import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from hybridsched.malleable.instance import Instance
    from hybridsched.malleable.solution import Solution


def _rows(instance: Instance, solution: Solution) -> list[tuple[int, int]]:
    """``(resource, vm)`` rows: ``vm`` is -1 for a cluster row."""
    rows: list[tuple[int, int]] = []
    res = solution.resource[solution.job]
    for i, r in enumerate(instance.resources):
        mask = res == i
        if not r.is_cloud:
            rows.append((i, -1))
            continue
        first, last = solution.cpu[mask] // r.cpus, (solution.cpu[mask] + solution.count[mask]
                                                     - 1) // r.cpus
        used = sorted({v for a, b in zip(first, last, strict=True) for v in range(a, b + 1)})
        rows += [(i, v) for v in used]
    return rows


def gantt_chart_malleable(instance: Instance, solution: Solution, *, max_rows: int = 60,
                          title: str | None = None, ax: Axes | None = None) -> Figure:
    """Draw the schedule (see the module docstring)."""
    rows = _rows(instance, solution)
    clusters = [row for row in rows if row[1] < 0]
    vms = [row for row in rows if row[1] >= 0]
    room = max(max_rows - len(clusters), 1)
    if len(vms) > room:
        vms = [vms[k] for k in np.linspace(0, len(vms) - 1, room).round().astype(int)]
    shown = clusters + vms
    where = {row: n for n, row in enumerate(shown)}
    figure, axes = style.axes(ax, (10, 0.28 * len(shown) + 1.8))
    colours = style.colours(min(instance.n_jobs, 20))
    late = solution.job_end(instance.n_jobs) > instance.deadline
    res = solution.resource[solution.job]
    for k in range(solution.n_pieces):
        i, j = int(res[k]), int(solution.job[k])
        r = instance.resources[i]
        if r.is_cloud:
            first = int(solution.cpu[k]) // r.cpus
            last = (int(solution.cpu[k]) + int(solution.count[k]) - 1) // r.cpus
            targets = [where[(i, v)] for v in range(first, last + 1) if (i, v) in where]
        else:
            targets = [where[(i, -1)]]
        for y in targets:
            axes.barh(y, solution.end[k] - solution.start[k], left=solution.start[k],
                      height=0.7, color=colours[j % len(colours)], edgecolor="black",
                      linewidth=0.3, hatch="//" if late[j] else None)
    labels = [instance.resources[i].id if v < 0 else f"{instance.resources[i].id}/vm{v}"
              for i, v in shown]
    axes.set_yticks(np.arange(len(shown)), labels, fontsize=7)
    axes.set_ylim(len(shown) - 0.5, -0.5)
    axes.set_xlabel("time (min)")
    metrics = evaluate(instance, solution).metrics
    cut = f"; {len(vms)} of {len(rows) - len(clusters)} VM rows shown" \
        if len(shown) < len(rows) else ""
    axes.set_title(title or f"{instance.name}: cost {metrics['cost']:g}, total delay "
                            f"{metrics['total_delay']:g} min, {metrics['late_jobs']} late jobs "
                            f"(hatched){cut}", fontsize=9)
    return figure
