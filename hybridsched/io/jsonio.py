"""Reading and writing JSON documents: strict in both directions, errors on one line.

Reading refuses what Python's :mod:`json` would silently accept: duplicate
keys in an object (the last one would win), ``NaN``/``Infinity`` constants,
numbers that overflow a double (``1e400`` would become ``inf``), integers of
hundreds of digits, and documents nested deeper than
:data:`~hybridsched.io.documents.MAX_JSON_DEPTH`. Every error is one line
naming the file (and the line and column, or the field path).

Writing goes through one strict encoder, :func:`dumps_strict`: non-finite
floats become ``null`` (strict JSON has no ``Infinity``), numpy scalars and
arrays become plain numbers and lists; files are replaced atomically.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path, PurePath
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from hybridsched.errors import InputError
from hybridsched.io.documents import MAX_INPUT_BYTES, MAX_JSON_DEPTH
from hybridsched.io.inputs import unreadable
from hybridsched.io.outputs import atomic_write_text
from hybridsched.stdio import program_stdout

M = TypeVar("M", bound=BaseModel)

#: Version of every JSON document this package writes.
FORMAT_VERSION = 1

#: Longest integer literal accepted in a JSON document (digits).
MAX_INT_DIGITS = 30


def read_bytes(path: str | Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """Read at most ``limit`` bytes of ``path``, raising a one-line :class:`InputError`.

    Files larger than ``limit`` (or endless streams such as ``/dev/zero``)
    are refused rather than read into memory.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise unreadable(path, exc) from None
    if len(data) > limit:
        raise InputError(f"{path}: larger than {limit} bytes, the most this reader accepts")
    return data


