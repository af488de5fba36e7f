"""Malleable family: where the exact method proves optima of the malleable problem.

Run ``python benchmarks/bench_malleable_exact.py [--objective penalised_a] [--limit 60]``.

The ``exact`` method (best heuristic, rigid batch MILP, then the time-indexed
malleable model; see :mod:`hybridsched.models.malleable_exact`) on
``generate(n, "small", seed)`` for growing ``n``, seeds 0..``--seeds - 1``, on
the default platform (a free 64-CPU cluster takes most jobs) and on the busy
``batch_platform()``: per ``n``, how many runs are proven optimal, the median
time and the median relative gap of the others.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

from _common import machine_line

from hybridsched import run_method
from hybridsched.malleable.bounds import WEIGHTS
from hybridsched.malleable.generator import batch_platform, default_platform, generate
from hybridsched.result import Status

SIZES = (2, 3, 4, 5, 6, 8, 10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objective", default="penalised_a", choices=tuple(WEIGHTS))
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--max-jobs", type=int, default=SIZES[-1])
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # PuLP's deprecation notices
    print(machine_line())
    print(f"os.cpu_count() = {os.cpu_count()}")
    print(f"objective {args.objective}, time limit {args.limit:g} s, HiGHS 1 thread")
    for platform in (default_platform, batch_platform):
        print(f"\n{platform.__name__}()")
        for jobs in (n for n in SIZES if n <= args.max_jobs):
            times, gaps, proven = [], [], 0
            for seed in range(args.seeds):
                instance = generate(jobs, "small", seed, resources=platform())
                start = time.perf_counter()
                result = run_method("malleable", "exact", instance, seed=seed,
                                    objective=args.objective, time_limit=args.limit)
                times.append(time.perf_counter() - start)
                if result.status is Status.OPTIMAL:
                    proven += 1
                else:
                    gaps.append((result.objective - result.bound)
                                / max(abs(result.objective), 1e-9))
            gap = f"{statistics.median(gaps):.1%}" if gaps else "-"
            print(f"  n={jobs:3d}: proven {proven}/{args.seeds}, median "
                  f"{statistics.median(times):6.1f} s, median gap of the others {gap}",
                  flush=True)


if __name__ == "__main__":
    main()
