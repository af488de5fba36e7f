"""Where the real data sets (SWF traces, Braun ETC matrices) are read from.

They are never downloaded nor bundled: ``$HYBRIDSCHED_DATA`` names a folder
holding them, and otherwise ``shared/data`` beside the project checkout is
used (the layout of this project's workplace).
"""

from __future__ import annotations

import os
from pathlib import Path

#: Braun et al. (2001) ETC matrices, relative to the data folder.
BRAUN_FOLDER = "braun-etc-512x16"
#: NASA Ames iPSC/860 trace (Parallel Workloads Archive), relative to the data folder.
NASA_TRACE = "traces/NASA-iPSC-1993-3.1-cln.swf.gz"


#: The environment variable naming the data folder.
DATA_VARIABLE = "HYBRIDSCHED_DATA"


def data_variable_problem() -> str | None:
    """Why ``$HYBRIDSCHED_DATA`` is unusable (set, and not a folder), or ``None``.

    :func:`shared_data_path` then falls back to ``shared/data``; a command
    that reads data for the user says this instead, rather than silently
    reading other data than the folder the user named.
    """
    value = os.environ.get(DATA_VARIABLE)
    if not value or os.path.isdir(value):
        return None
    what = "is not a folder" if os.path.exists(value) else "does not exist"
    return f"${DATA_VARIABLE} is {value!r}, which {what}"


def shared_data_path(relative: str) -> Path | None:
    """``relative`` inside the first data folder that has it, or ``None``."""
    checkout = Path(__file__).resolve().parents[3]
    for folder in (os.environ.get("HYBRIDSCHED_DATA"), checkout / "shared" / "data"):
        if folder and (Path(folder) / relative).exists():
            return Path(folder) / relative
    return None
