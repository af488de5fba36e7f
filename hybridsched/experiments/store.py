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
import time
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

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
    ("reference", pa.float64()), ("reference_kind", pa.string()), ("gap", pa.float64()),
])
COLUMNS = SCHEMA.names


def is_store(folder: Path) -> bool:
    """Whether ``folder`` holds a result store."""
    return (folder / MARKER).is_file()


def _parts(folder: Path) -> list[Path]:
    return sorted(folder.glob("part-*.parquet"))


def _journals(folder: Path) -> list[Path]:
    return sorted(folder.glob("_journal-*.jsonl"))


def _journal_rows(path: Path) -> list[dict[str, Any]]:
    """The complete lines of a journal (a line cut by a crash is dropped)."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.endswith("\n"):
                break
            with contextlib.suppress(json.JSONDecodeError):
                rows.append(json.loads(line))
    return rows


def _read_parts(parts: Iterable[Path], columns: list[str] | None = None) -> pa.Table:
    tables = [pq.read_table(part, columns=columns) for part in parts]
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
        if not is_store(folder) and any(p for p in folder.iterdir()
                                        if not p.name.startswith(".hybridsched-probe")):
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
        if not is_store(folder):
            atomic_write_text(folder / MARKER, json.dumps(STORE_FORMAT) + "\n")
        self._finish_merges()
        self._keys = set(_read_parts(_parts(folder), ["key"]).column("key").to_pylist())
        for journal in _journals(folder):  # left by a killed writer
            rows = [r for r in _journal_rows(journal) if r.get("key") not in self._keys]
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


def read_store(folder: str | Path) -> pa.Table:
    """Every stored row (parts and journals of a campaign still running), keys unique."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    if not is_store(folder):
        raise InputError(f"{folder}: not a result store (no {MARKER}; "
                         "'hybridsched campaign SPEC -o FOLDER' makes one)")
    table = _read_parts(_parts(folder))
    journal_rows = [row for journal in _journals(folder) for row in _journal_rows(journal)]
    if journal_rows:
        table = pa.concat_tables([table, _to_table(journal_rows)])
    return _unique(table)


def load_results(folder: str | Path) -> Any:
    """The result table of a store as a pandas DataFrame, with gaps and metric columns.

    Rows are sorted by family, instance, method, seed and replication. Adds
    ``reference``, ``reference_kind`` and ``gap``
    (:func:`~hybridsched.experiments.tables.add_gaps`) and one ``metric_<name>``
    column per numeric metric.
    """
    from hybridsched.experiments.tables import add_gaps, expand_metrics

    table = add_gaps(expand_metrics(read_store(folder).to_pandas()))
    # One order whatever the order runs finished in (serial or on a cluster).
    order = ["family", "instance", "instance_hash", "method", "seed", "replication", "key"]
    return table.sort_values(order, kind="stable", ignore_index=True) if len(table) else table


def iter_rows(folder: str | Path) -> Iterator[dict[str, Any]]:
    """The stored rows as dicts (raw columns only)."""
    yield from read_store(folder).to_pylist()
