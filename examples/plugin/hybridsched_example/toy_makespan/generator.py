"""Seeded random ``toy-makespan`` instances: the same seed gives the same instance."""

from __future__ import annotations

import random

from hybridsched.errors import InputError
from hybridsched_example.toy_makespan.instance import Instance


def generate(tasks: int, machines: int, seed: int = 0) -> Instance:
    """``tasks`` integer durations drawn uniformly from 1..9, on ``machines`` machines."""
    if tasks < 1 or machines < 1:
        raise InputError(f"tasks and machines: must be >= 1, got {tasks} and {machines}")
    rng = random.Random(seed)
    durations = tuple(float(rng.randint(1, 9)) for _ in range(tasks))
    return Instance(f"toy-{tasks}x{machines}-s{seed}", machines, durations,
                    tuple(f"t{i}" for i in range(tasks)))
