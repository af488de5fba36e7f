"""Campaign reports: one Markdown file, one self-contained HTML file, PNG plots.

:func:`write_report` reads the results table of
:func:`hybridsched.experiments.store_read.load_results` and writes, per family,
the summary table of :func:`~hybridsched.experiments.profiles.summary_table`,
what the gaps are measured against, the errors of failed runs, and the plots
of :mod:`hybridsched.plots` (performance profiles on the objective
and on run time, gap boxes, run time scaling, objective space, and a Gantt
chart on request). The content is built once as a list of blocks and
rendered twice, so both files say the same; the HTML embeds the plots as
base64 PNG images and the Markdown links the PNG files beside it. Every file
is written atomically.

A table with no runs, one method, only failed runs or no known reference
still gives a report that says so.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hybridsched.errors import InputError
from hybridsched.experiments.profiles import (
    PROBLEM,
    TIE_RTOL,
    performance_profile,
    require_columns,
    solved_mask,
    summary_table,
)
from hybridsched.experiments.tables import objective_labels, summary_legend
from hybridsched.io.display import objective_label, seconds_column
from hybridsched.io.outputs import atomic_write_bytes, atomic_write_text
from hybridsched.plots import gantt as gantt_plots
from hybridsched.plots import pareto as pareto_plots
from hybridsched.plots import profiles as profile_plots

#: ``load_instance_for(row) -> (family, instance) | None``: the instance of a run
#: (``row`` is one row of the results table, a pandas Series), for Gantt charts.
InstanceLoader = Callable[[pd.Series], "tuple[Any, Any] | None"]

#: Columns the report reads.
REPORT_COLUMNS = [*PROBLEM, "instance", "instance_size", "method", "status", "objective",
                  "reference_kind", "gap", "runtime_s", "error"]

#: Most distinct error messages listed per family.
MAX_ERRORS = 10

#: Resolution of the PNG files.
DPI = 110

_KINDS = {"optimum (recorded)": "the optimum recorded with the instance",
          "optimum": "an optimum proven in the campaign",
          "lower bound": "the best lower bound known",
          "none": "nothing (no optimum or bound known)"}


@dataclass(frozen=True)
class _Heading:
    level: int
    text: str


@dataclass(frozen=True)
class _Text:
    text: str


@dataclass(frozen=True)
class _Table:
    frame: pd.DataFrame          # cells already formatted as strings


@dataclass(frozen=True)
class _Image:
    file: str
    caption: str
    png: bytes


_Block = _Heading | _Text | _Table | _Image


def write_report(df: pd.DataFrame, out_dir: str | Path, *, title: str = "Campaign report",
                 gantt: bool = False, source_dirs: Sequence[str | Path] | None = None,
                 load_instance_for: InstanceLoader | None = None) -> list[Path]:
    """Write ``report.md``, ``report.html`` and the PNG plots into ``out_dir``.

    Parameters
    ----------
    df:
        The results table (one row per run).
    out_dir:
        Folder to write into (created if missing).
    title:
        First heading of the report.
    gantt:
        Also draw, per family, the Gantt chart of the best solved run of the
        first instance that has a recorded schedule (``solution`` column).
    source_dirs:
        Result folders the table was read from (named in the report).
    load_instance_for:
        Needed with ``gantt``: ``load_instance_for(row) -> (family,
        instance)`` rebuilds the instance of a run (``None`` when it cannot).

    Returns
    -------
    list[Path]
        Every file written: ``report.md``, ``report.html``, then the PNGs
        (``<family>-profile-objective.png``, ``<family>-profile-runtime.png``,
        ``<family>-gaps.png``, ``<family>-scaling.png``, ``<family>-pareto.png``
        when runs carry both ``metric_makespan`` and ``metric_cost``,
        ``<family>-gantt.png``).

    Raises
    ------
    InputError
        When the table lacks a column the report reads, or a file cannot be written.
    ValueError
        When ``gantt`` is asked without ``load_instance_for``.
    """
    if gantt and load_instance_for is None:
        raise ValueError("write_report: gantt=True needs load_instance_for")
    if len(df.columns) or len(df):
        require_columns(df, REPORT_COLUMNS)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{out}: cannot create the report folder "
                         f"({exc.strerror or exc})") from None
    blocks: list[_Block] = [_Heading(1, title), *_overview(df, source_dirs)]
    if len(df):
        for family, runs in df.groupby("family", sort=False, dropna=False):
            blocks += _family_section(str(family), runs, gantt, load_instance_for)
    blocks += _provenance_section(df)
    written = []
    for block in blocks:
        if isinstance(block, _Image):
            atomic_write_bytes(out / block.file, block.png)
            written.append(out / block.file)
    atomic_write_text(out / "report.md", _markdown(blocks))
    atomic_write_text(out / "report.html", _html(title, blocks))
    return [out / "report.md", out / "report.html", *written]


# --- content ---------------------------------------------------------------------------


def _counts(values: pd.Series) -> str:
    """``"a 3, b 1"``: each value with how many times it occurs, most frequent first."""
    return ", ".join(f"{value} {n}" for value, n in values.value_counts(sort=True).items())


def _overview(df: pd.DataFrame, source_dirs: Sequence[str | Path] | None) -> list[_Block]:
    lines = []
    if source_dirs:
        lines.append("Results read from: " + ", ".join(str(d) for d in source_dirs) + ".")
    if not len(df):
        return [_Text(line) for line in lines] + [_Text("No runs: the results table is empty.")]
    campaigns = df["campaign"].dropna().unique() if "campaign" in df else []
    lines.append(f"{len(df)} runs"
                 + (f" of campaign{'s' if len(campaigns) > 1 else ''} "
                    + ", ".join(map(str, campaigns)) if len(campaigns) else "")
                 + f"; families: {', '.join(map(str, df['family'].unique()))}.")
    lines.append(f"Statuses: {_counts(df['status'])}.")
    lines.append("Gaps are relative: (objective - reference) / |reference|. A problem is one "
                 "instance, objective, seed and replication; wins count the problems where a "
                 "method's value is the best (ties count for all).")
    return [_Text(line) for line in lines]


def _provenance_section(df: pd.DataFrame) -> list[_Block]:
    """What made the runs (one row per distinct set of versions) and this report."""
    from hybridsched.provenance import provenance

    now = provenance()
    blocks: list[_Block] = [_Heading(2, "Produced by")]
    texts = df["versions"] if "versions" in df else pd.Series(dtype=object)
    # Rows share a handful of distinct records: count them before parsing any.
    counts = texts[texts.map(lambda t: isinstance(t, str))].value_counts(sort=False)
    records = [(json.loads(text), runs) for text, runs in counts.items()]
    records = [(record, runs) for record, runs in records if record]  # {}: nothing recorded
    if records:
        table = pd.DataFrame([record for record, _ in records]).astype("string").fillna("-")
        known = [name for name in now if name in table.columns]
        table = table[known + [name for name in table.columns if name not in known]]
        table["runs"] = [runs for _, runs in records]
        counted = table.groupby(list(table.columns[:-1]), sort=False)["runs"].sum()
        blocks += [_Text("The versions of hybridsched and of the libraries the runs were made "
                         "with, and the cores of the machine that ran them:"),
                   _Table(counted.reset_index().astype(str))]
        if len(counted) > 1:
            blocks.append(_Text("Warning: the runs were made with different versions."))
    else:
        blocks.append(_Text("The runs do not record the versions that made them (a store "
                            "written before versions were recorded)."))
    blocks.append(_Text("This report: " + ", ".join(f"{name} {value}" for name, value
                                                    in now.items()) + "."))
    return blocks


def _family_section(family: str, runs: pd.DataFrame, gantt: bool,
                    loader: InstanceLoader | None) -> list[_Block]:
    solved = solved_mask(runs)
    methods = runs["method"].unique()
    labels = objective_labels(runs)
    compared = "; ".join(labels) or "objective"
    blocks: list[_Block] = [
        _Heading(2, family),
        _Text(f"{len(runs)} runs: {runs['instance_hash'].nunique()} instances, "
              f"{runs['method'].nunique()} methods ({', '.join(map(str, methods))}); "
              f"statuses: {_counts(runs['status'])}."),
        _Table(_format_summary(summary_table(runs))),
        *(_Text(line[:1].upper() + line[1:] + ".") for line in summary_legend(compared,
                                                                              TIE_RTOL)),
    ]
    kinds = runs["reference_kind"].value_counts()
    if len(kinds):
        blocks.insert(2, _Text("Gaps are measured against " + "; ".join(
            f"{_KINDS.get(str(kind), str(kind))} for {n} run{'s' if n > 1 else ''}"
            for kind, n in kinds.items()) + "."))
    blocks += _errors(runs)
    if not solved.any():
        return [*blocks, _Text("No solved runs: no profile, gap, scaling or Gantt plot.")]
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", family)
    figures: list[tuple[str, str, Any]] = []
    instances = runs["instance_hash"].nunique()
    for measure, name, caption in (
            ("objective", compared, f"Performance profile on the {compared}: share of "
             "problems where a method is within a factor tau of the best."),
            ("runtime_s", "run time (s)", "Performance profile on run time (unsolved runs "
             "never count).")):
        if _negative(runs, measure):
            blocks.append(_Text(f"Performance profile on the {name}: not drawn, some solved "
                                "runs have a negative value (ratios need values >= 0)."))
            continue
        figures.append((f"profile-{measure.removesuffix('_s')}", caption,
                        profile_plots.plot_performance_profile(
                            performance_profile(runs, measure), title=f"{family}: {name}",
                            measure=profile_plots.OBJECTIVE if measure == "objective"
                            else name,
                            instances=instances)))
    figures += [
        ("gaps", "Gaps of each method to its reference, in percent.",
         profile_plots.plot_gap_boxes(runs, title=f"{family}: gap to the reference")),
        ("scaling", "Run time against instance size (log-log); b is the fitted exponent.",
         profile_plots.plot_runtime_scaling(_finite(runs, ["runtime_s", "instance_size"]),
                                            title=f"{family}: run time vs size")),
    ]
    pareto = _objective_space(runs)
    if pareto is not None:
        figures.append(("pareto", pareto[0], pareto[1]))
    blocks += [_Image(f"{slug}-{name}.png", caption, png_bytes(figure))
               for name, caption, figure in figures]
    if gantt and loader is not None:
        blocks += _gantt(family, runs, slug, loader)
    return blocks


def _negative(runs: pd.DataFrame, measure: str) -> bool:
    """Whether a solved run has a negative finite ``measure`` (no profile then)."""
    values = pd.to_numeric(runs[measure], errors="coerce").astype(float)
    return bool((solved_mask(runs) & np.isfinite(values) & (values < 0)).any())


def _finite(runs: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``runs`` with the infinite values of ``columns`` made unknown (not drawable on log axes)."""
    numbers = {c: pd.to_numeric(runs[c], errors="coerce").astype(float) for c in columns}
    return runs.assign(**{c: v.where(np.isfinite(v)) for c, v in numbers.items()})


