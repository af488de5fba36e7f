"""Availability traces in the Failure Trace Archive's tabular event-trace format.

An event trace has one event per line, whitespace- or tab-separated, with
(in the FTA's ``event_trace`` table) ``event_id, component_id, node_id,
platform_id, node_name, event_type, event_start_time, event_stop_time,
event_end_reason``. We read the node, the event type and the start and end
times from configurable columns (0-based; defaults: 2, 5, 6, 7), keep the
events whose type means "available" (default 1, the FTA's availability
events), and return each node's availability windows, sorted and merged.
Lines starting with ``#`` and blank lines are skipped; a file may be
gzip-compressed (recognised by its content, not its name). Every malformed
line is a one-line error naming the file and the line. An end time of ``-1``
means "still available at the end of the trace" (an infinite window).

**Times are rebased to the trace's start.** Real traces use epoch seconds
(about 1.2 x 10^9 for 2008); the earliest start of an availability event
becomes time 0 and is kept as :attr:`AvailabilityTrace.origin`. With
``max_span``, an event that ends (or starts) more than ``max_span`` seconds
after that origin is an error naming its line.

**Windows have a positive length.** Overlapping or touching windows of a
node are merged; a zero-length window (start = end) offers no time to run
anything and is dropped after merging; a node left without a window is not
a host of the trace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from hybridsched.errors import InputError
from hybridsched.io.swf import text_lines

#: Most nodes and events read from one trace.
MAX_EVENTS = 10**7


@dataclass(frozen=True)
class AvailabilityTrace:
    """Availability windows ``(start, end)`` of each node, sorted and disjoint."""

    path: str
    windows: dict[str, tuple[tuple[float, float], ...]]
    #: The time (in the file's own clock) that became 0.
    origin: float = 0.0

    @property
    def nodes(self) -> tuple[str, ...]:
        """Node ids in the order they first appear."""
        return tuple(self.windows)


def _number(text: str, path: str, line: int, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{path}:{line}: {what} must be a number, got {text!r}") from None
    if math.isnan(value) or math.isinf(value):
        raise InputError(f"{path}:{line}: {what} must be a finite number, got {text!r}")
    return value


def read_fta(path: str | Path, *, node_column: int = 2, type_column: int = 5,
             start_column: int = 6, end_column: int = 7, available_type: str = "1",
             max_span: float | None = None) -> AvailabilityTrace:
    """Read an FTA event trace (see the module docstring).

    Parameters
    ----------
    path:
        The trace (plain or gzip-compressed text).
    node_column, type_column, start_column, end_column:
        0-based columns of the node id, the event type and the times.
    available_type:
        The event type that means "available".
    max_span:
        Latest time accepted after rebasing (seconds; ``None``: no limit).

    Raises
    ------
    InputError
        ``FILE:LINE: reason`` for a line with too few columns, a time that is
        not a number, an end before its start, a time beyond ``max_span``;
        ``FILE: ...`` for a trace without any availability event of positive
        length.
    """
    columns = {"node": node_column, "type": type_column, "start": start_column,
               "end": end_column}
    for name, column in columns.items():
        if column < 0:
            raise InputError(f"{name} column: must be >= 0, got {column}")
    needed = max(columns.values()) + 1
    source = str(path)
    found: dict[str, list[tuple[float, float]]] = {}
    events = 0
    # The earliest start and the latest finite time, with their lines (checked once the
    # origin is known).
    first, last = (math.inf, 0), (-math.inf, 0)
    for number, raw in enumerate(text_lines(Path(path), "FTA"), start=1):
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise InputError(f"{source}:{number}: not UTF-8 text") from None
        if not text or text.startswith("#"):
            continue
        parts = text.split()
        if len(parts) < needed:
            raise InputError(f"{source}:{number}: expected at least {needed} columns, found "
                             f"{len(parts)}")
        events += 1
        if events > MAX_EVENTS:
            raise InputError(f"{source}:{number}: more than {MAX_EVENTS} events")
        if parts[type_column] != available_type:
            continue
        start = _number(parts[start_column], source, number, "the start time")
        end = _number(parts[end_column], source, number, "the end time")
        if end == -1:
            end = math.inf
        elif end < start:
            raise InputError(f"{source}:{number}: the event ends at {end:g}, before its "
                             f"start {start:g}")
        found.setdefault(parts[node_column], []).append((start, end))
        first = min(first, (start, number))
        last = max(last, (end if math.isfinite(end) else start, number))
    if not found:
        raise InputError(f"{source}: no availability event (type {available_type!r} in "
                         f"column {type_column})")
    origin = first[0]
    if max_span is not None and last[0] - origin > max_span:
        raise InputError(f"{source}:{last[1]}: the event reaches {last[0]:g}, "
                         f"{last[0] - origin:g} s after the trace's start ({origin:g}, line "
                         f"{first[1]}): more than the {max_span:g} s an instance may span")
    windows = {node: _merge([(a - origin, b - origin) for a, b in spans])
               for node, spans in found.items()}
    windows = {node: spans for node, spans in windows.items() if spans}
    if not windows:
        raise InputError(f"{source}: no availability event of positive length (type "
                         f"{available_type!r} in column {type_column})")
    return AvailabilityTrace(source, windows, origin)


def positive(spans: list[tuple[float, float]] | tuple[tuple[float, float], ...]
             ) -> tuple[tuple[float, float], ...]:
    """``spans`` without the windows of zero (or negative) length."""
    return tuple((a, b) for a, b in spans if b > a)


def _merge(spans: list[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    """Sorted, overlapping or touching windows merged; zero-length ones dropped."""
    merged: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return positive(merged)
