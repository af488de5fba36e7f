"""Output files (checked before computing, written atomically) and strict JSON output."""

from __future__ import annotations

import errno
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from hybridsched.errors import InputError
from hybridsched.io import outputs
from hybridsched.io.jsonio import dumps_strict, write_json
from hybridsched.io.outputs import (
    atomic_write_bytes,
    atomic_write_text,
    check_output_path,
    plot_extensions,
)
from hybridsched.result import Result, Status

ROOT = Path(__file__).resolve().parents[2]
HD_FILE = ROOT / "instances" / "hybrid-deadline" / "small-01.json"
BS_FILE = ROOT / "instances" / "bot-sites" / "small-lolo-c-2s-3b.json"


def strict_loads(text: str):
    """Parse JSON refusing NaN/Infinity, as strict parsers (JavaScript, jq) do."""
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def no_temporary_files(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if p.name.startswith(".")]


# -- check_output_path -------------------------------------------------------------------

@pytest.mark.parametrize(("make", "fragment"), [
    (lambda t: "", "-o: empty file name"),
    (lambda t: "   ", "-o: empty file name"),
    (lambda t: str(t), "is a folder"),
    (lambda t: str(t / "missing" / "x.json"), "does not exist"),
    (lambda t: str(t / "plot.txt"), "cannot draw a plot"),
])
def test_check_output_path_refuses(tmp_path, make, fragment):
    kind = "plot" if make(tmp_path).endswith(".txt") else "file"
    with pytest.raises(InputError, match=fragment):
        check_output_path(make(tmp_path), "-o", kind=kind)


def test_check_output_path_refuses_an_unwritable_folder(tmp_path, monkeypatch):
    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(outputs.tempfile, "mkstemp", denied)
    with pytest.raises(InputError, match="cannot write in folder .*Permission denied"):
        check_output_path(tmp_path / "x.json")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="needs POSIX permissions and a non-root user")
def test_check_output_path_refuses_a_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(InputError, match="cannot write in folder"):
            check_output_path(folder / "x.json")
    finally:
        folder.chmod(0o700)


def test_check_output_path_accepts_and_leaves_nothing_behind(tmp_path):
    assert check_output_path(tmp_path / "x.json") == tmp_path / "x.json"
    assert check_output_path(tmp_path / "x.PNG", kind="plot") == tmp_path / "x.PNG"
    assert list(tmp_path.iterdir()) == []


def test_plot_extensions_are_those_matplotlib_writes():
    assert {"png", "svg", "pdf", "eps"} <= set(plot_extensions())
    assert "txt" not in plot_extensions() and "json" not in plot_extensions()


# -- atomic writes -----------------------------------------------------------------------

def test_atomic_write_replaces_and_keeps_permissions(tmp_path):
    path = tmp_path / "x.json"
    atomic_write_text(path, "one")
    path.chmod(0o640)
    atomic_write_text(path, "two")
    assert path.read_text() == "two"
    assert (path.stat().st_mode & 0o777) == 0o640
    assert no_temporary_files(tmp_path)


def test_a_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "x.json"
    atomic_write_text(path, "good")

    def disk_full(handle, data):
        handle.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(outputs, "_write_all", disk_full)
    with pytest.raises(InputError, match="No space left on device.*unchanged"):
        atomic_write_bytes(path, b"a much longer replacement that will not fit")
    assert path.read_text() == "good"
    assert no_temporary_files(tmp_path)


