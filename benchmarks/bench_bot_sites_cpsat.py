"""The bot-sites exact method's two backends, HiGHS and CP-SAT (issue 22 targets).

Parts (``--only``; all by default), printing medians and ``os.cpu_count()``:

* ``braun``: ``exact --backend B`` on Braun's ``u_c_hihi.0`` (512 x 16) with
  ``--limit`` seconds (target: CP-SAT at or below the best known 7,358,942.8
  with a proven gap <= 0.05 % within 120 s, ``--threads 2`` allowed); each run
  prints objective, bound, gap and the gap to the best known.
* ``limits``: hard-limit generated instances of the kind the tests use
  (3 sites, 4 BoTs of 3-6 tasks, 1-3 processors per site, communication and
  storage, tightness 0.3), ``--seeds`` of them, both backends with
  ``--limit-hard`` seconds each: the fraction proven optimal (target >= 90 %
  by one backend in 60 s) and the median time.
* ``tiny``: ``--tiny`` seeds of :func:`~hybridsched.bot_sites.generator.tiny_instance`
  through both backends: median time per instance, statuses, disagreements.

Usage: ``python benchmarks/bench_bot_sites_cpsat.py [--only braun|limits|tiny]
[--backend highs|cpsat] [--threads 2] [--limit 120] [--runs 1] [--seeds 20]
[--limit-hard 60] [--backends highs,cpsat] [--verbose] [--tiny 100]``.
``--backend`` applies to the braun part, ``--backends`` to the limits part
(the tiny part runs both). The load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from hybridsched import run_method
from hybridsched.bot_sites.generator import generate, tiny_instance
from hybridsched.io.etc import read_etc
from hybridsched.io.shared_data import BRAUN_FOLDER, shared_data_path
from hybridsched.result import Status


def _options(backend: str, threads: int) -> dict:
    return {"backend": backend} | ({"threads": threads} if backend == "cpsat" else {})


def bench_braun(args: argparse.Namespace) -> None:
    folder = shared_data_path(BRAUN_FOLDER)
    if folder is None or not (folder / "u_c_hihi.0").is_file():
        print("braun: data absent ($HYBRIDSCHED_DATA/braun-etc-512x16), skipped")
        return
    inst = read_etc(folder / "u_c_hihi.0")
    best = inst.reference["best_known_makespan"]
    times, gaps = [], []
    for run in range(args.runs):
        started = time.perf_counter()
        result = run_method("bot-sites", "exact", inst, time_limit=args.limit, seed=run,
                            **_options(args.backend, args.threads))
        seconds = time.perf_counter() - started
        gap = result.objective / result.bound - 1
        times.append(seconds)
        gaps.append(gap)
        print(f"braun u_c_hihi.0 {args.backend} threads {args.threads} limit {args.limit} s "
              f"run {run}: {result.status.value}, makespan {result.objective:.1f} "
              f"({result.objective / best - 1:+.4%} vs best known {best}), bound "
              f"{result.bound:.1f} (gap {gap:.4%}, target <= 0.05 %), {seconds:.1f} s")
    print(f"braun median: {statistics.median(times):.1f} s, gap {statistics.median(gaps):.4%}")


def hard_limit_instance(seed: int):
    return generate(sites=3, bots=4, tasks_per_bot=(3, 6), procs_per_site=(1, 3),
                    communication=True, storage=True, hard_limits=True, tightness=0.3,
                    seed=seed)


def bench_limits(args: argparse.Namespace) -> None:
    for backend in args.backends.split(","):
        proven, times = 0, []
        for seed in range(args.seeds):
            inst = hard_limit_instance(seed)
            started = time.perf_counter()
            result = run_method("bot-sites", "exact", inst, time_limit=args.limit_hard,
                                **_options(backend, args.threads))
            times.append(time.perf_counter() - started)
            proven += result.status is Status.OPTIMAL
            if args.verbose:
                print(f"  seed {seed} {backend}: {result.status.value}, makespan "
                      f"{result.objective:.6f}, bound {result.bound:.6f}, {times[-1]:.2f} s, "
                      f"load {os.getloadavg()[0]:.2f}", flush=True)
        print(f"hard limits, {args.seeds} instances, {backend}: {proven}/{args.seeds} proven "
              f"optimal within {args.limit_hard} s ({proven / args.seeds:.0%}, target >= 90 %)"
              f" | median {statistics.median(times):.2f} s, max {max(times):.2f} s")


def bench_tiny(args: argparse.Namespace) -> None:
    times: dict[str, list[float]] = {"highs": [], "cpsat": []}
    statuses: dict[tuple[str, str], int] = {}
    disagree = 0
    for seed in range(args.tiny):
        inst = tiny_instance(seed)
        found = {}
        for backend in times:
            started = time.perf_counter()
            found[backend] = run_method("bot-sites", "exact", inst, backend=backend)
            times[backend].append(time.perf_counter() - started)
            key = (backend, found[backend].status.value)
            statuses[key] = statuses.get(key, 0) + 1
        h, c = found["highs"], found["cpsat"]
        if h.status is Status.OPTIMAL and c.status is Status.OPTIMAL \
                and abs(h.objective - c.objective) > 1e-6 * max(1.0, abs(c.objective)):
            disagree += 1
    for backend, values in times.items():
        print(f"tiny x {args.tiny}, {backend}: median {statistics.median(values) * 1e3:.1f} ms,"
              f" max {max(values):.2f} s")
    print(f"tiny statuses {dict(sorted(statuses.items()))}, optimal disagreements {disagree}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("braun", "limits", "tiny"))
    parser.add_argument("--backend", choices=("highs", "cpsat"), default="cpsat")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--limit", type=float, default=120.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--limit-hard", type=float, default=60.0)
    parser.add_argument("--tiny", type=int, default=100)
    parser.add_argument("--backends", default="highs,cpsat",
                        help="limits part: backends to run, comma-separated")
    parser.add_argument("--verbose", action="store_true", help="limits part: one line per seed")
    args = parser.parse_args()
    print(f"os.cpu_count() = {os.cpu_count()}, load average {os.getloadavg()}")
    parts = {"braun": bench_braun, "limits": bench_limits, "tiny": bench_tiny}
    for name, part in parts.items():
        if args.only in (None, name):
            part(args)


if __name__ == "__main__":
    main()
