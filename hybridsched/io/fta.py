"""Availability traces in the Failure Trace Archive's tabular event-trace format.

An event trace has one event per line, whitespace- or tab-separated, with
(in the FTA's ``event_trace`` table) ``event_id, component_id, node_id,
platform_id, node_name, event_type, event_start_time, event_stop_time,
event_end_reason``. We read the node, the event type and the start and end
times from configurable columns (0-based; defaults: 2, 5, 6, 7), keep the
events whose type means "available" (default 1, the FTA's availability
events), and return each node's availability windows, sorted and merged.
Lines starting with ``#`` and blank lines are skipped; a file may be
gzip-compressed. Every malformed line is a one-line error naming the file
and the line. An end time of ``-1`` means "still available at the end of the
trace" (an infinite window).
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
             start_column: int = 6, end_column: int = 7, available_type: str = "1"
             ) -> AvailabilityTrace:
    """Read an FTA event trace (see the module docstring).

    Raises
    ------
    InputError
        ``FILE:LINE: reason`` for a line with too few columns, a time that is
        not a number, an end before its start; ``FILE: ...`` for a trace
        without any availability event.
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
    if not found:
        raise InputError(f"{source}: no availability event (type {available_type!r} in "
                         f"column {type_column})")
    return AvailabilityTrace(source, {node: _merge(spans) for node, spans in found.items()})


def _merge(spans: list[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    """Sorted, overlapping or touching windows merged."""
    merged: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return tuple(merged)
