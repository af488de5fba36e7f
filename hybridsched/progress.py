"""Progress reports from deep inside a method, without threading callbacks through every call.

The command line wraps a long call in :func:`solver_progress`; the HiGHS
driver (:mod:`hybridsched.models.solvers.highs`) reports to whatever reporter is
active. Library users who never ask for progress pay nothing.

HiGHS runs inside Pyomo's output capture, which redirects the process's
standard error *file descriptor* while it solves, so a reporter that draws on
the terminal must write to :func:`terminal_stderr` (a duplicate of the
original descriptor), not to ``sys.stderr``.

Example
-------
>>> from hybridsched.progress import solver_progress
>>> seen = []
>>> with solver_progress(lambda elapsed, incumbent, bound: seen.append(bound)):
...     pass  # run_method(..., "exact", ...) here
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TextIO

#: ``reporter(elapsed_s, incumbent, bound)``; incumbent/bound are ``None`` until known.
SolverReporter = Callable[[float, float | None, float | None], None]

_reporter: ContextVar[SolverReporter | None] = ContextVar("hybridsched_solver_reporter",
                                                            default=None)
_statistics: ContextVar[dict[str, float] | None] = ContextVar("hybridsched_solver_statistics",
                                                              default=None)
_stderr_copy: TextIO | None = None


@contextlib.contextmanager
def solver_progress(reporter: SolverReporter | None) -> Iterator[None]:
    """Make ``reporter`` receive the solver's progress within the ``with`` block."""
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


def current_reporter() -> SolverReporter | None:
    """The active reporter, or ``None``."""
    return _reporter.get()


@contextlib.contextmanager
def solver_statistics() -> Iterator[dict[str, float]]:
    """Collect the solver's counters (solves, nodes, iterations, seconds) within the block.

    The yielded dict fills in as solvers report through
    :func:`record_solver_statistics`; it stays empty for heuristics.
    """
    collected: dict[str, float] = {}
    token = _statistics.set(collected)
    try:
        yield collected
    finally:
        _statistics.reset(token)


def record_solver_statistics(**counts: float) -> None:
    """Add ``counts`` to the active :func:`solver_statistics` collector (no-op without one)."""
    collected = _statistics.get()
    if collected is not None:
        for name, value in counts.items():
            collected[name] = collected.get(name, 0) + value


def terminal_stderr() -> TextIO:
    """A text stream on a duplicate of the original standard error descriptor.

    Writes to it reach the terminal even while a solver captures descriptors 1
    and 2. Falls back to ``sys.stderr`` when the descriptor cannot be
    duplicated (e.g. under pytest's capture).
    """
    global _stderr_copy
    if _stderr_copy is None:
        try:
            _stderr_copy = os.fdopen(os.dup(sys.__stderr__.fileno()), "w", buffering=1)
        except (AttributeError, OSError, ValueError):
            return sys.stderr
    return _stderr_copy
