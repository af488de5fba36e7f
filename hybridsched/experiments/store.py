"""The result store of a campaign: a folder that pandas reads as one Parquet table.

Layout of ``DIR``::

    DIR/_store.json              marks the folder as a result store
    DIR/_campaign.toml           the spec of the latest campaign run into it
    DIR/part-<time>-<id>.parquet one part per batch of finished runs
    DIR/_journal-<id>.jsonl      rows finished since the last part (one JSON line each)
    DIR/_lock                    held by the campaign writing into the folder

``pandas.read_parquet(DIR)`` reads every part as one table (files starting
with ``_`` or ``.`` are skipped by pyarrow). Every part has the same schema
(:data:`SCHEMA`): the metrics, solver statistics and options are JSON text,
so families with other metrics share one table; :func:`load_results` expands
them into columns. The gap columns (``reference``, ``reference_kind``,
``gap``) are filled when a campaign ends (a later run may prove the optimum
they refer to); :func:`load_results` always recomputes them.

Durability: a finished row is appended to the journal at once (one short
write, no fsync: it survives the death of the driver, not of the machine), so
an interrupted campaign loses only the runs in flight. Parts are written
under a temporary name and renamed, so a crash never leaves half a part. The
journal becomes a part every :data:`PART_EVERY_ROWS` rows or
:data:`PART_EVERY_S` seconds and when the campaign ends; the next writer
turns a journal left by a killed driver into a part. At the end of a
campaign the parts are merged into one (the merged part names the parts it
replaces, so a crash during the clean-up is finished by the next writer);
readers drop duplicate keys in any case.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hybridsched.errors import InputError
from hybridsched.io.outputs import atomic_write_text

#: Marker file of a result store.
MARKER = "_store.json"
#: What the marker says.
STORE_FORMAT = {"format": "hybridsched-results", "version": 1}
#: Copy of the spec of the latest campaign.
SPEC_COPY = "_campaign.toml"
#: A journal becomes a part after this many rows ...
PART_EVERY_ROWS = 500
#: ... or this many seconds.
PART_EVERY_S = 10.0
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
#: Columns holding a JSON object as text (read by :func:`load_results`).
JSON_OBJECTS = ("metrics", "versions")
#: Most attempts at reading a store whose files a running campaign renames or merges.
READ_ATTEMPTS = 5


def is_store(folder: Path) -> bool:
    """Whether ``folder`` holds a result store."""
    return (folder / MARKER).is_file()


class _VanishedError(Exception):
    """A file of the store went away while it was read (a running campaign merged it)."""


def _check_marker(folder: Path) -> None:
    """Refuse a marker file that is not a result store's (one line naming it)."""
    path = folder / MARKER
    try:
        marker = json.loads(path.read_bytes())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not JSON"
        raise InputError(f"{path}: not the marker of a result store ({reason})") from None
    version = marker.get("version") if isinstance(marker, dict) else None
    if not isinstance(marker, dict) or marker.get("format") != STORE_FORMAT["format"]:
        raise InputError(f"{path}: not the marker of a result store (expected "
                         f"{json.dumps(STORE_FORMAT)})")
    if (isinstance(version, bool) or not isinstance(version, int)
            or not 1 <= version <= STORE_FORMAT["version"]):
        raise InputError(f"{path}: result store version {version!r}, this hybridsched reads "
                         f"versions 1 to {STORE_FORMAT['version']} (a newer hybridsched "
                         "wrote it?)")


def _parts(folder: Path) -> list[Path]:
    return sorted(folder.glob("part-*.parquet"))


def _journals(folder: Path) -> list[Path]:
    return sorted(folder.glob("_journal-*.jsonl"))


