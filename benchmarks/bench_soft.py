"""The SOFT study's time: 224 strategies (one replication) on a local Dask cluster and serially.

Run ``python benchmarks/bench_soft.py [--spec examples/soft/paper.toml] [--mode both]``.
Each mode runs the study from an empty results folder and prints its wall time
and the selected strategies. Target (issue 10): < 10 minutes on this
machine's LocalCluster; the serial time is reported beside it.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import HERE, machine_line

from hybridsched.experiments.soft_study import run_soft


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default=str(HERE.parent / "examples" / "soft" / "paper.toml"))
    parser.add_argument("--mode", choices=["local", "serial", "both"], default="both")
    args = parser.parse_args()
    print(machine_line())
    for mode in (["local", "serial"] if args.mode == "both" else [args.mode]):
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            report = run_soft(args.spec, Path(folder) / "soft", mode=mode)
            elapsed = time.perf_counter() - start
        print(f"  {mode:6s} {elapsed:7.1f} s   {report.summary()}")


if __name__ == "__main__":
    main()
