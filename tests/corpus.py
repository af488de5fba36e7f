"""What the bad-input corpora share: file and document builders, and the one-line check.

Each corpus (``tests/cli/test_bad_input*.py``, ``tests/experiments/test_bad_input_campaigns.py``)
is a list of ``(id, argv builder, fragment)`` cases; every case must end with exit
code 2 and exactly one ``error:`` line holding the fragment, without a traceback.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path


def write(tmp: Path, name: str, content: str | bytes) -> str:
    """Write ``content`` at ``tmp/name`` (folders made) and return the path as text."""
    path = tmp / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return str(path)


def edited(base: dict, change: Callable[[dict], object]) -> str:
    """The JSON text of a copy of ``base`` with ``change`` applied (``base`` is kept)."""
    document = copy.deepcopy(base)
    change(document)
    return json.dumps(document)


def replaced(base: dict, old: str, new: str) -> str:
    """The JSON text of ``base`` with one literal replaced (it must be there)."""
    text = json.dumps(base)
    assert old in text, old
    return text.replace(old, new, 1)


def _parent(document: dict, path: str) -> tuple[object, str]:
    *parents, last = path.split(".")
    node: object = document
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]  # type: ignore[index]
    return node, last


def set_in(path: str, value: object) -> Callable[[dict], None]:
    """A change that sets ``document[a][b]...`` given as ``"a.b.c"`` (list indexes allowed)."""
    def change(document: dict) -> None:
        node, last = _parent(document, path)
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value  # type: ignore[index]
    return change


def drop(path: str) -> Callable[[dict], None]:
    """A change that deletes ``document[a][b]...`` (list indexes allowed)."""
    def change(document: dict) -> None:
        node, last = _parent(document, path)
        del node[int(last) if isinstance(node, list) else last]  # type: ignore[union-attr]
    return change


def tree_state(folder: Path) -> dict[str, tuple[int, int]]:
    """Every entry under ``folder`` with its size and modification time (links not followed).

    Equal before and after a command: it wrote, made and left nothing there.
    """
    return {str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns)
            for p in folder.rglob("*")}


def assert_one_error_line(code: int, out: str, err: str, fragment: str) -> None:
    """Exit code 2, one ``error:`` line on standard error holding ``fragment``, no traceback."""
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and fragment in lines[0], lines[0]
