"""Malleable family: the rigid batch MILP (whole clusters, one job at a time; PuLP + HiGHS).

Run ``python benchmarks/bench_malleable_batch.py [--objective penalised_a] [--limit 60]``.

Its optima are those of the rigid restriction, not of the malleable problem:
the family's ``exact`` method uses this model for incumbents only
(``bench_malleable_exact.py`` measures what it proves).

1. 10 jobs (``generate(10, "small", seed)``) on the two 4-resource platforms,
   the default one (a 64-CPU free cluster takes most jobs: optima are often 0)
   and ``batch_platform()`` (busy: positive optima), seeds 0..4: solve time
   of each, its median, and the statuses. Target (issue 8): < 10 s.
2. Seed 0 on ``batch_platform()`` with 10, 12, 15, 20, ... jobs,
   ``time_limit=--limit``: the largest ``n`` proven optimal (the sweep stops
   at the first ``n`` not proven, or at ``--max-jobs``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from _common import machine_line

from hybridsched.malleable.checker import check
from hybridsched.malleable.generator import batch_platform, default_platform, generate
from hybridsched.models.malleable.milp_batch import OBJECTIVES, solve
from hybridsched.result import Status

SIZES = (10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200)


def run(jobs: int, seed: int, objective: str, limit: float, platform=batch_platform):
    instance = generate(jobs, "small", seed, resources=platform())
    start = time.perf_counter()
    result = solve(instance, objective, time_limit=limit)
    seconds = time.perf_counter() - start
    assert not result.status.has_solution or check(instance, result.solution) == []
    return seconds, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objective", default="penalised_a", choices=OBJECTIVES)
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--max-jobs", type=int, default=SIZES[-1])
    args = parser.parse_args()
    print(machine_line())
    print(f"os.cpu_count() = {os.cpu_count()}")
    print(f"objective {args.objective}, time limit {args.limit:g} s, HiGHS 1 thread")

    for platform in (default_platform, batch_platform):
        print(f"\n10 jobs, small, {platform.__name__}()")
        times, statuses = [], []
        for seed in range(5):
            seconds, result = run(10, seed, args.objective, args.limit, platform)
            times.append(seconds)
            statuses.append(result.status.value)
            print(f"  seed {seed}: {seconds:7.2f} s  {result.status.value:10s} objective "
                  f"{result.objective:.6g}  bound {result.bound:.6g}  ({result.message})")
        print(f"  median {statistics.median(times):.2f} s; statuses {statuses}")

    print(f"\nseed 0, batch_platform(), growing n, time limit {args.limit:g} s")
    largest = None
    for jobs in (n for n in SIZES if n <= args.max_jobs):
        seconds, result = run(jobs, 0, args.objective, args.limit)
        print(f"  n={jobs:4d}: {seconds:7.2f} s  {result.status.value:10s} objective "
              f"{result.objective:.6g}  bound {result.bound:.6g}  ({result.message})",
              flush=True)
        if result.status is not Status.OPTIMAL:
            break
        largest = jobs
    print(f"  largest n proven optimal within {args.limit:g} s: {largest}")


if __name__ == "__main__":
    main()
