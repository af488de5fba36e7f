"""Reading a result store: its rows, the results table with gaps, and the campaign it holds.

Readers take no lock: a campaign may be writing into the store, merging its
parts or turning its journal into a part while they read, so a read whose
files vanish is tried again. Rows of a journal (a campaign still running or
killed) are read with the parts; repeated keys are dropped. Before a
campaign runs into a folder, :func:`check_resume` refuses a store that
another campaign wrote.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from hybridsched.errors import InputError
from hybridsched.experiments.store_format import (
    VanishedError,
    journal_rows,
    read_parts,
    rows_table,
    unique_keys,
)
from hybridsched.experiments.store_layout import (
    SPEC_COPY,
    check_store_folder,
    is_store,
    journal_files,
    part_files,
)

#: Most attempts at reading a store whose files a running campaign renames or merges.
READ_ATTEMPTS = 5


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
        with contextlib.suppress(VanishedError):
            return _read_once(folder, warn, columns)
    try:
        return _read_once(folder, warn, columns)
    except VanishedError as exc:
        raise InputError(f"{exc.args[0]}: vanished while the store was read (a campaign is "
                         "writing into it?); try again") from None


def _read_once(folder: Path, warn: Callable[[str], None] | None,
               columns: list[str] | None = None) -> pa.Table:
    wanted = None if columns is None else ["key", *(c for c in columns if c != "key")]
    table = read_parts(part_files(folder), wanted)
    journaled_rows = [row for journal in journal_files(folder)
                      for row in journal_rows(journal, warn)]
    if journaled_rows:
        journaled = rows_table(journaled_rows)
        table = pa.concat_tables([table, journaled if wanted is None
                                  else journaled.select(wanted)])
    return unique_keys(table)


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


def newest_runs(table: Any) -> Any:
    """One row per run: a run made again (by newer code, in the same store) replaces the old.

    A store keys runs by their code version too, so that runs of changed code
    are made again beside the old ones; the newest row of each run counts.
    """
    if not len(table):
        return table
    return table.sort_values("timestamp", kind="stable").drop_duplicates(
        ["instance_hash", "method", "options", "seed", "replication"], keep="last")


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
    here is reported now; :class:`~.store.ResultStore` checks every column when it
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