def _journal_rows(path: Path, warn: Callable[[str], None] | None = None
                  ) -> list[dict[str, Any]]:
    """The rows of a journal, checked (:class:`InputError` naming the file and line).

    A last line without its newline was cut by a crash while it was written:
    it is dropped (its run was not stored, so a resumed campaign runs it
    again), with a warning through ``warn``. Any other bad line is damage.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise _VanishedError(path) from None
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
        bad = _bad_value(_to_table(rows)) if rows else None
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
        raise _VanishedError(part) from None
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{part}: not a readable Parquet file ({_first_line(exc)}); "
                         f"{hint}") from None
    _check_schema(part, schema, hint)
    present = [name for name in wanted.names if name in schema.names]
    try:
        table = pq.read_table(part, columns=present)
    except FileNotFoundError:
        raise _VanishedError(part) from None
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


def _read_parts(parts: Iterable[Path], columns: list[str] | None = None) -> pa.Table:
    tables = [_read_part(part, columns) for part in parts]
    if not tables:
        schema = SCHEMA if columns is None else pa.schema([SCHEMA.field(c) for c in columns])
        return schema.empty_table()
    return pa.concat_tables(tables)


def _write_part(folder: Path, table: pa.Table, replaces: list[str] | None = None) -> Path:
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


def _to_table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist([{c: row.get(c) for c in COLUMNS} for row in rows],
                                schema=SCHEMA)


class ResultStore:
    """The writer of one result store (one at a time: it holds ``DIR/_lock``).

    Use it as a context manager::

        with ResultStore("results/hd") as store:
            done = store.keys()
            store.add(rows)
    """

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self._lock: Any = None
        self._journal: Any = None
        self._journal_path: Path | None = None
        self._journal_count = 0
        self._journal_started = 0.0
        self._keys: set[str] = set()
        self._added = False

    def __enter__(self) -> ResultStore:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        """Take the lock, mark the folder, and recover what a killed writer left."""
        folder = self.folder
        if is_store(folder):
            _check_marker(folder)
        elif any(p for p in folder.iterdir() if not p.name.startswith(".hybridsched-probe")):
            raise InputError(f"{folder}: not a result store and not empty (no {MARKER}); "
                             "give a new or empty folder")
        self._lock = (folder / "_lock").open("a")
        try:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            self._lock = None
            raise InputError(f"{folder}: another campaign is writing into this result "
                             "store; wait for it or give another folder") from None
        try:
            if not is_store(folder):
                atomic_write_text(folder / MARKER, json.dumps(STORE_FORMAT) + "\n")
            # Every part is read whole: damage is reported now, not when the campaign ends.
            self._keys = set(_read_parts(_parts(folder)).column("key").to_pylist())
            journals = {journal: _journal_rows(journal) for journal in _journals(folder)}
        except BaseException as exc:
            self._lock.close()
            self._lock = None
            if isinstance(exc, _VanishedError):
                raise InputError(f"{exc.args[0]}: vanished while the store was opened"
                                 ) from None
            raise
        self._finish_merges()
        for journal, rows in journals.items():  # left by a killed writer
            rows = [r for r in rows if r["key"] not in self._keys]
            if rows:
                _write_part(folder, _to_table(rows))
                self._keys.update(r["key"] for r in rows)
            journal.unlink()

    def keys(self) -> set[str]:
        """Keys of every stored run."""
        return set(self._keys)

    def save_spec(self, text: str) -> None:
        """Keep the spec the campaign ran with beside its results."""
        atomic_write_text(self.folder / SPEC_COPY, text)

    def add(self, rows: Iterable[dict[str, Any]]) -> None:
        """Store finished rows (durable at once: see the module docstring)."""
        rows = [r for r in rows if r["key"] not in self._keys]
        if not rows:
            return
        if self._journal is None:
            self._journal_path = self.folder / f"_journal-{uuid.uuid4().hex}.jsonl"
            self._journal = self._journal_path.open("a", encoding="utf-8")
            self._journal_started = time.monotonic()
        self._journal.write("".join(json.dumps(row, allow_nan=True) + "\n" for row in rows))
        self._journal.flush()
        self._keys.update(row["key"] for row in rows)
        self._journal_count += len(rows)
        self._added = True
        if (self._journal_count >= PART_EVERY_ROWS
                or time.monotonic() - self._journal_started >= PART_EVERY_S):
            self.flush()

    def flush(self) -> None:
        """Turn the journal into a part."""
        if self._journal is None or self._journal_path is None:
            return
        self._journal.close()
        rows = _journal_rows(self._journal_path)
        if rows:
            _write_part(self.folder, _to_table(rows))
        self._journal_path.unlink()
        self._journal, self._journal_path, self._journal_count = None, None, 0

    def merge(self) -> None:
        """Merge every part into one, with every gap computed (see the module docstring).

        Fewer files make reads and resumes faster; the gap columns of rows
        stored during a campaign stay empty until then, since a later run may
        prove the optimum they are measured against.
        """
        self._finish_merges()
        parts = _parts(self.folder)
        if len(parts) < 2 and not self._added:
            return
        from hybridsched.experiments.tables import add_gaps

        table = add_gaps(_unique(_read_parts(parts)).to_pandas())
        merged = pa.Table.from_pandas(table[COLUMNS], schema=SCHEMA, preserve_index=False)
        _write_part(self.folder, merged, replaces=[p.name for p in parts])
        for part in parts:
            part.unlink()

    def close(self) -> None:
        """Flush, merge and release the lock."""
        if self._lock is None:
            return
        try:
            self.flush()
            self.merge()
        finally:
            self._lock.close()
            self._lock = None

    def _finish_merges(self) -> None:
        """Delete parts that a merged part replaces (a crash may have left them)."""
        present = {p.name for p in _parts(self.folder)}
        for part in _parts(self.folder):
            metadata = pq.read_schema(part).metadata or {}
            for name in json.loads(metadata.get(REPLACES, b"[]")):
                if name in present and name != part.name:
                    (self.folder / name).unlink(missing_ok=True)


def _unique(table: pa.Table) -> pa.Table:
    """``table`` without repeated keys (the first row of each key is kept)."""
    keys = table.column("key").to_pylist()
    seen: set[str] = set()
    keep = [i for i, key in enumerate(keys) if not (key in seen or seen.add(key))]
    return table if len(keep) == len(keys) else table.take(keep)


def check_store_folder(folder: str | Path) -> Path:
    """``folder`` if it is a result store (its marker is checked; its files are not read).

    Raises
    ------
    InputError
        Naming the folder: missing, a file, or not a result store.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: " + ("is a file, not a result store (a folder)"
                                          if folder.exists() else "no such folder"))
    if not is_store(folder):
        raise InputError(f"{folder}: not a result store (no {MARKER}; "
                         "'hybridsched campaign SPEC -o FOLDER' makes one)")
    _check_marker(folder)
    return folder


