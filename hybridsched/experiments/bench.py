"""``bench``: methods on a tier of the benchmark library, ranked against its recorded references.

A bench is a campaign (:mod:`~hybridsched.experiments.campaign`): every
method on every instance of the tier, each schedule checked by the family's
checker, rows stored in ``<output>/store`` so that running the same command
again resumes. Gaps are measured by the campaign's one rule
(:func:`~hybridsched.experiments.tables.add_gaps`): to the optimum recorded
in the instance file (certified by ``certify``), else to a proven optimum of
the runs, else to the best bound. The leaderboard is the campaign summary
(:func:`~hybridsched.experiments.profiles.summary_table`): solved, proven
optimal, mean and max gap, wins, run times; it is written as Markdown (to
paste into a paper) and CSV, with a Dolan-Moré performance profile (PNG).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from hybridsched.errors import InputError
from hybridsched.experiments.campaign import run_campaign
from hybridsched.experiments.engine import Progress
from hybridsched.experiments.library import REAL, library_root, tier_files
from hybridsched.experiments.profiles import TIE_RTOL, performance_profile, summary_table
from hybridsched.experiments.real_sets import materialise, real_set_files
from hybridsched.experiments.report import markdown_table, png_bytes
from hybridsched.experiments.sources import file_source
from hybridsched.experiments.spec import campaign_from_parts
from hybridsched.experiments.store_read import load_results
from hybridsched.experiments.tables import objective_labels, summary_legend
from hybridsched.io.display import seconds_column
from hybridsched.io.outputs import atomic_write_bytes, atomic_write_text
from hybridsched.registry import get_method

#: Leaderboard columns and their headings in the tables people read.
LEADERBOARD = {
    "method": "method", "runs": "runs", "solved": "solved", "optimal": "proven optimal",
    "mean_gap": "mean gap", "max_gap": "max gap", "inf_gaps": "infinite gaps",
    "wins": "wins", "median_runtime_s": "median time (s)", "mean_runtime_s": "mean time (s)",
}

#: Leaderboard columns that are times (shown by :func:`~hybridsched.io.display.seconds_column`).
TIME_COLUMNS = ("median_runtime_s", "mean_runtime_s")


@dataclass
class BenchOutcome:
    """What a bench wrote and found."""

    leaderboard: pd.DataFrame
    objective: str = "objective"
    files: list[Path] = field(default_factory=list)
    references: dict[str, int] = field(default_factory=dict)
    campaign: Any = None


def plan_bench(family: str, tier: str, *, methods: Sequence[str] | None = None,
               plugins: Sequence[str] = (), time_limit: float | None = 60.0,
               library: str | Path | None = None, output: Path | None = None) -> Any:
    """The campaign of a bench, checked (files, methods, options) before anything runs.

    The ``real`` tier's instances are built from the shared data by the
    family's recipes (:mod:`~hybridsched.experiments.real_sets`) into
    ``output/instances``, once the method names are known to be good.
    """
    if methods is not None and not list(methods):
        raise InputError("--methods: no method given")
    if tier == REAL:
        recipes = real_set_files(library_root(library) / family)
        if not recipes:
            raise InputError(f"no real-data set of family {family!r} in the library")
        for name in methods or ():
            get_method(family, name)
        folder = (output or Path(".")) / "instances"
        files = [path for recipe in recipes for path in materialise(recipe, folder)]
    else:
        files = tier_files(family, tier, library)
    sources = [file_source(path) for path in files]
    return campaign_from_parts(sources, list(methods) if methods is not None else None,
                               name=f"bench-{family}-{tier}", time_limit=time_limit,
                               plugins=plugins,
                               description=f"{family}, tier {tier}")


def run_bench(campaign: Any, output: Path, *, mode: str = "auto", workers: int | None = None,
              scheduler: str | None = None, progress: Progress | None = None,
              on_planned: Callable[[Any], None] | None = None) -> BenchOutcome:
    """Run (or resume) ``campaign`` into ``output/store`` and write the leaderboard files."""
    summary = run_campaign(campaign, output / "store", mode=mode, workers=workers,
                           scheduler=scheduler, progress=progress, on_planned=on_planned)
    table = load_results(output / "store")
    board = leaderboard(table)
    files = write_leaderboard(board, table, output, title=campaign.description)
    kinds = table.drop_duplicates("instance_hash")["reference_kind"].value_counts()
    return BenchOutcome(board, objective(table), files,
                        {str(k): int(v) for k, v in kinds.items()}, summary)


def objective(table: pd.DataFrame) -> str:
    """What a bench compared, with its unit (``"unfinished jobs (count)"``; several: joined)."""
    return "; ".join(objective_labels(table)) or "objective"


def legend(objective_label: str) -> list[str]:
    """The lines under a leaderboard: what wins, gaps and times are."""
    return summary_legend(objective_label, TIE_RTOL)


def shown_leaderboard(board: pd.DataFrame, *, missing: str = "-") -> pd.DataFrame:
    """The leaderboard as text cells under their headings: gaps in percent, times rounded."""
    shown = board.astype(object).copy()
    for column in ("mean_gap", "max_gap"):
        shown[column] = [_percent(v) for v in shown[column]]
    for column in TIME_COLUMNS:
        shown[column] = seconds_column(shown[column], missing=missing)
    return shown.rename(columns=LEADERBOARD)


def leaderboard(table: pd.DataFrame) -> pd.DataFrame:
    """The campaign summary, best first: most solved, then smallest mean gap, then time."""
    # A failed run has no objective name; it belongs with its method's other runs.
    named = table["objective_name"].dropna()
    if len(named):
        table = table.assign(objective_name=table["objective_name"].fillna(named.mode()[0]))
    board = summary_table(table)
    if board.empty:
        return board[list(LEADERBOARD)]
    board = board.sort_values(["solved", "mean_gap", "median_runtime_s"],
                              ascending=[False, True, True], na_position="last")
    return board[list(LEADERBOARD)].reset_index(drop=True)


def write_leaderboard(board: pd.DataFrame, table: pd.DataFrame, output: Path, *,
                      title: str) -> list[Path]:
    """``leaderboard.md``, ``leaderboard.csv`` and ``profile.png`` in ``output`` (atomically)."""
    from hybridsched.plots.profiles import plot_performance_profile

    shown = shown_leaderboard(board, missing="")
    kinds = table.drop_duplicates("instance_hash")["reference_kind"].value_counts()
    note = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
    count = table["instance_hash"].nunique()
    compared = objective(table)
    lines = "\n".join(f"- {line}" for line in legend(compared))
    markdown = (f"# hybridsched bench: {title}\n\n{count} instances, compared on the "
                f"{compared}; gaps to the references ({note}).\n\n{markdown_table(shown)}"
                f"\n\n{lines}\n")
    written = [output / "leaderboard.md", output / "leaderboard.csv", output / "profile.png"]
    atomic_write_text(written[0], markdown)
    atomic_write_text(written[1], board.to_csv(index=False))
    figure = plot_performance_profile(performance_profile(table, "objective"),
                                      title=title, measure=compared, instances=count)
    atomic_write_bytes(written[2], png_bytes(figure))
    return written


def _percent(value: float) -> str:
    if pd.isna(value):
        return "-"
    return "inf" if value == float("inf") else f"{100 * value:.2f}%"
