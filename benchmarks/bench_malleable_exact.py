"""Malleable family: where the exact method proves optima of the malleable problem.

Run ``python benchmarks/bench_malleable_exact.py [--objective penalised_a] [--limit 60]
[--backend highs|cpsat] [--threads 1] [--bundled]``.

The ``exact`` method (best heuristic, rigid batch MILP, then the time-indexed
malleable model; see :mod:`hybridsched.models.malleable.milp`) on
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
    parser.add_argument("--backend", default="highs", choices=("highs", "cpsat"))
    parser.add_argument("--threads", type=int, default=1, help="CP-SAT search workers")
    parser.add_argument("--bundled", action="store_true",
                        help="only the bundled instances/malleable/batch-*.json, both policies")
    args = parser.parse_args()
    options = {"backend": args.backend} | ({"threads": args.threads}
                                           if args.backend == "cpsat" else {})
    warnings.simplefilter("ignore")  # PuLP's deprecation notices
    print(machine_line())
    print(f"os.cpu_count() = {os.cpu_count()}")
    print(f"objective {args.objective}, time limit {args.limit:g} s, backend {args.backend}, "
          f"{args.threads if args.backend == 'cpsat' else 1} thread(s)")
    if args.bundled:
        bundled(args.limit, options)
        return
    for platform in (default_platform, batch_platform):
        print(f"\n{platform.__name__}()")
        for jobs in (n for n in SIZES if n <= args.max_jobs):
            times, gaps, proven = [], [], 0
            for seed in range(args.seeds):
                instance = generate(jobs, "small", seed, resources=platform())
                start = time.perf_counter()
                result = run_method("malleable", "exact", instance, seed=seed,
                                    objective=args.objective, time_limit=args.limit, **options)
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


def bundled(limit: float, options: dict[str, object]) -> None:
    """Each bundled batch under both policies: status, objective, bound, time."""
    from pathlib import Path

    from hybridsched import load_instance

    folder = Path(__file__).parents[1] / "instances" / "malleable"
    for path in sorted(folder.glob("batch-*.json")):
        _, instance = load_instance(path)
        for objective in ("penalised_a", "penalised_b"):
            start = time.perf_counter()
            result = run_method("malleable", "exact", instance, seed=0, objective=objective,
                                time_limit=limit, **options)
            print(f"  {path.stem} {objective}: {result.status.value} {result.objective:g} "
                  f"(bound {result.bound:g}) in {time.perf_counter() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
