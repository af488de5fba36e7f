"""Where a result store is and what marks it: its folder, marker and file names.

Light on purpose (no pandas, pyarrow or numpy): the command line checks a
store folder given on it before the readers
(:mod:`~hybridsched.experiments.store_read`) are imported. The files
themselves are read and written by
:mod:`~hybridsched.experiments.store_format`, whose docstring gives the layout.
"""

from __future__ import annotations

import json
from pathlib import Path

from hybridsched.errors import InputError

#: Marker file of a result store.
MARKER = "_store.json"
#: What the marker says.
STORE_FORMAT = {"format": "hybridsched-results", "version": 1}
#: Copy of the spec of the latest campaign.
SPEC_COPY = "_campaign.toml"


def is_store(folder: Path) -> bool:
    """Whether ``folder`` holds a result store."""
    return (folder / MARKER).is_file()


def check_marker(folder: Path) -> None:
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


def part_files(folder: Path) -> list[Path]:
    """The parts of the store in ``folder``, oldest first."""
    return sorted(folder.glob("part-*.parquet"))


def journal_files(folder: Path) -> list[Path]:
    """The journals of the store in ``folder`` (one per writer that has not finished)."""
    return sorted(folder.glob("_journal-*.jsonl"))


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
    check_marker(folder)
    return folder
