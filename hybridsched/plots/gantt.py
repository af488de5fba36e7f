"""Gantt charts: hybrid-deadline cores, bot-sites processors, and the chart of any family.

:func:`gantt_for` picks a family's chart; the online families' charts are
in :mod:`.gantt_gang`, :mod:`.gantt_malleable` and :mod:`.gantt_pull`.

Large schedules have more used cores (or processors) than a chart can show.
Rows are then *sampled*, never silently dropped by kind: for hybrid-deadline
the rows are shared between PM cores and VM cores in proportion to how many
of each are used (at least :data:`MIN_ROWS_PER_KIND` of each kind when both
exist, since the VMs carry the cost); for bot-sites between sites in
proportion to their used processors (at least one per site while rows
allow); rows are evenly spread over each share, and the title says how many
rows are shown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from hybridsched.errors import InputError
from hybridsched.plots import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from hybridsched.bot_sites.instance import Instance as BotInstance
    from hybridsched.bot_sites.solution import Solution as BotSolution
    from hybridsched.hybrid_deadline.instance import Instance
    from hybridsched.hybrid_deadline.solution import Solution

#: Default most rows of a Gantt chart.
DEFAULT_MAX_ROWS = 60

#: Fewest rows of each kind (PM cores, VM cores) kept when rows are cut.
MIN_ROWS_PER_KIND = 3

#: Task boundaries inside bot-sites blocks are marked up to this many drawn tasks.
TASK_MARKS_MAX = 400

#: Most BoTs named in a bot-sites chart's legend.
LEGEND_MAX_ENTRIES = 20


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


def _used_rows(machines: np.ndarray, units: np.ndarray, max_rows: int
               ) -> list[tuple[int, int]]:
    """The distinct ``(machine, core)`` pairs a schedule uses, sorted; checks ``max_rows``."""
    if max_rows < 1:
        raise ValueError(f"max_rows must be >= 1, got {max_rows}")
    return sorted({(int(m), int(u)) for m, u in zip(machines, units, strict=True)})


def select_rows(instance: Instance, solution: Solution,
                max_rows: int = DEFAULT_MAX_ROWS) -> GanttRows:
    """Choose at most ``max_rows`` used cores to draw (see the module docstring).

    Raises
    ------
    ValueError
        If ``max_rows < 1``.
    """
    n_pm = len(instance.pms)
    used = _used_rows(solution.machine, solution.core, max_rows)
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
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize

    from hybridsched.hybrid_deadline.checker import vm_billed_hours

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


# --- bot-sites Gantt chart -------------------------------------------------------------


def _site_quotas(counts: np.ndarray, max_rows: int) -> np.ndarray:
    """Rows per site: proportional to ``counts``, at least 1 each while rows allow."""
    quota = np.minimum(counts, np.maximum(1, (max_rows * counts) // counts.sum()))
    while quota.sum() > max_rows:                      # more sites than rows, or rounding
        quota[np.argmax(quota)] -= 1
    while quota.sum() < max_rows:                      # hand out what rounding left
        quota[np.argmax(counts - quota)] += 1
    return quota


def select_rows_bot_sites(solution: BotSolution, max_rows: int = DEFAULT_MAX_ROWS
                          ) -> list[tuple[int, int]]:
    """At most ``max_rows`` used ``(site, processor)`` pairs to draw, by site.

    See the module docstring for how rows are shared between sites.

    Raises
    ------
    ValueError
        If ``max_rows < 1``.
    """
    used = _used_rows(solution.site, solution.proc, max_rows)
    if len(used) <= max_rows:
        return used
    sites = sorted({i for i, _ in used})
    by_site = [[r for r in used if r[0] == i] for i in sites]
    quota = _site_quotas(np.array([len(rows) for rows in by_site]), max_rows)
    return [row for rows, k in zip(by_site, quota, strict=True) for row in _spread(rows, int(k))]


def gantt_chart_bot_sites(instance: BotInstance, solution: BotSolution, *,
                          max_rows: int = DEFAULT_MAX_ROWS, title: str | None = None,
                          ax: Axes | None = None) -> Figure:
    """One row per used processor (grouped by site); each block of tasks as a bar.

    Bars are coloured by BoT; task boundaries are marked when few enough
    tasks are drawn. At most ``max_rows`` rows are drawn, chosen by
    :func:`select_rows_bot_sites`; the title then says how many of the used
    processors are shown. Times and the title's makespan and cost come from
    the family checker.
    """
    from matplotlib.patches import Patch

    from hybridsched.bot_sites.checker import block_ends, evaluate

    rows = select_rows_bot_sites(solution, max_rows)
    n_used = len({(int(i), int(j)) for i, j in zip(solution.site, solution.proc, strict=True)})
    figure, axes = style.axes(ax, (10, 0.25 * len(rows) + 1.8))
    row_of = {key: r for r, key in enumerate(rows)}
    block_row = np.array([row_of.get((int(i), int(j)), -1)
                          for i, j in zip(solution.site, solution.proc, strict=True)], dtype=int)
    shown = block_row >= 0
    start, end = solution.start[shown], block_ends(instance, solution)[shown]
    bots, counts = solution.bot[shown], solution.count[shown]
    colours = style.colours(instance.n_bots)
    axes.barh(block_row[shown], end - start, left=start, height=0.7,
              color=[colours[k] for k in bots], edgecolor="black", linewidth=0.3)
    if 0 < counts.sum() <= TASK_MARKS_MAX:
        inner = counts > 1
        ticks = [(r, s + q * (e - s) / c) for r, s, e, c in zip(
            block_row[shown][inner], start[inner], end[inner], counts[inner], strict=True)
            for q in range(1, int(c))]
        if ticks:
            ys, xs = np.array(ticks).T
            axes.vlines(xs, ys - 0.35, ys + 0.35, colors="black", linewidth=0.3)
    for r in range(1, len(rows)):                   # a line between sites
        if rows[r][0] != rows[r - 1][0]:
            axes.axhline(r - 0.5, color="0.6", linewidth=0.6)
    labels = [f"{instance.site_ids[i]}/{j}" for i, j in rows]
    axes.set_yticks(np.arange(len(rows)), labels, fontsize=7)
    axes.set_ylim(len(rows) - 0.5, -0.5)
    axes.set_xlabel("time (s)")
    metrics = evaluate(instance, solution).metrics
    heading = title or (f"{style.text(instance.name)}: makespan {metrics['makespan']:.6g}, "
                        f"cost {metrics['cost']:.6g}")
    if len(rows) < n_used:
        heading += f"\n{len(rows)} of {n_used} used processors shown"
    axes.set_title(heading)
    if instance.n_bots <= LEGEND_MAX_ENTRIES:
        axes.legend(handles=[Patch(color=colours[k], label=style.text(b))
                             for k, b in enumerate(instance.bot_ids)],
                    fontsize="x-small", loc="upper left", bbox_to_anchor=(1.0, 1.0),
                    title="BoT", title_fontsize="x-small")
    return figure


def gantt_for(family_name: str, instance: Any, solution: Any, **options: Any) -> Figure:
    """The Gantt chart of ``family_name`` (``options``: ``max_rows``, ``title``).

    Raises
    ------
    InputError
        For a family without a chart.
    """
    from hybridsched.plots.gantt_gang import gantt_chart_gang
    from hybridsched.plots.gantt_malleable import gantt_chart_malleable
    from hybridsched.plots.gantt_pull import gantt_chart_pull

    charts: dict[str, Callable[..., Figure]] = {
        "hybrid-deadline": gantt_chart, "bot-sites": gantt_chart_bot_sites,
        "malleable": gantt_chart_malleable, "gang": gantt_chart_gang,
        "pull": gantt_chart_pull}
    if family_name not in charts:
        raise InputError(f"gantt: no chart for family {family_name!r} "
                         f"(charts exist for: {', '.join(charts)})")
    return charts[family_name](instance, solution, **options)
