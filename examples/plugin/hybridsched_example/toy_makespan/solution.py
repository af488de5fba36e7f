"""Schedules of ``toy-makespan``: the machine of each task (frozen, plain Python)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Schedule:
    """The machine of each task (tasks on one machine run back to back)."""

    machine_of: tuple[int, ...]
    stated_makespan: float | None = None
