"""Standard output carries the command's one document and nothing else (issue 17, part 1).

Every command that offers ``--json`` or ``--csv`` (and ``-o -``) is run as a
user runs it: in a subprocess, ``python -m hybridsched``, with standard output
a pipe, so that what C code writes to descriptor 1 (highspy 1.16's "Running
HiGHS" banner), what child processes (Dask workers, ``echo``) write, and what
buffered streams flush at exit would all be seen. Standard output is then
parsed strictly: one JSON document with nothing before or after it, or CSV whose
first line is the expected header and whose every line is a row.

The subprocesses run without ``PYTHONUNBUFFERED``: with it (as CI sets it),
Python's and C's standard output are unbuffered, which hides output that a
buffered stream (a user's case) flushes at exit, after the document.

A throwaway method (:mod:`tests.cli.noisy_methods`) writes noise to standard
output in every way a library can; it runs in this process (``capfd`` sees
descriptors 1 and 2), in a subprocess driver, and as a campaign plugin on
Dask workers. Without ``--verbose`` the noise is discarded; with it, it is on
standard error.
"""

from __future__ import annotations

import contextlib
import csv
import ctypes
import io
import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from hybridsched import __version__
from hybridsched.catalogue import family_names
from hybridsched.cli import run
from hybridsched.registry import methods as registered_methods
from hybridsched.storage import load_instance
from tests.cli.noisy_methods import EARLY_MARKER, MARKERS, ON_IMPORT, PREFIX
from tests.registry_snapshot import restored_registry

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = ROOT / "instances"
NOISY = Path(__file__).with_name("noisy_methods.py")

#: One bundled instance of each family that has an exact method (small: solved in < 1 s).
EXACT = {
    "hybrid-deadline": INSTANCES / "hybrid-deadline" / "small-01.json",
    "bot-sites": INSTANCES / "bot-sites" / "small-lolo-c-2s-3b.json",
    "gang": INSTANCES / "gang" / "small-10.json",
    "malleable": INSTANCES / "malleable" / "batch-04.json",
}

#: A heuristic of each family for ``solve --json``.
HEURISTIC = {"hybrid-deadline": "cdf+ra", "bot-sites": "gmo", "gang": "cplmt",
             "malleable": "tree", "pull": "promethee"}

#: ``simulate FAMILY``: small generator options and the method (or scheduler) options.
SIMULATE = {
    "malleable": ["--jobs", "10", "--scheduler", "flat"],
    "gang": ["--jobs", "30", "--method", "cplmt"],
    "pull": ["--units", "40", "--method", "fcfs"],
}

#: ``compare --csv``'s header (hybridsched.experiments.compare.COLUMNS, spelled out: a
#: change of the documented columns should fail here).
COMPARE_HEADER = ["instance", "family", "method", "status", "objective", "reference",
                  "reference_kind", "gap", "bound", "runtime_s", "message"]

#: Statuses of a run that produced its result.
GOOD = {"optimal", "feasible", "time_limit"}

#: What highspy 1.16 prints on descriptor 1 when a Highs object is made.
BANNER = "Running HiGHS"


# -- helpers ---------------------------------------------------------------------------------

