"""Start-up imports only what the command needs (issue 20, item 6).

Listing, help, schemas and every error for a bad argument (unknown family or
method, an input file that does not exist) answer without importing numpy,
pandas, dask, matplotlib, pyarrow, SimPy, networkx or a solver library: each
command runs in a fresh interpreter, which then reports what it loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: What no such command may import.
HEAVY = ("numpy", "pandas", "dask", "distributed", "matplotlib", "pyarrow", "simpy",
         "networkx", "scipy", "pyomo", "highspy", "pulp", "ortools")

PROBE = """
import contextlib, io, json, sys
import hybridsched.cli as cli
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    code = cli.run(json.loads(sys.argv[1]))
loaded = sorted({m.split('.')[0] for m in sys.modules} & set(json.loads(sys.argv[2])))
print(json.dumps({"code": code, "err": err.getvalue(), "out": out.getvalue(),
                  "loaded": loaded}))
"""

GANG = "instances/gang/small-10.json"

CASES = {
    "help": (["--help"], 0),
    "version": (["--version"], 0),
    "methods": (["methods"], 0),
    "methods of a family": (["methods", "gang"], 0),
    "schema": (["schema", "bot-sites"], 0),
    "solution schema": (["schema", "pull", "--solution"], 0),
    "unknown family": (["methods", "no-such-family"], 2),
    "unknown family's schema": (["schema", "no-such-family"], 2),
    "unknown method": (["solve", GANG, "-m", "no-such-method"], 2),
    "missing instance": (["solve", "missing.json", "-m", "cplmt"], 2),
    "missing solution": (["validate", GANG, "missing.json"], 2),
    "compare, missing instance": (["compare", "missing.json"], 2),
    "campaign, missing spec": (["campaign", "missing.toml", "-o", "out"], 2),
    "simulate gang, missing instance": (["simulate", "gang", "missing.json"], 2),
    "simulate malleable, missing instance": (["simulate", "malleable", "missing.json"], 2),
    "tree, missing config": (["tree", "missing.toml"], 2),
    "import-swf, missing trace": (["import-swf", "missing.swf", "-o", "x.json"], 2),
    "import-etc, missing matrix": (["import-etc", "missing.etc", "-o", "x.json"], 2),
    "simulate pull, missing instance": (["simulate", "pull", "missing.json"], 2),
    "simulate pull, bad DCI": (["simulate", "pull", "--dci", "idg,moon"], 2),
    "report, missing store": (["report", "missing-store", "-o", "out"], 2),
    "effects, missing store": (["effects", "missing-store"], 2),
    "gantt, missing instance": (["gantt", "missing.json", "missing.json", "-o", "g.png"], 2),
    "certify, missing instance": (["certify", "missing.json"], 2),
    "bench, missing plug-in": (["bench", "gang", "-o", "out", "--plugin", "missing.py"], 2),
    "solve, unknown backend": (["solve", "missing.json", "-m", "exact", "--backend", "x"], 2),
}


@pytest.mark.parametrize("case", list(CASES))
def test_quick_commands_and_bad_arguments_import_nothing_heavy(case, tmp_path, monkeypatch):
    argv, expected = CASES[case]
    repo = __import__("pathlib").Path(__file__).resolve().parents[2]
    argv = [str(repo / a) if a.startswith("instances/") else a for a in argv]
    monkeypatch.chdir(tmp_path)
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv), json.dumps(HEAVY)],
                          capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["code"] == expected, report
    if expected == 2:
        assert len(report["err"].strip().splitlines()) == 1, report["err"]
    assert report["loaded"] == [], f"{argv} imported {report['loaded']}"