def _format_summary(table: pd.DataFrame) -> pd.DataFrame:
    """The summary table as display strings (gaps in percent, times to the machine's noise).

    The objective is named with its unit (``rent cost ($)``); each time is
    rounded to the machine's noise (:func:`~hybridsched.io.display.seconds_column`).
    """
    def percent(v: float) -> str:
        return "" if pd.isna(v) else f"{100 * v:.2f}%"

    times = seconds_column([*table["mean_runtime_s"], *table["median_runtime_s"]], missing="")
    shown = pd.DataFrame({
        "objective": [objective_label(f, o if isinstance(o, str) else None)
                      for f, o in zip(table["family"], table["objective_name"], strict=True)],
        "method": table["method"].astype(str),
        **{c: table[c].astype(int).astype(str) for c in ("runs", "solved", "failed",
                                                        "optimal")},
        "mean gap": table["mean_gap"].map(percent),
        "median gap": table["median_gap"].map(percent),
        "max gap": table["max_gap"].map(percent),
        "inf gaps": table["inf_gaps"].astype(int).astype(str),
        "wins": table["wins"].astype(int).astype(str),
        "mean time (s)": times[:len(table)],
        "median time (s)": times[len(table):],
    }, index=table.index)
    return shown.reset_index(drop=True)


def _errors(runs: pd.DataFrame) -> list[_Block]:
    """The most frequent messages of runs without a schedule, per method and status."""
    unsolved = runs[~solved_mask(runs)]
    if unsolved.empty:
        return []
    message = unsolved["error"].fillna("").astype(str).replace("", "(no message)")
    counts = unsolved.assign(message=message) \
        .groupby(["method", "status", "message"], sort=False).size() \
        .sort_values(ascending=False, kind="stable").head(MAX_ERRORS).reset_index(name="runs")
    table = counts.astype(str)
    return [_Text(f"{len(unsolved)} runs without a schedule; their most frequent messages:"),
            _Table(table)]