def user_environment(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: buffered standard output (no PYTHONUNBUFFERED)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONUNBUFFERED", "HYBRIDSCHED_DEBUG", ON_IMPORT)}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return {**env, **extra}


def hybridsched(*argv: object, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m hybridsched ARGV`` with standard output and error on pipes."""
    return subprocess.run([sys.executable, "-m", "hybridsched", *map(str, argv)], cwd=cwd,
                          env=user_environment(**env), capture_output=True, text=True,
                          timeout=300, check=False)


#: Gives the noisy method's early logger a handler on the interpreter's standard output
#: (as a library configured at import time, before the program owns it), registers the
#: method, then runs the command line on the remaining arguments.
DRIVER = """
import logging, runpy, sys
runpy.run_path(sys.argv[1])["EARLY"].addHandler(logging.StreamHandler(sys.stdout))
from hybridsched.cli import main
sys.argv = ["hybridsched", *sys.argv[2:]]
main()
"""


def noisy_hybridsched(*argv: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the command line in a subprocess where ``test-noisy`` is registered."""
    return subprocess.run([sys.executable, "-c", DRIVER, str(NOISY), *map(str, argv)],
                          cwd=cwd, env=user_environment(), capture_output=True, text=True,
                          timeout=300, check=False)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"non-standard JSON constant {name}")


def one_json(proc: subprocess.CompletedProcess[str] | tuple[int, str, str]):
    """The one strict JSON document that is the whole standard output (exit code 0)."""
    code, out, err = proc if isinstance(proc, tuple) else (proc.returncode, proc.stdout,
                                                           proc.stderr)
    assert code == 0, err
    assert out.endswith("}\n") or out.endswith("]\n"), f"not one document: {out[-300:]!r}"
    assert out[:1] in "{[", f"something before the document: {out[:300]!r}"
    try:
        return json.loads(out, parse_constant=_refuse_constant)  # the whole text, strictly
    except ValueError as exc:
        raise AssertionError(f"standard output is not one JSON document ({exc}):\n"
                             f"{out[:2000]}") from None


def one_csv(proc: subprocess.CompletedProcess[str], header: list[str]) -> pd.DataFrame:
    """The CSV table that is the whole standard output, with ``header`` as its first line."""
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    lines = out.splitlines()
    assert lines and lines[0] == ",".join(header), f"first line: {out[:300]!r}"
    assert out.endswith("\n") and not out.endswith("\n\n"), repr(out[-300:])
    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert all(len(row) == len(header) for row in rows), [r for r in rows
                                                          if len(r) != len(header)]
    frame = pd.read_csv(io.StringIO(out))
    assert list(frame.columns) == header and len(frame) == len(rows) - 1
    return frame


def no_noise(*texts: str) -> None:
    for text in texts:
        assert PREFIX not in text, text
        assert BANNER not in text, text


# -- fixtures --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pull_file(tmp_path_factory) -> Path:
    """A small pull instance (no pull instance is bundled)."""
    from hybridsched.catalogue import get_family
    from hybridsched.pull.generator import generate
    from hybridsched.storage import save_instance

    path = tmp_path_factory.mktemp("pull") / "pull-40.json"
    save_instance(path, get_family("pull"), generate(units=40, seed=3))
    return path


@pytest.fixture
def instance_of(pull_file):
    """The instance file used for each family."""
    return {**EXACT, "pull": pull_file}.__getitem__


@pytest.fixture
def noisy_method():
    """Register ``test-noisy`` in this process for one test, then restore the registry."""
    with restored_registry():
        runpy.run_path(str(NOISY))
        yield "test-noisy"


@pytest.fixture
def run_fd(capfd, monkeypatch):
    """Run the command line in this process; return (code, stdout, stderr) of descriptors 1, 2.

    ``sys.__stdout__`` is a *buffered* stream on descriptor 1 (as in a user's shell; under
    ``PYTHONUNBUFFERED`` it writes at once), and buffered streams are flushed before
    reading, as the interpreter does at exit: what they hold then would reach the user's
    standard output after the document.
    """
    buffered = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                encoding="utf-8")
    monkeypatch.setattr(sys, "__stdout__", buffered)

    def call(*argv: object) -> tuple[int, str, str]:
        capfd.readouterr()
        code = run([str(a) for a in argv])
        flush_everything()
        captured = capfd.readouterr()
        return code, captured.out, captured.err

    return call


def flush_everything() -> None:
    for stream in (sys.stdout, sys.__stdout__, sys.stderr, sys.__stderr__):
        if stream is not None:
            stream.flush()
    with contextlib.suppress(OSError, AttributeError, TypeError):  # no C library (Windows)
        ctypes.CDLL(None).fflush(None)


# -- solve -----------------------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(EXACT))
def test_solve_exact_json_is_one_document(family, tmp_path):
    proc = hybridsched("solve", EXACT[family], "--method", "exact", "--time-limit", "20",
                       "--json", cwd=tmp_path)
    document = one_json(proc)
    assert (document["family"], document["method"]) == (family, "exact")
    assert document["status"] in GOOD
    assert document["produced_by"]["hybridsched"].split("+")[0] == __version__
    no_noise(proc.stdout, proc.stderr)  # the banner is discarded, not moved to stderr


@pytest.mark.parametrize("family", sorted(HEURISTIC))
def test_solve_heuristic_json_is_one_document(family, instance_of, tmp_path):
    proc = hybridsched("solve", instance_of(family), "--method", HEURISTIC[family], "--json",
                       cwd=tmp_path)
    document = one_json(proc)
    assert (document["family"], document["method"]) == (family, HEURISTIC[family])
    assert document["status"] in GOOD


def test_the_highs_banner_goes_to_stderr_under_verbose(tmp_path):
    """The guard is what keeps the banner out: with --verbose it is on standard error."""
    probe = subprocess.run([sys.executable, "-c", "import highspy; highspy.Highs()"],
                           env=user_environment(), capture_output=True, text=True, timeout=60,
                           check=True)
    if BANNER not in probe.stdout:
        pytest.skip("this highspy prints no banner on standard output")
    proc = hybridsched("--verbose", "solve", EXACT["bot-sites"], "--method", "exact",
                       "--json", cwd=tmp_path)
    assert one_json(proc)["status"] == "optimal"
    assert BANNER in proc.stderr


