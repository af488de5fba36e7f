"""The files of a result store: its schema, and each part or journal read or written, checked.

Layout of ``DIR`` (folder and marker checked by :mod:`~hybridsched.experiments.store_layout`)::

    DIR/_store.json              marks the folder as a result store
    DIR/_campaign.toml           the spec of the latest campaign run into it
    DIR/part-<time>-<id>.parquet one part per batch of finished runs
    DIR/_journal-<id>.jsonl      rows finished since the last part (one JSON line each)
    DIR/_lock                    held by the campaign writing into the folder

``pandas.read_parquet(DIR)`` reads every part as one table (files starting
with ``_`` or ``.`` are skipped by pyarrow). Every part has the same schema
(:data:`SCHEMA`): the metrics, solver statistics and options are JSON text,
so families with other metrics share one table;
:func:`~hybridsched.experiments.store_read.load_results` expands them into
columns. A part or journal that no writer of this schema could have made is
refused with one line naming the file (and the row or line). The writer is
:class:`~hybridsched.experiments.store.ResultStore`, the readers are in
:mod:`~hybridsched.experiments.store_read`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hybridsched.errors import InputError

#: Parquet metadata key of a merged part: the part files it replaces (JSON list).
REPLACES = b"hybridsched.replaces"

#: The columns of every part, in order.
SCHEMA = pa.schema([
    ("key", pa.string()), ("campaign", pa.string()), ("family", pa.string()),
    ("instance", pa.string()), ("instance_hash", pa.string()),
    ("instance_source", pa.string()), ("source", pa.string()),
    ("instance_size", pa.int64()),
    ("method", pa.string()), ("method_name", pa.string()), ("options", pa.string()),
    ("objective_name", pa.string()), ("seed", pa.int64()), ("replication", pa.int64()),
    ("time_limit", pa.float64()), ("status", pa.string()), ("objective", pa.float64()),
    ("bound", pa.float64()), ("recorded_optimum", pa.float64()),
    ("recorded_lower_bound", pa.float64()), ("family_bound", pa.float64()),
    ("metrics", pa.string()), ("runtime_s", pa.float64()), ("cpu_s", pa.float64()),
    ("wall_s", pa.float64()),
    ("solver", pa.string()), ("worker", pa.string()), ("code_version", pa.string()),
    ("timestamp", pa.string()), ("error", pa.string()), ("solution", pa.string()),
    ("versions", pa.string()),
    ("reference", pa.float64()), ("reference_kind", pa.string()), ("gap", pa.float64()),
])
COLUMNS = SCHEMA.names


#: Columns every row has (a part lacking one is not a part of a store; the other columns,
#: when missing, read as empty: a part written before a column was added stays readable).
REQUIRED = ("key", "family", "instance_hash", "method", "status")
#: Numeric columns that no run can make negative or infinite (empty is fine).
NON_NEGATIVE = ("instance_size", "seed", "replication", "time_limit", "runtime_s", "cpu_s",
                "wall_s")
#: Columns holding a JSON object as text (read by :func:`~.store_read.load_results`).
JSON_OBJECTS = ("metrics", "versions")


class VanishedError(Exception):
    """A file of the store went away while it was read (a running campaign merged it)."""


def journal_rows(path: Path, warn: Callable[[str], None] | None = None
                  ) -> list[dict[str, Any]]:
    """The rows of a journal, checked (:class:`InputError` naming the file and line).

    A last line without its newline was cut by a crash while it was written:
    it is dropped (its run was not stored, so a resumed campaign runs it
    again), with a warning through ``warn``. Any other bad line is damage.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise VanishedError(path) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read this journal of the result store "
                         f"({exc.strerror or exc})") from None
    lines = data.split(b"\n")
    if lines[-1] and warn is not None:
        warn(f"{path}:{len(lines)}: dropped a run cut short while it was recorded "
             "(a campaign was killed; resuming it runs that run again)")
    rows = []
    for number, line in enumerate(lines[:-1], start=1):
        where = f"{path}:{number}"
        try:
            row = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            raise InputError(f"{where}: not UTF-8 text: not a journal of a result store"
                             ) from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: malformed JSON ({exc.msg}): not a journal line of a "
                             "result store") from None
        if not isinstance(row, dict):
            raise InputError(f"{where}: expected one run as a JSON object, got "
                             f"{type(row).__name__}")
        _check_row(row, where)
        rows.append(row)
    try:
        bad = _bad_value(rows_table(rows)) if rows else None
    except (pa.ArrowException, OverflowError) as exc:
        raise InputError(f"{path}: a row does not fit the store's columns "
                         f"({_first_line(exc)})") from None
    if bad is not None:
        row, name, reason = bad
        raise InputError(f"{path}:{row + 1}: field {name}: {reason}")
    return rows


#: Python types a journal value may have, by the Arrow type of its column.
_ACCEPTED: dict[str, tuple[type, ...]] = {"string": (str,), "int64": (int,),
                                          "double": (int, float)}


def _check_row(row: dict[str, Any], where: str) -> None:
    """Refuse a journal row that a part could not hold as it is."""
    key = row.get("key")
    if not isinstance(key, str) or not key:
        raise InputError(f"{where}: field key: expected the run's key (a string), got "
                         f"{_short(key)}")
    for field in SCHEMA:
        value = row.get(field.name)
        if value is None:
            continue
        accepted = _ACCEPTED.get(str(field.type))
        if accepted is None:
            continue  # a column of another type: Arrow checks it when the rows become a part
        if (isinstance(value, bool) or not isinstance(value, accepted)
                or (isinstance(value, int) and not -2**63 <= value < 2**63)):
            raise InputError(f"{where}: field {field.name}: expected {_WORDS[str(field.type)]}, "
                             f"got {_short(value)}")


