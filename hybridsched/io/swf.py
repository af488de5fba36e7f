"""Reader for the Standard Workload Format (SWF) of the Parallel Workloads Archive.

An SWF file has header comment lines starting with ``;`` (kept as
provenance) and one record per line of 18 whitespace-separated numbers; ``-1``
means "unknown". Plain, gzip-, bzip2- and xz-compressed files are read alike,
recognised by their content (magic bytes), never by their name: gzip data
named ``.swf`` and plain text named ``.swf.gz`` both work; zip and zstd
archives are refused with a one-line error.

Header lines are ``; Key: value``; an indented line (``;`` followed by two or
more spaces, or a tab) continues the previous field, as in::

    ; Note: There is no information on wait times - the given submit
    ;       times are actually start times

Every field must be a finite number (``1e400`` or ``nan`` is an error naming
the line and field) and the integer fields must be integers.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import math
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hybridsched.errors import InputError

#: Field names in SWF order (Feitelson et al., Parallel Workloads Archive).
SWF_FIELDS = (
    "job_number",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_processors",
    "average_cpu_time",
    "used_memory",
    "requested_processors",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
)

#: Longest line accepted (bytes); longer ones are not SWF (e.g. a binary file).
MAX_LINE_BYTES = 1 << 16

#: Records read between two calls of the progress callback of :func:`read_swf`.
PROGRESS_EVERY = 5000

#: Most records read from one trace (every family keeps per-record arrays); ``limit``
#: reads fewer.
MAX_RECORDS = 10**7

#: Magic bytes of the compressed formats recognised, and of archives refused.
_MAGIC = ((b"\x1f\x8b", "gzip", gzip.open), (b"BZh", "bzip2", bz2.open),
          (b"\xfd7zXZ\x00", "xz", lzma.open))
_ARCHIVES = ((b"PK\x03\x04", "a zip archive"), (b"\x28\xb5\x2f\xfd", "zstd data"))

_KEY = re.compile(r"([A-Za-z][\w-]*)\s*:\s*(.*)")


@dataclass(frozen=True)
class SWFRecord:
    """One job record; times in seconds, ``-1`` where the log does not know."""

    line: int
    job_number: int
    submit_time: float
    wait_time: float
    run_time: float
    allocated_processors: int
    average_cpu_time: float
    used_memory: float
    requested_processors: int
    requested_time: float
    requested_memory: float
    status: int
    user_id: int
    group_id: int
    executable: int
    queue: int
    partition: int
    preceding_job: int
    think_time: float

    @property
    def processors(self) -> int:
        """Allocated processors, or the requested count when allocation is unknown."""
        return self.allocated_processors if self.allocated_processors > 0 else \
            self.requested_processors


_INT_FIELDS = frozenset(name for name, f in SWFRecord.__dataclass_fields__.items()
                        if f.type == "int" and name != "line")


@dataclass
class SWFTrace:
    """Header lines and records of one SWF file."""

    path: str
    header: list[str] = field(default_factory=list)
    records: list[SWFRecord] = field(default_factory=list)

    def header_fields(self) -> dict[str, str]:
        """``Key: value`` pairs of the header.

        Indented lines continue the previous field (joined with a space); a
        key given several times (``Note``, ``Queue``) keeps every value, one
        per line.
        """
        fields: dict[str, str] = {}
        current: str | None = None
        for line in self.header:
            text = line.rstrip()
            if not text.strip():
                current = None
                continue
            if current is not None and (text.startswith(("  ", "\t"))):
                fields[current] += " " + text.strip()
                continue
            match = _KEY.fullmatch(text.strip())
            if match is None:
                current = None
                continue
            current, value = match.group(1), match.group(2).strip()
            fields[current] = f"{fields[current]}\n{value}" if current in fields else value
        return fields


def _open(path: Path):  # noqa: ANN202 (a binary file object, and its compression)
    """Open ``path`` for reading, decompressing it when its first bytes say so.

    Returns the binary file object and the compression's name ("" for none).
    """
    with open(path, "rb") as probe:
        head = probe.read(6)
    for magic, name, opener in _MAGIC:
        if head.startswith(magic):
            return opener(path, "rb"), name
    for magic, what in _ARCHIVES:
        if head.startswith(magic):
            raise InputError(f"{path}: {what}, not a text trace (extract it first; plain, "
                             "gzip, bzip2 and xz files are read)")
    return open(path, "rb"), ""


#: Bytes read at a time by :func:`text_lines`.
_CHUNK = 1 << 16

_BOM = b"\xef\xbb\xbf"


def _split_lines(handle: Any) -> Iterator[bytes]:
    """Lines ended by LF, CRLF or a lone CR (old Mac files), endings kept.

    A line longer than :data:`MAX_LINE_BYTES` is given as soon as it is, cut
    (the caller refuses it): memory stays bounded on a file without line ends.
    """
    pending = b""
    while chunk := handle.read(_CHUNK):
        lines = (pending + chunk).splitlines(keepends=True)
        # The last piece may go on in the next chunk (no ending yet, or "\r" before "\n").
        pending = lines.pop() if not lines[-1].endswith(b"\n") else b""
        yield from lines
        if len(pending) > MAX_LINE_BYTES:
            yield pending
            return
    if pending:
        yield pending


def text_lines(path: Path, kind: str = "SWF") -> Iterator[bytes]:
    """The lines of a (possibly compressed) text trace, with one-line errors.

    Lines may end with LF, CRLF or CR alone; a UTF-8 byte-order mark before
    the first line is dropped. ``kind`` names the expected format in the
    error for an overlong line.
    """
    compression = ""
    try:
        handle, compression = _open(path)
        with handle:
            for number, line in enumerate(_split_lines(handle), start=1):
                if len(line) > MAX_LINE_BYTES:
                    raise InputError(f"{path}:{number}: line longer than {MAX_LINE_BYTES} "
                                     f"bytes (is this an {kind} file?)")
                yield line.removeprefix(_BOM) if number == 1 else line
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a file") from None
    except (EOFError, zlib.error, gzip.BadGzipFile, lzma.LZMAError) as exc:
        raise InputError(f"{path}: corrupt or truncated {compression or 'compressed'} data "
                         f"({exc})") from None
    except OSError as exc:
        if compression:  # bz2 reports bad data as a plain OSError
            raise InputError(f"{path}: corrupt or truncated {compression} data "
                             f"({exc.strerror or exc})") from None
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _parse_record(text: str, path: Path, line: int) -> SWFRecord:
    parts = text.split()
    if len(parts) != len(SWF_FIELDS):
        raise InputError(
            f"{path}:{line}: malformed SWF record: expected {len(SWF_FIELDS)} fields, "
            f"found {len(parts)}"
        )
    converted: list[float | int] = []
    for name, part in zip(SWF_FIELDS, parts, strict=True):
        try:
            value = float(part)
        except ValueError:
            raise InputError(f"{path}:{line}: malformed SWF field {name}: {part!r}") from None
        if not math.isfinite(value):
            raise InputError(f"{path}:{line}: SWF field {name} must be a finite number, "
                             f"got {part!r}")
        if name in _INT_FIELDS:
            if not value.is_integer():
                raise InputError(f"{path}:{line}: SWF field {name} must be an integer, "
                                 f"got {part!r}")
            converted.append(int(value))
        else:
            converted.append(value)
    return SWFRecord(line, *converted)  # type: ignore[arg-type]


def read_swf(path: str | Path, *, progress: Callable[[int], None] | None = None,
             usable: Callable[[SWFRecord], bool] | None = None,
             limit: int | None = None) -> SWFTrace:
    """Read an SWF file (plain or compressed, see the module docstring).

    Parameters
    ----------
    path:
        The trace.
    progress:
        Called with the number of records read so far, every
        :data:`PROGRESS_EVERY` records and once at the end.
    usable, limit:
        Stop reading once ``limit`` records for which ``usable(record)`` holds
        (every record without ``usable``) have been read.

    Raises
    ------
    InputError
        For a missing, unreadable or corrupt file, a malformed record, or more
        than :data:`MAX_RECORDS` records, naming the file and line.
    """
    path = Path(path)
    trace = SWFTrace(str(path))
    found = 0
    for number, raw in enumerate(text_lines(path), start=1):
        if limit is not None and found >= limit:
            break
        text = raw.decode("utf-8", errors="replace")
        stripped = text.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            trace.header.append(stripped[1:].rstrip())
            continue
        if len(trace.records) == MAX_RECORDS:
            raise InputError(f"{path}:{number}: more than {MAX_RECORDS:,} records (the most "
                             "one import reads); use --limit")
        record = _parse_record(stripped, path, number)
        trace.records.append(record)
        found += usable is None or usable(record)
        if progress is not None and len(trace.records) % PROGRESS_EVERY == 0:
            progress(len(trace.records))
    if progress is not None:
        progress(len(trace.records))
    return trace
