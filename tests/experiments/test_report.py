"""Campaign reports: files written, valid non-blank PNGs, edge cases never crash.

:func:`realistic_table` runs real methods on the bundled instances and
assembles the rows of the results table (the schema of
``hybridsched.experiments.store_read.load_results``); the other test modules of
this folder reuse it.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from hybridsched.experiments.report import markdown_table, write_report
from hybridsched.registry import run_method
from hybridsched.result import Result, Status, relative_gap
from hybridsched.storage import load_instance

INSTANCES = Path(__file__).parents[2] / "instances"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: (instance files, methods as (label, registry name, options)) per family.
PLAN = {
    "hybrid-deadline": (
        [f"hybrid-deadline/small-0{i}.json" for i in range(1, 7)],
        [("cdf+ra", "cdf+ra", {}), ("ffd", "ffd", {}), ("exact", "exact", {})]),
    "bot-sites": (
        ["bot-sites/small-lolo-c-2s-3b.json", "bot-sites/small-hihi-i-3s-4b.json",
         "bot-sites/gmo-table2-inconsistent.json"],
        [("gmo", "gmo", {}), ("g-min-min", "g-min-min", {}), ("exact", "exact", {}),
         ("exact[objective=cost]", "exact", {"objective": "cost"})]),
}


def instance_hash(family: Any, instance: Any) -> str:
    text = json.dumps(family.instance_to_dict(instance), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def reference_value(family: Any, instance: Any, results: list[Result],
                    objective: str | None) -> tuple[float | None, str]:
    """The recorded optimum, else a proven one, else the best bound (like ``compare``)."""
    recorded = family.reference(instance) or {}
    key = "optimum" if objective is None else f"optimum_{objective}"
    if key in recorded:
        return recorded[key], "optimum (recorded)"
    for result in results:
        if result.status is Status.OPTIMAL:
            return result.objective, "optimum"
    bounds = [r.bound for r in results if r.bound is not None]
    return (max(bounds), "lower bound") if bounds else (None, "none")


def run_rows(path: Path, methods: list[tuple[str, str, dict]], *, seed: int = 0,
             time_limit: float = 10.0) -> list[dict[str, Any]]:
    """One row per method on ``path`` in the results-table schema (schedules checked)."""
    family, instance = load_instance(path)
    rows = []
    for objective in dict.fromkeys(o.get("objective") for _, _, o in methods):
        chosen = [m for m in methods if m[2].get("objective") == objective]
        results = [run_method(family.name, name, instance, seed=seed, time_limit=time_limit,
                              **options) for _, name, options in chosen]
        reference, kind = reference_value(family, instance, results, objective)
        for (label, name, options), result in zip(chosen, results, strict=True):
            if result.status.has_solution:
                assert family.check(instance, result.solution) == []
            metrics = {k: v for k, v in result.metrics.items()
                       if isinstance(v, int | float) and not isinstance(v, bool)}
            gap = relative_gap(result.objective, reference)
            rows.append({
                "key": hashlib.sha256(f"{path}{label}{seed}".encode()).hexdigest()[:12],
                "campaign": "test", "family": family.name, "instance": instance.name,
                "instance_hash": instance_hash(family, instance),
                "instance_source": str(path.name), "instance_size": int(instance.n_tasks),
                "method": label, "method_name": name, "options": json.dumps(options),
                "objective_name": objective or family.objective_name, "seed": seed,
                "replication": 0, "time_limit": time_limit, "status": result.status.value,
                "objective": np.nan if result.objective is None else result.objective,
                "bound": np.nan if result.bound is None else result.bound,
                "reference": np.nan if reference is None else reference,
                "reference_kind": kind, "gap": np.nan if gap is None else gap,
                "metrics": json.dumps(metrics),
                **{f"metric_{k}": float(v) for k, v in metrics.items()},
                "runtime_s": result.runtime_s, "cpu_s": result.cpu_s, "solver": "{}",
                "worker": "test", "code_version": "test", "timestamp": "2025-01-01T00:00:00Z",
                "error": result.message,
                "solution": (json.dumps(family.solution_to_dict(result.solution, instance))
                             if result.status.has_solution else None),
            })
    return rows


@functools.cache
def _realistic() -> pd.DataFrame:
    rows = []
    for files, methods in PLAN.values():
        for name in files:
            rows += run_rows(INSTANCES / name, methods)
    return pd.DataFrame(rows)


def realistic_table() -> pd.DataFrame:
    """Both families, every method of :data:`PLAN` on the bundled instances (a copy)."""
    return _realistic().copy()


def load_instance_for(row: pd.Series) -> tuple[Any, Any] | None:
    """The instance of a run of :func:`realistic_table` (``None`` for unknown sources)."""
    for files, _ in PLAN.values():
        for name in files:
            if Path(name).name == row["instance_source"]:
                return load_instance(INSTANCES / name)
    return None


def assert_png(path: Path) -> None:
    """A valid, non-blank PNG: the signature, and more than one colour once decoded."""
    import matplotlib.image as mpimg

    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, path.name
    pixels = mpimg.imread(io.BytesIO(data), format="png")
    assert (pixels != pixels[0, 0]).any(), f"{path.name}: one colour only"


def test_report_writes_markdown_html_and_pngs(tmp_path):
    df = realistic_table()
    written = write_report(df, tmp_path, title="Test campaign", gantt=True,
                           source_dirs=["results/x"], load_instance_for=load_instance_for)
    names = {p.name for p in written}
    assert {"report.md", "report.html"} <= names
    for family in ("hybrid-deadline", "bot-sites"):
        for plot in ("profile-objective", "profile-runtime", "gaps", "scaling", "pareto",
                     "gantt"):
            assert f"{family}-{plot}.png" in names
    for path in written:
        assert path.is_file() and path.stat().st_size > 0
        if path.suffix == ".png":
            assert_png(path)
    md = (tmp_path / "report.md").read_text()
    page = (tmp_path / "report.html").read_text()
    assert md.startswith("# Test campaign") and "results/x" in md
    for family in ("hybrid-deadline", "bot-sites"):
        assert f"## {family}" in md and f"<h2>{family}</h2>" in page
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == len([n for n in names if n.endswith(".png")])
    assert all(base64.b64decode(i)[:8] == PNG_SIGNATURE for i in images)
    # The summary of exact on hybrid-deadline: every run optimal, gap 0, a win each.
    row = next(line for line in md.splitlines()
               if line.startswith("| rent cost") and "| exact |" in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2:6] == ["6", "6", "0", "6"] and cells[6] == "0.00%" and cells[10] == "6"
    # Named (issue 33): objectives with their units, what a win is, times to the noise.
    assert row.startswith(r"| rent cost (\$) |")
    assert any(line.startswith("| makespan (s) | gmo |") for line in md.splitlines())
    assert any(line.startswith("| cost (\\$) | exact[objective=cost] |")
               for line in md.splitlines())
    assert md.count("a tie is a win for every tied method") == 2
    assert not re.search(r"\| \d+\.\d{5,} \|", md)  # no 6-digit times


def test_markdown_table_escapes_pipes_and_dollars():
    text = markdown_table(pd.DataFrame({"objective": ["rent cost ($)"], "m": ["a|b"]}))
    assert text.splitlines() == ["| objective | m |", "| --- | --- |",
                                 r"| rent cost (\$) | a\|b |"]


def test_empty_table_gives_a_report(tmp_path):
    written = write_report(pd.DataFrame(), tmp_path)
    assert [p.name for p in written] == ["report.md", "report.html"]
    assert "No runs" in (tmp_path / "report.md").read_text()
    columns = realistic_table().columns
    write_report(pd.DataFrame(columns=columns), tmp_path / "sub")
    assert "No runs" in (tmp_path / "sub" / "report.html").read_text()


def test_all_failed_runs_give_a_report(tmp_path):
    df = realistic_table()
    df["status"] = "failed"
    df["error"] = np.where(df["method"] == "exact", "RuntimeError: solver crashed", "")
    for column in ("objective", "gap", "reference", "bound"):
        df[column] = np.nan
    df["reference_kind"] = "none"
    written = write_report(df, tmp_path, gantt=True, load_instance_for=load_instance_for)
    assert [p.name for p in written] == ["report.md", "report.html"]
    md = (tmp_path / "report.md").read_text()
    assert md.count("No solved runs") == 2
    assert "RuntimeError: solver crashed" in md and "nothing (no optimum or bound known)" in md


def test_one_method_nan_gaps_and_missing_reference(tmp_path):
    df = realistic_table()
    df = df[df["method"] == "ffd"].assign(gap=np.nan, reference_kind="none")
    written = write_report(df, tmp_path)
    assert {p.name for p in written} >= {"hybrid-deadline-gaps.png",
                                          "hybrid-deadline-profile-objective.png"}
    for path in written:
        if path.suffix == ".png":
            assert_png(path)
    assert "## bot-sites" not in (tmp_path / "report.md").read_text()


@pytest.fixture
def no_drawing(monkeypatch) -> list:
    """Replace the plots by stubs (for tests about content and speed); lists the figures."""
    from hybridsched.experiments import report

    drawn: list = []
    monkeypatch.setattr(report, "png_bytes", lambda figure: drawn.append(figure) or PNG_SIGNATURE)
    for module, name in ((report.profile_plots, "plot_performance_profile"),
                         (report.profile_plots, "plot_gap_boxes"),
                         (report.profile_plots, "plot_runtime_scaling"),
                         (report.pareto_plots, "plot_objective_space"),
                         (report.gantt_plots, "gantt_for")):
        monkeypatch.setattr(module, name, lambda *a, **k: "figure")
    return drawn


def test_gantt_notes_a_missing_instance(tmp_path, no_drawing):
    write_report(realistic_table(), tmp_path, gantt=True, load_instance_for=lambda row: None)
    assert "is not available" in (tmp_path / "report.md").read_text()
    assert not list(tmp_path.glob("*-gantt.png"))
    with pytest.raises(ValueError, match="load_instance_for"):
        write_report(realistic_table(), tmp_path, gantt=True)


def test_missing_column_is_bad_input(tmp_path):
    from hybridsched.errors import InputError

    with pytest.raises(InputError, match="missing column.*instance_hash"):
        write_report(realistic_table().drop(columns="instance_hash"), tmp_path)


def test_ten_thousand_rows_without_plotting(tmp_path, no_drawing):
    """Everything but drawing and encoding the figures (replaced by a stub).

    How fast: ``benchmarks/bench_spec_report.py`` (a wall-clock bound can fail under load).
    """
    base = realistic_table()
    big = pd.concat([base.assign(seed=s, key=base["key"] + f"-{s}")
                     for s in range(10_000 // len(base) + 1)], ignore_index=True)
    big = big.iloc[:10_000]
    rng = np.random.default_rng(0)
    big["runtime_s"] = rng.uniform(0.001, 1.0, len(big))
    written = write_report(big, tmp_path)
    assert len(no_drawing) == len(written) - 2 == 10
