"""Gang family: online policies on 10,000 jobs, and the offline model's reach.

Run ``python benchmarks/bench_gang.py [--repeats 5] [--online-only]``.

1. Each method on 10,000 jobs on 120 VMs (Table 1 at 10 jobs per time unit,
   and Table 2 at 40): median wall time in process (``run_method``, the
   checker included) and events per second. Target (issue 21): < 0.5 s per
   method on 2 cores.
2. The yardstick (issue 21): strict FIFO on a plain heap of events, no SimPy
   (``gang_heap_fifo.py``), checked to give the identical schedule, against
   the ``fifo`` simulation alone and through ``run_method``; target: the
   simulation within 1.5x of the yardstick.
3. The offline model (``exact``) on the Table 2 scenario at 3 jobs per time
   unit: 10 jobs on 8 VMs (seeds 0-4: median time and statuses; target:
   proven < 10 s), then seed 0 with growing sizes (jobs, VMs) until one is not
   proven within 60 s.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import machine_line, median_time
from gang_heap_fifo import heap_fifo, same_schedule

from hybridsched import run_method
from hybridsched.gang.generator import generate
from hybridsched.heuristics.gang.baselines import fifo
from hybridsched.heuristics.gang.simulation import simulate
from hybridsched.result import Status

METHODS = ("cplmt", "fifo", "fair", "asjs", "cmms")
SIZES = ((10, 8), (15, 8), (20, 8), (25, 10), (30, 10), (40, 12), (50, 12))


def bench_online(repeats: int) -> None:
    for scenario, rate in (("table1", 10.0), ("table2", 40.0)):
        instance = generate(10000, rate, scenario, 0)
        print(f"10,000 jobs, 120 VMs, {scenario} at {rate:g} jobs per time unit")
        for method in METHODS:
            times, rates = [], []
            for _ in range(repeats):
                start = time.perf_counter()
                result = run_method("gang", method, instance)
                times.append(time.perf_counter() - start)
                rates.append(result.metrics["events"] / times[-1])
            print(f"  {method:6s} median {statistics.median(times):5.2f} s  "
                  f"{statistics.median(rates):8.0f} events/s  UFJ {result.objective:g}")


def bench_yardstick(repeats: int) -> None:
    print(f"yardstick: strict FIFO on a heap, medians of {repeats}")
    for scenario, rate in (("table1", 10.0), ("table2", 40.0)):
        instance = generate(10000, rate, scenario, 0)
        if not same_schedule(heap_fifo(instance), simulate(instance, fifo)[0]):
            raise SystemExit(f"{scenario}: the yardstick's schedule differs from fifo's")
        heap = median_time(lambda instance=instance: heap_fifo(instance), repeats)[0]
        alone = median_time(lambda instance=instance: simulate(instance, fifo), repeats)[0]
        checked = median_time(lambda instance=instance: run_method("gang", "fifo", instance),
                              repeats)[0]
        print(f"  {scenario}: heap {heap:5.3f} s, fifo simulated {alone:5.3f} s "
              f"({alone / heap:.2f}x), through run_method {checked:5.3f} s "
              f"({checked / heap:.2f}x)")


def bench_exact() -> None:
    print("offline model, table2 at 3 jobs per time unit")
    times, statuses = [], []
    for seed in range(5):
        instance = generate(10, 3.0, "table2", seed, vms=8)
        start = time.perf_counter()
        result = run_method("gang", "exact", instance, time_limit=60)
        times.append(time.perf_counter() - start)
        statuses.append(result.status.value)
    print(f"  10 jobs, 8 VMs, seeds 0-4: median {statistics.median(times):.2f} s "
          f"(max {max(times):.2f} s); {statuses}")
    largest = None
    for jobs, vms in SIZES:
        instance = generate(jobs, 3.0, "table2", 0, vms=vms)
        start = time.perf_counter()
        result = run_method("gang", "exact", instance, time_limit=60)
        seconds = time.perf_counter() - start
        print(f"  {jobs} jobs, {vms} VMs: {seconds:6.2f} s  {result.status.value}  "
              f"UFJ {result.objective:g} (bound {result.bound:g})", flush=True)
        if result.status is not Status.OPTIMAL:
            break
        largest = (jobs, vms)
    print(f"  largest proven within 60 s: {largest}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--online-only", action="store_true",
                        help="skip the offline model (minutes)")
    args = parser.parse_args()
    print(machine_line())
    bench_online(args.repeats)
    bench_yardstick(args.repeats)
    if not args.online_only:
        bench_exact()


if __name__ == "__main__":
    main()
