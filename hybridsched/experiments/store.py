"""The writer of a result store: one campaign at a time appends its finished runs.

The files are described in :mod:`~hybridsched.experiments.store_format`. The
gap columns (``reference``, ``reference_kind``, ``gap``) are filled when a
campaign ends (a later run may prove the optimum they refer to); readers
(:mod:`~hybridsched.experiments.store_read`) always recompute them.

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

import fcntl
import json
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from hybridsched.errors import InputError
from hybridsched.experiments.store_format import (
    COLUMNS,
    REPLACES,
    SCHEMA,
    VanishedError,
    journal_rows,
    read_parts,
    rows_table,
    unique_keys,
    write_part,
)
from hybridsched.experiments.store_layout import (
    MARKER,
    SPEC_COPY,
    STORE_FORMAT,
    check_marker,
    is_store,
    journal_files,
    part_files,
)
from hybridsched.io.outputs import atomic_write_text

#: A journal becomes a part after this many rows ...
PART_EVERY_ROWS = 500
#: ... or this many seconds.
PART_EVERY_S = 10.0


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
            check_marker(folder)
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
            self._keys = set(read_parts(part_files(folder)).column("key").to_pylist())
            journals = {journal: journal_rows(journal) for journal in journal_files(folder)}
        except BaseException as exc:
            self._lock.close()
            self._lock = None
            if isinstance(exc, VanishedError):
                raise InputError(f"{exc.args[0]}: vanished while the store was opened"
                                 ) from None
            raise
        self._finish_merges()
        for journal, rows in journals.items():  # left by a killed writer
            rows = [r for r in rows if r["key"] not in self._keys]
            if rows:
                write_part(folder, rows_table(rows))
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
        rows = journal_rows(self._journal_path)
        if rows:
            write_part(self.folder, rows_table(rows))
        self._journal_path.unlink()
        self._journal, self._journal_path, self._journal_count = None, None, 0

    def merge(self) -> None:
        """Merge every part into one, with every gap computed (see the module docstring).

        Fewer files make reads and resumes faster; the gap columns of rows
        stored during a campaign stay empty until then, since a later run may
        prove the optimum they are measured against.
        """
        self._finish_merges()
        parts = part_files(self.folder)
        if len(parts) < 2 and not self._added:
            return
        from hybridsched.experiments.tables import add_gaps

        table = add_gaps(unique_keys(read_parts(parts)).to_pandas())
        merged = pa.Table.from_pandas(table[COLUMNS], schema=SCHEMA, preserve_index=False)
        write_part(self.folder, merged, replaces=[p.name for p in parts])
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
        present = {p.name for p in part_files(self.folder)}
        for part in part_files(self.folder):
            metadata = pq.read_schema(part).metadata or {}
            for name in json.loads(metadata.get(REPLACES, b"[]")):
                if name in present and name != part.name:
                    (self.folder / name).unlink(missing_ok=True)
