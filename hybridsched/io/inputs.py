"""Input files checked before any work: one-line errors naming the file.

The command line checks the files it is given before it imports what reads
them (numpy, pandas, the campaign engine), so a mistyped path costs nothing
and says so on one line; the readers (:func:`hybridsched.io.jsonio.read_bytes`)
report the same failures in the same words.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from hybridsched.errors import InputError


def unreadable(path: str | Path, exc: OSError) -> InputError:
    """The one-line error for ``path`` that could not be opened for reading."""
    if isinstance(exc, FileNotFoundError):
        return InputError(f"{path}: no such file")
    if isinstance(exc, IsADirectoryError):
        return InputError(f"{path}: is a folder, not a file")
    return InputError(f"{path}: cannot read ({exc.__class__.__name__}: "
                      f"{exc.strerror or exc})")


def check_rewritable(paths: Iterable[Path], option: str = "--record") -> None:
    """Raise a one-line :class:`InputError` for the first file ``option`` cannot rewrite.

    Rewriting is atomic (a new file beside it, then a rename), so the folder
    must be writable too.
    """
    for path in paths:
        if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
            raise InputError(f"{path}: {option} cannot rewrite this file (not writable)")


def check_readable(paths: Iterable[str | Path]) -> None:
    """Raise the one-line :class:`InputError` of the first path that cannot be read."""
    for path in paths:
        try:
            with open(path, "rb"):
                pass
        except OSError as exc:
            raise unreadable(path, exc) from None
