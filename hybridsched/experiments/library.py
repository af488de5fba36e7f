"""The benchmark library: ``instances/<family>/`` files in tiers, each with its references.

A file belongs to a tier by its reference block's ``tier`` field
(``tiny``: brute-force checkable; ``small``: certified in seconds;
``medium``: certified in minutes, or best known with bounds; ``large``: best
known with bounds). The small tier (the bundled instances) sits in the
family's folder itself, so that ``instances/<family>/*.json`` stays the
bundled set; the other tiers sit in subfolders named after them
(``instances/gang/tiny/tiny-00.json``), the real-data recipes in ``real/``. The library is the
folder in the environment variable :data:`LIBRARY_VARIABLE`, else the checkout's
``instances/`` when the package runs from a checkout, else the copy an
installed wheel carries in ``hybridsched/bundled/`` (:func:`shipped_folder`;
``examples/`` likewise).

This module reads only JSON headers: it imports no solver and no pandas.
"""

from __future__ import annotations

import os
from importlib import import_module, resources
from pathlib import Path
from typing import Any

from hybridsched.errors import InputError
from hybridsched.io.jsonio import read_json

#: Tiers, from the smallest.
TIERS = ("tiny", "small", "medium", "large")

#: The tier of real-data sets: recipes (``real-*.json``) that build instances from the
#: shared data, which is never committed (:mod:`~hybridsched.experiments.real_sets`).
REAL = "real"

#: Environment variable naming another library folder.
LIBRARY_VARIABLE = "HYBRIDSCHED_INSTANCES"

#: Where a wheel carries ``instances/`` and ``examples/`` inside the package (setup.py).
BUNDLED = "bundled"


#: Where each built-in family's ``tiny_instance(seed)`` lives: random tiny instances, a
#: third of them awkward (near-tolerance numbers, ties, exact fits, tight limits, DAGs),
#: that both exact backends prove in well under a second; the library's tiny tier, the
#: certify property test and ``benchmarks/bench_certify.py`` draw from them.
TINY_GENERATORS = {
    "hybrid-deadline": "hybridsched.hybrid_deadline.generator",
    "bot-sites": "hybridsched.bot_sites.generator",
    "gang": "hybridsched.gang.generator",
    "malleable": "hybridsched.malleable.generator",
    "pull": "hybridsched.pull.generator",
}


def tiny_instance(family: str, seed: int) -> Any:
    """``tiny_instance(seed)`` of a built-in family (:data:`TINY_GENERATORS`)."""
    if family not in TINY_GENERATORS:
        raise InputError(f"family {family!r} has no tiny instance generator "
                         f"(built-in families: {', '.join(TINY_GENERATORS)})")
    return import_module(TINY_GENERATORS[family]).tiny_instance(seed)


def shipped_folder(name: str) -> Path | None:
    """The ``instances`` or ``examples`` folder that came with the package, if any.

    The checkout's own folder when the package runs from a checkout (an
    editable install, ``PYTHONPATH``), so that edits there count; else the
    copy in the installed package (``hybridsched/bundled/<name>``).
    """
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / name).is_dir():
        return checkout / name
    bundled = resources.files("hybridsched").joinpath(BUNDLED, name)
    # Files are handed to users and solvers by path: a package in a zip has none to give.
    return Path(str(bundled)) if isinstance(bundled, Path) and bundled.is_dir() else None


def library_root(root: str | Path | None = None) -> Path:
    """The library folder: ``root``, else ``$HYBRIDSCHED_INSTANCES``, else the shipped one."""
    chosen = root or os.environ.get(LIBRARY_VARIABLE)
    folder = Path(chosen) if chosen else shipped_folder("instances")
    if folder is None:
        raise InputError(f"no benchmark library: this installation has neither a checkout's "
                         f"instances/ nor a bundled copy (set {LIBRARY_VARIABLE} to a "
                         f"library folder)")
    if not folder.is_dir():
        where = "--library" if root else LIBRARY_VARIABLE
        raise InputError(f"{folder}: no benchmark library there (from {where}; set "
                         f"{LIBRARY_VARIABLE} or pass --library to a checkout's instances/)")
    return folder


def examples_root() -> Path:
    """The ``examples`` folder: the checkout's, else the installed package's copy."""
    folder = shipped_folder("examples")
    if folder is None:
        raise InputError("no examples folder: this installation has neither a checkout's "
                         "examples/ nor a bundled copy")
    return folder


def tier_of(path: Path) -> str | None:
    """The tier recorded in the reference block of the instance file ``path``."""
    document = read_json(path)
    reference = document.get("reference") if isinstance(document, dict) else None
    tier = reference.get("tier") if isinstance(reference, dict) else None
    return tier if isinstance(tier, str) else None


def instance_files(folder: Path) -> list[Path]:
    """The instance files of a family's library folder, every tier (recipes left out)."""
    return sorted([*folder.glob("*.json"),
                   *(p for p in folder.glob("*/*.json") if p.parent.name != REAL)])


def tier_files(family: str, tier: str, root: str | Path | None = None) -> list[Path]:
    """The instance files of ``family`` in ``tier``, sorted by name (one-line error if none)."""
    if tier not in TIERS:
        raise InputError(f"--tier: must be one of {', '.join((*TIERS, REAL))}, got {tier!r}")
    folder = library_root(root) / family
    if not folder.is_dir():
        raise InputError(f"{folder}: the library has no folder for family {family!r}")
    tiers = {path: tier_of(path) for path in instance_files(folder)}
    chosen = [path for path, found in tiers.items() if found == tier]
    if not chosen:
        present = sorted({t for t in tiers.values() if t}, key=TIERS.index) or ["none"]
        raise InputError(f"{folder}: no {family} instance of tier {tier!r} "
                         f"(tiers there: {', '.join(present)})")
    return chosen
