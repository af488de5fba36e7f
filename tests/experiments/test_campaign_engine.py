"""Campaigns give the same rows serially, on a LocalCluster and on a remote scheduler;
failing runs (raise, time limit without incumbent, killed worker) become rows."""

from __future__ import annotations

import json
import math
import re
import time

import pandas as pd
import pytest

from hybridsched.catalogue import get_family
from hybridsched.experiments.campaign import run_campaign
from hybridsched.experiments.store_read import load_results
from hybridsched.storage import load_instance

from .conftest import INSTANCES, write_spec

#: What must agree between execution modes (run times and workers differ).
SAME = ["key", "family", "instance", "instance_hash", "method", "seed", "status",
        "objective", "bound", "reference", "reference_kind", "gap", "metrics", "error"]


def _table(folder) -> pd.DataFrame:
    return load_results(folder).sort_values("key").reset_index(drop=True)


def _assert_same(left: pd.DataFrame, right: pd.DataFrame) -> None:
    assert len(left) == len(right) and left["key"].is_unique
    pd.testing.assert_frame_equal(left[SAME], right[SAME], check_exact=True)


@pytest.fixture(scope="module")
def serial_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serial")
    spec = write_spec(folder)
    summary = run_campaign(spec, folder / "results", mode="serial")
    return spec, folder / "results", summary


def test_serial_campaign_records_every_run_with_its_status(serial_run):
    spec, results, summary = serial_run
    table = _table(results)
    assert summary.planned == summary.ran == len(table) == 6 * 6
    statuses = table.groupby("method")["status"].agg(set).to_dict()
    assert statuses["test-raise"] == {"failed"}
    assert statuses["test-timeout"] == {"no_solution"}
    assert statuses["exact"] == {"optimal"}
    assert statuses["cdf"] <= {"feasible", "optimal"}
    raised = table[table["method"] == "test-raise"]["error"]
    assert set(raised) == {"ZeroDivisionError: the last line of the error"}
    # The exact optimum is the reference of every run of its instance.
    solved = table[table["status"].isin(["feasible", "optimal"])]
    assert (solved["reference_kind"] == "optimum").all()
    assert (solved["gap"] >= 0).all() and (solved[solved["method"] == "exact"]["gap"] == 0).all()
    assert (table["runtime_s"] > 0).all()
    # The finished store, read with pandas alone, carries the same gaps.
    raw = pd.read_parquet(results).sort_values("key").reset_index(drop=True)
    pd.testing.assert_series_equal(raw["gap"], table["gap"])
    assert list(raw["reference_kind"]) == list(table["reference_kind"])


def test_rows_pass_the_checker_when_schedules_are_recorded(tmp_path):
    spec = write_spec(tmp_path, methods=["cdf+ra", "exact"], tasks=(6,), seeds=2,
                      extra='record = ["solution"]')
    run_campaign(spec, tmp_path / "r", mode="serial")
    table = _table(tmp_path / "r")
    family = get_family("hybrid-deadline")
    from hybridsched.experiments.runner import load_row_instance

    for row in table.to_dict("records"):
        loaded = load_row_instance(row)
        assert loaded is not None
        _, instance = loaded
        solution = family.solution_from_dict(json.loads(row["solution"]), instance, "row")
        assert family.check(instance, solution) == []
        assert math.isclose(family.evaluate(instance, solution).objective, row["objective"])


def test_local_cluster_equals_serial_and_a_crash_is_retried_once(serial_run, tmp_path,
                                                                 monkeypatch):
    spec, serial_results, _ = serial_run
    attempts = tmp_path / "attempts.txt"
    monkeypatch.setenv("HYBRIDSCHED_TEST_ATTEMPTS", str(attempts))
    crash_spec = write_spec(tmp_path, methods=["test-crash"], tasks=(6,), seeds=1,
                            name="crash")
    # The same store: the serial runs are planned again, with the crash run added.
    both = tmp_path / "both.toml"
    both.write_text(spec.read_text() + "\n[[methods]]\nname = \"test-crash\"\n")
    summary = run_campaign(both, tmp_path / "local", mode="local", workers=2)
    table = _table(tmp_path / "local")
    crashed = table[table["method"] == "test-crash"]
    assert len(crashed) == 6 and set(crashed["status"]) == {"failed"}
    assert all("killed its worker process every time" in e for e in crashed["error"])
    failed = table[table["status"] == "failed"]
    assert summary.statuses["failed"] == 6 + 6, (  # test-raise and test-crash
        failed[["method", "error"]].to_string())
    lines = attempts.read_text().split()
    # Each crashing run is tried twice alone; a batch it was in first was tried twice too,
    # then split (which of its runs killed the worker is unknown).
    assert 2 * 6 <= len(lines) <= 4 * 6
    assert set(crashed["worker"]) == {"(lost)"}
    assert crash_spec.exists()
    _assert_same(table[table["method"] != "test-crash"].reset_index(drop=True),
                 _table(serial_results))


def test_remote_scheduler_equals_serial(serial_run, dask_scheduler, tmp_path):
    spec, serial_results, _ = serial_run
    summary = run_campaign(spec, tmp_path / "remote", scheduler=dask_scheduler)
    assert summary.mode == dask_scheduler and summary.workers == 2
    table = _table(tmp_path / "remote")
    assert set(table["worker"]).isdisjoint(set(_table(serial_results)["worker"]))
    _assert_same(table, _table(serial_results))


def test_rerun_skips_every_stored_key(serial_run, tmp_path):
    spec, _, _ = serial_run
    first = run_campaign(spec, tmp_path / "r", mode="serial")
    again = run_campaign(spec, tmp_path / "r", mode="serial")
    assert again.ran == 0 and again.stored_before == first.planned
    assert len(_table(tmp_path / "r")) == first.planned


