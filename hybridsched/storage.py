"""Loading and saving instance and solution files of any family.

The family is read from the document's ``family`` field, so callers never
need to know it in advance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hybridsched.errors import InputError
from hybridsched.families import Family, get_family
from hybridsched.io.jsonio import read_json, write_json


def _family_of(document: Any, source: str) -> Family:
    if not isinstance(document, dict):
        raise InputError(f"{source}: expected a JSON object at the top level")
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


def load_solution(path: str | Path, family: Family, instance: Any) -> Any:
    """Read and validate a solution file for ``instance``."""
    document = read_json(path)
    found = _family_of(document, str(path))
    if found.name != family.name:
        raise InputError(
            f"{path}: field family: solution is for {found.name!r}, instance is {family.name!r}"
        )
    return family.solution_from_dict(document, instance, str(path))


def save_solution(path: str | Path, family: Family, instance: Any, solution: Any,
                  **summary: Any) -> None:
    """Write ``solution`` as JSON, with ``summary`` fields (method, status, ...)."""
    write_json(path, family.solution_to_dict(solution, instance, **summary))
