"""Reader for the Standard Workload Format (SWF) of the Parallel Workloads Archive.

An SWF file has header comment lines starting with ``;`` (kept as
provenance) and one record per line of 18 whitespace-separated numbers; ``-1``
means "unknown". Plain and gzip-compressed files are read alike.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

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


@dataclass
class SWFTrace:
    """Header lines and records of one SWF file."""

    path: str
    header: list[str] = field(default_factory=list)
    records: list[SWFRecord] = field(default_factory=list)

    def header_fields(self) -> dict[str, str]:
        """``Key: value`` pairs of the header (first occurrence of each key)."""
        fields: dict[str, str] = {}
        for line in self.header:
            key, sep, value = line.partition(":")
            if sep and key.strip() and " " not in key.strip():
                fields.setdefault(key.strip(), value.strip())
        return fields


def _lines(path: Path) -> Iterator[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
            yield from handle
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, EOFError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None


def _parse_record(text: str, path: Path, line: int) -> SWFRecord:
    parts = text.split()
    if len(parts) != len(SWF_FIELDS):
        raise InputError(
            f"{path}:{line}: malformed SWF record: expected {len(SWF_FIELDS)} fields, "
            f"found {len(parts)}"
        )
    values: list[float] = []
    for name, part in zip(SWF_FIELDS, parts, strict=True):
        try:
            values.append(float(part))
        except ValueError:
            raise InputError(f"{path}:{line}: malformed SWF field {name}: {part!r}") from None
    kinds = SWFRecord.__dataclass_fields__
    converted = [
        int(v) if kinds[name].type == "int" else v for name, v in zip(SWF_FIELDS, values,
                                                                      strict=True)
    ]
    return SWFRecord(line, *converted)


def read_swf(path: str | Path) -> SWFTrace:
    """Read an SWF file (``.swf`` or ``.swf.gz``).

    Raises
    ------
    InputError
        For a missing file or a malformed record, naming the file and line.
    """
    path = Path(path)
    trace = SWFTrace(str(path))
    for number, text in enumerate(_lines(path), start=1):
        stripped = text.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            trace.header.append(stripped.lstrip(";").rstrip())
            continue
        trace.records.append(_parse_record(stripped, path, number))
    return trace
