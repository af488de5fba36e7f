"""Pull exact method (clairvoyant offline optimum): solve times of a backend on tiny instances.

Prints, per ``tiny_instance`` seed, the median wall time of ``--repeats`` solves,
the offline optimum and the gaps of PROMETHEE II and FCFS to it; then the
median over the seeds and ``os.cpu_count()``.

    python benchmarks/bench_pull_exact.py --backend cpsat --seeds 0-9 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from hybridsched.pull.generator import tiny_instance
from hybridsched.registry import run_method


def main() -> None:
    """Parse the arguments and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("highs", "cpsat"), default="highs")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seeds", default="0-9", help="first-last tiny_instance seeds")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    first, last = map(int, args.seeds.split("-"))
    options = {"backend": args.backend}
    if args.threads != 1:
        options["threads"] = args.threads
    medians = []
    print(f"cpu_count={os.cpu_count()} backend={args.backend} threads={args.threads}")
    print("seed  median_s  status   optimum  gap_promethee  gap_fcfs")
    for seed in range(first, last + 1):
        instance = tiny_instance(seed)
        times = []
        for _ in range(args.repeats):
            began = time.perf_counter()
            result = run_method("pull", "exact", instance, time_limit=60, **options)
            times.append(time.perf_counter() - began)
        best = result.objective
        gaps = [run_method("pull", m, instance).objective / best - 1 for m in ("promethee", "fcfs")]
        medians.append(statistics.median(times))
        print(f"{seed:4d}  {medians[-1]:8.3f}  {result.status!s:8s} {best:8.4f}  "
              f"{gaps[0]:13.1%}  {gaps[1]:8.1%}")
    print(f"median over {len(medians)} instances: {statistics.median(medians):.3f} s")


if __name__ == "__main__":
    main()
