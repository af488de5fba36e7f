"""Speed benchmarks of the hybrid-deadline family (issue 2 targets).

Prints, on this machine:

1. ``cdf+ra`` on the whole NASA iPSC trace (one record = one task) for
   alpha = 1..4 (target < 10 s each), with FFD's cost beside it;
2. the empirical scaling exponent of ``cdf`` and ``cdf+ra`` between 2,000
   and 16,000 tasks (issue 21 target <= 1.15), from wall-time medians (and,
   beside them, process CPU time, less sensitive to other work on the machine);
3. ``exact`` proving optima of 30-, 60- and 100-task generated instances
   (mixed alpha, seeds 0..6): every run with its branch-and-bound nodes (all
   HiGHS runs of the method) and root gap, then the median and maximum run
   time (with the median process CPU time, steadier on a loaded machine) and
   how many were proven (an unproven run counts at its time limit).
   The root gap is deterministic, unlike times on a shared machine: the bound
   after HiGHS's root node (cuts included) on the model warm-started from the
   best heuristic schedule, against the run's best cost;
4. ``exact`` on every bundled instance (target: each proven in < 10 s).

Usage: ``python benchmarks/bench_hybrid_deadline.py [--part 1,2,3,4] [--repeats 7]
[--seeds 7] [--time-limit 120] [--sizes 30,60,100] [--backend highs|cpsat] [--threads 1]
[--output FILE.json]`` (``--sizes``: part 3's task counts; ``--backend``/``--threads``: parts
3 and 4's exact backend, issue 22; CP-SAT runs have no root bound and count CP-SAT branches
as nodes; ``--output``: the figures as JSON, one section per part, with the machine's cores
and load, for ``scripts/publish_numbers.py``)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
from _common import Recorder, machine_line, median_time

from hybridsched import run_method
from hybridsched.heuristics.hybrid_deadline.cdf import cdf
from hybridsched.heuristics.hybrid_deadline.ffd import ffd
from hybridsched.heuristics.hybrid_deadline.reassign import reassign
from hybridsched.hybrid_deadline.checker import check, rent_cost
from hybridsched.hybrid_deadline.generator import generate
from hybridsched.hybrid_deadline.trace import instance_from_trace
from hybridsched.io.shared_data import NASA_TRACE, shared_data_path
from hybridsched.io.swf import read_swf


def nasa_trace():
    path = shared_data_path(NASA_TRACE)
    if path is None:
        print(f"skipped: {NASA_TRACE} not found (set HYBRIDSCHED_DATA or put ../shared/data)")
        return None
    return read_swf(path)


def part_trace(repeats: int, record: Recorder) -> None:
    trace = nasa_trace()
    if trace is None:
        return
    print("1. cdf+ra on the whole NASA iPSC trace (one record = one task)")
    for alpha in (1, 2, 3, 4):
        instance = instance_from_trace(trace, alpha=alpha).instance
        seconds, solution = median_time(lambda inst=instance: reassign(inst, cdf(inst)),
                                        repeats)
        assert not check(instance, solution)
        ffd_cost = rent_cost(instance, ffd(instance))
        cost = rent_cost(instance, solution)
        print(f"   alpha={alpha}: {instance.n_tasks} tasks, cdf+ra {seconds:.2f} s (median of "
              f"{repeats}), cost ${cost:.2f}, {len(solution.vm_types)} VMs; ffd cost "
              f"${ffd_cost:.2f}; cdf+ra saves {100 * (1 - cost / ffd_cost):.1f}%")
        record.add("trace", alpha=alpha, tasks=instance.n_tasks, repeats=repeats,
                   cdf_ra_s=seconds, cdf_ra_cost=cost, vms=len(solution.vm_types),
                   ffd_cost=ffd_cost)


def part_scaling(repeats: int, record: Recorder) -> None:
    trace = nasa_trace()
    if trace is None:
        return
    sizes = [2000, 4000, 8000, 16000]
    methods = {"cdf": cdf, "cdf+ra": lambda inst: reassign(inst, cdf(inst))}
    print(f"2. scaling of cdf and cdf+ra (first N records of the NASA trace, alpha=1), "
          f"medians of {repeats}, {os.cpu_count()} cores")
    instances = [instance_from_trace(trace, alpha=1, limit=n).instance for n in sizes]
    # Repeats go round the sizes (not all repeats of one size, then the next), so a
    # burst of load on this shared machine falls on every size alike, not on one.
    wall = {(m, n): [] for m in methods for n in sizes}
    cpu = {(m, n): [] for m in methods for n in sizes}
    for _ in range(repeats):
        for name, method in methods.items():
            for n, instance in zip(sizes, instances, strict=True):
                start_wall, start_cpu = time.perf_counter(), time.process_time()
                method(instance)
                wall[name, n].append(time.perf_counter() - start_wall)
                cpu[name, n].append(time.process_time() - start_cpu)
    for name in methods:
        walls = [statistics.median(wall[name, n]) for n in sizes]
        cpus = [statistics.median(cpu[name, n]) for n in sizes]
        for n, w, c in zip(sizes, walls, cpus, strict=True):
            print(f"   {name} N={n}: {w:.3f} s wall, {c:.3f} s cpu")
            record.add("scaling", method=name, tasks=n, repeats=repeats, wall_s=w, cpu_s=c)
        slope = np.polyfit(np.log(sizes), np.log(walls), 1)[0]
        cpu_slope = np.polyfit(np.log(sizes), np.log(cpus), 1)[0]
        print(f"   {name}: empirical exponent (log-log fit, 2,000 to 16,000 tasks): "
              f"{slope:.2f} wall, {cpu_slope:.2f} cpu (target <= 1.15)")
        record.add("exponents", method=name, wall=float(slope), cpu=float(cpu_slope),
                   target=1.15)


def root_bound(instance) -> float | None:
    """HiGHS's bound after the root node, warm-started from the best heuristic schedule."""
    from hybridsched.hybrid_deadline.adapters import best_heuristic_solution
    from hybridsched.models.hybrid_deadline import milp
    from hybridsched.models.solvers.highs import solve_with_highs

    built = milp.build(instance, best_heuristic_solution(instance))
    outcome = solve_with_highs(built.model, warm_start=built.warm_start_loaded,
                               mip_rel_gap=1e-9, verify=False,
                               options={"mip_abs_gap": 1e-9, "mip_max_nodes": 1})
    return outcome.bound


