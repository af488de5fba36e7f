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


def shared_data_path(relative: str) -> Path | None:
    """``relative`` inside the first data folder that has it, or ``None``."""
    checkout = Path(__file__).resolve().parents[3]
    for folder in (os.environ.get("HYBRIDSCHED_DATA"), checkout / "shared" / "data"):
        if folder and (Path(folder) / relative).exists():
            return Path(folder) / relative
    return None
