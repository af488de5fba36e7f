"""Plots: Gantt charts, Pareto fronts and the campaign report's figures.

Every function draws into a given matplotlib ``Axes`` or makes its own
:class:`~matplotlib.figure.Figure` (not registered with pyplot, so report code
and worker threads leave nothing open) and returns the figure; none calls
``plt.show()``. Exceptions kept for existing callers: :func:`gantt_chart`
makes a pyplot figure (notebooks display it inline) and :func:`plot_pareto`
returns its ``Axes``. matplotlib is imported on first use only.

Gantt charts
------------
Large schedules have more used cores (or processors) than a chart can show.
Rows are then *sampled*, never silently dropped by kind: for hybrid-deadline
the rows are shared between PM cores and VM cores in proportion to how many
of each are used (at least :data:`MIN_ROWS_PER_KIND` of each kind when both
exist, since the VMs carry the cost); for bot-sites between sites in
proportion to their used processors (at least one per site while rows
allow); rows are evenly spread over each share, and the title says how many
rows are shown.

Campaign figures
----------------
They read the results table of
:func:`hybridsched.experiments.store.load_results` (or the long table of
:func:`hybridsched.experiments.profiles.performance_profile`); labels carry
the objective's name when a table mixes several (``exact (cost)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from hybridsched.errors import InputError
from hybridsched.experiments.profiles import scaling_exponent, solved_mask

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from hybridsched.bot_sites.instance import Instance as BotInstance
    from hybridsched.bot_sites.solution import Solution as BotSolution
    from hybridsched.experiments.pareto import ParetoReport
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

#: Point markers and line styles cycled through methods (overlapping curves stay visible).
MARKERS = "os^vD<>pPX*hH"
LINESTYLES = ("-", "--", "-.", ":")


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


def spread_rows(used: np.ndarray, max_rows: int) -> tuple[np.ndarray, dict[int, int]]:
    """At most ``max_rows`` of the resources ``used``, evenly spread, and ``{resource: row}``."""
    shown = used if len(used) <= max_rows else used[
        np.linspace(0, len(used) - 1, max_rows).round().astype(int)]
    return shown, {int(r): k for k, r in enumerate(shown)}


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
    figure, axes = _axes(ax, (10, 0.25 * len(rows) + 1.8))
    row_of = {key: r for r, key in enumerate(rows)}
    block_row = np.array([row_of.get((int(i), int(j)), -1)
                          for i, j in zip(solution.site, solution.proc, strict=True)], dtype=int)
    shown = block_row >= 0
    start, end = solution.start[shown], block_ends(instance, solution)[shown]
    bots, counts = solution.bot[shown], solution.count[shown]
    colours = _colours(instance.n_bots)
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
    axes.set_xlabel("time")
    metrics = evaluate(instance, solution).metrics
    heading = title or (f"{_text(instance.name)}: makespan {metrics['makespan']:.6g}, "
                        f"cost {metrics['cost']:.6g}")
    if len(rows) < n_used:
        heading += f"\n{len(rows)} of {n_used} used processors shown"
    axes.set_title(heading)
    if instance.n_bots <= LEGEND_MAX_ENTRIES:
        axes.legend(handles=[Patch(color=colours[k], label=_text(b))
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
    from hybridsched.experiments.gantt_gang import gantt_chart_gang
    from hybridsched.experiments.gantt_malleable import gantt_chart_malleable
    from hybridsched.experiments.gantt_pull import gantt_chart_pull

    charts: dict[str, Callable[..., Figure]] = {
        "hybrid-deadline": gantt_chart, "bot-sites": gantt_chart_bot_sites,
        "malleable": gantt_chart_malleable, "gang": gantt_chart_gang,
        "pull": gantt_chart_pull}
    if family_name not in charts:
        raise InputError(f"gantt: no chart for family {family_name!r} "
                         f"(charts exist for: {', '.join(charts)})")
    return charts[family_name](instance, solution, **options)


# --- Pareto front of the exact model -----------------------------------------------------


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
    ax.set_xlabel("makespan")
    ax.set_ylabel("cost (Eq. 6)")
    ax.set_title(f"Pareto front: {report.instance}")
    ax.legend(fontsize="x-small", ncol=2)
    ax.grid(alpha=0.3)
    if path is not None:
        ax.figure.tight_layout()
        ax.figure.savefig(path, dpi=120)
    return ax


# --- campaign figures ------------------------------------------------------------------


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """``ax`` and its figure, or a new pyplot-free figure with one ``Axes``."""
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize, layout="constrained")
    return figure, figure.add_subplot()


def _text(label: object) -> str:
    """``label`` as plain text for matplotlib (a ``$`` would start mathtext)."""
    return str(label).replace("$", r"\$")


def _colours(n: int) -> list[Any]:
    """``n`` distinct colours (tab10, tab20, then a continuous map)."""
    import matplotlib as mpl

    if n <= 10:
        return list(mpl.colormaps["tab10"].colors[:max(n, 1)])
    if n <= 20:
        return list(mpl.colormaps["tab20"].colors[:n])
    return [mpl.colormaps["turbo"](x) for x in np.linspace(0, 1, n)]


def _labels(df: pd.DataFrame) -> pd.Series:
    """Method labels, with the objective's name when ``df`` mixes several objectives."""
    if df["objective_name"].nunique(dropna=False) <= 1:
        return df["method"].astype(str)
    return df["method"].astype(str) + " (" + df["objective_name"].astype(str) + ")"


