"""A lower bound on the makespan that every schedule the checker accepts respects."""

from __future__ import annotations

from hybridsched_example.toy_makespan.instance import Instance


def lower_bound(instance: Instance) -> float:
    """The longest task, or the total work shared evenly, whichever is larger."""
    return max(max(instance.durations), sum(instance.durations) / instance.machines)
