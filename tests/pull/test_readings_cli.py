"""``simulate pull``'s flags for the paper's readings (issue 19): each reaches its method."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.mark.parametrize("argv", [
    ["--method", "fcfs", "--order", "oldest", "--replicas", "two-level"],
    ["--method", "promethee", "--noi-max", "ranked", "--replicas", "two-level",
     "--targets", "max,max,min"],
])
def test_reading_flags_run_and_validate(argv, cli, tmp_path: Path) -> None:
    inst, sched = tmp_path / "i.json", tmp_path / "s.json"
    code, out, err = cli("simulate", "pull", "--units", "20", "--seed", "3", *argv,
                         "--save-instance", inst, "-o", sched, "--json")
    assert code == 0, err
    assert json.loads(out)["metrics"]["completed"] == 20
    code, out, err = cli("validate", inst, sched)
    assert code == 0 and "valid" in out, (out, err)


def test_reading_flags_change_the_schedule(cli, tmp_path: Path) -> None:
    runs = {}
    for flag in ("random", "oldest"):
        code, out, err = cli("simulate", "pull", "--units", "20", "--seed", "3",
                             "--method", "fcfs", "--order", flag, "-o", tmp_path / "s.json")
        assert code == 0, err
        runs[flag] = [e for e in json.loads((tmp_path / "s.json").read_text())["events"]
                      if e["event"] == "SCH"]
    assert runs["random"] != runs["oldest"]


@pytest.mark.parametrize("argv, words", [
    (["--method", "fcfs", "--order", "lifo"], "--order"),
    (["--replicas", "fifo"], "--replicas"),
    (["--noi-max", "bot"], "--noi-max"),
    (["--method", "promethee", "--order", "oldest"], "--order: only the fcfs method"),
    (["--method", "fcfs", "--noi-max", "ranked"], "--noi-max: only the promethee method"),
])
def test_bad_reading_flags(argv, words, cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("simulate", "pull", "--units", "5", *argv)
    assert code == 2, (out, err)
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) <= 3
