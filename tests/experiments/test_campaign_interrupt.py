"""Ctrl-C during a campaign, serial and on the default local cluster: exit 130 and one line,
finished runs kept, nothing of an interrupted run stored, no worker process left, and the
resumed store equal to an uninterrupted one row for row, statuses and messages included.

``test-highs-nap`` spends its runs inside HiGHS with a node limit (a clock-free outcome,
its bound in the message), so a SIGINT lands mid-solve; before, HiGHS returned
"interrupted" and the run was stored with a truncated bound.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import psutil
import pytest

from hybridsched.experiments.campaign import run_campaign
from hybridsched.experiments.store_read import load_results, read_store

from .conftest import write_spec

#: faulty_methods.NAP_NODES (importing that module would register its methods for every test).
NAP_NODES = "HYBRIDSCHED_TEST_NAP_NODES"

SAME = ["key", "instance", "method", "seed", "status", "objective", "gap", "metrics", "error"]


def _stored(out) -> int:
    try:
        return read_store(out).num_rows
    except Exception:
        return 0


def _table(folder):
    return load_results(folder).sort_values("key").reset_index(drop=True)


@pytest.fixture(scope="module", autouse=True)
def _shorter_naps():
    """6,000 nodes (about 1 s a run): a SIGINT 0.3 s after a stored run still lands mid-solve,
    and the module costs half the default suite time it did with 12,000."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(NAP_NODES, "6000")
        yield


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ctrl-c")
    spec = write_spec(folder, methods=["cdf", "test-highs-nap", "ffd"], tasks=(6,), seeds=3,
                      name="ctrl-c")
    run_campaign(spec, folder / "results", mode="serial")
    table = _table(folder / "results")
    naps = table[table["method"] == "test-highs-nap"]
    assert set(naps["status"]) == {"feasible"} and naps["error"].str.contains("bound").all()
    return spec, table


@pytest.mark.parametrize("mode", [["--serial"], []], ids=["serial", "local-cluster"])
def test_interrupted_campaign_stores_no_interrupted_run_and_resumes_to_the_same_table(
        reference, tmp_path, mode):
    spec, expected = reference
    out = tmp_path / "results"
    argv = [sys.executable, "-m", "hybridsched", "campaign", str(spec), "-o", str(out), *mode]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while _stored(out) < 3:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.3)  # most of a run's time is spent inside HiGHS
    workers = psutil.Process(process.pid).children(recursive=True)
    process.send_signal(signal.SIGINT)
    out_text, err = process.communicate(timeout=60)
    assert process.returncode == 130 and out_text == ""
    assert len(err.splitlines()) == 1 and "run the same command again" in err, err
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert not alive, f"worker processes outlived the command: {alive}"

    partial = read_store(out).to_pandas()
    assert partial["key"].is_unique and 3 <= len(partial) < len(expected)
    kept = expected.set_index("key").loc[partial["key"]]
    assert list(partial["status"]) == list(kept["status"])
    assert list(partial["error"].fillna("")) == list(kept["error"].fillna(""))

    again = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    pd.testing.assert_frame_equal(_table(out)[SAME], expected[SAME])


def test_an_interrupted_report_writes_no_report(tmp_path):
    """100,000 rows keep ``report`` busy for seconds; Ctrl-C leaves no report.md behind."""
    import json

    from hybridsched.experiments import store_format, store_layout

    methods = ["cdf", "ffd", "cdf+ra", "ffd+ra", "exact"]
    rows = [{"key": f"k{i}", "campaign": "big", "family": "hybrid-deadline",
             "instance": f"i{i // 5}", "instance_hash": f"h{i // 5}", "instance_size": 10 + i % 50,
             "method": methods[i % 5], "method_name": methods[i % 5], "options": "{}",
             "seed": i // 5, "replication": 0, "time_limit": 60.0, "status": "feasible",
             "objective": 1.0 + (i % 7) / 10, "bound": 1.0,
             "metrics": json.dumps({"cost": 1.0 + (i % 7) / 10, "makespan": 3.0 + i % 11}),
             "runtime_s": 0.01 * (1 + i % 13), "cpu_s": 0.01, "wall_s": 0.02}
            for i in range(100_000)]
    folder, out = tmp_path / "store", tmp_path / "report"
    folder.mkdir()
    (folder / store_layout.MARKER).write_text(json.dumps(store_layout.STORE_FORMAT))
    store_format.write_part(folder, store_format.rows_table(rows))
    process = subprocess.Popen([sys.executable, "-m", "hybridsched", "report", str(folder),
                                "-o", str(out)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    assert process.poll() is None, process.communicate()
    process.send_signal(signal.SIGINT)
    out_text, err = process.communicate(timeout=60)
    assert process.returncode == 130 and out_text == ""
    assert err.splitlines() == ["error: interrupted"]
    assert not (out / "report.md").exists() and not (out / "report.html").exists()
    assert not list(out.glob(".*.tmp")) if out.exists() else True


def _session_members(session: int) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter():
        try:
            if os.getsid(process.pid) == session:
                found.append(process)
        except (ProcessLookupError, PermissionError, psutil.Error):
            continue
    return found


def test_ctrl_c_in_the_default_mode_ends_the_cluster_starting_beside_the_runs(tmp_path):
    """The default mode starts a cluster in a session of its own; Ctrl-C ends all of it."""
    spec = write_spec(tmp_path, methods=["test-highs-nap"], tasks=(6,), seeds=14, name="beside")
    out = tmp_path / "results"
    process = subprocess.Popen([sys.executable, "-m", "hybridsched", "campaign", str(spec),
                                "-o", str(out)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    host = None
    while host is None:  # about 13 naps of ~1 s left after the first: worth a cluster
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no cluster started beside the runs"
        host = next((child for child in psutil.Process(process.pid).children()
                     if "hybridsched.experiments.cluster_host" in " ".join(child.cmdline())),
                    None)
        time.sleep(0.05)
    session = os.getsid(host.pid)
    assert session != os.getsid(process.pid)  # the terminal's Ctrl-C does not reach it
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    out_text, err = process.communicate(timeout=60)
    assert process.returncode == 130 and out_text == ""
    assert len(err.splitlines()) == 1, err
    deadline = time.monotonic() + 10
    while _session_members(session) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _session_members(session), "the background cluster outlived the command"
