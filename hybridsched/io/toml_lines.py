"""Which line of a TOML text holds a key path (``methods[1].options`` -> 12).

:mod:`tomllib` reports lines only for syntax errors; spec errors found later
(an unknown method, a bad option value) name their key path, and this small
scanner maps it back to a line so that every message can say where to look.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hybridsched.errors import InputError


def join_path(*parts: str | int | None) -> str:
    """``join_path("methods[1]", "options", "x", 2)`` -> ``"methods[1].options.x[2]"``."""
    out = ""
    for part in parts:
        if part is None or part == "":
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out = f"{out}.{part}" if out else part
    return out


_KEY = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_ARRAY_HEADER = re.compile(rf"\s*\[\[\s*({_DOTTED})\s*\]\]")
_TABLE_HEADER = re.compile(rf"\s*\[\s*({_DOTTED})\s*\]")
_KEY_LINE = re.compile(rf"\s*({_DOTTED})\s*=")
_LAST_PART = re.compile(r"(?:\[\d+\]|\.[^.\[\]]*|^[^.\[\]]*)$")


def _key_parts(dotted: str) -> list[str]:
    return [part.strip("\"'") for part in re.findall(_KEY, dotted)]


def _scan(text: str, state: tuple[str, int]) -> tuple[str, int]:
    """Carry ``(open multi-line string delimiter, bracket depth)`` over one line of a value."""
    delim, depth = state
    i = 0
    while i < len(text):
        if delim:
            end = text.find(delim, i)
            if end < 0:
                return delim, depth
            i, delim = end + 3, ""
            continue
        char = text[i]
        if char == "#":
            break
        if text.startswith('"""', i) or text.startswith("'''", i):
            delim, i = text[i:i + 3], i + 3
            continue
        if char == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif char == "'":
            end = text.find("'", i + 1)
            i = len(text) if end < 0 else end
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return delim, depth


def key_lines(text: str) -> dict[str, int]:
    """First line of each key path of a TOML text (``"methods[1].options"`` -> 12).

    Tables, arrays of tables (with their running index), sub-tables and
    ``key = value`` lines are mapped; keys inside inline tables and arrays
    are not (:func:`line_of` falls back to the enclosing key's line).
    """
    lines: dict[str, int] = {}
    arrays: dict[str, int] = {}
    table = ""
    state = ("", 0)

    def resolve(parts: Iterable[str]) -> str:
        path = ""
        for part in parts:
            path = join_path(path, part)
            if path in arrays:
                path += f"[{arrays[path]}]"
        return path

    for number, line in enumerate(text.splitlines(), start=1):
        if state != ("", 0):
            state = _scan(line, state)
        elif match := _ARRAY_HEADER.match(line):
            parts = _key_parts(match.group(1))
            name = join_path(resolve(parts[:-1]), parts[-1])
            arrays[name] = arrays.get(name, -1) + 1
            table = f"{name}[{arrays[name]}]"
            lines.setdefault(table, number)
        elif match := _TABLE_HEADER.match(line):
            table = resolve(_key_parts(match.group(1)))
            lines.setdefault(table, number)
        elif match := _KEY_LINE.match(line):
            parts = _key_parts(match.group(1))
            for k in range(1, len(parts) + 1):
                lines.setdefault(join_path(table, *parts[:k]), number)
            state = _scan(line[match.end():], ("", 0))
    return lines


def line_of(lines: Mapping[str, int], path: str) -> int | None:
    """Line of ``path``, or of its closest enclosing key that has one."""
    while path:
        if path in lines:
            return lines[path]
        shorter = _LAST_PART.sub("", path, count=1)
        if shorter == path:
            return None
        path = shorter
    return None


def load_toml(path: str | Path) -> tuple[dict[str, Any], str]:
    """Read and parse a TOML file: ``(data, text)``.

    Raises
    ------
    InputError
        One line ``PATH[:LINE]: invalid TOML: reason`` (or the file's read error).
    """
    from hybridsched.io.jsonio import read_text

    text = read_text(path)
    return parse_toml(text, path), text


def parse_toml(text: str, path: str | Path) -> dict[str, Any]:
    """Parse TOML ``text`` read from (or standing for) ``path``; errors as in :func:`load_toml`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"\s*\(at line (\d+), column (\d+)\)", message)
        if found is None:
            end = " (at end of document)"
            if message.endswith(end):
                last = len(text.splitlines()) or 1
                raise InputError(f"{path}:{last}: invalid TOML: {message.removesuffix(end)} "
                                 "(at the end of the file)") from None
            raise InputError(f"{path}: invalid TOML: {message}") from None
        reason = message.replace(found.group(0), "")
        raise InputError(f"{path}:{found.group(1)}: invalid TOML: {reason} "
                         f"(column {found.group(2)})") from None


def located(file: Path | str, text: str, path: str, reason: str) -> str:
    """``FILE:LINE: key.path: reason`` (the line of the key path when it has one)."""
    line = line_of(key_lines(text), path) if path else None
    where = f"{file}:{line}" if line is not None else str(file)
    return f"{where}: {path}: {reason}" if path else f"{where}: {reason}"


def load_model(model: Any, path: str | Path) -> tuple[Any, str]:
    """Read a TOML file and validate it with the pydantic ``model``: ``(instance, text)``.

    Raises
    ------
    InputError
        ``PATH:LINE: key.path: reason`` for the first validation error.
    """
    from pydantic import ValidationError

    data, text = load_toml(path)
    try:
        return model.model_validate(data), text
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(located(path, text, join_path(*first["loc"]),
                                 first["msg"].removeprefix("Value error, "))) from None
