"""Contents of files read once per file version: SHA-256 digests and parsed SWF traces.

A file's version is its path, size and modification time: while they stay
the same, what was computed from the file is reused, so that a campaign that
cuts many windows from one trace, or hashes one instance file for many runs,
reads it once per process.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Any

from hybridsched.errors import InputError


def _file_version(path: str | Path) -> tuple[str, int, int]:
    """``(path, size, mtime)``: a cache key that changes when the file does."""
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return os.fspath(path), stat.st_size, stat.st_mtime_ns


def swf_trace(path: str) -> Any:
    """The parsed SWF trace at ``path``, read once per file version.

    Campaigns cut many windows (``skip``/``limit``) and alphas from one trace:
    without this, checking a spec parsed the whole trace once per source.
    """
    return _read_swf(*_file_version(path))


@functools.lru_cache(maxsize=4)
def _read_swf(path: str, size: int, mtime_ns: int) -> Any:
    from hybridsched.io.swf import read_swf

    del size, mtime_ns  # only part of the cache key
    return read_swf(path)


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of the file's bytes (remembered while its size and mtime stay the same)."""
    return _sha256(*_file_version(path))


@functools.lru_cache(maxsize=1024)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    del size, mtime_ns  # only part of the cache key
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
