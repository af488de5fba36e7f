"""Shared fixtures: where the real data lives, and the bundled instances."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"


def shared_data_dir() -> Path | None:
    """``$HYBRIDSCHED_DATA`` or ``../shared/data`` beside the checkout."""
    for candidate in (os.environ.get("HYBRIDSCHED_DATA"), ROOT.parent / "shared" / "data"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def nasa_trace_path() -> Path:
    """The NASA iPSC/860 SWF trace, or skip with the reason."""
    data = shared_data_dir()
    path = data / "traces" / "NASA-iPSC-1993-3.1-cln.swf.gz" if data else None
    if path is None or not path.exists():
        pytest.skip("NASA iPSC trace not found: set HYBRIDSCHED_DATA to a folder holding "
                    "traces/NASA-iPSC-1993-3.1-cln.swf.gz (or keep ../shared/data)")
    return path
