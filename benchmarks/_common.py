"""Shared helpers of the benchmark scripts: data location, timing, machine info."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent


def median_time(func: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Median wall time of ``repeats`` calls, and the last call's return value."""
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def machine_line() -> str:
    """One line describing this machine and the versions that decide the figures."""
    from hybridsched.provenance import provenance

    versions = {k: v for k, v in provenance().items() if k not in ("python", "cores")}
    return (f"machine: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
            f"Python {platform.python_version()}; "
            + ", ".join(f"{name} {version}" for name, version in versions.items()))
