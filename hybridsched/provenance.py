"""What made a result: the versions of hybridsched and of the libraries that decide it.

A fresh install resolves whatever versions are newest that day, and a solver
release can change a result (a wrong optimum, a different tie-break, another
status). So every result file, campaign store and report records
:func:`provenance`: the package's own :func:`code_version`, the versions of
the solver and numerical libraries, Python's, and the machine's core count
(run times depend on it). :func:`changes` says what differs between two
records, for the warning given when a campaign resumes with other versions.

Versions are read from the installed distributions' metadata, so nothing
heavy is imported to learn them.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

#: Distributions whose version can change a result or its run time, in report order.
LIBRARIES = ("highspy", "pyomo", "pulp", "ortools", "numpy", "pandas", "pyarrow", "simpy",
             "networkx", "pydantic", "dask", "distributed")

#: Keys of a provenance record that are not library versions.
MACHINE_KEYS = ("python", "cores")


@functools.cache
def code_version() -> str:
    """The package version plus a hash of its source files.

    Two processes with the same value run the same code, so a stored row
    stays valid for it; any edit to the package changes the value.
    """
    from hybridsched.version import __version__

    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def cores() -> int:
    """Cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@functools.cache
def _libraries() -> tuple[tuple[str, str], ...]:
    found = ((name, _version(name)) for name in LIBRARIES)
    return tuple((name, version) for name, version in found if version is not None)


def provenance() -> dict[str, Any]:
    """``{"hybridsched": ..., <library>: <version>, ..., "python": ..., "cores": n}``.

    Libraries that are not installed (the optional OR-Tools) are left out.
    """
    return {"hybridsched": code_version(), **dict(_libraries()),
            "python": platform.python_version(), "cores": cores()}


def changes(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What differs between two provenance records, one ``"name old -> new"`` each.

    A library present in one record only reads as ``absent`` in the other.
    """
    names = [*dict.fromkeys([*before, *now])]
    return [f"{name} {before.get(name, 'absent')} -> {now.get(name, 'absent')}"
            for name in names if before.get(name) != now.get(name)]