def test_atomic_write_follows_symlinks(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    atomic_write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null")
def test_a_device_is_written_in_place_not_replaced(tmp_path):
    assert check_output_path("/dev/null") == Path("/dev/null")
    atomic_write_text("/dev/null", "discarded")
    assert Path("/dev/null").is_char_device()


# -- commands check outputs before computing and write atomically ------------------------

def test_solve_checks_the_output_before_solving(tmp_path, cli, monkeypatch):
    called = []
    monkeypatch.setattr("hybridsched.registry.run_method",
                        lambda *a, **k: called.append(1))
    code, _, err = cli("solve", HD_FILE, "--method", "exact", "-o", tmp_path / "no" / "s.json")
    assert code == 2 and "does not exist" in err and called == []


def test_pareto_checks_the_plot_path_before_computing(tmp_path, cli, monkeypatch):
    called = []
    monkeypatch.setattr("hybridsched.models.bot_sites.pareto_report.pareto_report",
                        lambda *a, **k: called.append(1))
    for bad in (tmp_path / "front.txt", tmp_path / "missing" / "front.png", tmp_path):
        code, _, err = cli("pareto", BS_FILE, "-o", bad)
        assert code == 2 and len(err.strip().splitlines()) == 1
    assert called == []


def test_solve_over_a_good_file_on_a_full_disk_keeps_it(tmp_path, cli, monkeypatch):
    sol = tmp_path / "s.json"
    assert cli("solve", HD_FILE, "--method", "cdf", "-o", sol)[0] == 0
    before = sol.read_bytes()

    def disk_full(handle, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(outputs, "_write_all", disk_full)
    code, _, err = cli("solve", HD_FILE, "--method", "ffd", "-o", sol)
    assert code == 2 and "No space left on device" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert sol.read_bytes() == before and no_temporary_files(tmp_path)


@pytest.mark.parametrize("extension", ["png", "svg", "pdf"])
def test_gantt_writes_the_format_of_its_extension(tmp_path, cli, extension):
    sol, plot = tmp_path / "s.json", tmp_path / f"g.{extension}"
    assert cli("solve", HD_FILE, "--method", "cdf", "-o", sol)[0] == 0
    assert cli("gantt", HD_FILE, sol, "-o", plot)[0] == 0
    head = plot.read_bytes()[:8]
    assert {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}[extension] in head
    assert no_temporary_files(tmp_path)


def test_generate_to_standard_output(cli):
    code, out, _ = cli("generate", "hybrid-deadline", "--tasks", 3, "-o", "-")
    assert code == 0 and json.loads(out)["family"] == "hybrid-deadline"


# -- strict JSON everywhere --------------------------------------------------------------

def test_dumps_strict_turns_non_finite_values_into_null():
    document = {"gap": math.inf, "bound": -math.inf, "x": math.nan,
                "n": np.int64(3), "v": np.float32(1.5), "arr": np.array([1.0, np.inf]),
                "status": Status.OPTIMAL, "path": Path("a/b"), "t": (1, 2)}
    assert strict_loads(dumps_strict(document)) == {
        "gap": None, "bound": None, "x": None, "n": 3, "v": 1.5, "arr": [1.0, None],
        "status": "optimal", "path": "a/b", "t": [1, 2]}


def test_write_json_is_strict(tmp_path):
    write_json(tmp_path / "x.json", {"gap": math.inf})
    assert strict_loads((tmp_path / "x.json").read_text()) == {"gap": None}


def test_solve_json_never_prints_infinity(cli, monkeypatch):
    def zero_bound(family, method, instance, **kwargs):
        from hybridsched.hybrid_deadline.adapters import cdf_ra

        return Result(method, family, Status.FEASIBLE, solution=cdf_ra(instance),
                      objective=0.63, bound=0.0)

    monkeypatch.setattr("hybridsched.registry.run_method", zero_bound)
    code, out, _ = cli("solve", HD_FILE, "--method", "cdf+ra", "--json")
    assert code == 0
    summary = strict_loads(out)
    assert summary["bound"] == 0.0 and summary["gap"] is None  # an infinite gap is null


def test_compare_json_never_prints_infinity_nor_nan(cli, monkeypatch):
    import pandas as pd

    from hybridsched.experiments import compare as compare_module

    def table(*args, **kwargs):
        return pd.DataFrame([{c: None for c in compare_module.COLUMNS}
                             | {"instance": "x", "method": "m", "status": "feasible",
                                "objective": 1.0, "gap": math.inf, "bound": math.nan,
                                "runtime_s": np.float64(0.5), "message": ""}],
                            columns=compare_module.COLUMNS)

    monkeypatch.setattr(compare_module, "compare", table)
    code, out, _ = cli("compare", HD_FILE, "--json")
    assert code == 0
    row = strict_loads(out)[0]
    assert row["gap"] is None and row["bound"] is None and row["runtime_s"] == 0.5


def _assert_made_by_this_installation(produced_by):
    """``produced_by`` names hybridsched's version and the solver libraries' installed ones."""
    from importlib import metadata

    import hybridsched

    assert produced_by["hybridsched"].split("+")[0] == hybridsched.__version__
    assert produced_by["highspy"] == metadata.version("highspy")
    assert produced_by["pyomo"] == metadata.version("pyomo")


def test_solve_json_records_the_versions_that_made_it(cli, tmp_path):
    solution = tmp_path / "s.json"
    code, out, _ = cli("solve", HD_FILE, "--method", "cdf", "--json", "-o", solution)
    assert code == 0
    summary = strict_loads(out)  # still the one document on standard output
    assert summary["status"] == "feasible"
    _assert_made_by_this_installation(summary["produced_by"])
    # The same block as the solution file written with -o.
    assert summary["produced_by"] == strict_loads(solution.read_text())["produced_by"]


def test_compare_json_records_the_versions_that_made_each_row(cli):
    from hybridsched.experiments.compare import COLUMNS

    code, out, _ = cli("compare", HD_FILE, "--methods", "cdf,ffd", "--json")
    assert code == 0
    records = strict_loads(out)
    assert [r["method"] for r in records] == ["cdf", "ffd"]
    for record in records:
        assert set(record) == {*COLUMNS, "produced_by"}
        _assert_made_by_this_installation(record["produced_by"])
    code, out, _ = cli("compare", HD_FILE, "--methods", "cdf,ffd", "--csv")
    assert code == 0 and out.splitlines()[0].split(",") == COLUMNS  # CSV: the columns only


def test_pareto_json_is_strict(cli, monkeypatch):
    from hybridsched.models.bot_sites import pareto_report as pareto_module

    report = pareto_module.ParetoReport("x", [], {"gmo": (math.inf, 1.0)}, False)
    monkeypatch.setattr(pareto_module, "pareto_report", lambda *a, **k: report)
    code, out, _ = cli("pareto", BS_FILE, "--json")
    assert code == 0 and strict_loads(out)["heuristics"]["gmo"]["makespan"] is None


def test_schema_output_is_json(cli):
    code, out, _ = cli("schema", "bot-sites", "--solution")
    assert code == 0 and strict_loads(out)["title"] == "SolutionDoc"
