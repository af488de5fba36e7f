"""Loading and saving instance and solution files of any family.

The family is read from the document's ``family`` field, so callers never
need to know it in advance.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hybridsched.catalogue import get_family
from hybridsched.errors import InputError
from hybridsched.family import Family
from hybridsched.io.jsonio import read_json, write_json

#: What the ``format`` field of each kind of document says.
_FORMATS = {"an instance": "hybridsched-instance", "a solution": "hybridsched-solution"}


def _family_of(document: Any, source: str, kind: str = "an instance") -> Family:
    if not isinstance(document, dict):
        raise InputError(f"{source}: expected a JSON object at the top level")
    stated = document.get("format")
    for other, fmt in _FORMATS.items():
        if other != kind and stated == fmt:
            raise InputError(f"{source}: field format: this is {other} file, not {kind} "
                             "file (arguments swapped?)")
    name = document.get("family")
    if not isinstance(name, str):
        raise InputError(f"{source}: field family: missing (which problem family is this?)")
    try:
        return get_family(name)
    except InputError as exc:
        raise InputError(f"{source}: field family: {exc}") from None


def load_instance(path: str | Path) -> tuple[Family, Any]:
    """Read and validate an instance file; return its family and the instance."""
    document = read_json(path)
    family = _family_of(document, str(path))
    return family, family.instance_from_dict(document, str(path))


def save_instance(path: str | Path, family: Family, instance: Any) -> None:
    """Write ``instance`` as JSON."""
    write_json(path, family.instance_to_dict(instance))


def load_solution(path: str | Path, family: Family, instance: Any, *,
                  warn: Callable[[str], None] | None = None) -> Any:
    """Read and validate a solution file for ``instance``.

    Parameters
    ----------
    path, family, instance:
        The solution file, and the family and instance it must fit.
    warn:
        Called with a one-line warning when the file names another instance
        (its ``instance`` field differs from ``instance.name``): the schedule
        may still fit, so this is not an error.
    """
    document = read_json(path)
    found = _family_of(document, str(path), "a solution")
    if found.name != family.name:
        raise InputError(
            f"{path}: field family: solution is for {found.name!r}, instance is {family.name!r}"
        )
    stated = document.get("instance")
    name = getattr(instance, "name", None)
    if warn is not None and isinstance(stated, str) and name is not None and stated != name:
        warn(f"{path}: field instance: the solution names instance {stated!r}, "
             f"not {name!r}")
    return family.solution_from_dict(document, instance, str(path))


def save_solution(path: str | Path, family: Family, instance: Any, solution: Any,
                  **summary: Any) -> None:
    """Write ``solution`` as JSON, with ``summary`` fields (method, status, ...; not ``None``).

    The file also records what made it (``produced_by``: the versions of
    hybridsched and of the solver libraries, and the core count; see
    :mod:`hybridsched.provenance`).
    """
    from hybridsched.provenance import provenance

    stated = {key: value for key, value in summary.items() if value is not None}
    write_json(path, family.solution_to_dict(solution, instance, **stated,
                                             produced_by=provenance()))