# -- simulate, generate, schema ---------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(SIMULATE))
def test_simulate_json_is_one_document(family, tmp_path):
    proc = hybridsched("simulate", family, *SIMULATE[family], "--json",
                       "-o", tmp_path / "schedule.json", cwd=tmp_path)
    document = one_json(proc)
    assert document["family"] == family and document["status"] in GOOD
    assert document["produced_by"]["hybridsched"].split("+")[0] == __version__
    assert json.loads((tmp_path / "schedule.json").read_text())  # the schedule went to -o


@pytest.mark.parametrize("family", family_names())
def test_generate_to_stdout_and_schema_are_one_document_each(family, run_fd, tmp_path):
    """In this process (no solver runs): ``generate -o -`` and ``schema [--solution]``."""
    small = {"hybrid-deadline": ["--tasks", "5"], "bot-sites": ["--bots", "2"],
             "gang": ["--jobs", "5"], "malleable": ["--jobs", "5"], "pull": ["--units", "5"]}
    instance = one_json(run_fd("generate", family, *small[family], "-o", "-"))
    path = tmp_path / "instance.json"
    path.write_text(json.dumps(instance))
    assert load_instance(path)[0].name == family  # the document is the instance
    for extra in ([], ["--solution"]):
        assert one_json(run_fd("schema", family, *extra))["type"] == "object"


# -- compare ---------------------------------------------------------------------------------

# Both formats in process, and JSON on workers: what workers could leak to stdout does not
# depend on the format (a fourth combination cost 9 s of the default suite).
@pytest.mark.parametrize(("fmt", "workers"), [("json", None), ("csv", None), ("json", 2)],
                         ids=["json-in-process", "csv-in-process", "json-dask-2-workers"])
def test_compare_of_every_family_and_method_is_one_document(fmt, workers, instance_of,
                                                            tmp_path):
    """Every registered method of every family, on one instance each, at once."""
    families = family_names()
    extra = [] if workers is None else ["--workers", str(workers)]
    proc = hybridsched("compare", *(instance_of(f) for f in families), "--time-limit", "20",
                       f"--{fmt}", *extra, cwd=tmp_path)
    if fmt == "json":
        records = one_json(proc)
        assert isinstance(records, list)
        assert set(records[0]) == {*COMPARE_HEADER, "produced_by"}  # the versions: JSON only
    else:
        records = one_csv(proc, COMPARE_HEADER).to_dict("records")
    ran = {(r["family"], r["method"]) for r in records}
    assert ran == {(f, m) for f in families for m in registered_methods(f)}
    assert {r["status"] for r in records} <= GOOD, records
    no_noise(proc.stdout, proc.stderr)


# -- pareto ----------------------------------------------------------------------------------

def test_pareto_json_is_one_document(tmp_path):
    proc = hybridsched("pareto", EXACT["bot-sites"], "--json", "--time-limit", "30",
                       "--max-points", "4", cwd=tmp_path)
    report = one_json(proc)
    assert report["front"] and report["heuristics"]
    assert report["produced_by"]["highspy"]
    no_noise(proc.stdout, proc.stderr)


# -- campaign and soft -----------------------------------------------------------------------

def _campaign_spec(folder: Path, pull_file: Path) -> Path:
    files = [str(p) for p in [*EXACT.values(), pull_file]]
    spec = folder / "spec.toml"
    spec.write_text(
        '[campaign]\nname = "stdout-documents"\ntime_limit = 20.0\n'
        f"plugins = [{json.dumps(str(NOISY))}]\n\n"
        f"[[instances]]\nfiles = {json.dumps(files)}\n\n"
        '[[methods]]\nname = "exact"\n[[methods]]\nname = "fcfs"\n'
        '[[methods]]\nname = "test-noisy"\n')
    return spec


@pytest.mark.parametrize("mode", [["--serial"], ["--workers", "2"]],
                         ids=["serial", "local-cluster"])
def test_campaign_json_summary_is_one_document(mode, pull_file, tmp_path):
    """Exact solves (HiGHS banners) and the noisy plugin, in this process or on workers."""
    spec = _campaign_spec(tmp_path, pull_file)
    proc = hybridsched("campaign", spec, "-o", tmp_path / "store", *mode, "--json",
                       "--csv", tmp_path / "results.csv", cwd=tmp_path, **{ON_IMPORT: "1"})
    summary = one_json(proc)
    assert summary["planned"] == summary["ran"] == 7  # 5 exact (pull's too) + fcfs + test-noisy
    assert set(summary["statuses"]) <= GOOD, summary
    assert summary["mode"] == ("serial" if mode == ["--serial"] else "local")
    no_noise(proc.stdout, proc.stderr)
    table = pd.read_csv(tmp_path / "results.csv")
    assert len(table) == 7 and "test-noisy" in set(table["method"])


