"""The strong bot-sites makespan bound against the best known schedules (issue 32 targets).

Parts (``--only``; all by default), each printing per instance the best
known makespan, the bound, the gap ``(best known - bound) / best known``,
the bound's method and seconds, then medians, ``os.cpu_count()`` and the
load average:

* ``library``: the medium (hard limits, 4 sites x 6 BoTs) and large (10 x 10)
  files of ``instances/bot-sites``: the ``bound`` method (best heuristic
  schedule and strong bound) with ``--limit-medium`` / ``--limit-large``
  seconds; best known = the better of the file's recorded ``upper_bound`` and
  that schedule (targets: medium gap <= 5 %, 10 x 10 gap <= 2 %).
* ``braun``: the 12 Braun matrices; best known = ``best_known.csv`` (the
  literature's), and the bound with ``--limit-real`` seconds (target: proven
  gap <= 0.25 % against a schedule of ours; this part measures the bound's side).
* ``hard``: the ``--seeds`` generated hard-limit instances of
  ``bench_bot_sites_cpsat.py --only limits`` (3 sites, 4 BoTs of 3-6 tasks,
  tightness 0.3, seeds 0, 1, ...); the ``exact`` method (``--backend-hard``,
  CP-SAT by default: HiGHS's model only proves the static limit rule) with
  ``--limit-hard`` minus 15 seconds, then the strong bound with what is left,
  and whether the schedule is proven optimal by either (target >= 90 % in 60 s).
* ``gmo``: GMO's paper-size scenarios (generator defaults: 10 sites x 10 BoTs of
  10,000-20,000 tasks, 64-128 processors; HiHi, HiLo, LoHi, LoLo; consistent
  and not): makespan of GMO and G-Min-min and their gap to the strong bound
  (``--limit-large`` seconds).

Usage: ``python benchmarks/bench_bounds_bot_sites.py [--only library|braun|hard|gmo]
[--limit-medium 120] [--limit-large 300] [--limit-real 600] [--limit-hard 60]
[--seeds 20] [--first-seed 0] [--backend-hard cpsat] [--braun u_c_hihi.0,...]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import time
from pathlib import Path

from hybridsched import run_method
from hybridsched.bot_sites import files
from hybridsched.bot_sites.checker import check, completion_times
from hybridsched.bot_sites.generator import SCENARIOS, generate
from hybridsched.models.bot_sites.bound import strong_bound
from hybridsched.result import Status

ROOT = Path(__file__).resolve().parents[1] / "instances" / "bot-sites"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"cores {os.cpu_count()}, load average {one:.2f} {five:.2f} {fifteen:.2f}"


def _row(name: str, best: float, value: float, method: str, seconds: float) -> float:
    gap = (best - value) / best
    print(f"  {name}: best known {best:.6g}, bound {value:.6g}, gap {gap:.3%} "
          f"({method}; {seconds:.1f} s)", flush=True)
    return gap


def _summary(label: str, gaps: list[float], times: list[float]) -> None:
    if gaps:
        print(f"{label}: median gap {statistics.median(gaps):.3%}, max {max(gaps):.3%}, "
              f"median time {statistics.median(times):.1f} s; {_load()}", flush=True)


def bench_library(args: argparse.Namespace) -> None:
    for tier, limit in (("medium", args.limit_medium), ("large", args.limit_large)):
        gaps, times = [], []
        print(f"library {tier} (limit {limit} s):", flush=True)
        for path in sorted((ROOT / tier).glob("*.json")):
            inst = files.instance_from_dict(json.loads(path.read_text()), str(path))
            recorded = float(inst.reference["upper_bound"])
            started = time.perf_counter()
            result = run_method("bot-sites", "bound", inst, time_limit=limit)
            times.append(time.perf_counter() - started)
            assert result.solution is not None and not check(inst, result.solution)
            best = min(recorded, result.objective)
            print(f"  {path.name}: recorded best {recorded:.6g}, bound method's schedule "
                  f"{result.objective:.6g} ({result.solution.notes.get('method', '?')})")
            gaps.append(_row(path.name, best, result.bound, result.metrics["bound_method"],
                             times[-1]))
        _summary(f"library {tier}", gaps, times)


def bench_braun(args: argparse.Namespace) -> None:
    from hybridsched.io.etc import read_etc
    from hybridsched.io.shared_data import BRAUN_FOLDER, shared_data_path

    folder = shared_data_path(BRAUN_FOLDER)
    if folder is None:
        print("braun: data absent ($HYBRIDSCHED_DATA/braun-etc-512x16), skipped")
        return
    wanted = set(args.braun.split(",")) if args.braun else None
    gaps, times = [], []
    print(f"braun (limit {args.limit_real} s):", flush=True)
    with open(folder / "best_known.csv") as handle:
        for row in csv.DictReader(handle):
            if wanted and row["instance"] not in wanted:
                continue
            inst = read_etc(folder / row["instance"])
            best = float(row["best_known_makespan"])
            started = time.perf_counter()
            cert = strong_bound(inst, time_limit=args.limit_real, upper=best)
            times.append(time.perf_counter() - started)
            gaps.append(_row(row["instance"], best, cert.value, cert.method, times[-1]))
    _summary("braun", gaps, times)


def bench_hard(args: argparse.Namespace) -> None:
    proven, times = 0, []
    share = min(BOUND_SHARE, args.limit_hard / 2)
    print(f"hard limits ({args.seeds} seeds, exact {args.backend_hard} "
          f"{args.limit_hard - share:g} s, then "
          f"the strong bound on what is left of {args.limit_hard:g} s):", flush=True)
    gaps = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        inst = hard_limit_instance(seed)
        started = time.perf_counter()
        result = run_method("bot-sites", "exact", inst, time_limit=args.limit_hard - share,
                            backend=args.backend_hard)
        assert result.solution is not None and not check(inst, result.solution)
        bound = result.bound or 0.0
        how = "exact"
        if result.status is not Status.OPTIMAL:
            left = max(args.limit_hard - (time.perf_counter() - started), 0.0)
            cert = strong_bound(inst, time_limit=left, upper=result.objective)
            if cert.value > bound:
                bound, how = cert.value, cert.method
        seconds = time.perf_counter() - started
        times.append(seconds)
        ok = result.objective <= bound * (1 + 1e-9)
        proven += ok
        gaps.append(_row(f"seed {seed}", result.objective, bound,
                         f"{'proven' if ok else 'open'} by {how}", seconds))
    print(f"hard limits: {proven}/{args.seeds} proven within {args.limit_hard} s", flush=True)
    _summary("hard limits", gaps, times)


#: Seconds of each hard-limit instance's budget kept for the strong bound.
BOUND_SHARE = 15.0


def hard_limit_instance(seed: int):
    """The hard-limit instances of ``bench_bot_sites_cpsat.py --only limits`` (same seeds)."""
    return generate(sites=3, bots=4, tasks_per_bot=(3, 6), procs_per_site=(1, 3),
                    communication=True, storage=True, hard_limits=True, tightness=0.3,
                    seed=seed)


def bench_gmo(args: argparse.Namespace) -> None:
    print(f"GMO paper-size scenarios (bound limit {args.limit_large} s):", flush=True)
    table: dict[str, list[float]] = {"gmo": [], "g-min-min": []}
    for scenario in SCENARIOS:
        for consistent in (False, True):
            inst = generate(scenario=scenario, consistent=consistent, seed=0)
            spans = {}
            for method in table:
                started = time.perf_counter()
                sol = run_method("bot-sites", method, inst, time_limit=args.limit_large)
                spans[method] = float(completion_times(inst, sol.solution).max())
                spans[method + " s"] = time.perf_counter() - started
            started = time.perf_counter()
            cert = strong_bound(inst, time_limit=args.limit_large, upper=min(
                spans["gmo"], spans["g-min-min"]))
            seconds = time.perf_counter() - started
            kind = "consistent" if consistent else "inconsistent"
            text = []
            for method in table:
                gap = (spans[method] - cert.value) / spans[method]
                table[method].append(gap)
                text.append(f"{method} {spans[method]:.6g} (gap {gap:.2%}, "
                            f"{spans[method + ' s']:.1f} s)")
            print(f"  {scenario} {kind}: bound {cert.value:.6g} ({cert.method}; {seconds:.1f} s); "
                  + "; ".join(text), flush=True)
    for method, gaps in table.items():
        print(f"gmo scenarios: {method} median gap to the bound {statistics.median(gaps):.2%}; "
              f"{_load()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("library", "braun", "hard", "gmo"))
    parser.add_argument("--limit-medium", type=float, default=120.0)
    parser.add_argument("--limit-large", type=float, default=300.0)
    parser.add_argument("--limit-real", type=float, default=600.0)
    parser.add_argument("--limit-hard", type=float, default=60.0)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--backend-hard", choices=("highs", "cpsat"), default="cpsat")
    parser.add_argument("--braun", default="", help="comma-separated Braun names (all)")
    args = parser.parse_args()
    parts = {"library": bench_library, "braun": bench_braun, "hard": bench_hard,
             "gmo": bench_gmo}
    for name, part in parts.items():
        if args.only in (None, name):
            part(args)


if __name__ == "__main__":
    main()