def part_exact(seeds: int, time_limit: float, sizes: tuple[int, ...] = (30, 60, 100),
               options: dict | None = None, record: Recorder | None = None) -> None:
    from hybridsched.progress import solver_statistics

    options = options or {}
    cpsat = options.get("backend") == "cpsat"
    label = f"CP-SAT, {options.get('threads', 1)} thread(s)" if cpsat else "HiGHS"
    print(f"3. exact ({label}), generated instances, mixed alpha, seeds 0..{seeds - 1}, "
          f"time limit {time_limit:.0f} s, load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    for n_tasks in sizes:
        runtimes, statuses, cpus = [], [], []
        for seed in range(seeds):
            instance = generate(n_tasks, "mixed", seed)
            started_cpu = time.process_time()
            with solver_statistics() as stats:
                result = run_method("hybrid-deadline", "exact", instance, time_limit=time_limit,
                                    **options)
            # CPU time of this process (all its threads): on a loaded machine it tracks the
            # work done better than wall time, which the time limit cuts.
            cpus.append(time.process_time() - started_cpu)
            runtimes.append(result.runtime_s)
            statuses.append(result.status.value)
            root = None if cpsat else root_bound(instance)
            gap = ("n/a" if root is None or not result.objective else
                   f"{100 * max(0.0, result.objective - root) / result.objective:.1f}%")
            print(f"   {n_tasks} tasks seed {seed}: {result.status.value} "
                  f"${result.objective:.3f} (bound ${result.bound:.3f}) in "
                  f"{result.runtime_s:.2f} s ({cpus[-1]:.2f} s cpu), "
                  f"{stats.get('mip_nodes', 0):.0f} nodes in "
                  f"{stats.get('solves', 0):.0f} solver runs, root bound "
                  f"{'n/a' if root is None else f'${root:.4f}'} (gap {gap}), load "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
        proven = statuses.count("optimal")
        print(f"   {n_tasks} tasks: median {statistics.median(runtimes):.2f} s "
              f"({statistics.median(cpus):.2f} s cpu), max {max(runtimes):.2f} s, "
              f"{proven}/{seeds} proven", flush=True)
        if record is not None:
            record.add("exact", tasks=n_tasks, seeds=seeds, time_limit_s=time_limit,
                       median_s=statistics.median(runtimes), max_s=max(runtimes),
                       median_cpu_s=statistics.median(cpus), proven=proven)


def part_bundle(time_limit: float, options: dict | None = None,
                record: Recorder | None = None) -> None:
    from pathlib import Path

    from hybridsched import load_instance

    folder = Path(__file__).resolve().parents[1] / "instances" / "hybrid-deadline"
    options = options or {}
    print(f"4. exact ({options.get('backend', 'highs')}) on the bundled instances, time limit "
          f"{time_limit:.0f} s (target < 10 s each), {os.cpu_count()} cores")
    runtimes, proven = [], 0
    for path in sorted(folder.glob("*.json")):
        _, instance = load_instance(path)
        result = run_method("hybrid-deadline", "exact", instance, time_limit=time_limit,
                            **options)
        runtimes.append(result.runtime_s)
        recorded = instance.reference["optimal_cost"]
        proven += result.status.value == "optimal"
        print(f"   {path.stem}: {result.status.value} ${result.objective:.3f} (recorded "
              f"${recorded:.3f}) in {result.runtime_s:.2f} s", flush=True)
        if record is not None:
            record.add("bundle", instance=path.stem, status=result.status.value,
                       cost=result.objective, recorded=recorded, runtime_s=result.runtime_s,
                       time_limit_s=time_limit)
    print(f"   bundle: median {statistics.median(runtimes):.2f} s, max {max(runtimes):.2f} s, "
          f"{proven}/{len(runtimes)} proven")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", default="1,2,3,4")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seeds", type=int, default=7)
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--sizes", default="30,60,100", help="part 3's task counts")
    parser.add_argument("--backend", choices=("highs", "cpsat"), default="highs",
                        help="exact backend of parts 3 and 4")
    parser.add_argument("--threads", type=int, default=1, help="CP-SAT search workers")
    parser.add_argument("--output", default=None, help="also write the figures to this JSON")
    args = parser.parse_args()
    record = Recorder(args.output, parts=args.part, backend=args.backend)
    options = {"backend": args.backend}
    if args.backend == "cpsat":
        options["threads"] = args.threads
    print(machine_line())
    parts = {p.strip() for p in args.part.split(",")}
    if "1" in parts:
        part_trace(args.repeats, record)
    if "2" in parts:
        part_scaling(args.repeats, record)
    if "3" in parts:
        part_exact(args.seeds, args.time_limit,
                   tuple(int(n) for n in args.sizes.split(",")), options, record)
    if "4" in parts:
        part_bundle(args.time_limit, options, record)
    record.write()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