def _empty(axes: Axes, message: str) -> None:
    axes.text(0.5, 0.5, message, ha="center", va="center", transform=axes.transAxes,
              color="0.4")
    axes.set_xticks([])
    axes.set_yticks([])


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
        figure, axes = _axes(ax, (6.4, 4.2))
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
        _empty(axes, "no problem on which every method ran")
        axes.set_title(_text(title))
        return
    profile = profile.assign(label=_labels(profile))
    for n, (label, curve) in enumerate(profile.groupby("label", sort=False)):
        curve = curve.sort_values("tau")
        axes.step(curve["tau"], curve["rho"], where="post", label=_text(label),
                  linestyle=LINESTYLES[n % len(LINESTYLES)], linewidth=1.6, alpha=0.9)
    axes.set_xscale("log", base=2)
    axes.set_xlim(1, max(2.0, float(profile["tau"].max())))
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel(r"$\tau$ (ratio to the best method)")
    axes.set_ylabel(r"share of problems within $\tau$")
    problems = sorted(profile["problems"].unique())
    axes.set_title(f"{_text(title)} ({', '.join(str(p) for p in problems)} problems)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize="x-small", loc="lower right")


def plot_gap_boxes(df: pd.DataFrame, ax: Axes | None = None,
                   title: str = "Gap to the reference") -> Figure:
    """Box plot of each method's finite gaps, in percent.

    A method's tick label counts its infinite gaps (a reference of 0 beaten
    by a positive value); methods without any gap are left out.
    """
    figure, axes = _axes(ax, (6.4, 4.2))
    axes.set_title(_text(title))
    boxes = []
    if len(df):
        gaps = pd.Series(pd.to_numeric(df["gap"], errors="coerce").to_numpy(dtype=float),
                         index=_labels(df).to_numpy())
        for label, values in gaps.groupby(level=0, sort=False):
            finite = values.to_numpy()[np.isfinite(values.to_numpy())]
            if finite.size:
                boxes.append((label, 100 * finite, int(np.isinf(values.to_numpy()).sum())))
    if not boxes:
        _empty(axes, "no finite gap (nothing known to measure against)")
        return figure
    labels = [_text(label) + (f"\n({inf} inf)" if inf else "") for label, _, inf in boxes]
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
    ``runtime ~ size^b`` fitted on every point
    (:func:`~hybridsched.experiments.profiles.scaling_exponent`).
    """
    figure, axes = _axes(ax, (6.4, 4.2))
    axes.set_title(_text(title))
    if len(df):
        size = pd.to_numeric(df["instance_size"], errors="coerce").astype(float)
        runtime = pd.to_numeric(df["runtime_s"], errors="coerce").astype(float)
        keep = solved_mask(df) & (size > 0) & (runtime > 0)
        points = pd.DataFrame({"label": _labels(df), "size": size, "runtime": runtime})[keep]
    else:
        points = pd.DataFrame()
    if points.empty:
        _empty(axes, "no solved run with a positive run time")
        return figure
    colours = _colours(points["label"].nunique())
    for n, (label, group) in enumerate(points.groupby("label", sort=False)):
        b, _ = scaling_exponent(group["size"], group["runtime"])
        fitted = f"b = {b:.2f}" if np.isfinite(b) else "b: one size only"
        axes.scatter(group["size"], group["runtime"], s=12, alpha=0.5, color=colours[n],
                     marker=MARKERS[n % len(MARKERS)])
        medians = group.groupby("size")["runtime"].median()
        axes.plot(medians.index, medians.to_numpy(), color=colours[n],
                  marker=MARKERS[n % len(MARKERS)], label=f"{_text(label)} ({fitted})")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("instance size (tasks)")
    axes.set_ylabel("run time (s)")
    axes.grid(alpha=0.3, which="both")
    axes.legend(fontsize="x-small")
    return figure


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
    figure, axes = _axes(ax, (6.4, 4.4))
    names = df_one_instance["instance"].dropna().unique()
    axes.set_title(_text(title or f"Objective space: {names[0] if len(names) else '?'}"))
    points = pd.DataFrame()
    if len(df_one_instance) and {x, y} <= set(df_one_instance.columns):
        xs = pd.to_numeric(df_one_instance[x], errors="coerce").astype(float)
        ys = pd.to_numeric(df_one_instance[y], errors="coerce").astype(float)
        keep = solved_mask(df_one_instance) & np.isfinite(xs) & np.isfinite(ys)
        points = pd.DataFrame({"label": df_one_instance["method"].astype(str),
                               "x": xs, "y": ys})[keep]
    if points.empty:
        _empty(axes, f"no solved run with {x} and {y}")
        return figure
    colours = _colours(points["label"].nunique())
    for n, (label, group) in enumerate(points.groupby("label", sort=False)):
        axes.scatter(group["x"], group["y"], s=36, alpha=0.8, color=colours[n],
                     marker=MARKERS[n % len(MARKERS)], label=_text(label))
    front = non_dominated(points["x"].to_numpy(), points["y"].to_numpy())
    fx, fy = points["x"].to_numpy()[front], points["y"].to_numpy()[front]
    axes.step(fx, fy, where="post", color="black", linewidth=1, alpha=0.7,
              label=f"non-dominated ({len(front)} points)")
    axes.set_xlabel(x.removeprefix("metric_"))
    axes.set_ylabel(y.removeprefix("metric_"))
    axes.grid(alpha=0.3)
    axes.legend(fontsize="x-small")
    return figure


def plot_effects(effects: pd.DataFrame, ax: Axes | None = None, *,
                 paper: dict[str, float] | None = None, title: str | None = None) -> Figure:
    """Forest plot of paired effects: each method's mean difference with its 95% interval.

    ``effects`` is the table of
    :func:`hybridsched.experiments.paired.paired_effects`; one row per
    (setting, method), the baseline's value at 0. ``paper`` maps a method
    label to the figure a paper reports for it (drawn as a cross), so a
    reading's interval can be seen to include it or not.
    """
    rows = effects.reset_index(drop=True)
    figure, axes = _axes(ax, (7.5, 1.8 + 0.38 * max(len(rows), 1)))
    if rows.empty:
        _empty(axes, "no paired runs")
        return figure
    settings = rows["setting"].nunique() > 1
    labels = [_text(f"{r.setting}: {r.method}" if settings else r.method)
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
    axes.set_xlabel(_text(f"{first['measure']}{unit}:\nmethod - {first['baseline']}"))
    axes.legend(loc="best", fontsize=8)
    if title:
        axes.set_title(_text(title))
    return figure