def read_text(path: str | Path) -> str:
    """Read a UTF-8 text file (a byte-order mark is allowed), one-line errors naming it."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}: "
                         f"{exc.reason})") from None


class _RejectedTokenError(Exception):
    """A JSON token the strict reader refuses (raised from the decoder hooks)."""


class _DuplicateKeys(dict):
    """An object that had a duplicate key; found (with its path) after parsing."""

    duplicate: str = ""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            marked = _DuplicateKeys(pairs)
            marked.duplicate = key
            return marked
        obj[key] = value
    return obj


def _constant(name: str) -> Any:
    raise _RejectedTokenError(f"{name} is not a JSON number (strict JSON has no NaN or Infinity)")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _RejectedTokenError(f"number {text} is out of range (larger than a double can hold)")
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _RejectedTokenError(f"integer {text[:20]}... has more than {MAX_INT_DIGITS} digits")
    return int(text)


def _check_structure(document: Any, source: str) -> None:
    """Reject duplicate keys and excessive nesting, naming the field path.

    Iterative (no recursion limit); only containers are visited one by one,
    so long arrays of numbers cost one ``isinstance`` per entry.
    """
    # Each entry: (container, depth, link), where link = (parent link, key) rebuilds the path.
    stack: list[tuple[Any, int, Any]] = []
    if isinstance(document, dict | list):
        stack.append((document, 0, None))

    def path(link: Any) -> str:
        parts: list[str] = []
        while link is not None:
            link, key = link
            parts.append(str(key))
        return ".".join(reversed(parts)) or "(top level)"

    while stack:
        node, depth, link = stack.pop()
        if depth >= MAX_JSON_DEPTH:
            raise InputError(f"{source}: field {path(link)[:60]}...: nested more than "
                             f"{MAX_JSON_DEPTH} levels deep")
        if isinstance(node, _DuplicateKeys):
            raise InputError(f"{source}: field {path(link)}: duplicate key {node.duplicate!r}")
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            if isinstance(value, dict | list):
                stack.append((value, depth + 1, (link, key)))


def loads_strict(text: str, source: str) -> Any:
    """Parse JSON ``text`` strictly (see the module docstring); errors name ``source``."""
    try:
        document = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant,
                              parse_float=_float, parse_int=_int)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}:{exc.lineno}:{exc.colno}: malformed JSON "
                         f"({exc.msg})") from None
    except _RejectedTokenError as exc:
        raise InputError(f"{source}: malformed JSON ({exc})") from None
    except RecursionError:
        raise InputError(f"{source}: malformed JSON (nested more than {MAX_JSON_DEPTH} "
                         "levels deep)") from None
    _check_structure(document, source)
    return document


def read_json(path: str | Path) -> Any:
    """Parse the JSON file at ``path`` strictly.

    Raises
    ------
    InputError
        If the file is missing, unreadable or too large, not valid JSON (with
        line and column), or breaks a rule of :func:`loads_strict`.
    """
    return loads_strict(read_text(path), str(path))


def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON types; non-finite floats become ``None``.

    Handles dicts, lists and tuples, and through :func:`_plain` numpy scalars
    and arrays, enums, sets, paths and dataclasses; anything else unknown
    raises ``TypeError`` (a bug, not bad input).
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return to_jsonable(_plain(value))


def _plain(value: Any) -> Any:
    """One value JSON has no type for, as one it has (the one table of conversions).

    Also the C encoder's ``default`` hook, which it calls for these only.
    """
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, set | frozenset):
        return list(value)
    if isinstance(value, PurePath):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # numpy scalar or array
        return value.tolist()
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def dumps_strict(document: Any, *, indent: int | None = None) -> str:
    """Strict JSON text of ``document`` (the one encoder for every JSON output).

    With ``indent``, the first :data:`LAID_OUT_LEVELS` levels are laid out
    one item per line and anything deeper stays on its item's line: a
    schedule of 10,000 jobs is 10,000 readable lines, written by the C
    encoder (Python's :mod:`json` encodes indented text in pure Python,
    seconds for such a schedule).

    >>> dumps_strict({"gap": float("inf"), "n": 3})
    '{"gap": null, "n": 3}'
    >>> print(dumps_strict({"jobs": [{"id": 1, "vms": [0, 1]}], "n": 1}, indent=1))
    {
     "jobs": [
      {"id": 1, "vms": [0, 1]}
     ],
     "n": 1
    }
    """
    if indent is None:
        return _encoded(document)
    return _laid_out(document, " " * indent, LAID_OUT_LEVELS, "")


#: Levels of an indented document laid out one item per line (see :func:`dumps_strict`).
LAID_OUT_LEVELS = 2


def _encoded(value: Any) -> str:
    """Compact strict JSON of ``value``, by the C encoder where it can take it."""
    try:
        if _C_ENCODER is None:
            return json.dumps(value, allow_nan=False, default=_plain)
        return "".join(_C_ENCODER(value, 0))
    except (ValueError, TypeError):
        # A non-finite float (null in strict JSON), a key json does not take, or an
        # unknown type: the walk converts what it can and names what it cannot.
        return json.dumps(to_jsonable(value), allow_nan=False)


def _c_encoder() -> Callable[[Any, int], Any] | None:
    """:mod:`json`'s C encoder made once, as ``json.dumps(allow_nan=False)`` makes it per call.

    Making it per item costs more than encoding a schedule's small records.
    ``None`` where the interpreter has no C encoder (then ``json.dumps``).
    """
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    return make(None, _plain, json.encoder.encode_basestring_ascii, None,
                ": ", ", ", False, False, False)


_C_ENCODER = _c_encoder()


def _laid_out(value: Any, step: str, levels: int, margin: str) -> str:
    """``value`` with its first ``levels`` levels one item per line, ``margin`` deep."""
    container_like = isinstance(value, Mapping) or (dataclasses.is_dataclass(value)
                                                    and not isinstance(value, type))
    if levels > 0 and container_like and not isinstance(value, dict):
        value = _plain(value)
    if levels == 0 or not isinstance(value, dict | list | tuple) or not value:
        return _encoded(value)
    inner = margin + step
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(str(k))}: {_laid_out(v, step, levels - 1, inner)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{margin}}}"
    items = [inner + _laid_out(v, step, levels - 1, inner) for v in value]
    return "[\n" + ",\n".join(items) + f"\n{margin}]"


def write_json(path: str | Path, document: Any) -> None:
    """Write ``document`` as indented strict JSON, atomically (``-``: standard output)."""
    text = dumps_strict(document, indent=1) + "\n"
    if str(path) == "-":
        program_stdout().write(text)
    else:
        atomic_write_text(path, text)


def describe_validation_error(exc: ValidationError, source: str) -> str:
    """One line naming ``source``, the first failing field path and the reason."""
    first = exc.errors()[0]
    # Union members and validators appear in locations as "list[...]", "function-before[...]":
    # they are not fields, so they are left out of the path.
    parts = [str(p) for p in first["loc"] if not (isinstance(p, str) and "[" in p)]
    location = ".".join(parts) or "(document)"
    more = len(exc.errors()) - 1
    suffix = f" (and {more} more problem{'s' * (more > 1)})" if more else ""
    message = " ".join(str(first["msg"]).split()).removeprefix("Value error, ")
    return f"{source}: field {location}: {message}{suffix}"


def parse_model(model: type[M], document: Any, source: str) -> M:
    """Validate ``document`` against ``model``, raising a located :class:`InputError`."""
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, source)) from None
