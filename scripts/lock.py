"""Write ``constraints.txt``: the versions of hybridsched's dependencies installed here.

Run it after the test suite passed (``pytest``, and ``pytest -m slow`` when you
can), so that the file holds a set the suite passed with; the README's install
command uses it, so a fresh machine gets that tested set rather than whatever
is newest that day. ``pyproject.toml`` keeps the lower bounds.

    python scripts/lock.py            # writes constraints.txt beside pyproject.toml

Only the dependency closure of ``hybridsched[dev,docs,notebooks]`` is written (the
extras the README installs with this file; not whatever else this environment
holds), with environment markers evaluated here.
"""

from __future__ import annotations

import platform
import sys
from datetime import date
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def closure(root: str, extras: set[str]) -> dict[str, str]:
    """``{name: version}`` of every installed distribution ``root[extras]`` needs."""
    found: dict[str, str] = {}
    todo = [(root, frozenset(extras))]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, wanted = todo.pop()
        if (name, wanted) in seen:
            continue
        seen.add((name, wanted))
        distribution = metadata.distribution(name)
        if canonicalize_name(name) != canonicalize_name(root):
            found[canonicalize_name(name)] = distribution.version
        for text in distribution.requires or []:
            requirement = Requirement(text)
            markers = [{"extra": extra} for extra in wanted] or [{"extra": ""}]
            if requirement.marker and not any(requirement.marker.evaluate(m)
                                              for m in markers):
                continue
            todo.append((requirement.name, frozenset(requirement.extras)))
    return found


def main() -> None:
    """Write the constraints file."""
    versions = closure("hybridsched", {"dev", "docs", "notebooks"})
    lines = [
        "# The versions the test suite passed with (the README's install command uses them).",
        f"# Written by 'python scripts/lock.py' on {date.today()}, "
        f"Python {platform.python_version()}, {sys.platform}.",
        "# Newer versions: 'bash scripts/test-latest.sh' runs the suite against them.",
        *(f"{name}=={version}" for name, version in sorted(versions.items())),
    ]
    (ROOT / "constraints.txt").write_text("\n".join(lines) + "\n")
    print(f"wrote {ROOT / 'constraints.txt'}: {len(versions)} distributions")


if __name__ == "__main__":
    main()
