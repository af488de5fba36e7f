"""Start-up time of the command line: median wall time of quick commands, and where it goes.

Run ``python benchmarks/bench_startup.py [--runs N] [--source DIR]``. Each
command runs in a fresh interpreter (``python -m hybridsched ...``, output
discarded); the medians are over ``--runs`` runs after one run that warms
the file cache. Targets (issue 20): ``--help`` and ``methods`` < 0.15 s, a
small heuristic ``solve`` < 0.5 s, on 2 cores.

For each command it also lists the heavy libraries left loaded (``--help``,
``--version``, ``methods``, ``schema`` and error paths should load none), and
``python -X importtime`` gives the packages that cost the most to import
(the modules' own import times summed by top-level package).

``--source DIR`` runs another checkout of the package (``DIR`` holds its
``hybridsched/`` folder, e.g. a ``git worktree`` of an older commit), so that
figures before and after a change are taken on the same machine at the same time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "instances" / "hybrid-deadline" / "small-01.json"

COMMANDS = (
    ["--help"],
    ["--version"],
    ["methods"],
    ["schema", "hybrid-deadline"],
    ["solve", "missing.json", "--method", "cdf"],
    ["solve", str(SMALL), "--method", "cdf"],
    ["solve", str(SMALL), "--method", "cdf+ra", "--json"],
)
HEAVY = ("numpy", "pandas", "pyarrow", "dask", "distributed", "matplotlib", "scipy", "networkx",
         "simpy", "pyomo", "highspy", "pulp", "ortools", "pydantic")

PROBE = """
import contextlib, io, sys
import hybridsched.cli as cli
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    cli.run({argv!r})
loaded = sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r}))
print("HEAVY:" + ",".join(loaded))
"""


def environment(source: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    # As a user's install: modules compiled once to bytecode (the warm-up run writes it),
    # not from source at every start (PYTHONDONTWRITEBYTECODE=1 costs ~0.15 s here).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    return env


#: Every command runs here: ``python -m`` and ``-c`` put the working folder first on
#: ``sys.path``, which would shadow ``--source`` when run from a checkout.
SCRATCH = Path(tempfile.mkdtemp(prefix="bench-startup-"))


def wall_time(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env, cwd=SCRATCH)
    return time.perf_counter() - start


def heavy_modules(argv: list[str], env: dict[str, str]) -> str:
    out = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
                         check=False, capture_output=True, text=True, env=env,
                         cwd=SCRATCH).stdout
    found = [line[6:] for line in out.splitlines() if line.startswith("HEAVY:")]
    return (found[0] or "none") if found else "?"


def import_times(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """Seconds spent importing each top-level package (``-X importtime``, self times)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "hybridsched", *argv],
                          check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=env, cwd=SCRATCH)
    totals: dict[str, float] = defaultdict(float)
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, _, name = line[len("import time:"):].split("|")
        if own.strip().isdigit():  # not the header line
            totals[name.strip().split(".")[0]] += int(own) / 1e6
    return dict(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description="Start-up time of the command line.")
    parser.add_argument("--runs", type=int, default=9, help="runs per command (median)")
    parser.add_argument("--source", type=Path, default=None,
                        help="folder holding another checkout's hybridsched/ to measure")
    parser.add_argument("--top", type=int, default=6,
                        help="packages listed per command from -X importtime")
    args = parser.parse_args()
    env = environment(args.source)
    print(f"cores: {os.cpu_count()}, python {sys.version.split()[0]}, "
          f"package: {args.source or ROOT}, {args.runs} runs per command (medians)")
    bare = [wall_time([sys.executable, "-c", "pass"], env) for _ in range(args.runs)]
    print(f"{'python -c pass':44} {statistics.median(bare):6.3f} s  (the interpreter alone)")
    for argv in COMMANDS:
        command = [sys.executable, "-m", "hybridsched", *argv]
        shown = [Path(a).name if a.endswith(".json") else a for a in argv]
        label = "hybridsched " + " ".join(shown)
        wall_time(command, env)  # warm the file cache
        times = [wall_time(command, env) for _ in range(args.runs)]
        print(f"{label:44} {statistics.median(times):6.3f} s  (min {min(times):.3f})  "
              f"heavy: {heavy_modules(argv, env)}")
        imports = import_times(argv, env)
        top = sorted(imports.items(), key=lambda item: -item[1])[:args.top]
        print(f"{'':44} imports: " + ", ".join(f"{name} {seconds:.3f}"
                                                for name, seconds in top))


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
