"""Pull files, ``generate``/``simulate pull``, ``import-fta``: round trips and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hybridsched.catalogue import get_family
from hybridsched.errors import InputError
from hybridsched.pull.generator import generate
from hybridsched.pull.traces import instance_from_traces

TRACE = """# event_id component_id node_id platform_id node_name type start stop reason
1 0 n1 0 a 1 0 40000 0
2 0 n1 0 a 0 40000 50000 0
3 0 n1 0 a 1 50000 -1 0
4 0 n2 0 b 1 0 -1 0
5 0 n3 0 c 1 1000 90000 0
"""


def test_instance_and_schedule_round_trip() -> None:
    family = get_family("pull")
    instance = generate(30, seed=2)
    again = family.instance_from_dict(json.loads(json.dumps(family.instance_to_dict(instance))),
                                      "x")
    assert again.windows == instance.windows and np.array_equal(again.noi, instance.noi)
    assert again.behaviour == instance.behaviour and again.dci == instance.dci
    from hybridsched.registry import run_method

    solution = run_method("pull", "promethee", again).solution
    document = json.loads(json.dumps(family.solution_to_dict(solution, again)))
    read = family.solution_from_dict(document, again, "s")
    assert family.check(again, read) == []
    assert read.reported["makespan"] == family.evaluate(again, solution).objective


def doc(**change):
    document = {"format": "hybridsched-instance", "version": 1, "family": "pull",
                "work_units": [{"id": "w0", "noi": 1000}],
                "hosts": [{"id": "h0", "dci": "cloud", "cpu": 100, "price": 0.01}]}
    for key, value in change.items():
        target, field = key.split("__")
        if target == "doc":
            document[field] = value
        else:
            document[target][0][field] = value
    return document


@pytest.mark.parametrize("change, words", [
    ({"hosts__cpu": -5}, "hosts.0.cpu"),
    ({"hosts__price": -1}, "hosts.0.price"),
    ({"hosts__dci": "grid"}, "hosts.0.dci"),
    ({"hosts__error": 1.5}, "hosts.0.error"),
    ({"hosts__windows": [[10, 5]]}, "hosts.0.windows.0: the window ends at 5"),
    ({"hosts__windows": [[0, 10], [5, 20]]}, "before the previous one ends"),
    ({"work_units__noi": 0}, "work_units.0.noi"),
    ({"work_units__noi": "big"}, "work_units.0.noi"),
    ({"doc__hosts": []}, "hosts"),
    ({"doc__behaviour": {"delayed": 0.7, "never": 0.5}}, "delayed + never"),
])
def test_bad_instance_documents(change, words) -> None:
    with pytest.raises(InputError) as error:
        get_family("pull").instance_from_dict(doc(**change), "f.json")
    assert words in str(error.value) and str(error.value).startswith("f.json")


def test_fta_traces_make_an_instance(tmp_path: Path) -> None:
    path = tmp_path / "boinc.txt"
    path.write_text(TRACE)
    instance = instance_from_traces([(path, "idg"), (path, "beg")], units=10, seed=1,
                                    offset=1000.0)
    assert instance.n_hosts == 6 and instance.dcis == ("idg", "beg")
    first = instance.host_ids.index("idg-n1")
    assert instance.windows[first] == ((0.0, 39000.0), (49000.0, float("inf")))
    assert instance.windows[instance.host_ids.index("idg-n3")] == ((0.0, 89000.0),)
    assert set(instance.cpu[:3]) <= {50, 100, 150, 200, 250, 300, 350, 400}
    picked = instance_from_traces([(path, "cloud")], capacity=1.0, seed=1)
    assert picked.n_hosts == 1 and picked.price[0] > 0
    with pytest.raises(InputError, match="names a DCI twice"):
        instance_from_traces([(path, "idg"), (path, "idg")])
    closed = tmp_path / "closed.txt"
    closed.write_text("5 0 n3 0 c 1 1000 90000 0\n")
    with pytest.raises(InputError, match="no host is available after the offset"):
        instance_from_traces([(closed, "idg")], offset=90000.0)


def test_generate_simulate_validate_gantt(tmp_path: Path, cli) -> None:
    inst, sched, chart = tmp_path / "i.json", tmp_path / "s.json", tmp_path / "g.png"
    code, _, err = cli("generate", "pull", "--units", "40", "--dci", "cloud,beg", "-o", inst)
    assert code == 0, err
    code, out, err = cli("simulate", "pull", inst, "--method", "fcfs", "-o", sched, "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["status"] == "feasible" and summary["metrics"]["completed"] == 40
    assert summary["objective"] >= summary["lower_bound"] > 0
    code, out, err = cli("validate", inst, sched)
    assert code == 0 and "valid" in out, (out, err)
    code, _, err = cli("gantt", inst, sched, "-o", chart)
    assert code == 0 and chart.stat().st_size > 0, err


def test_same_seed_same_event_log(tmp_path: Path, cli) -> None:
    logs = []
    for k in range(2):
        out = tmp_path / f"s{k}.json"
        code, _, err = cli("simulate", "pull", "--units", "30", "--seed", "4",
                           "--window", "0.5", "-o", out)
        assert code == 0, err
        logs.append(json.loads(out.read_text())["events"])
    assert logs[0] == logs[1] and len(logs[0]) > 60


def test_import_fta_then_simulate(tmp_path: Path, cli) -> None:
    trace, inst = tmp_path / "t.txt", tmp_path / "i.json"
    trace.write_text(TRACE)
    code, _, err = cli("import-fta", trace, "--dci", "idg", "--units", "5", "-o", inst)
    assert code == 0, err
    code, out, err = cli("simulate", "pull", inst, "--json")
    assert code == 0, err
    assert json.loads(out)["metrics"]["completed"] == 5


@pytest.mark.parametrize("argv, words", [
    (["simulate", "pull", "--units", "5", "--weights", "0.5,0.3,0.3"], "must sum to 1"),
    (["simulate", "pull", "--units", "5", "--weights", "1.5,-0.2,-0.3"], "finite and >= 0"),
    (["simulate", "pull", "--units", "5", "--preference", "cubic"], "--preference"),
    (["simulate", "pull", "--units", "5", "--preference", "level", "--q", "2", "--p", "1"],
     "q (2) must not exceed p (1)"),
    (["simulate", "pull", "--units", "5", "--targets", "min,min"], "give 3 targets"),
    (["simulate", "pull", "--units", "5", "--window", "0"], "--window"),
    (["simulate", "pull", "--units", "5", "--q", "nan"], "--q"),
    (["simulate", "pull", "--units", "5", "--dci", ""], "an infrastructure is needed"),
    (["simulate", "pull", "--units", "5", "--dci", "idg,grid"], "choose among"),
    (["simulate", "pull", "--units", "-1"], "--units"),
    (["simulate", "pull", "--units", "5", "--method", "magic"], "unknown method 'magic'"),
    (["simulate", "pull", "--units", "5", "--method", "fcfs", "--window", "0.5"],
     "only the promethee method"),
    (["generate", "pull", "--capacity", "-3", "-o", "x.json"], "--capacity"),
    (["generate", "pull", "--behaviour", "sometimes", "-o", "x.json"], "--behaviour"),
    (["generate", "pull", "--capacity", "1e9", "-o", "x.json"], "more than 100,000 hosts"),
    (["simulate", "pull", "--units", "100001"], "--units"),
])
def test_bad_options(argv, words, cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(*argv)
    assert code == 2, (out, err)
    assert words in err and "Traceback" not in err


@pytest.mark.parametrize("text, words", [
    ("1 0 n1 0 a 1 0\n", "t.txt:1: expected at least 8 columns"),
    ("1 0 n1 0 a 1 x 10 0\n", "t.txt:1: the start time must be a number"),
    ("1 0 n1 0 a 1 0 10 0\n2 0 n1 0 a 1 20 5 0\n", "t.txt:2: the event ends at 5"),
    ("1 0 n1 0 a 1 nan 10 0\n", "t.txt:1: the start time must be a finite number"),
    ("# nothing\n", "no availability event"),
])
def test_import_fta_malformed_lines(text, words, tmp_path: Path, cli) -> None:
    trace = tmp_path / "t.txt"
    trace.write_text(text)
    code, _, err = cli("import-fta", trace, "-o", tmp_path / "i.json")
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err


def test_import_fta_option_errors(tmp_path: Path, cli) -> None:
    trace = tmp_path / "t.txt"
    trace.write_text(TRACE)
    code, _, err = cli("import-fta", trace, "--dci", "idg,cloud", "-o", tmp_path / "i.json")
    assert code == 2 and "1 trace(s) but 2 DCI(s)" in err
    code, _, err = cli("import-fta", tmp_path / "missing.txt", "-o", tmp_path / "i.json")
    assert code == 2 and "missing.txt" in err


def test_fta_traces_in_a_campaign_with_an_offset_grid(tmp_path: Path) -> None:
    from hybridsched.experiments.campaign import run_campaign
    from hybridsched.experiments.store_read import load_results

    (tmp_path / "boinc.txt").write_text(TRACE)
    spec = tmp_path / "c.toml"
    spec.write_text('[[instances]]\nimporter = "fta"\nfiles = ["boinc.txt"]\n'
                    'options = { dci = "idg", units = 8, offset = [0, 20000] }\n\n'
                    '[[methods]]\nname = "promethee"\n\n[[methods]]\nname = "fcfs"\n')
    run_campaign(spec, tmp_path / "out", mode="serial")
    table = load_results(tmp_path / "out")
    assert len(table) == 4 and set(table["status"]) == {"feasible"}
    assert sorted(set(table["instance"])) == ["boinc.txt-idg-8-s0-o0", "boinc.txt-idg-8-s0-o20000"]
    assert (table["gap"] >= 0).all()
