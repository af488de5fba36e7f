"""The example plug-in package (examples/plugin) works end to end from a ``pip install``.

The package is installed with pip into a scratch folder (offline: no index, no
build isolation, the dev extra provides setuptools) and the command line runs
in subprocesses with that folder on ``PYTHONPATH``, as a user's environment
would have it after ``pip install``. It adds the method ``random-site`` to the
built-in ``bot-sites`` family and a whole family, ``toy-makespan``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "examples" / "plugin"
TOY = PLUGIN / "instances" / "toy-five.json"
BOT_SITES = ROOT / "instances" / "bot-sites" / "small-lolo-c-2s-3b.json"
GANG = ROOT / "instances" / "gang" / "small-10.json"
BUILT_IN = {"bot-sites", "gang", "hybrid-deadline", "malleable", "pull"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The folder pip installed the example plug-in into."""
    target = tmp_path_factory.mktemp("site")
    # pip builds in the source folder (build/, *.egg-info): build a copy, so that the
    # repository stays clean and two test processes never build in one folder.
    source = tmp_path_factory.mktemp("source") / "plugin"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__"))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--disable-pip-version-check", "--target", str(target),
         str(source)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (target / "hybridsched_example" / "toy_makespan" / "checker.py").exists()
    return target


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    """An installed package whose entry points fail: for gang and a new family they do not
    import, for hybrid-deadline it takes the name of a built-in method."""
    target = tmp_path_factory.mktemp("broken")
    info = target / "broken_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[hybridsched.families]\ngang = broken_gang_methods\n"
        "ghost-family = broken_ghost_methods\nhybrid-deadline = broken_clash_methods\n")
    (target / "broken_gang_methods.py").write_text("import no_such_module_anywhere\n")
    (target / "broken_ghost_methods.py").write_text("raise RuntimeError('half written')\n")
    (target / "broken_clash_methods.py").write_text(
        "from hybridsched.registry import register_method\n"
        "register_method('hybrid-deadline', 'cdf')(lambda instance, **options: None)\n")
    return target


