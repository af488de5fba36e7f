"""The performance profile reads well at any tier size (issue 33).

Ticks at nameable ratios over the data's range, a margin on every side,
distinct colours, markers and line styles, ties drawn visibly and said in
the legend, the instance count in the title, axes naming the objective.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex

from hybridsched.experiments.profiles import performance_profile
from hybridsched.plots.profiles import plot_performance_profile, tau_ticks


def runs(values: dict[str, list[float]], family: str = "gang",
         objective_name: str = "unfinished jobs") -> pd.DataFrame:
    """A results table: method -> its objective on instances 0, 1, ... (one seed)."""
    rows = [{"family": family, "instance_hash": f"i{k}", "objective_name": objective_name,
             "seed": 0, "replication": 0, "method": method, "status": "feasible",
             "objective": value, "gap": 0.0, "runtime_s": 0.01}
            for method, column in values.items() for k, value in enumerate(column)]
    return pd.DataFrame(rows)


#: The shape of gang's small tier: cplmt and cmms identical, exact and grid identical.
GANG_SMALL = {"asjs": [8, 9, 11, 16], "bound": [7, 9, 7, 14], "cmms": [7, 9, 9, 14],
              "cplmt": [7, 9, 9, 14], "exact": [7, 8, 6, 14], "fair": [8, 9, 7, 15],
              "fifo": [8, 9, 7, 16], "grid": [7, 8, 6, 14]}


def draw(values: dict[str, list[float]], **kwargs):
    table = runs(values)
    kwargs.setdefault("measure", "objective")
    figure = plot_performance_profile(performance_profile(table, "objective"), title="t",
                                      instances=table["instance_hash"].nunique(), **kwargs)
    return figure, figure.axes[0]


def curves(axes) -> dict[str, object]:
    """The step line of each method, by its label's method name."""
    return {line.get_label().split(" (")[0]: line for line in axes.get_lines()
            if not line.get_label().startswith("_")}


@pytest.mark.parametrize(("top", "end"), [(1.0, 1.1), (1.0833, 1.1), (1.833, 2.0), (2.5, 3.0),
                                          (17.0, 32.0), (3000.0, 1e4), (1e9, 1e9)])
def test_ticks_start_at_one_and_cover_the_data(top, end):
    ticks = tau_ticks(top)
    assert ticks[0] == 1.0 and ticks[-1] == pytest.approx(end) and ticks[-1] >= top
    assert 3 <= len(ticks) <= 8 and ticks == sorted(set(ticks))


def test_small_tier_has_ticks_over_the_range_and_margins():
    _, axes = draw(GANG_SMALL)
    ticks = list(axes.get_xticks())
    largest = max(v / min(c[k] for c in GANG_SMALL.values())
                  for c in GANG_SMALL.values() for k, v in enumerate(c))
    assert ticks[0] == 1.0 and ticks[-1] >= largest and len(ticks) >= 4  # not just 2^0, 2^1
    labels = [t.get_text() for t in axes.get_xticklabels()]
    assert labels[:2] == ["1", "1.1"]
    left, right = axes.get_xlim()
    bottom, top = axes.get_ylim()
    assert left < 1.0 and right > ticks[-1] and bottom < 0.0 and top > 1.0  # nothing on the frame


def test_identical_curves_are_all_visible_and_said_in_the_legend():
    _, axes = draw(GANG_SMALL)
    lines = curves(axes)
    legend = [t.get_text() for t in axes.get_legend().get_texts()]
    assert "cplmt (same curve as cmms)" in legend or "cmms (same curve as cplmt)" in legend
    assert "grid (same curve as exact)" in legend or "exact (same curve as grid)" in legend
    for a, b in (("cmms", "cplmt"), ("exact", "grid")):
        first, second = lines[a], lines[b]
        assert np.array_equal(first.get_xydata(), second.get_xydata())  # the same curve ...
        assert first.get_linestyle() != second.get_linestyle()           # ... drawn apart
        assert first.get_color() != second.get_color()
    markers = [line for line in axes.get_lines() if line.get_label() == "_markers"]
    shapes = [line.get_marker() for line in markers]
    assert len(shapes) == len(GANG_SMALL) == len(set(shapes))           # one marker each
    # The markers of a tied pair sit at different places along their shared steps.
    by_colour = {to_hex(m.get_color()): m for m in markers}
    pairs = [(to_hex(lines[a].get_color()), to_hex(lines[b].get_color()))
             for a, b in (("cmms", "cplmt"), ("exact", "grid"))]
    for a, b in pairs:
        here, there = (set(map(tuple, np.round(by_colour[c].get_xydata(), 9))) for c in (a, b))
        assert here and there and not (here & there)


def test_title_and_axes_name_the_instances_the_objective_and_the_ratio():
    _, axes = draw(GANG_SMALL)
    assert axes.get_title() == "t (4 instances)"
    assert "ratio" in axes.get_xlabel() and "unfinished jobs (count)" in axes.get_xlabel()
    assert "4 problems" in axes.get_ylabel()
    _, timed = draw(GANG_SMALL, measure="run time (s)")
    assert "run time (s)" in timed.get_xlabel()
    _, unsaid = draw(GANG_SMALL, measure=None)  # a profile that does not say what it holds
    assert unsaid.get_xlabel().endswith("ratio to the best method's value")


def test_a_larger_tier_reads_too():
    rng = np.random.default_rng(0)
    values = {f"m{k}": list(10 + rng.integers(0, 6 + 3 * k, 60)) for k in range(7)}
    figure, axes = draw(values)
    ticks = list(axes.get_xticks())
    ratios = runs(values).pivot(index="instance_hash", columns="method", values="objective")
    largest = float((ratios.max(axis=1) / ratios.min(axis=1)).max())
    assert ticks[0] == 1.0 and ticks[-1] >= largest and 4 <= len(ticks) <= 8
    assert axes.get_title() == "t (60 instances)"
    lines = curves(axes)
    assert len({line.get_color() for line in lines.values()}) == 7
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=40)
    assert buffer.getvalue()[:4] == b"\x89PNG"


def test_a_method_never_within_any_ratio_is_said():
    # b reaches 0 where a is positive: an infinite ratio, never counted by any tau.
    _, axes = draw({"a": [0.0, 2.0], "b": [1.0, 1.0]})
    legend = [t.get_text() for t in axes.get_legend().get_texts()]
    assert "b (1 never within any τ)" in legend and "a" in legend
    assert math.isclose(axes.get_ylim()[1], 1.05)
