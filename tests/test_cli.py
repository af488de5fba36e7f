"""The command line, driven through :func:`hybridsched.cli.run`."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "instances" / "hybrid-deadline" / "small-01.json"


def test_generate_solve_validate(tmp_path, cli):
    inst, sol = tmp_path / "i.json", tmp_path / "s.json"
    assert cli("generate", "hybrid-deadline", "--tasks", 15, "--alpha", 2, "--seed",
                4, "-o", inst)[0] == 0
    code, out, _ = cli("solve", inst, "--method", "cdf+ra", "-o", sol, "--json")
    assert code == 0
    summary = json.loads(out)
    assert {"method", "status", "objective", "runtime_s", "metrics"} <= set(summary)
    assert summary["status"] == "feasible" and summary["runtime_s"] > 0
    code, out, _ = cli("validate", inst, sol)
    assert code == 0 and "valid" in out
    document = json.loads(sol.read_text())
    document["assignments"][0]["finish"] += 100
    sol.write_text(json.dumps(document))
    code, out, err = cli("validate", inst, sol)
    assert code == 1 and "INVALID" in err and "finish" in out


def test_compare_reports_gap_to_the_recorded_optimum(cli):
    code, out, _ = cli("compare", DEFAULT, "--methods", "cdf,ffd+ra,exact", "--csv")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith("instance,family,method,status,objective,reference")
    rows = {line.split(",")[2]: line.split(",") for line in lines[1:]}
    assert set(rows) == {"cdf", "ffd+ra", "exact"}
    assert float(rows["exact"][7]) == 0.0  # gap column
    assert all(float(r[7]) >= 0 for r in rows.values())


def test_compare_table_default_methods(cli):
    code, out, _ = cli("compare", DEFAULT)
    assert code == 0
    for method in ("cdf", "cdf+ra", "ffd", "ffd+ra", "exact"):
        assert method in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["solve", "missing.json", "--method", "cdf"], "missing.json: no such file"),
        (["solve", DEFAULT, "--method", "magic"], "unknown method 'magic'"),
        (["compare", DEFAULT, "--methods", "cdf,magic"], "unknown method 'magic'"),
        (["generate", "hybrid-deadline", "--tasks", "-3", "-o", "x.json"], "--tasks"),
        (["generate", "hybrid-deadline", "--alpha", "7", "-o", "x.json"], "--alpha"),
        (["import-swf", "missing.swf", "-o", "x.json"], "missing.swf: no such file"),
        (["schema", "nope"], "unknown family"),
    ],
)
def test_bad_input_is_one_line_with_exit_code_2(cli, argv, fragment):
    code, _, err = cli(*argv)
    assert code == 2
    assert fragment in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bad_json_and_negative_sizes(tmp_path, cli):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = cli("solve", bad, "--method", "cdf")
    assert code == 2 and "bad.json:1:2: malformed JSON" in err
    document = json.loads(DEFAULT.read_text())
    document["jobs"][0]["tasks"][0]["work"] = -5
    bad.write_text(json.dumps(document))
    code, _, err = cli("solve", bad, "--method", "cdf")
    assert code == 2 and "jobs.0.tasks.0.work" in err and "Traceback" not in err


def test_infeasible_task_is_named_with_exit_code_1(tmp_path, cli):
    document = json.loads(DEFAULT.read_text())
    task = document["jobs"][0]["tasks"][0]
    task["work"] = 1000.0  # cannot finish by the job's deadline on any core
    path = tmp_path / "inf.json"
    path.write_text(json.dumps(document))
    code, out, err = cli("solve", path, "--method", "cdf")
    assert code == 1
    assert task["id"] in out + err and "infeasible" in out + err


def test_empty_instance_gets_an_empty_valid_solution(tmp_path, cli):
    document = json.loads(DEFAULT.read_text())
    document["jobs"] = []
    inst, sol = tmp_path / "empty.json", tmp_path / "empty-sol.json"
    inst.write_text(json.dumps(document))
    code, out, _ = cli("solve", inst, "--method", "exact", "-o", sol, "--json")
    assert code == 0 and json.loads(out)["objective"] == 0.0
    assert cli("validate", inst, sol)[0] == 0


def test_import_swf_reports_skipped_records(tmp_path, cli):
    trace = tmp_path / "t.swf"
    trace.write_text("; Computer: X\n"
                     "1 0 -1 100 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
                     "2 0 -1 -1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n")
    code, _, err = cli("import-swf", trace, "--alpha", 3, "-o", tmp_path / "i.json")
    assert code == 0 and "skipped 1 records" in err
    assert cli("solve", tmp_path / "i.json", "--method", "cdf")[0] == 0


def test_schema_and_methods(cli):
    code, out, _ = cli("schema", "hybrid-deadline")
    assert code == 0 and json.loads(out)["title"] == "InstanceDoc"
    code, out, _ = cli("methods", "hybrid-deadline")
    assert code == 0 and "cdf+ra" in out and "exact" in out


def test_gantt_chart(tmp_path, cli):
    sol, png = tmp_path / "s.json", tmp_path / "g.png"
    assert cli("solve", DEFAULT, "--method", "cdf", "-o", sol)[0] == 0
    assert cli("gantt", DEFAULT, sol, "-o", png)[0] == 0
    assert png.stat().st_size > 1000


@pytest.mark.parametrize("argv", [["solve", DEFAULT], ["solve", DEFAULT, "--method", "cdf",
                                                       "--bogus"], ["frobnicate"]])
def test_usage_errors_exit_2_without_traceback(cli, argv):
    code, _, err = cli(*argv)
    assert code == 2 and "Traceback" not in err
