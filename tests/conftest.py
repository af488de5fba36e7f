"""Shared fixtures: where the real data lives, and the bundled instances."""

from __future__ import annotations

from pathlib import Path

import pytest

from hybridsched.io.shared_data import NASA_TRACE, shared_data_path

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"


@pytest.fixture(scope="session")
def nasa_trace_path() -> Path:
    """The NASA iPSC/860 SWF trace, or skip with the reason."""
    path = shared_data_path(NASA_TRACE)
    if path is None:
        pytest.skip("NASA iPSC trace not found: set HYBRIDSCHED_DATA to a folder holding "
                    "traces/NASA-iPSC-1993-3.1-cln.swf.gz (or keep ../shared/data)")
    return path


@pytest.fixture
def cli(capsys):
    """Run the command line on arguments; return ``(exit code, stdout, stderr)``."""
    from hybridsched.cli import run

    def call(*argv):
        code = run([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return call