_WORDS = {"string": "a string", "int64": "an integer", "double": "a number"}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (json.JSONDecodeError, RecursionError):
        return False


def _read_part(part: Path, columns: list[str] | None = None) -> pa.Table:
    """One part, checked and given the store's schema (:class:`InputError` naming it).

    Columns of :data:`SCHEMA` the part lacks (beyond :data:`REQUIRED`) read as
    empty; columns it has beyond them are left out.
    """
    wanted = SCHEMA if columns is None else pa.schema([SCHEMA.field(c) for c in columns])
    hint = "move it out of the store folder"
    if part.is_dir():
        raise InputError(f"{part}: is a folder, not a part of the result store; {hint}")
    try:
        schema = pq.read_schema(part)
    except FileNotFoundError:
        raise VanishedError(part) from None
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{part}: not a readable Parquet file ({_first_line(exc)}); "
                         f"{hint}") from None
    _check_schema(part, schema, hint)
    present = [name for name in wanted.names if name in schema.names]
    try:
        table = pq.read_table(part, columns=present)
    except FileNotFoundError:
        raise VanishedError(part) from None
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{part}: damaged Parquet file ({_first_line(exc)}); {hint}"
                         ) from None
    arrays = [table.column(name).cast(field.type) if name in present
              else pa.nulls(table.num_rows, field.type)
              for name, field in zip(wanted.names, wanted, strict=True)]
    conformed = pa.Table.from_arrays(arrays, schema=wanted)
    bad = _bad_value(conformed)
    if bad is not None:
        row, name, reason = bad
        raise InputError(f"{part}: row {row}: column {name}: {reason}; {hint}")
    return conformed


def _bad_value(table: pa.Table) -> tuple[int, str, str] | None:
    """``(row, column, reason)`` of the first value no run can have, or ``None``.

    Only the columns ``table`` has are checked (a reader may ask for a few).
    """
    names = set(table.column_names)
    for name in (n for n in REQUIRED if n in names):
        values = table.column(name).to_pylist()
        if None in values or "" in values:
            return values.index(None if None in values else ""), name, "empty"
    for name in (n for n in NON_NEGATIVE if n in names):
        numbers = table.column(name).to_numpy(zero_copy_only=False).astype(float)
        bad = ~(np.isnan(numbers) | (np.isfinite(numbers) & (numbers >= 0)))
        if bad.any():
            row = int(np.argmax(bad))
            return row, name, f"expected a finite number >= 0, got {numbers[row]:g}"
    for name in (n for n in JSON_OBJECTS if n in names):
        for row, text in enumerate(table.column(name).to_pylist()):
            if text is not None and not _is_json_object(text):
                return row, name, f"expected a JSON object as text, got {_short(text)}"
    return None


def _check_schema(part: Path, schema: pa.Schema, hint: str) -> None:
    """Refuse a part without the required columns or with a column of another type."""
    missing = [name for name in REQUIRED if name not in schema.names]
    if missing:
        raise InputError(f"{part}: not a part of a result store (no column "
                         f"{', '.join(repr(m) for m in missing)}); {hint}")
    for field in SCHEMA:
        if field.name in schema.names:
            found = schema.field(field.name).type
            if found != field.type and found != pa.null():
                raise InputError(f"{part}: column {field.name!r} holds {found}, expected "
                                 f"{field.type}: not a part of this result store; {hint}")
    replaces = (schema.metadata or {}).get(REPLACES)
    if replaces is not None:
        try:
            names = json.loads(replaces)
        except (json.JSONDecodeError, UnicodeDecodeError):
            names = None
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError(f"{part}: damaged metadata {REPLACES.decode()} (expected a JSON "
                             f"list of part names); {hint}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    reason = text[0] if text else type(exc).__name__
    # pyarrow repeats the path; the message names it already.
    return re.sub(r"^Could not open Parquet input source '[^']*': ", "", reason)


def read_parts(parts: Iterable[Path], columns: list[str] | None = None) -> pa.Table:
    """``parts`` as one table of the store's schema (or of ``columns``), each part checked."""
    tables = [_read_part(part, columns) for part in parts]
    if not tables:
        schema = SCHEMA if columns is None else pa.schema([SCHEMA.field(c) for c in columns])
        return schema.empty_table()
    return pa.concat_tables(tables)


def write_part(folder: Path, table: pa.Table, replaces: list[str] | None = None) -> Path:
    """Write ``table`` as a new part, atomically."""
    if replaces:
        table = table.replace_schema_metadata({REPLACES: json.dumps(replaces).encode()})
    name = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.parquet"
    temporary = folder / f".{name}.tmp"
    try:
        pq.write_table(table, temporary)
        with temporary.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, folder / name)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
    return folder / name


def rows_table(rows: list[dict[str, Any]]) -> pa.Table:
    """Rows (dicts, as a journal holds them) as a table of the store's schema."""
    return pa.Table.from_pylist([{c: row.get(c) for c in COLUMNS} for row in rows],
                                schema=SCHEMA)



def unique_keys(table: pa.Table) -> pa.Table:
    """``table`` without repeated keys (the first row of each key is kept)."""
    keys = table.column("key").to_pylist()
    seen: set[str] = set()
    keep = [i for i, key in enumerate(keys) if not (key in seen or seen.add(key))]
    return table if len(keep) == len(keys) else table.take(keep)