def _objective_space(runs: pd.DataFrame) -> tuple[str, Any] | None:
    """(caption, figure) of the instance with the most runs carrying makespan and cost."""
    if not {"metric_makespan", "metric_cost"} <= set(runs.columns):
        return None
    both = (solved_mask(runs) & runs["instance_hash"].notna()
            & np.isfinite(pd.to_numeric(runs["metric_makespan"], errors="coerce"))
            & np.isfinite(pd.to_numeric(runs["metric_cost"], errors="coerce")))
    if not both.any():
        return None
    counts = runs.loc[both, "instance_hash"].value_counts(sort=False)
    chosen = counts.index[int(np.argmax(counts.to_numpy()))]
    one = runs[runs["instance_hash"] == chosen]
    name = str(one["instance"].iloc[0])
    caption = (f"Makespan and cost of every solved run on {name} (the instance with the most "
               "such runs); the staircase is the non-dominated set of these points.")
    return caption, pareto_plots.plot_objective_space(one, title=f"{name}: objective space")


def _gantt(family: str, runs: pd.DataFrame, slug: str, loader: InstanceLoader
           ) -> list[_Block]:
    """The Gantt chart of the best solved run of the first instance with a schedule."""
    if "solution" not in runs.columns:
        return [_Text("Gantt chart: the campaign recorded no schedule.")]
    has = solved_mask(runs) & runs["solution"].map(lambda s: isinstance(s, str) and bool(s))
    if not has.any():
        return [_Text("Gantt chart: the campaign recorded no schedule.")]
    candidates = runs[has]
    for column in ("instance_hash", "objective_name"):  # the first run's, empty ones alike
        keys = candidates[column].fillna("")
        candidates = candidates[keys == keys.iloc[0]]
    best = candidates.loc[pd.to_numeric(candidates["objective"], errors="coerce")
                          .fillna(np.inf).idxmin()]
    what = f"run {best.get('key', '?')} ({best['method']} on {best['instance']})"
    try:
        loaded = loader(best)
    except (InputError, OSError, AttributeError, KeyError, TypeError, ValueError):
        loaded = None  # the stored source is not one this version can rebuild
    if loaded is None:
        return [_Text(f"Gantt chart: the instance of {what} is not available.")]
    fam, instance = loaded
    try:
        solution = fam.solution_from_dict(json.loads(best["solution"]), instance, what)
    except (InputError, ValueError, TypeError, KeyError, AttributeError) as exc:
        return [_Text(f"Gantt chart: cannot read the schedule of {what}: {exc}")]
    violations = fam.check(instance, solution)
    if violations:
        return [_Text(f"Gantt chart: the schedule of {what} fails the checker: "
                      f"{violations[0]}")]
    try:
        figure = gantt_plots.gantt_for(fam.name, instance, solution)
    except InputError as exc:
        return [_Text(f"Gantt chart: {exc}")]
    return [_Image(f"{slug}-gantt.png", f"Gantt chart of {what}.", png_bytes(figure))]


