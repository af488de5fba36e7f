"""PROMETHEE II decision time: the O(n log n) fast path against the pairwise definition.

Run ``python benchmarks/bench_promethee.py [--repeats 7]``. One decision ranks
the queued tasks on three criteria (ECT, price, EEI shapes: min, min, max)
with the Linear function, its threshold the standard deviation of the
pairwise deviations (as in the pull paper), and picks the best net flow.
Target (issue 10): < 1 ms at 2,000 tasks with the fast path; the ratio to the
pairwise path is reported, and the fast path's time at 10^5 tasks.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _common import machine_line

from hybridsched.heuristics.promethee import Criterion, flows


def decide(matrix: np.ndarray, method: str) -> int:
    # p=None: the standard deviation of the pairwise deviations, from the same sort.
    criteria = [Criterion(target, weight, "linear", 0.0, None)
                for target, weight in (("min", 0.5), ("min", 0.3), ("max", 0.2))]
    return int(np.argmax(flows(matrix, criteria, method)[2]))


def median_seconds(matrix: np.ndarray, method: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        decide(matrix, method)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(machine_line())
    rng = np.random.default_rng(0)
    for n in (2_000, 10_000, 100_000):
        matrix = np.column_stack([rng.uniform(1, 100, n), rng.uniform(0, 10, n),
                                  rng.uniform(0, 1, n)])
        fast = median_seconds(matrix, "fast", args.repeats)
        line = f"  {n:7d} tasks: fast {fast * 1e3:8.3f} ms"
        if n <= 10_000:
            slow = median_seconds(matrix, "pairwise", max(1, args.repeats // 2))
            assert decide(matrix, "fast") == decide(matrix, "pairwise")
            line += f"   pairwise {slow * 1e3:9.1f} ms   ratio {slow / fast:7.0f}x"
        print(line)


if __name__ == "__main__":
    main()
