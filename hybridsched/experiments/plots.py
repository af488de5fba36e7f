"""Plots: Gantt charts of hybrid-deadline schedules.

Large schedules have more used cores than a chart can show. Rows are then
*sampled*, never silently dropped by kind: the rows are shared between PM
cores and VM cores in proportion to how many of each are used (at least
:data:`MIN_ROWS_PER_KIND` of each kind when both exist, since the VMs carry
the cost), evenly spread over each kind's cores, and the title says how many
rows are shown.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from hybridsched.hybrid_deadline.checker import vm_billed_hours
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution

#: Default most rows of a Gantt chart.
DEFAULT_MAX_ROWS = 60

#: Fewest rows of each kind (PM cores, VM cores) kept when rows are cut.
MIN_ROWS_PER_KIND = 3


@dataclass(frozen=True)
class GanttRows:
    """The rows a Gantt chart draws, out of the used cores.

    Attributes
    ----------
    rows:
        ``(machine, core)`` pairs drawn, PM cores first, in machine order.
    pm_cores, vm_cores:
        Used PM cores and used VM cores in the whole schedule.
    """

    rows: list[tuple[int, int]]
    pm_cores: int
    vm_cores: int

    @property
    def cut(self) -> bool:
        """Whether some used cores are not drawn."""
        return len(self.rows) < self.pm_cores + self.vm_cores

    def describe(self, n_pm: int) -> str:
        """E.g. ``"60 of 412 used cores shown (20 of 30 PM cores, 40 of 382 VM cores)"``."""
        pm_rows = sum(1 for m, _ in self.rows if m < n_pm)
        vm_rows = len(self.rows) - pm_rows
        return (f"{len(self.rows)} of {self.pm_cores + self.vm_cores} used cores shown "
                f"({pm_rows} of {self.pm_cores} PM cores, {vm_rows} of {self.vm_cores} "
                "VM cores)")


def _spread(items: list[tuple[int, int]], k: int) -> list[tuple[int, int]]:
    """``k`` items evenly spread over ``items`` (first and last included)."""
    if k >= len(items):
        return list(items)
    if k <= 0:
        return []
    picks = np.linspace(0, len(items) - 1, k).round().astype(int)
    return [items[i] for i in picks]


def select_rows(instance: Instance, solution: Solution,
                max_rows: int = DEFAULT_MAX_ROWS) -> GanttRows:
    """Choose at most ``max_rows`` used cores to draw (see the module docstring).

    Raises
    ------
    ValueError
        If ``max_rows < 1``.
    """
    if max_rows < 1:
        raise ValueError(f"max_rows must be >= 1, got {max_rows}")
    n_pm = len(instance.pms)
    used = sorted({(int(m), int(c)) for m, c in zip(solution.machine, solution.core,
                                                     strict=True)})
    pm = [r for r in used if r[0] < n_pm]
    vm = [r for r in used if r[0] >= n_pm]
    if len(used) <= max_rows:
        return GanttRows(used, len(pm), len(vm))
    floor = min(MIN_ROWS_PER_KIND, max_rows // 2)
    pm_rows = round(max_rows * len(pm) / len(used))
    pm_rows = max(pm_rows, min(floor, len(pm)))
    pm_rows = min(pm_rows, max_rows - min(floor, len(vm)), len(pm))
    vm_rows = min(max_rows - pm_rows, len(vm))
    pm_rows = min(max_rows - vm_rows, len(pm))
    return GanttRows(_spread(pm, pm_rows) + _spread(vm, vm_rows), len(pm), len(vm))


def gantt_chart(instance: Instance, solution: Solution, *, max_rows: int = DEFAULT_MAX_ROWS,
                title: str | None = None) -> Figure:
    """One row per used core; tasks as bars coloured by slack, VM billed hours shaded.

    At most ``max_rows`` rows are drawn, chosen by :func:`select_rows`; the
    title then says how many of the used cores are shown.
    """
    n_pm = len(instance.pms)
    chosen = select_rows(instance, solution, max_rows)
    rows = chosen.rows
    row_of = {key: r for r, key in enumerate(rows)}
    figure, axes = plt.subplots(figsize=(10, 0.25 * len(rows) + 1.5))
    slack = instance.deadline - solution.finish
    norm = Normalize(0, max(float(slack.max(initial=0.0)), 1e-9))
    cmap = plt.get_cmap("viridis")
    hours = vm_billed_hours(instance, solution)
    for (m, _core), r in row_of.items():
        if m >= n_pm and hours[m - n_pm]:
            axes.barh(r, hours[m - n_pm], left=0, height=0.9, color="0.92", zorder=0)
    task_row = np.array([row_of.get((int(m), int(c)), -1)
                         for m, c in zip(solution.machine, solution.core, strict=True)],
                        dtype=int)
    shown = task_row >= 0
    if shown.any():
        axes.barh(task_row[shown], (solution.finish - solution.start)[shown],
                  left=solution.start[shown], height=0.7, color=cmap(norm(slack[shown])),
                  edgecolor="black", linewidth=0.3)
    labels = [f"{instance.pms[m].id}/{c}" if m < n_pm else f"vm-{m - n_pm}/{c}"
              for m, c in rows]
    axes.set_yticks(np.arange(len(rows)), labels, fontsize=7)
    axes.invert_yaxis()
    axes.set_xlabel("time (hours); grey: billed VM hours")
    heading = title or f"{instance.name}: {len(solution.vm_types)} VMs rented"
    if chosen.cut:
        heading += f"\n{chosen.describe(n_pm)}"
    axes.set_title(heading)
    figure.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=axes,
                    label="slack to deadline (h)")
    figure.tight_layout()
    return figure