def read_store(folder: str | Path, *, warn: Callable[[str], None] | None = None,
               columns: list[str] | None = None) -> pa.Table:
    """Every stored row (parts and journals of a campaign still running), keys unique.

    ``columns`` reads only those (and ``key``) from the parts, which are then
    checked in those columns only.

    Raises
    ------
    InputError
        One line naming the folder or the damaged file: not a result store,
        a part that is not a readable Parquet file of the store's schema, a
        journal line that is not a well-typed row. A journal's last line cut
        by a crash is dropped, with a warning through ``warn``.
    """
    folder = check_store_folder(folder)
    # A campaign writing into the store may merge its parts or turn its journal into a
    # part while they are read: then read them again.
    for _ in range(READ_ATTEMPTS - 1):
        with contextlib.suppress(_VanishedError):
            return _read_once(folder, warn, columns)
    try:
        return _read_once(folder, warn, columns)
    except _VanishedError as exc:
        raise InputError(f"{exc.args[0]}: vanished while the store was read (a campaign is "
                         "writing into it?); try again") from None


def _read_once(folder: Path, warn: Callable[[str], None] | None,
               columns: list[str] | None = None) -> pa.Table:
    wanted = None if columns is None else ["key", *(c for c in columns if c != "key")]
    table = _read_parts(_parts(folder), wanted)
    journal_rows = [row for journal in _journals(folder)
                    for row in _journal_rows(journal, warn)]
    if journal_rows:
        journaled = _to_table(journal_rows)
        table = pa.concat_tables([table, journaled if wanted is None
                                  else journaled.select(wanted)])
    return _unique(table)


