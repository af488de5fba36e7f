"""An interrupted campaign (SIGINT, SIGKILL of the driver) resumes without lost or
duplicated rows, and ends with the table of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from hybridsched.experiments.campaign import run_campaign
from hybridsched.experiments.store_read import load_results, read_store

from .conftest import write_spec

SAME = ["key", "instance", "method", "seed", "status", "objective", "gap", "metrics"]


def _cli(spec, out) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "hybridsched", "--quiet", "campaign",
                             str(spec), "-o", str(out), "--serial"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _stored(out) -> int:
    try:
        return read_store(out).num_rows
    except Exception:
        return 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reference")
    spec = write_spec(folder, methods=["cdf", "test-sleepy", "ffd"], seeds=10, name="resume")
    run_campaign(spec, folder / "results", mode="serial")
    return spec, load_results(folder / "results").sort_values("key").reset_index(drop=True)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_interrupted_campaign_resumes_to_the_same_table(reference, tmp_path, sig):
    spec, expected = reference
    out = tmp_path / "results"
    process = _cli(spec, out)
    deadline = time.monotonic() + 60
    while _stored(out) < 8:
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(process.pid, sig)
    code = process.wait(timeout=30)
    assert code == (130 if sig == signal.SIGINT else -signal.SIGKILL)
    if sig == signal.SIGINT:
        assert "run the same command again" in process.stderr.read()
    partial = read_store(out).to_pandas()
    assert partial["key"].is_unique and 8 <= len(partial) < len(expected)
    assert set(partial["key"]) <= set(expected["key"])
    again = _cli(spec, out)
    assert again.wait(timeout=120) == 0, again.stderr.read()
    table = load_results(out).sort_values("key").reset_index(drop=True)
    assert table["key"].is_unique
    pd.testing.assert_frame_equal(table[SAME], expected[SAME])
    # Nothing in flight is left behind: no journal, no temporary part.
    assert not list(out.glob("_journal-*")) and not list(out.glob(".*.tmp"))
    assert pd.read_parquet(out)["key"].is_unique  # what a user reads with pandas alone
