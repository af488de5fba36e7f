"""Instances of ``toy-makespan`` (frozen, plain Python)."""

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
