"""The command line on bot-sites instances."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "instances" / "bot-sites" / "small-lolo-c-2s-3b.json"


def test_generate_preset_and_compare_find_23(tmp_path, cli):
    path = tmp_path / "t2.json"
    assert cli("generate", "bot-sites", "--preset", "gmo-table2-inconsistent",
                "-o", path)[0] == 0
    code, out, _ = cli("compare", path, "--methods", "exact,gmo,g-min-min", "--csv")
    assert code == 0
    rows = {line.split(",")[2]: line.split(",") for line in out.strip().splitlines()[1:]}
    assert float(rows["exact"][4]) == pytest.approx(23.0)
    assert float(rows["exact"][7]) == 0.0


def test_generate_solve_validate(tmp_path, cli):
    inst, sol = tmp_path / "b.json", tmp_path / "s.json"
    code, _, _ = cli("generate", "bot-sites", "--sites", 4, "--bots", 3,
                      "--tasks-per-bot", "20:40", "--procs-per-site", "2:3", "--scenario",
                      "LoHi", "--consistent", "--seed", 5, "-o", inst)
    assert code == 0
    for method in ("gmo", "g-sufferage", "exact"):
        code, out, _ = cli("solve", inst, "--method", method, "-o", sol, "--json",
                            "--time-limit", 30)
        assert code == 0
        summary = json.loads(out)
        assert summary["objective"] == pytest.approx(summary["metrics"]["makespan"])
        assert {"cost", "aggregated_makespan", "jain_fairness"} <= set(summary["metrics"])
        assert cli("validate", inst, sol)[0] == 0


def test_objective_cost_switches_to_cost(cli):
    code, out, _ = cli("compare", SMALL, "--methods", "exact,g-mct", "--csv",
                        "--objective", "cost")
    assert code == 0
    rows = {line.split(",")[2]: line.split(",") for line in out.strip().splitlines()[1:]}
    optimum = json.loads(SMALL.read_text())["reference"]["optimal_cost"]
    assert float(rows["exact"][4]) == pytest.approx(optimum, abs=1e-6)
    assert float(rows["g-mct"][4]) >= optimum - 1e-9


def test_pareto_prints_front_and_plots(tmp_path, cli):
    png = tmp_path / "front.png"
    code, out, _ = cli("pareto", SMALL, "--json", "-o", png, "--max-points", 5)
    assert code == 0
    report = json.loads(out)
    costs = [p["cost"] for p in report["front"]]
    spans = [p["makespan"] for p in report["front"]]
    assert costs == sorted(costs, reverse=True) and spans == sorted(spans)
    assert "gmo" in report["heuristics"] and png.stat().st_size > 1000


def test_import_etc(tmp_path, cli):
    etc = tmp_path / "tiny.etc"
    etc.write_text("2 2 0\n1.0\n2.0\n3.0\n4.0\n")
    code, _, err = cli("import-etc", etc, "-o", tmp_path / "tiny.json")
    assert code == 0 and "2 tasks x 2 machines" in err
    code, out, _ = cli("solve", tmp_path / "tiny.json", "--method", "g-min-min",
                        "--json")
    # Min-min: task 0 on machine 0 (1.0); task 1 then completes at 4.0 on either
    # machine, and the tie goes to the lowest index.
    assert code == 0 and json.loads(out)["objective"] == pytest.approx(4.0)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["generate", "bot-sites", "--scenario", "Foo", "-o", "x.json"], "--scenario"),
        (["generate", "bot-sites", "--tasks-per-bot", "9:x", "-o", "x.json"], "--tasks-per-bot"),
        (["generate", "bot-sites", "--preset", "nope", "-o", "x.json"], "--preset"),
        (["solve", SMALL, "--method", "gmo", "--objective", "banana"], "--objective"),
        (["pareto", ROOT / "instances/hybrid-deadline/small-01.json"], "bot-sites"),
    ],
)
def test_bad_input_exit_code_2(cli, argv, fragment):
    code, _, err = cli(*argv)
    assert code == 2 and fragment in err and "Traceback" not in err


def test_ragged_etc_is_one_line_error(tmp_path, cli):
    etc = tmp_path / "bad.etc"
    etc.write_text("2 2 0\n1.0\n2.0\n-3.0\n4.0\n")
    code, _, err = cli("import-etc", etc, "-o", tmp_path / "x.json")
    assert code == 2 and "bad.etc" in err and len(err.strip().splitlines()) == 1
