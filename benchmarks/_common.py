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


class Recorder:
    """What a benchmark printed, for ``--output FILE.json``: its settings, rows per section, and
    the machine (cores, load averages before and after, versions).

    ``scripts/publish_numbers.py`` renders the docs' tables from these files, so that a
    published figure is the stored one. Without a path nothing is written.
    """

    def __init__(self, path: str | None, **settings: object) -> None:
        self.path = path
        self.data: dict[str, object] = dict(settings)
        self.load_before = os.getloadavg()[0]

    def add(self, section: str = "rows", **row: object) -> None:
        """One row of ``section`` (a list of dicts in the file)."""
        self.data.setdefault(section, []).append(row)  # type: ignore[union-attr]

    def write(self) -> None:
        """Write the file (strict JSON), with the machine it ran on."""
        if self.path is None:
            return
        import json

        from hybridsched.provenance import provenance

        self.data["machine"] = {
            "cores": os.cpu_count(), "processor": platform.processor() or platform.machine(),
            "load_before": round(self.load_before, 2),
            "load_after": round(os.getloadavg()[0], 2), "versions": provenance()}
        out = Path(self.path)
        out.parent.mkdir(parents=True, exist_ok=True)
        temporary = out.with_name(out.name + ".part")
        # NumPy scalars (a count summed from comparisons) are written as the Python values.
        text = json.dumps(self.data, indent=1, allow_nan=False, default=_python_scalar)
        temporary.write_text(text + "\n")
        temporary.replace(out)


def _python_scalar(value: object) -> object:
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