def test_bundled_instances_gaps_use_the_recorded_optimum(tmp_path):
    spec = tmp_path / "bundled.toml"
    spec.write_text(
        "[campaign]\ntime_limit = 10.0\n[[instances]]\n"
        f'files = ["{(INSTANCES / "hybrid-deadline").as_posix()}/small-0[1-3].json"]\n'
        '[[methods]]\nname = "cdf"\n[[methods]]\nname = "exact"\n')
    run_campaign(spec, tmp_path / "r", mode="serial")
    table = _table(tmp_path / "r")
    assert len(table) == 6 and (table["reference_kind"] == "optimum (recorded)").all()
    for row in table.to_dict("records"):
        family, instance = load_instance(INSTANCES / "hybrid-deadline" / f"{row['instance']}.json")
        assert row["reference"] == family.reference(instance)["optimum"]
    assert (table[table["method"] == "exact"]["gap"] == 0).all()


def test_default_mode_stays_serial_for_short_runs(serial_run, tmp_path, monkeypatch):
    from hybridsched.experiments import engine

    # These runs take about a second here: 60 s is short of them on any machine.
    monkeypatch.setattr(engine, "AUTO_START_S", 60.0)
    spec, serial_results, _ = serial_run
    summary = run_campaign(spec, tmp_path / "auto", workers=2)  # the default mode: auto
    assert summary.mode == "serial" and summary.startup_s == 0
    assert re.match(r"auto: in process \(estimated [\d.]+ s of runs, below the 60 s that pay "
                    r"for a cluster\)$", summary.mode_note), summary.mode_note
    assert summary.runs_s > 0 and summary.speedup is None   # no speed-up to speak of
    _assert_same(_table(tmp_path / "auto"), _table(serial_results))


def _ready_before_the_next_run(monkeypatch):
    """The background cluster answers the first time it is asked (runs here take ms)."""
    from hybridsched.experiments import cluster_host

    address = cluster_host.BackgroundCluster.address

    def waited(cluster):
        deadline = time.monotonic() + 120
        while address(cluster) is None and not cluster.failed() and time.monotonic() < deadline:
            time.sleep(0.05)
        return address(cluster)

    monkeypatch.setattr(cluster_host.BackgroundCluster, "address", waited)


def test_default_mode_shares_the_runs_left_with_a_cluster_started_beside_them(
        serial_run, tmp_path, monkeypatch):
    """A cluster starts in the background after the first run; once it is ready this
    process takes runs from the front and the cluster from the back: the same rows."""
    from hybridsched.experiments import engine

    spec, serial_results, _ = serial_run
    monkeypatch.setattr(engine, "AUTO_START_S", 0.0)    # any run left is worth a cluster
    _ready_before_the_next_run(monkeypatch)
    summary = run_campaign(spec, tmp_path / "auto", workers=2)
    assert summary.mode == "local" and summary.workers == 2 and summary.speedup > 0
    note = re.match(r"auto: (\d+) runs? in process and (\d+) on a cluster of 1 worker started "
                    r"beside them \(ready after [\d.]+ s\): the runs' serial time [\d.]+ s, "
                    r"done in [\d.]+ s$", summary.mode_note)
    assert note, summary.mode_note
    assert int(note[1]) >= 1 and int(note[2]) >= 1 and int(note[1]) + int(note[2]) == 36
    table = _table(tmp_path / "auto")
    assert table["worker"].nunique() >= 2   # this process's runs, and the worker's
    _assert_same(table, _table(serial_results))


def test_default_mode_stops_a_cluster_that_is_not_ready_in_time(serial_run, tmp_path,
                                                                  monkeypatch):
    """The campaign ends before the cluster is ready: stopped unused, every run here."""
    from hybridsched.experiments import cluster_host, engine

    spec, serial_results, _ = serial_run
    monkeypatch.setattr(engine, "AUTO_START_S", 0.0)
    monkeypatch.setattr(cluster_host.BackgroundCluster, "address", lambda cluster: None)
    summary = run_campaign(spec, tmp_path / "auto", workers=2)
    assert summary.mode == "serial" and summary.startup_s == 0
    assert summary.mode_note.endswith("was not ready before the end: stopped unused")
    _assert_same(_table(tmp_path / "auto"), _table(serial_results))


def test_default_mode_quarantines_a_run_that_kills_its_worker(tmp_path, monkeypatch):
    """The crashing run is the campaign's last: the cluster takes it first, from the back,
    and the runs of the batch that died go to the quarantine; the rest is unaffected."""
    from hybridsched.experiments import engine

    monkeypatch.setenv("HYBRIDSCHED_TEST_ATTEMPTS", str(tmp_path / "attempts.txt"))
    spec = write_spec(tmp_path, methods=["cdf", "ffd", "cdf+ra", "ffd+ra", "test-crash"],
                      tasks=(6,), seeds=1, name="crash-last")
    monkeypatch.setattr(engine, "AUTO_START_S", 0.0)
    _ready_before_the_next_run(monkeypatch)
    summary = run_campaign(spec, tmp_path / "auto", workers=2)
    table = _table(tmp_path / "auto")
    assert summary.mode == "local" and len(table) == 5
    crashed = table[table["method"] == "test-crash"]
    assert list(crashed["status"]) == ["failed"] and list(crashed["worker"]) == ["(lost)"]
    assert set(table[table["method"] != "test-crash"]["status"]) <= {"feasible", "optimal"}
