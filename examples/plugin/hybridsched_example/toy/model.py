"""Instances and schedules of ``toy-makespan`` (frozen, plain Python)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Instance:
    """``durations[t]`` of each task, run on one of ``machines`` identical machines."""

    name: str
    machines: int
    durations: tuple[float, ...]
    task_ids: tuple[str, ...]
    reference: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Schedule:
    """The machine of each task (tasks on one machine run back to back)."""

    machine_of: tuple[int, ...]
    stated_makespan: float | None = None
