"""Figures of hybridsched.plots: Gantt charts, profiles, gaps, scaling, objective space, fronts."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from hybridsched.bot_sites.checker import block_ends, check
from hybridsched.bot_sites.generator import generate
from hybridsched.errors import InputError
from hybridsched.experiments.profiles import performance_profile
from hybridsched.models.bot_sites.pareto_report import ParetoReport
from hybridsched.plots import gantt, pareto, profiles
from hybridsched.registry import run_method
from hybridsched.storage import load_instance

from .test_report import INSTANCES, PNG_SIGNATURE, realistic_table


def png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=50)
    data = buffer.getvalue()
    assert data[:8] == PNG_SIGNATURE
    return data


def bot_schedule(name: str = "small-hihi-i-3s-4b.json", method: str = "gmo"):
    family, instance = load_instance(INSTANCES / "bot-sites" / name)
    result = run_method(family.name, method, instance)
    assert check(instance, result.solution) == []
    return instance, result.solution


def test_bot_sites_gantt_draws_every_block_of_a_checked_schedule():
    instance, solution = bot_schedule()
    figure = gantt.gantt_chart_bot_sites(instance, solution)
    axes = figure.axes[0]
    bars = [p for p in axes.patches if p.get_width() > 0]
    assert len(bars) == solution.n_blocks
    starts = sorted(round(b.get_x(), 6) for b in bars)
    ends = sorted(round(b.get_x() + b.get_width(), 6) for b in bars)
    assert starts == sorted(np.round(solution.start, 6))
    assert ends == sorted(np.round(block_ends(instance, solution), 6))
    used = {(int(i), int(j)) for i, j in zip(solution.site, solution.proc, strict=True)}
    assert len(axes.get_yticks()) == len(used)
    assert "makespan" in axes.get_title() and "shown" not in axes.get_title()
    png(figure)


def test_bot_sites_gantt_samples_rows_across_sites():
    instance = generate(sites=3, bots=3, tasks_per_bot=(40, 60), procs_per_site=(8, 30),
                        seed=2)
    result = run_method("bot-sites", "g-min-min", instance)
    assert check(instance, result.solution) == []
    used = {(int(i), int(j)) for i, j in zip(result.solution.site, result.solution.proc,
                                             strict=True)}
    rows = gantt.select_rows_bot_sites(result.solution, max_rows=10)
    assert len(rows) == 10 < len(used) and set(rows) <= used
    assert {i for i, _ in rows} == {i for i, _ in used}          # every used site keeps rows
    assert rows == sorted(rows)
    figure = gantt.gantt_chart_bot_sites(instance, result.solution, max_rows=10)
    assert f"10 of {len(used)} used processors shown" in figure.axes[0].get_title()
    assert len(gantt.select_rows_bot_sites(result.solution, max_rows=2)) == 2
    with pytest.raises(ValueError, match="max_rows"):
        gantt.select_rows_bot_sites(result.solution, max_rows=0)


def test_gantt_for_dispatches_by_family():
    instance, solution = bot_schedule("small-lolo-c-2s-3b.json", "exact")
    assert isinstance(gantt.gantt_for("bot-sites", instance, solution), Figure)
    family, hd = load_instance(INSTANCES / "hybrid-deadline" / "small-01.json")
    result = run_method(family.name, "cdf+ra", hd)
    assert family.check(hd, result.solution) == []
    figure = gantt.gantt_for("hybrid-deadline", hd, result.solution, max_rows=5)
    png(figure)
    import matplotlib.pyplot as plt

    plt.close(figure)
    with pytest.raises(InputError, match="no chart for family 'nope'"):
        gantt.gantt_for("nope", instance, solution)


def test_plot_pareto_draws_a_report_and_saves_it(tmp_path):
    report = ParetoReport("x", [], {"gmo": (3.0, 1.0)}, complete=False)
    axes = pareto.plot_pareto(report, tmp_path / "front.png")
    assert [line.get_label() for line in axes.get_lines()] == ["gmo"]
    assert (tmp_path / "front.png").read_bytes()[:8] == PNG_SIGNATURE
    import matplotlib.pyplot as plt

    plt.close(axes.figure)


def test_profile_plot_one_panel_per_objective_and_into_given_axes():
    df = realistic_table()
    profile = performance_profile(df[df["family"] == "bot-sites"])
    figure = profiles.plot_performance_profile(profile, title="p", measure="objective")
    assert [a.get_title().split(" (")[0] for a in figure.axes] == ["p: makespan", "p: cost"]
    assert figure.axes[0].get_xscale() == "log"
    lines = [line for line in figure.axes[0].get_lines()
             if not line.get_label().startswith("_")]  # the curves, not their markers
    assert sorted(line.get_label() for line in lines) == ["exact", "g-min-min", "gmo"]
    assert lines[0].get_label() == "exact"  # best first: the legend reads as a ranking
    assert all(np.all(np.diff(line.get_ydata()) >= 0) for line in lines)
    assert "makespan (s)" in figure.axes[0].get_xlabel()
    png(figure)
    target = Figure()
    axes = target.add_subplot()
    assert profiles.plot_performance_profile(profile, ax=axes) is target
    assert "exact[objective=cost] (cost)" in [line.get_label() for line in axes.get_lines()]
    empty = profiles.plot_performance_profile(profile.iloc[:0])
    assert "no problem" in empty.axes[0].texts[0].get_text()


def test_gap_boxes_in_percent_with_infinite_gaps_counted():
    df = realistic_table()
    df = df[df["family"] == "hybrid-deadline"]
    figure = profiles.plot_gap_boxes(df)
    axes = figure.axes[0]
    labels = [t.get_text() for t in axes.get_xticklabels()]
    assert labels == ["cdf+ra", "ffd\n(1 inf)", "exact"]
    finite = df.loc[df["method"] == "ffd", "gap"]
    medians = [line for line in axes.get_lines() if line.get_color() in ("C1", "#ff7f0e")]
    assert medians and medians[1].get_ydata()[0] == pytest.approx(
        100 * finite[np.isfinite(finite)].median())
    png(figure)
    nothing = profiles.plot_gap_boxes(df.assign(gap=np.nan))
    assert "no finite gap" in nothing.axes[0].texts[0].get_text()
    assert profiles.plot_gap_boxes(df.iloc[:0]).axes[0].texts


def test_runtime_scaling_legend_gives_the_fitted_exponent():
    sizes = np.repeat([10, 20, 40, 80], 3)
    df = pd.DataFrame({"method": "m", "objective_name": "cost", "status": "feasible",
                       "instance_size": sizes, "runtime_s": 1e-3 * sizes ** 1.5})
    df = pd.concat([df, df.assign(method="n", runtime_s=2e-3 * sizes ** 0.5),
                    df.assign(method="failed", status="failed")])
    figure = profiles.plot_runtime_scaling(df)
    axes = figure.axes[0]
    assert axes.get_xscale() == axes.get_yscale() == "log"
    labels = [t.get_text() for t in axes.get_legend().get_texts()]
    assert labels == ["m (b = 1.50)", "n (b = 0.50)"]
    png(figure)
    one = profiles.plot_runtime_scaling(df.assign(instance_size=10))
    assert "one size only" in one.axes[0].get_legend().get_texts()[0].get_text()
    assert profiles.plot_runtime_scaling(df.assign(status="failed")).axes[0].texts


def test_objective_space_front_is_the_non_dominated_set():
    df = realistic_table()
    df = df[df["instance"] == "small-lolo-c-2s-3b"]
    figure = pareto.plot_objective_space(df)
    axes = figure.axes[0]
    front = next(line for line in axes.get_lines() if "non-dominated" in line.get_label())
    xs, ys = df["metric_makespan"].to_numpy(), df["metric_cost"].to_numpy()
    dominated = [any(x2 <= x and y2 <= y and (x2, y2) != (x, y) for x2, y2 in zip(xs, ys,
                                                                               strict=True))
                 for x, y in zip(xs, ys, strict=True)]
    expected = sorted((x, y) for x, y, d in zip(xs, ys, dominated, strict=True) if not d)
    assert sorted(zip(front.get_xdata(), front.get_ydata(), strict=True)) == expected
    assert len(axes.collections) == df["method"].nunique()
    png(figure)
    with pytest.raises(ValueError, match="instances"):
        pareto.plot_objective_space(realistic_table())
    assert pareto.plot_objective_space(df.assign(status="failed")).axes[0].texts


def test_non_dominated_keeps_one_of_equal_points():
    x = np.array([1.0, 1.0, 2.0, 0.5, 3.0])
    y = np.array([2.0, 2.0, 1.0, 4.0, 1.0])
    assert pareto.non_dominated(x, y).tolist() == [3, 0, 2]


def test_figures_are_not_registered_with_pyplot():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    df = realistic_table()
    profiles.plot_gap_boxes(df)
    profiles.plot_runtime_scaling(df)
    pareto.plot_objective_space(df[df["instance"] == "small-01"])
    instance, solution = bot_schedule()
    gantt.gantt_chart_bot_sites(instance, solution)
    assert plt.get_fignums() == before


def test_dollar_signs_are_shown_literally():
    df = realistic_table()
    df = df[df["family"] == "hybrid-deadline"].assign(method=lambda d: d["method"] + " $x$")
    figure = profiles.plot_gap_boxes(df, title="cost ($) and ($)")
    assert figure.axes[0].get_title() == r"cost (\$) and (\$)"
    png(figure)
