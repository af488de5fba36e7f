"""The NASA iPSC/860 slices the hybrid-deadline fidelity campaigns read (a campaign plugin).

Issue 19, paper 002 (Wang et al. 2016). The campaign importer takes whole SWF
files, so the paired "NASA windows" are SWF files (the trace's header, then
consecutive records), written into :data:`FOLDER` from the shared trace
(:mod:`hybridsched.io.shared_data`); they are derived data, never committed:

* ``window-00.swf`` .. ``window-09.swf``: the trace's records cut into 10
  consecutive, disjoint windows of (almost) equal record counts (about 1,824
  records, 9 days each);
* ``first-61-days.swf``: the records submitted in the first 61 days, the
  reading of the paper's "a 2-month trance collected from NASA Ames iPSC/860"
  (Section 4.1) against the full 3-month trace (92 days, 18,239 records).

The campaigns name this file as a plugin: it registers nothing, but its import
(which a campaign does before expanding its file globs, and in every worker)
writes the slices when they are missing, atomically. Run as a script, it
writes them into the folder given::

    python examples/campaigns/fidelity_hybrid_deadline_windows.py [FOLDER]
"""

from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

from hybridsched.errors import InputError
from hybridsched.io.shared_data import NASA_TRACE, shared_data_path

#: Where the campaigns read the slices (their specs spell it out).
FOLDER = Path("~/.cache/hybridsched/nasa-slices").expanduser()
#: Number of disjoint windows.
WINDOWS = 10
#: Days kept by the two-month reading.
TWO_MONTHS_DAYS = 61


def slice_names() -> list[str]:
    """File names of every slice."""
    return [f"window-{w:02d}.swf" for w in range(WINDOWS)] + [f"first-{TWO_MONTHS_DAYS}-days.swf"]


def write_slices(folder: Path) -> int:
    """Write every slice into ``folder``; returns the number of trace records.

    Raises
    ------
    InputError
        When the NASA trace is not in the data folder.
    """
    trace = shared_data_path(NASA_TRACE)
    if trace is None:
        raise InputError(f"the NASA trace ({NASA_TRACE}) is not in the data folder "
                         "(set HYBRIDSCHED_DATA): the NASA fidelity campaigns need it")
    with gzip.open(trace, "rt") as handle:
        lines = handle.read().splitlines()
    header = [line for line in lines if line.lstrip().startswith(";")]
    records = [line for line in lines if line.strip() and not line.lstrip().startswith(";")]
    parts = {f"window-{w:02d}.swf": records[w * len(records) // WINDOWS:
                                            (w + 1) * len(records) // WINDOWS]
             for w in range(WINDOWS)}
    parts[f"first-{TWO_MONTHS_DAYS}-days.swf"] = [
        r for r in records if float(r.split()[1]) < TWO_MONTHS_DAYS * 86400]
    folder.mkdir(parents=True, exist_ok=True)
    for name, part in parts.items():
        partial = folder / f".{name}.{os.getpid()}"
        partial.write_text("\n".join(header + part) + "\n")
        os.replace(partial, folder / name)  # atomic: a reader never sees half a file
    return len(records)


def ensure_slices(folder: Path = FOLDER) -> None:
    """Write the slices into ``folder`` unless they are all there."""
    if not all((folder / name).is_file() for name in slice_names()):
        write_slices(folder)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else FOLDER
    try:
        count = write_slices(target)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    print(f"{WINDOWS} windows of ~{count // WINDOWS} records and the first "
          f"{TWO_MONTHS_DAYS} days written to {target}")
else:
    ensure_slices()