@pytest.mark.parametrize("mode", [["--serial"], ["--workers", "2"]],
                         ids=["serial", "local-cluster"])
def test_soft_json_is_one_document(mode, tmp_path):
    spec = tmp_path / "soft.toml"
    spec.write_text('[study]\nname = "soft-stdout"\nunits = 30\nweights = [1, 26]\n')
    proc = hybridsched("soft", spec, "-o", tmp_path / "soft", *mode, "--json", cwd=tmp_path)
    selection = one_json(proc)
    assert selection["strategies"] == 16 and not selection["failed"]
    assert set(selection["s2"]) <= set(selection["s1"])
    assert selection["produced_by"]["simpy"]


# -- a method that writes noise every way it can ----------------------------------------------

def test_noise_never_reaches_stdout_of_a_real_process(tmp_path):
    """Buffered streams flushed at exit, a log handler made before the guard, a child..."""
    hd = EXACT["hybrid-deadline"]
    proc = noisy_hybridsched("solve", hd, "--method", "test-noisy", "--json", cwd=tmp_path)
    assert one_json(proc)["method"] == "test-noisy"
    no_noise(proc.stdout, proc.stderr)
    proc = noisy_hybridsched("compare", hd, "--methods", "cdf,test-noisy", "--csv",
                             cwd=tmp_path)
    assert set(one_csv(proc, COMPARE_HEADER)["method"]) == {"cdf", "test-noisy"}
    no_noise(proc.stdout, proc.stderr)
    proc = noisy_hybridsched("--verbose", "solve", hd, "--method", "test-noisy", "--json",
                             cwd=tmp_path)
    assert one_json(proc)["method"] == "test-noisy"
    for marker in [*MARKERS.values(), EARLY_MARKER]:
        assert marker in proc.stderr, (marker, proc.stderr)


def test_noise_is_discarded_in_process(noisy_method, run_fd):
    code, out, err = run_fd("solve", EXACT["hybrid-deadline"], "--method", noisy_method,
                            "--json")
    assert one_json((code, out, err))["method"] == noisy_method
    no_noise(out, err)


def test_noise_goes_to_stderr_under_verbose_in_process(noisy_method, run_fd):
    code, out, err = run_fd("solve", EXACT["hybrid-deadline"], "--method", noisy_method,
                            "--json", "--verbose")
    assert one_json((code, out, err))["method"] == noisy_method
    assert PREFIX not in out
    for kind, marker in MARKERS.items():
        assert marker in err, kind


def test_verbose_is_documented_in_the_help(run_fd):
    code, out, _ = run_fd("--help")
    assert code == 0
    line = " ".join(out.split())
    assert "--verbose" in line and "standard error" in line.split("--verbose", 1)[1][:200]


@pytest.mark.parametrize(("closed", "argv", "code"), [
    ((1,), ["solve", "GANG", "--method", "fifo", "--json"], 0),
    ((1,), ["methods"], 0),
    ((2,), ["solve", "missing.json", "--method", "fifo"], 2),
    ((1, 2), ["solve", "GANG", "--method", "fifo", "--json"], 0),
], ids=["stdout-solve", "stdout-methods", "stderr-bad-input", "both"])
def test_closed_standard_descriptors_keep_the_exit_code(tmp_path, closed, argv, code):
    """``cmd >&-`` / ``2>&-``: no traceback, and the exit code still tells what happened."""
    gang = str(ROOT / "instances" / "gang" / "small-10.json")
    argv = [gang if a == "GANG" else a for a in argv]

    def close() -> None:
        for fd in closed:
            os.close(fd)

    done = subprocess.run([sys.executable, "-m", "hybridsched", *argv], cwd=tmp_path,
                          capture_output=True, text=True, preexec_fn=close, timeout=120)
    assert done.returncode == code
    assert "Traceback" not in done.stdout + done.stderr


def test_child_processes_ignore_warnings_unless_verbose(monkeypatch):
    """Dask workers and multiprocessing's resource tracker inherit the choice (a tracker's
    'leaked semaphore' warning once followed the one line of an interrupted campaign)."""
    import os

    import hybridsched.cli as cli_module

    seen = []
    monkeypatch.setattr(cli_module, "_dispatch",
                        lambda argv: seen.append(os.environ.get("PYTHONWARNINGS")) or 0)
    monkeypatch.setenv("PYTHONWARNINGS", "default")
    assert cli_module.run(["methods"]) == 0 and cli_module.run(["--verbose", "methods"]) == 0
    assert seen == ["ignore", "default"] and os.environ["PYTHONWARNINGS"] == "default"
