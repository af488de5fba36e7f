"""The progress bar of commands that execute runs (``campaign``, ``compare``).

One rich bar on standard error: runs done of all, running and failed counts,
the run in progress (in process), elapsed time and an ETA. ``--quiet`` (or a
standard error that is not a terminal) turns it off.
"""

from __future__ import annotations

from typing import Any

from hybridsched.cli import ui


class RunProgress:
    """A context manager whose :meth:`update` is an engine ``Progress`` callback."""

    def __init__(self, label: str = "runs") -> None:
        self.label = label
        self.progress: Any = None
        self.bar: Any = None

    def __enter__(self) -> RunProgress:
        if ui.progress_enabled():
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[running]} running, {task.fields[failed]} failed"),
                TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                console=ui.progress_console(), transient=True)
            self.progress.__enter__()
            self.bar = self.progress.add_task(self.label, total=None, running=0, failed=0)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(*exc)

    def start(self, total: int) -> None:
        """Set the number of runs to do."""
        if self.progress is not None:
            self.progress.update(self.bar, total=total)

    def update(self, counts: Any, current: str | None) -> None:
        """Show ``counts`` (done, running, failed) and the run in progress, if named."""
        if self.progress is None:
            return
        fields: dict[str, Any] = {"completed": counts.done, "total": counts.total,
                                  "running": counts.running, "failed": counts.failed}
        if current is not None:
            fields["description"] = current
        self.progress.update(self.bar, **fields)