def hybridsched(*args: object, path: list[Path], cwd: Path | None = None
                ) -> subprocess.CompletedProcess[str]:
    """Run the command line with ``path`` on PYTHONPATH (as after ``pip install``)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    env.pop("HYBRIDSCHED_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "hybridsched", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def test_built_in_families_register_through_the_entry_points():
    found = {entry.name: entry.value
             for entry in metadata.entry_points(group="hybridsched.families")}
    assert set(found) >= BUILT_IN
    for family in BUILT_IN:
        assert found[family] == f"hybridsched.{family.replace('-', '_')}.methods"


def test_methods_lists_the_plugin_methods_beside_the_built_in_ones(installed):
    done = hybridsched("methods", path=[installed])
    assert done.returncode == 0, done.stderr
    rows = {tuple(line.split()[:3]) for line in done.stdout.splitlines()}
    assert ("bot-sites", "random-site", "heuristic") in rows
    assert ("toy-makespan", "lpt", "heuristic") in rows
    assert ("toy-makespan", "enumerate", "exact") in rows
    assert ("bot-sites", "g-mct", "heuristic") in rows
    assert BUILT_IN | {"toy-makespan"} == {row[0] for row in rows}
    assert done.stderr == ""


def test_toy_family_solves_and_its_schedule_passes_its_checker(installed, tmp_path):
    recorded = json.loads(TOY.read_text())["reference"]["optimum"]
    for method, status in (("lpt", "feasible"), ("enumerate", "optimal")):
        out = tmp_path / f"{method}.json"
        done = hybridsched("solve", TOY, "--method", method, "--json", "-o", out,
                           path=[installed])
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["status"] == status and result["family"] == "toy-makespan"
        assert result["objective"] >= recorded
        if status == "optimal":
            assert result["objective"] == recorded
        checked = hybridsched("validate", TOY, out, path=[installed])
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert f"makespan = {result['objective']:g}" in checked.stdout


def test_checker_of_the_toy_family_refuses_a_bad_schedule(installed, tmp_path):
    out = tmp_path / "bad.json"
    assert hybridsched("solve", TOY, "--method", "lpt", "-o", out,
                       path=[installed]).returncode == 0
    document = json.loads(out.read_text())
    document["machine_of"]["a"] = 7   # the instance has two machines
    out.write_text(json.dumps(document))
    done = hybridsched("validate", TOY, out, path=[installed])
    assert done.returncode == 1
    assert "machine 7, which does not exist" in done.stdout + done.stderr


def test_plugin_method_runs_on_a_built_in_family_through_its_checker(installed, tmp_path):
    outputs = []
    for run in range(2):
        out = tmp_path / f"random-site-{run}.json"
        done = hybridsched("solve", BOT_SITES, "--method", "random-site", "--option",
                           "tries=3", "--seed", 4, "--json", "-o", out, path=[installed])
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout)["objective"])
        checked = hybridsched("validate", BOT_SITES, out, path=[installed])
        assert checked.returncode == 0, checked.stdout + checked.stderr
    assert outputs[0] == outputs[1]   # the same seed gives the same schedule


def test_a_bad_plugin_option_is_one_line_and_exit_2(installed):
    done = hybridsched("solve", BOT_SITES, "--method", "random-site", "--option", "tries=0",
                       path=[installed])
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "error: option --tries: must be an integer >= 1, got 0"]


def test_compare_gives_the_plugin_methods_their_gaps(installed):
    done = hybridsched("compare", TOY, "--json", path=[installed])
    assert done.returncode == 0, done.stderr
    rows = {row["method"]: row for row in json.loads(done.stdout)}
    assert set(rows) == {"lpt", "enumerate"}
    assert rows["enumerate"]["gap"] == 0 and rows["enumerate"]["status"] == "optimal"
    assert rows["lpt"]["gap"] > 0     # LPT is 7 where 6 is optimal

    done = hybridsched("compare", BOT_SITES, "--methods", "random-site,g-mct", "--json",
                       path=[installed])
    assert done.returncode == 0, done.stderr
    rows = {row["method"]: row for row in json.loads(done.stdout)}
    assert set(rows) == {"random-site", "g-mct"}
    assert all(row["status"] == "feasible" and row["gap"] >= 0 for row in rows.values())


@pytest.mark.parametrize("mode", [["--serial"], ["--workers", "2"]], ids=["serial", "cluster"])
def test_campaign_runs_the_plugin_methods(installed, tmp_path, mode):
    store = tmp_path / "store"
    done = hybridsched("campaign", PLUGIN / "campaign.toml", "-o", store, *mode,
                       path=[installed])
    assert done.returncode == 0, done.stderr
    rows = pd.read_parquet(store)
    assert set(rows["method"]) == {"lpt", "enumerate", "random-site[tries=1]",
                                   "random-site[tries=3]", "g-mct"}
    assert set(rows["status"]) <= {"feasible", "optimal"}
    assert len(rows) == 12
    toy = rows[rows["family"] == "toy-makespan"]
    for row in toy.itertuples():   # recorded schedules pass the family's checker
        solution = tmp_path / f"{row.method}.json"
        solution.write_text(row.solution)
        checked = hybridsched("validate", TOY, solution, path=[installed])
        assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_broken_plugin_is_named_and_the_other_families_keep_working(installed, broken,
                                                                      tmp_path):
    path = [installed, broken]
    listed = hybridsched("methods", path=path)
    assert listed.returncode == 0, listed.stderr
    assert ("gang", "fifo") in {tuple(line.split()[:2]) for line in listed.stdout.splitlines()}
    assert "random-site" in listed.stdout
    warnings = listed.stderr.strip().splitlines()
    assert len(warnings) == 3
    assert any("'broken_gang_methods' (package broken-plugin) failed to import: "
               "ModuleNotFoundError" in line for line in warnings)
    assert any("'broken_ghost_methods'" in line and "RuntimeError: half written" in line
               for line in warnings)

    assert any("'broken_clash_methods'" in line and "plugin registers method 'cdf' of family "
               "'hybrid-deadline', which exists already" in line for line in warnings)
    built_in = hybridsched("solve", ROOT / "instances" / "hybrid-deadline" / "small-01.json",
                           "--method", "cdf", "--json", path=path)
    assert built_in.returncode == 0, built_in.stderr     # the built-in cdf, not the clash
    assert json.loads(built_in.stdout)["status"] == "feasible"

    solved = hybridsched("solve", GANG, "--method", "fifo", "--json", path=path)
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["status"] == "feasible"

    unknown = hybridsched("solve", GANG, "--method", "nope", path=path)
    assert unknown.returncode == 2
    assert len(unknown.stderr.strip().splitlines()) == 1
    assert "broken_gang_methods" in unknown.stderr

    ghost = hybridsched("methods", "ghost-family", path=path)
    assert ghost.returncode == 2 and ghost.stdout == ""
    assert ghost.stderr.strip().splitlines() == [
        "error: family 'ghost-family' is unavailable: plug-in 'broken_ghost_methods' "
        "(package broken-plugin) failed to import: RuntimeError: half written"]


def test_schema_of_the_plugin_family(installed):
    done = hybridsched("schema", "toy-makespan", path=[installed])
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    assert {"machines", "tasks"} <= set(schema["properties"])
    assert "machine_of" in json.loads(hybridsched("schema", "toy-makespan", "--solution",
                                                  path=[installed]).stdout)["properties"]


def test_the_example_family_has_the_shape_of_ours():
    """The plug-in is a template: the same files in the same folders as a built-in family."""
    from tests.test_architecture import FAMILY_FILES

    package = PLUGIN / "hybridsched_example"
    domain = {p.name for p in (package / "toy_makespan").glob("*.py")}
    assert domain >= FAMILY_FILES, sorted(FAMILY_FILES - domain)
    for kind in ("heuristics", "models"):
        assert list((package / kind / "toy_makespan").glob("[!_]*.py")), kind
    assert (package / "heuristics" / "bot_sites" / "random_site.py").exists()


def test_the_example_generator_is_seeded(installed):
    code = ("from hybridsched_example.toy_makespan.generator import generate\n"
            "print(generate(6, 2, seed=3) == generate(6, 2, seed=3), "
            "generate(6, 2, seed=3) == generate(6, 2, seed=4))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(installed)}, timeout=120)
    assert done.stdout.split() == ["True", "False"], done.stderr
