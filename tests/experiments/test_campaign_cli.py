"""The ``campaign`` and ``report`` commands as a user types them."""

from __future__ import annotations

import json

import pandas as pd

from .conftest import write_spec


def test_campaign_json_summary_csv_and_resume(tmp_path, cli):
    spec = write_spec(tmp_path, methods=["cdf", "ffd"], tasks=(6,), seeds=2,
                      extra='record = ["solution"]')
    code, out, err = cli("campaign", spec, "-o", tmp_path / "r", "--serial", "--json",
                         "--csv", tmp_path / "all.csv")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["planned"] == summary["ran"] == 4 and summary["stored_before"] == 0
    assert summary["statuses"] == {"feasible": 4}
    table = pd.read_csv(tmp_path / "all.csv")
    assert len(table) == 4 and {"gap", "reference_kind", "metric_cost"} <= set(table.columns)
    code, out, _ = cli("campaign", spec, "-o", tmp_path / "r", "--serial")
    assert code == 0 and "4 already stored, 0 run" in out
    code, _, err = cli("report", tmp_path / "r", "-o", tmp_path / "rep", "--gantt")
    assert code == 0, err
    written = {p.name for p in (tmp_path / "rep").iterdir()}
    assert {"report.md", "report.html", "hybrid-deadline-gantt.png"} <= written
    assert (tmp_path / "rep" / "hybrid-deadline-gantt.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_campaign_input_is_one_line_and_exit_2(tmp_path, cli):
    spec = write_spec(tmp_path, methods=["cdf"], tasks=(6,), seeds=1)
    bad = tmp_path / "bad.toml"
    bad.write_text(spec.read_text().replace('name = "cdf"', 'name = "cdff"'))
    cases = [
        (["campaign", bad, "-o", tmp_path / "r"], "methods[0].name"),
        (["campaign", tmp_path / "none.toml", "-o", tmp_path / "r"], "no such file"),
        (["campaign", spec, "-o", spec], "is a file, not a folder"),
        (["campaign", spec, "-o", tmp_path / "r", "--serial", "--workers", "2"], "--serial"),
        (["campaign", spec, "-o", tmp_path / "r", "--csv", tmp_path / "no" / "x.csv"],
         "does not exist"),
        (["report", tmp_path / "nothing", "-o", tmp_path / "rep"], "no such folder"),
        (["report", tmp_path, "-o", tmp_path / "rep"], "not a result store"),
    ]
    for argv, expected in cases:
        code, _, err = cli(*argv)
        assert code == 2 and expected in err and err.count("\n") == 1, (argv, err)
    assert not (tmp_path / "r").exists()  # a bad spec leaves no result folder behind


def test_example_specs_load(monkeypatch):
    from pathlib import Path

    import pytest

    from hybridsched.experiments.campaign import plan
    from hybridsched.experiments.spec import load_spec
    from hybridsched.io.shared_data import BRAUN_FOLDER, NASA_TRACE, shared_data_path

    examples = sorted((Path(__file__).parents[2] / "examples" / "campaigns").glob("*.toml"))
    assert len(examples) >= 2
    for path in examples:
        if "braun" in path.name and shared_data_path(BRAUN_FOLDER) is None:
            continue  # checked below when the data is there
        if "{data}/traces" in path.read_text() and shared_data_path(NASA_TRACE) is None:
            continue  # the NASA campaigns read the shared trace
        runs = plan(load_spec(path))
        assert runs and len({run.key for run in runs}) == len(runs)
    if shared_data_path(BRAUN_FOLDER) is None:
        pytest.skip("Braun ETC instances absent: set HYBRIDSCHED_DATA to check the Braun spec")
    braun = load_spec(examples[0].parent / "bot-sites-braun.toml")
    assert len(braun.sources) == 12


def test_a_second_cluster_on_the_machine_adds_nothing_to_stderr(tmp_path):
    """Dask's default HTTP port taken (another cluster runs): no warning reaches the user."""
    import socket
    import subprocess
    import sys

    spec = write_spec(tmp_path, methods=["cdf"], tasks=(6,), seeds=1)
    with socket.socket() as taken:
        try:
            taken.bind(("127.0.0.1", 8787))
            taken.listen()
        except OSError:
            pass  # held already: the situation to test
        done = subprocess.run([sys.executable, "-m", "hybridsched", "campaign", str(spec),
                               "-o", str(tmp_path / "r"), "--workers", "2", "--json"],
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert json.loads(done.stdout)["mode"] == "local"
