"""PROMETHEE II decision time: the O(n log n) fast path against the pairwise definition.

Run ``python benchmarks/bench_promethee.py [--repeats 7] [--output FILE.json]``
(``--output``: the figures as JSON, with the machine's cores and load, for
``scripts/publish_numbers.py``). One decision is
what the pull scheduler does when a host pulls: build the evaluation matrix
(ECT, price, EEI) of the queued tasks for the host, compute each
criterion's sigma (standard deviation of the pairwise deviations), rank with
the Linear function and pick the best net flow
(:class:`~hybridsched.heuristics.pull.policies.PrometheeScheduler`).
Target (issue 10): < 1 ms at 2,000 tasks with the fast path; the ratio to the
pairwise path is reported, and the fast path's time at 10^5 tasks.

Three ways to the same choice: ``fast`` (sorting and prefix sums),
``pairwise`` (our pairwise path: each unordered pair evaluated once over
the sorted values), and ``textbook`` (the definition as the paper draws it:
the full n x n preference matrix of every criterion, summed by rows and
columns).

The Gaussian (issue 21): ``series`` (the bounded series of
:mod:`hybridsched.heuristics.pull.promethee_gaussian`, ties within the bound
settled by the pairwise floats of those rows) against the pairwise path it
replaced, and against the Linear fast path at the same size (target: the
pull run with the Gaussian < 2x the Linear run, issue 35, after < 3x in
issue 21; so a decision < ~2x).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _common import Recorder, machine_line, median_time

from hybridsched.heuristics.pull.policies import PrometheeScheduler, strategy
from hybridsched.heuristics.pull.promethee import pairwise_deviation_std, preference, scaled


def textbook(scheduler: PrometheeScheduler, noi: np.ndarray) -> int:
    """The best task by full preference matrices (every ordered pair, every criterion)."""
    matrix = scheduler.matrix(noi, 250.0, 0.001, 1e7, 0.6)
    net = np.zeros(len(noi))
    for k, c in enumerate(scheduler._criteria):
        x = matrix[:, k] if c.target == "max" else -matrix[:, k]
        d = x[:, None] - x[None, :]
        g = preference(d, scaled(c, pairwise_deviation_std(x)))
        net += c.weight * (g.sum(axis=1) - g.sum(axis=0))
    return int(np.argmax(net))


def median_seconds(scheduler: PrometheeScheduler, noi: np.ndarray, repeats: int
                   ) -> tuple[float, int]:
    candidates = np.arange(len(noi))
    for _ in range(min(repeats, 20)):  # warm up: the steady state of a long run
        scheduler(candidates, noi, 250.0, 0.001, 1e7, 0.6)
    times, picked = [], -1
    for _ in range(repeats):
        start = time.perf_counter()
        picked = scheduler(candidates, noi, 250.0, 0.001, 1e7, 0.6)
        times.append(time.perf_counter() - start)
    return statistics.median(times), picked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--output", default=None, help="also write the figures to this JSON")
    args = parser.parse_args()
    record = Recorder(args.output, repeats=args.repeats)
    print(machine_line())
    rng = np.random.default_rng(0)
    # Mixed targets, so that the ranking is not simply the largest or smallest task.
    chosen = strategy(targets="min,max,max", weights="0.5,0.3,0.2")
    fast = PrometheeScheduler(chosen, rng)
    slow = PrometheeScheduler(chosen, rng, flows_method="pairwise")
    for n in (2_000, 10_000, 100_000):
        noi = rng.uniform(1e6, 1e7, n).round()
        # The fast path is cheap: many repeats make its median steady on a shared machine.
        fast_s, fast_pick = median_seconds(fast, noi, args.repeats * (15 if n <= 10_000 else 1))
        line = f"  {n:7d} queued tasks: fast {fast_s * 1e3:8.3f} ms"
        row = {"tasks": n, "fast_s": fast_s, "pairwise_s": None, "textbook_s": None}
        if n <= 10_000:
            slow_s, slow_pick = median_seconds(slow, noi, max(1, args.repeats // 2))
            book_s, book_pick = median_time(lambda noi=noi: textbook(fast, noi),
                                            max(1, args.repeats // 2))
            assert fast_pick == slow_pick == book_pick
            line += (f"   pairwise {slow_s * 1e3:8.1f} ms ({slow_s / fast_s:5.0f}x)"
                     f"   textbook {book_s * 1e3:8.1f} ms ({book_s / fast_s:5.0f}x)")
            row.update(pairwise_s=slow_s, textbook_s=book_s)
        print(line)
        record.add("linear", **row)
    print("gaussian (default strategy s4,26 and mixed targets):")
    for n in (100, 500, 2_000, 10_000):
        noi = rng.uniform(1e6, 1e7, n).round()
        for label, targets in (("s4,26", "max,max,max"), ("mixed", "min,max,max")):
            linear = PrometheeScheduler(strategy(targets=targets), rng)
            series = PrometheeScheduler(strategy(preference="gaussian", targets=targets), rng)
            pairs = PrometheeScheduler(strategy(preference="gaussian", targets=targets), rng,
                                       flows_method="pairwise")
            lin_s, _ = median_seconds(linear, noi, args.repeats * 5)
            ser_s, ser_pick = median_seconds(series, noi, args.repeats * 5)
            record.add("gaussian", tasks=n, strategy=label, linear_s=lin_s, series_s=ser_s)
            line = (f"  {n:7d} queued tasks, {label:6s}: linear {lin_s * 1e3:7.3f} ms   "
                    f"gaussian series {ser_s * 1e3:7.3f} ms ({ser_s / lin_s:4.1f}x linear)")
            if n <= 2_000:
                pair_s, pair_pick = median_seconds(pairs, noi, max(5, args.repeats // 2))
                assert ser_pick == pair_pick
                line += f"   pairwise {pair_s * 1e3:8.2f} ms ({pair_s / ser_s:4.0f}x series)"
            print(line)
    record.write()


if __name__ == "__main__":
    main()
