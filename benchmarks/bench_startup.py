"""Start-up time of the command line: median wall time of quick commands.

Run ``python benchmarks/bench_startup.py [--runs N]``. Each command runs in a
fresh interpreter (``python -m hybridsched ...``, output discarded); the
target (issue 6, item 24) is under 0.5 s for ``--help`` and ``methods``. The
heavy modules each command leaves loaded are listed too (numpy and pydantic
are needed to register the families; pyomo, highspy, matplotlib, pandas,
networkx and scipy should appear only in commands that solve or plot).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = (["--help"], ["--version"], ["methods"], ["schema", "hybrid-deadline"])
HEAVY = ("pyomo", "highspy", "matplotlib", "pandas", "networkx", "scipy", "numpy", "pydantic")

PROBE = """
import contextlib, io, sys
import hybridsched.cli as cli
with contextlib.redirect_stdout(io.StringIO()):
    cli.run({argv!r})
loaded = sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r}))
print("HEAVY:" + ",".join(loaded))
"""


def wall_time(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def heavy_modules(argv: list[str]) -> str:
    out = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
                         check=False, capture_output=True, text=True).stdout
    found = [line[6:] for line in out.splitlines() if line.startswith("HEAVY:")]
    return (found[0] or "none") if found else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description="Start-up time of the command line.")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    bare = [wall_time([sys.executable, "-c", "pass"]) for _ in range(args.runs)]
    print(f"{'python -c pass':34} {statistics.median(bare):6.3f} s  (the interpreter alone)")
    for argv in COMMANDS:
        command = [sys.executable, "-m", "hybridsched", *argv]
        wall_time(command)  # warm the file cache
        times = [wall_time(command) for _ in range(args.runs)]
        label = "hybridsched " + " ".join(argv)
        print(f"{label:34} {statistics.median(times):6.3f} s  (min {min(times):.3f})  "
              f"heavy modules: {heavy_modules(argv)}")


if __name__ == "__main__":
    main()