def load_results(folder: str | Path, *, warn: Callable[[str], None] | None = None) -> Any:
    """The result table of a store as a pandas DataFrame, with gaps and metric columns.

    Rows are sorted by family, instance, method, seed and replication. Adds
    ``reference``, ``reference_kind`` and ``gap``
    (:func:`~hybridsched.experiments.tables.add_gaps`) and one ``metric_<name>``
    column per numeric metric. ``warn`` and errors: see :func:`read_store`.
    """
    from hybridsched.experiments.tables import add_gaps, expand_metrics

    table = add_gaps(expand_metrics(read_store(folder, warn=warn).to_pandas()))
    # One order whatever the order runs finished in (serial or on a cluster).
    order = ["family", "instance", "instance_hash", "method", "seed", "replication", "key"]
    return table.sort_values(order, kind="stable", ignore_index=True) if len(table) else table


def stored_campaigns(folder: str | Path, *, warn: Callable[[str], None] | None = None
                     ) -> list[str]:
    """Names of the campaigns a store holds: those of its rows, else of its spec copy.

    Empty for a folder that is not a store yet, or a store without a row
    whose spec copy names no campaign. Errors: see :func:`read_store`.
    """
    folder = Path(folder)
    if not (folder.is_dir() and is_store(folder)):
        return []
    return _campaign_names(folder, read_store(folder, warn=warn, columns=["campaign"]))


def _campaign_names(folder: Path, table: pa.Table) -> list[str]:
    names = {name for name in table.column("campaign").to_pylist() if name}
    if not names and (folder / SPEC_COPY).is_file():
        import tomllib

        try:
            spec = tomllib.loads((folder / SPEC_COPY).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            spec = {}
        section = spec.get("campaign")
        name = section.get("name") if isinstance(section, dict) else None
        if isinstance(name, str) and name:
            names.add(name)
    return sorted(names)


def check_resume(folder: str | Path, campaign: str, *,
                 warn: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Refuse to run ``campaign`` into a store that another campaign wrote.

    The same campaign (the same name) with a grown spec is a resume; a store
    of another name is somebody else's results. Damage in the columns read
    here is reported now; :class:`ResultStore` checks every column when it
    opens the store, still before any run.

    Returns
    -------
    list[dict]
        The distinct provenance records of the stored rows
        (:mod:`hybridsched.provenance`; none for a new store, or for rows
        stored before versions were recorded).

    Raises
    ------
    InputError
        Naming the folder and both campaigns.
    """
    folder = Path(folder)
    if not (folder.is_dir() and is_store(folder)):
        return []
    table = read_store(folder, warn=warn, columns=["campaign", "versions"])
    names = _campaign_names(folder, table)
    if names and campaign not in names:
        other = names[0] if len(names) == 1 else ", ".join(repr(n) for n in names)
        stored = f"campaign {other!r}" if len(names) == 1 else f"campaigns {other}"
        raise InputError(f"{folder}: this result store holds {stored}, not {campaign!r}; "
                         "give another folder, or the same name to extend that campaign")
    texts = {text for text in table.column("versions").to_pylist() if text}
    return [json.loads(text) for text in sorted(texts)]


def iter_rows(folder: str | Path) -> Iterator[dict[str, Any]]:
    """The stored rows as dicts (raw columns only)."""
    yield from read_store(folder).to_pylist()
