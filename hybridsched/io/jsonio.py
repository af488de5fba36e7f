"""Reading and writing JSON documents with one-line, located error messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from hybridsched.errors import InputError

M = TypeVar("M", bound=BaseModel)

#: Version of every JSON document this package writes.
FORMAT_VERSION = 1


def read_text(path: str | Path) -> str:
    """Read a UTF-8 text file, raising a one-line :class:`InputError` naming it."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc.__class__.__name__}: {exc})") from None


def read_json(path: str | Path) -> Any:
    """Parse the JSON file at ``path``.

    Raises
    ------
    InputError
        If the file is missing or unreadable, or not valid JSON (with line
        and column).
    """
    path = Path(path)
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: malformed JSON ({exc.msg})") from None


def write_json(path: str | Path, document: Any) -> None:
    """Write ``document`` as indented JSON (``-`` writes to standard output)."""
    text = json.dumps(document, indent=1, allow_nan=False) + "\n"
    if str(path) == "-":
        print(text, end="")
    else:
        Path(path).write_text(text, encoding="utf-8")


def describe_validation_error(exc: ValidationError, source: str) -> str:
    """One line naming ``source``, the first failing field path and the reason."""
    first = exc.errors()[0]
    location = ".".join(str(part) for part in first["loc"]) or "(document)"
    more = len(exc.errors()) - 1
    suffix = f" (and {more} more problem{'s' * (more > 1)})" if more else ""
    return f"{source}: field {location}: {first['msg']}{suffix}"


def parse_model(model: type[M], document: Any, source: str) -> M:
    """Validate ``document`` against ``model``, raising a located :class:`InputError`."""
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, source)) from None
