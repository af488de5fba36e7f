"""The hybrid-deadline ``exact`` method at 5,000-200,000 tasks: stage times and the time limit.

Issue 32: at scale the exact method did not stop (20,000 tasks killed at 24 GB,
200,000 tasks 78.6 s at a 10 s limit, 5,000 tasks under a 4 GB cap ended in
``MemoryError``). Prints, on generated instances (mixed alpha):

1. per size, the median time of each stage of the method: reading the file,
   the cheap bound, CDF+RA, FFD's estimate (and FFD itself with ``--ffd``:
   46 s at 200,000 tasks), the local search capped at 1 s, counting both
   models (:mod:`hybridsched.models.hybrid_deadline.sizing`), and the whole
   ``exact`` call in this process, with its status and one-line message;
2. with ``--cli``, ``hybridsched solve X --method exact --time-limit T`` in a
   subprocess under an address-space cap (``--cap-gb``, default 4): exit code,
   wall time, the method's own ``runtime_s`` and the overhead between them
   (start-up, reading, checking and writing);
3. with ``--calibrate``, the measurements behind the sizing constants:
   estimated and built pairs and rows, RSS growth and seconds per pair of a
   build, per backend, on 150-600 tasks (one subprocess per build).

Usage: ``python benchmarks/bench_exact_scale.py [--sizes 5000,20000,200000]
[--time-limit 10] [--backends highs,cpsat] [--repeats 3] [--seed 1] [--ffd] [--cli]
[--cap-gb 4] [--calibrate]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine_line, median_time

from hybridsched.heuristics.hybrid_deadline.ffd import estimated_seconds, ffd
from hybridsched.heuristics.hybrid_deadline.lns import improve
from hybridsched.hybrid_deadline import files
from hybridsched.hybrid_deadline.adapters import cdf_ra, exact
from hybridsched.hybrid_deadline.bounds import lower_bound
from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.models.hybrid_deadline.sizing import cpsat_size, milp_size

CLI = [sys.executable, "-m", "hybridsched"]


def load_line() -> str:
    """Cores and load average now (the figures depend on what else runs)."""
    one, five, fifteen = os.getloadavg()
    return f"cores {os.cpu_count()}, load average {one:.2f} {five:.2f} {fifteen:.2f}"


def write_instance(n: int, seed: int, folder: Path) -> Path:
    path = folder / f"hd-{n}-s{seed}.json"
    if not path.exists():
        subprocess.run(CLI + ["generate", "hybrid-deadline", "--tasks", str(n), "--seed",
                              str(seed), "-o", str(path)], check=True, capture_output=True)
    return path


def stages(path: Path, args: argparse.Namespace) -> None:
    """Part 1: each stage's median time, and the whole method in this process."""
    def read():
        with open(path, encoding="utf-8") as handle:
            return files.instance_from_dict(json.load(handle))

    t_read, instance = median_time(read, args.repeats)
    t_bound, lower = median_time(lambda: lower_bound(instance), args.repeats)
    t_cdf, start = median_time(lambda: cdf_ra(instance), args.repeats)
    cores = (sum(pm.cores for pm in instance.pms)
             + sum(instance.vm_types[t].cores for t in start.vm_types))
    t_improve, improved = median_time(
        lambda: improve(instance, start, seed=0, target=lower, max_seconds=1.0), args.repeats)
    cost = rent_cost(instance, improved)
    t_size, sizes = median_time(lambda: (milp_size(instance, cost), cpsat_size(instance, cost)),
                                args.repeats)
    print(f"{instance.n_tasks} tasks: read {t_read:.2f} s, cheap bound {t_bound:.3f} s "
          f"({lower:.2f}), CDF+RA {t_cdf:.2f} s (${rent_cost(instance, start):.2f}, "
          f"{cores} cores), FFD estimated {estimated_seconds(instance.n_tasks, cores):.1f} s, "
          f"local search (1 s cap) {t_improve:.2f} s (${cost:.2f}), counting both models "
          f"{t_size:.3f} s")
    for size in sizes:
        print(f"  {size.what}: {size.pairs:,} pairs, {size.rows:,} rows, {size.nonzeros:,} "
              f"terms, about {size.bytes / 2**30:.1f} GiB and {size.seconds:.0f} s to build")
    if args.ffd:
        t_ffd, _ = median_time(lambda: ffd(instance), 1)
        print(f"  FFD itself: {t_ffd:.1f} s")
    for backend in args.backends:
        runs = []
        for _ in range(args.repeats):
            began = time.perf_counter()
            result = exact(instance, time_limit=args.time_limit, backend=backend)
            runs.append(time.perf_counter() - began)
        print(f"  exact --backend {backend} --time-limit {args.time_limit:g}: median "
              f"{statistics.median(runs):.2f} s (max {max(runs):.2f}), {result.status.value}, "
              f"cost {rent_cost(instance, result.solution):.2f}, bound {result.bound:.2f}: "
              f"{result.message}")


