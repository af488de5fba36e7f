"""The NASA slices of the hybrid-deadline fidelity campaigns (issue 19) partition the trace."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from hybridsched.io.shared_data import NASA_TRACE, shared_data_path
from hybridsched.io.swf import read_swf

PLUGIN = (Path(__file__).parents[2] / "examples" / "campaigns"
          / "fidelity_hybrid_deadline_windows.py")


@pytest.mark.slow  # reads the whole trace and writes 11 slices (several seconds)
@pytest.mark.skipif(shared_data_path(NASA_TRACE) is None, reason="NASA trace absent")
def test_import_writes_disjoint_windows_covering_the_trace_and_the_61_days(tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # the plugin writes under ~/.cache on import
    spec = importlib.util.spec_from_file_location("fidelity_slices_under_test", PLUGIN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = tmp_path / ".cache" / "hybridsched" / "nasa-slices"
    assert sorted(p.name for p in folder.iterdir()) == sorted(module.slice_names())
    records = read_swf(shared_data_path(NASA_TRACE)).records
    trace = [r.job_number for r in records]
    windows = [[r.job_number for r in read_swf(folder / f"window-{w:02d}.swf").records]
               for w in range(module.WINDOWS)]
    assert [j for w in windows for j in w] == trace  # consecutive, disjoint, complete
    assert max(map(len, windows)) - min(map(len, windows)) <= 1
    first = read_swf(folder / "first-61-days.swf").records
    assert first and all(r.submit_time < 61 * 86400 for r in first)
    assert len(first) == sum(1 for r in records if r.submit_time < 61 * 86400)