def png_bytes(figure: Any) -> bytes:
    """``figure`` as PNG bytes; the figure is closed (pyplot ones are released)."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", dpi=DPI)
    finally:
        plt.close(figure)
    return buffer.getvalue()


# --- rendering ---------------------------------------------------------------------------


def _md_cell(value: object) -> str:
    return _md_text(str(value)).replace("|", r"\|").replace("\n", " ")


def _md_text(text: str) -> str:
    """Text for Markdown: ``$`` would start math on GitHub."""
    return text.replace("$", r"\$")


def markdown_table(frame: pd.DataFrame) -> str:
    r"""A GitHub Markdown table of ``frame`` (cells as text, ``|`` escaped).

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"a": [1], "b": ["x|y"]})))
    | a | b |
    | --- | --- |
    | 1 | x\|y |
    """
    lines = ["| " + " | ".join(_md_cell(c) for c in frame.columns) + " |",
             "| " + " | ".join("---" for _ in frame.columns) + " |"]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def _markdown(blocks: list[_Block]) -> str:
    parts = []
    for block in blocks:
        if isinstance(block, _Heading):
            parts.append(f"{'#' * block.level} {_md_text(block.text)}")
        elif isinstance(block, _Text):
            parts.append(_md_text(block.text))
        elif isinstance(block, _Table):
            parts.append(markdown_table(block.frame))
        else:
            parts.append(f"![{Path(block.file).stem}]({block.file})\n\n"
                         f"*{_md_text(block.caption)}*")
    return "\n\n".join(parts) + "\n"


_STYLE = """body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;margin:1em 0;font-size:90%}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f3f3f3}td:nth-child(-n+2){text-align:left}
figure{margin:1.5em 0}img{max-width:100%}figcaption{color:#555;font-size:90%}"""


def _html(title: str, blocks: list[_Block]) -> str:
    parts = []
    for block in blocks:
        if isinstance(block, _Heading):
            parts.append(f"<h{block.level}>{html.escape(block.text)}</h{block.level}>")
        elif isinstance(block, _Text):
            parts.append(f"<p>{html.escape(block.text)}</p>")
        elif isinstance(block, _Table):
            parts.append(block.frame.to_html(index=False, escape=True, border=0))
        else:
            data = base64.b64encode(block.png).decode("ascii")
            caption = html.escape(block.caption)
            parts.append(f'<figure><img src="data:image/png;base64,{data}" '
                         f'alt="{caption}"><figcaption>{caption}</figcaption></figure>')
    body = "\n".join(parts)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
            f"<body>\n{body}\n</body>\n</html>\n")