def _cap(gib: float):
    cap = int(gib * 2**30)

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    return apply


def command_line(path: Path, n: int, args: argparse.Namespace, folder: Path) -> None:
    """Part 2: the command line under an address-space cap."""
    for backend in args.backends:
        walls, runtimes, codes, message = [], [], [], ""
        for _ in range(args.repeats):
            out = folder / f"out-{n}-{backend}.json"
            began = time.perf_counter()
            run = subprocess.run(CLI + ["solve", str(path), "--method", "exact", "--backend",
                                        backend, "--time-limit", str(args.time_limit), "--json",
                                        "-o", str(out)],
                                 capture_output=True, text=True, preexec_fn=_cap(args.cap_gb))
            walls.append(time.perf_counter() - began)
            codes.append(run.returncode)
            if run.returncode == 0:
                document = json.loads(run.stdout)
                runtimes.append(document["runtime_s"])
                message = document["message"]
            else:
                message = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "?"
        wall = statistics.median(walls)
        runtime = statistics.median(runtimes) if runtimes else float("nan")
        print(f"  CLI {n} tasks --backend {backend} --time-limit {args.time_limit:g} under "
              f"ulimit -v {args.cap_gb:g} GiB: exit {sorted(set(codes))}, wall {wall:.2f} s, "
              f"runtime_s {runtime:.2f} s, overhead {wall - runtime:.2f} s; {message}")


CALIBRATE = """
import gc, json, sys, time
from hybridsched.hybrid_deadline.generator import generate
from hybridsched.hybrid_deadline.adapters import best_heuristic_solution
from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.models.hybrid_deadline import sizing
def rss():
    with open('/proc/self/status') as status:
        return next(int(l.split()[1]) * 1024 for l in status if l.startswith('VmRSS'))
backend, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
instance = generate(n, seed=seed)
start = best_heuristic_solution(instance)
cost = rent_cost(instance, start)
if backend == 'highs':
    from hybridsched.models.hybrid_deadline import milp as model
    size = sizing.milp_size(instance, cost)
else:
    from hybridsched.models.hybrid_deadline import cpsat as model
    size = sizing.cpsat_size(instance, cost)
gc.collect(); before = rss(); began = time.perf_counter()
built = model.build(instance, start) if backend == 'highs' else model.build(instance, start,
                                                                             strict=True)
seconds = time.perf_counter() - began
pairs = len(built.pairs) if backend == 'highs' else len(built.x)
print(json.dumps({"pairs": pairs, "estimated_pairs": size.pairs, "bytes": rss() - before,
                  "estimated_bytes": size.bytes, "seconds": seconds,
                  "estimated_seconds": size.seconds}))
"""


def calibrate(args: argparse.Namespace) -> None:
    """Part 3: the builds behind the sizing constants (build only; a whole run peaks ~3x)."""
    for backend in args.backends:
        for n in (150, 300, 600):
            run = subprocess.run([sys.executable, "-c", CALIBRATE, backend, str(n),
                                  str(args.seed)], capture_output=True, text=True)
            if run.returncode != 0:
                print(f"  {backend} {n} tasks: failed: {run.stderr.strip()[-200:]}")
                continue
            m = json.loads(run.stdout.strip().splitlines()[-1])
            print(f"  {backend} {n} tasks: {m['pairs']:,} pairs (estimated "
                  f"{m['estimated_pairs']:,}); build {m['bytes'] / 1e6:.0f} MB = "
                  f"{m['bytes'] / m['pairs']:.0f} B/pair, {m['seconds']:.2f} s = "
                  f"{m['seconds'] / m['pairs'] * 1e6:.0f} us/pair; estimated peak "
                  f"{m['estimated_bytes'] / 1e6:.0f} MB, build and hand-over "
                  f"{m['estimated_seconds']:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5000,20000,200000")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--backends", default="highs,cpsat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ffd", action="store_true", help="also time FFD itself (slow)")
    parser.add_argument("--cli", action="store_true", help="also run the command line")
    parser.add_argument("--cap-gb", type=float, default=4.0)
    parser.add_argument("--calibrate", action="store_true")
    args = parser.parse_args()
    args.backends = [b for b in args.backends.split(",") if b]
    print(machine_line())
    print(load_line())
    if args.calibrate:
        calibrate(args)
        print(load_line())
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in [int(s) for s in args.sizes.split(",")]:
            path = write_instance(n, args.seed, folder)
            stages(path, args)
            if args.cli:
                command_line(path, n, args, folder)
            print(f"  ({load_line()})")


if __name__ == "__main__":
    main()
