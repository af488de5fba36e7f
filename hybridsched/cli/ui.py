"""What the command line shows: results on standard output, the rest on standard error.

* Results (tables, lists, JSON) go to standard output. On a terminal they are
  drawn with rich; piped or redirected, they are plain full-width lines that
  are never wrapped or cut at 80 columns.
* Progress (live status lines, bars, spinners) goes to standard error, only
  when it is a terminal and ``--quiet`` is not given; it is transient.
* Notes (``wrote FILE``) go to standard error unless ``--quiet``; warnings
  and errors always do, one line each.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from hybridsched.stdio import program_stderr, program_stdout

#: Width of plain (non-terminal) output: wide enough that nothing is ever wrapped.
PLAIN_WIDTH = 1 << 16


@dataclass
class Settings:
    """Global options of one command-line run, and whether Ctrl-C was reported."""

    quiet: bool = False
    verbose: bool = False
    interrupt_reported: bool = False


SETTINGS = Settings()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def stdout_is_terminal() -> bool:
    """Whether standard output is a terminal (else: plain, full-width output)."""
    return _isatty(program_stdout())


def progress_enabled() -> bool:
    """Whether progress displays are drawn (standard error is a terminal, no ``--quiet``)."""
    return not SETTINGS.quiet and _isatty(program_stderr())


def out_console() -> Console:
    """A console on standard output: rich on a terminal, plain and unbounded otherwise."""
    if stdout_is_terminal():
        return Console(file=program_stdout(), highlight=False)
    return Console(file=program_stdout(), width=PLAIN_WIDTH, color_system=None,
                   highlight=False, soft_wrap=True, force_terminal=False)


def progress_console() -> Console:
    """A console for progress displays on the terminal's standard error.

    It writes to a duplicate of the original descriptor, so that displays
    stay visible while a solver captures descriptors 1 and 2.
    """
    from hybridsched.progress import terminal_stderr

    return Console(file=terminal_stderr(), highlight=False)


def new_table(title: str | Text | None = None, *, show_header: bool = True) -> Table:
    """A table drawn with box lines on a terminal and as plain columns otherwise."""
    if stdout_is_terminal():
        return Table(title=title, show_header=show_header)
    return Table(title=title, show_header=show_header, box=None, pad_edge=False,
                 title_justify="left", title_style="", header_style="")


def print_table(table: Table) -> None:
    """Print ``table`` on standard output."""
    out_console().print(table)


def print_legend(lines: Iterable[str]) -> None:
    """Lines under a table that say what its columns mean (abbreviations, units, rules)."""
    for line in lines:
        echo(line)


def print_key_values(title: str, rows: Iterable[tuple[str, str, str]]) -> None:
    """A header-less table of ``(key, value, meaning)`` rows; the meaning column only when used.

    Keys are those of the ``--json`` document, so that a value can be found
    in either; the meaning names the number in words, with its unit.
    """
    rows = list(rows)
    table = new_table(title, show_header=False)
    table.add_column("what")
    table.add_column("value")
    meanings = any(meaning for _, _, meaning in rows)
    if meanings:
        table.add_column("meaning")
    for key, value, meaning in rows:
        table.add_row(key, value, *([meaning] if meanings else []))
    print_table(table)


def metric_rows(family: Any, metrics: dict[str, Any], indent: str = ""
                ) -> list[tuple[str, str, str]]:
    """``(key, value, meaning)`` rows of a result's metrics, named from ``family``'s measures."""
    rows = []
    for key, value in metrics.items():
        if isinstance(value, dict):  # a bound's proof: data for --json, not a cell
            value = "(proof of the bound: see --json or 'hybridsched bound')"
        measure = family.measure(key)
        rows.append((f"{indent}{key}", fmt(value), measure.label if measure else ""))
    return rows


def result_rows(family: Any, summary: dict[str, Any], objective: str | None = None
                ) -> list[tuple[str, str, str]]:
    """The rows of a result's summary (``Result.summary()``) for :func:`print_key_values`.

    Times follow :mod:`hybridsched.io.display`; the objective, its bound and
    every metric are named with their unit from ``family``'s measures (the
    chosen ``objective``, else the one the method says it ``optimised``).
    The message, a sentence, is left to the caller.
    """
    from hybridsched.io.display import seconds

    metrics = summary.get("metrics") or {}
    optimised = metrics.get("optimised")  # an objective's key, or words ("cost, then ...")
    chosen = objective or (optimised if optimised in family.objectives else None)
    label = family.objective_label(chosen)
    meanings = {"objective": label, "bound": f"proven lower bound on the {label}"}
    rows = []
    for key, value in summary.items():
        if key == "metrics":
            rows += metric_rows(family, value, indent="  ")
        elif key != "message" and value not in (None, ""):
            measure = family.measure(key)
            text = seconds(value) if key.endswith("_s") else fmt(value, gap=key == "gap")
            rows.append((key, text, meanings.get(key) or (measure.label if measure else "")))
    return rows


def print_frame(title: str, frame: Any) -> None:
    """Print a pandas DataFrame as a table (index included when it is named)."""
    table = new_table(title)
    keep_index = any(name is not None for name in frame.index.names)
    columns = [*(str(n) for n in frame.index.names)] if keep_index else []
    for column in [*columns, *(str(c) for c in frame.columns)]:
        table.add_column(column)
    for index, row in zip(frame.index, frame.itertuples(index=False), strict=True):
        keys = (list(index) if isinstance(index, tuple) else [index]) if keep_index else []
        table.add_row(*(fmt(v) for v in [*keys, *row]))
    print_table(table)


def echo(line: str = "", end: str = "\n") -> None:
    """Print one plain line (or text) on standard output (never wrapped, no markup)."""
    print(line, end=end, file=program_stdout())


def _stderr_line(line: str) -> None:
    stream = program_stderr()
    # Standard error closed or unwritable (cmd 2>&-): the line is lost, the exit code
    # still tells.
    with contextlib.suppress(OSError, ValueError):
        stream.write(" ".join(line.split("\n")) + "\n")
        stream.flush()


def note(message: str) -> None:
    """One informational line on standard error (silenced by ``--quiet``)."""
    if not SETTINGS.quiet:
        _stderr_line(message)


def warn(message: str) -> None:
    """One warning line on standard error (always shown)."""
    _stderr_line(f"warning: {message}")


def error(message: str) -> None:
    """One error line on standard error (always shown)."""
    _stderr_line(f"error: {message}")


def report_interrupt(message: str = "interrupted") -> None:
    """The one line of an interrupted command (later calls in the same run say nothing)."""
    if not SETTINGS.interrupt_reported:
        SETTINGS.interrupt_reported = True
        error(message)


def fmt(value: Any, gap: bool = False, digits: int | None = None) -> str:
    """A table cell: ``-`` for missing values, gaps in percent, floats in 6 digits."""
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    if gap and isinstance(value, float):
        return "inf" if value == float("inf") else f"{100 * value:.2f}%"
    if digits is not None and isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


@contextlib.contextmanager
def spinner(text: str) -> Iterator[Callable[[str], None]]:
    """A transient spinner with ``text``; yields ``update(text)`` (no-op when disabled)."""
    if not progress_enabled():
        yield lambda _text: None
        return
    with progress_console().status(text) as status:
        yield lambda new: status.update(new)


class SolverStatus:
    """The live line of an exact solve: elapsed time, incumbent, bound and gap.

    ``update`` is the reporter given to :func:`hybridsched.progress.solver_progress`;
    the line is redrawn by rich from :meth:`__rich__`, so the elapsed time
    keeps moving while the model is built, before the solver reports.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.started = time.perf_counter()
        self.incumbent: float | None = None
        self.bound: float | None = None

    def update(self, elapsed: float, incumbent: float | None, bound: float | None) -> None:
        """Record the solver's latest incumbent and bound."""
        if incumbent is not None:
            self.incumbent = incumbent
        if bound is not None:
            self.bound = bound

    def line(self) -> str:
        """The status line as plain text."""
        parts = [f"{self.label}: {time.perf_counter() - self.started:6.1f} s"]
        parts.append(f"incumbent {fmt(self.incumbent)}")
        parts.append(f"bound {fmt(self.bound)}")
        if self.incumbent is not None and self.bound is not None and self.incumbent != 0:
            gap = abs(self.incumbent - self.bound) / abs(self.incumbent)
            parts.append(f"gap {fmt(gap, gap=True)}")
        return ", ".join(parts)

    def __rich__(self) -> Text:
        """Rendered by rich at each refresh."""
        return Text(self.line())


@contextlib.contextmanager
def solver_status(label: str) -> Iterator[SolverStatus]:
    """Show a live :class:`SolverStatus` while exact solves inside the block report."""
    from hybridsched.progress import solver_progress

    status = SolverStatus(label)
    if not progress_enabled():
        yield status
        return
    from rich.live import Live

    with Live(status, console=progress_console(), transient=True, refresh_per_second=4,
              redirect_stdout=False, redirect_stderr=False), solver_progress(status.update):
        yield status
