"""The strong gang bound against the best known schedules (issue 32 targets).

Parts (``--only``; all by default), each printing per instance the best
known unfinished jobs (UFJ) and where it comes from, the bound, the gap
``(best known - bound) / best known``, the bound's method and seconds, then
medians, ``os.cpu_count()`` and the load average. Every bound printed is
re-checked by ``verify_bound`` (exact arithmetic) first, and every schedule
by the checker.

* ``library``: the medium and large files of ``instances/gang``: best known =
  the best of the five heuristics, the grid-start MIP (as the ``grid`` method
  runs it: ``--limit-large`` seconds in all, a quarter first for the bound)
  and the file's recorded optimum or upper bound (target at 200 jobs: gap <= 5 %).
* ``paper``: the paper's Table 1 and Table 2 workloads (``--paper-jobs``,
  default 1,000 and 10,000, seed 0): the bound within ``--limit-real`` seconds
  and the gap of every heuristic (cplmt, fifo, fair, asjs, cmms) to it.

Usage: ``python benchmarks/bench_bounds_gang.py [--only library|paper]
[--tiers medium,large] [--limit-large 300] [--limit-real 600] [--paper-jobs 1000,10000]
[--no-grid]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hybridsched import load_instance  # noqa: E402
from hybridsched.budget import TimeBudget  # noqa: E402
from hybridsched.gang.adapters import BOUND_SHARE, HEURISTICS  # noqa: E402
from hybridsched.gang.bound_check import verify_bound  # noqa: E402
from hybridsched.gang.bounds import lower_bound  # noqa: E402
from hybridsched.gang.checker import check, rank  # noqa: E402
from hybridsched.gang.generator import generate  # noqa: E402
from hybridsched.heuristics.gang.simulation import simulate  # noqa: E402
from hybridsched.models.gang import grid_schedule  # noqa: E402
from hybridsched.models.gang.bound import strong_bound  # noqa: E402


def gap(best: float, bound: float) -> float:
    """``(best - bound) / best`` (0 when both are 0)."""
    return 0.0 if best == bound else (best - bound) / abs(best) if best else float("inf")


def heuristics(instance) -> dict[str, float]:
    """UFJ of each online policy (default readings), each schedule checked."""
    values = {}
    for name, (factory, *_) in HEURISTICS.items():
        solution = simulate(instance, factory())[0]
        assert not check(instance, solution), name
        values[name] = rank(instance, solution)[0]
    return values


def library(limit: float, use_grid: bool, tiers: list[str]) -> list[float]:
    gaps = []
    folder = ROOT / "instances" / "gang"
    for path in sorted(p for tier in tiers for p in folder.glob(f"{tier}/*.json")):
        family, instance = load_instance(path)
        recorded = family.reference(instance)
        candidates = {f"heuristic {k}": v for k, v in heuristics(instance).items()}
        if "optimum" in recorded or "upper_bound" in recorded:
            candidates["recorded"] = recorded.get("optimum", recorded.get("upper_bound"))
        began = time.perf_counter()
        # As the ``grid`` method does: the bound in a quarter of the time, then the MIP.
        certificate = strong_bound(instance, time_limit=BOUND_SHARE * limit,
                                   upper=min(candidates.values()))
        bound_s = time.perf_counter() - began
        assert verify_bound(instance, certificate) == certificate.value
        bound, method = certificate.value, certificate.method
        if use_grid and bound < min(candidates.values()):
            found, _ = grid_schedule.solve(instance, TimeBudget(limit - bound_s), seed=0)
            if found is not None:
                assert not check(instance, found)
                candidates["grid MIP"] = rank(instance, found)[0]
        seconds = time.perf_counter() - began
        source = min(candidates, key=candidates.get)
        best = candidates[source]
        g = gap(best, bound)
        print(f"{path.stem:16s} n {instance.n_jobs:4d}  cheap {lower_bound(instance):5g}  "
              f"bound {bound:5g}  best {best:5g} ({source})  gap {100 * g:6.2f} %  "
              f"bound {bound_s:5.1f} s, all {seconds:6.1f} s  {method[:60]}", flush=True)
        gaps.append(g)
    return gaps


def paper(limit: float, sizes: list[int]) -> list[float]:
    gaps = []
    for scenario in ("table1", "table2"):
        for jobs in sizes:
            instance = generate(jobs, scenario=scenario, seed=0)
            values = heuristics(instance)
            began = time.perf_counter()
            certificate = strong_bound(instance, time_limit=limit, upper=min(values.values()))
            seconds = time.perf_counter() - began
            checked = time.perf_counter()
            assert verify_bound(instance, certificate) == certificate.value
            verify_s = time.perf_counter() - checked
            print(f"{instance.name:30s} cheap {lower_bound(instance):6g}  bound "
                  f"{certificate.value:6g}  ({seconds:.1f} s, verified in {verify_s:.1f} s; "
                  f"{certificate.method[:60]})", flush=True)
            for name, value in values.items():
                g = gap(value, certificate.value)
                gaps.append(g)
                print(f"    {name:6s} UFJ {value:6g}  gap to bound {100 * g:6.2f} %", flush=True)
    return gaps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("library", "paper"))
    parser.add_argument("--limit-large", type=float, default=300.0)
    parser.add_argument("--limit-real", type=float, default=600.0)
    parser.add_argument("--paper-jobs", default="1000,10000")
    parser.add_argument("--tiers", default="medium,large", help="library tiers")
    parser.add_argument("--no-grid", action="store_true",
                        help="bound only, best known from heuristics and the record")
    args = parser.parse_args()
    for part in ("library", "paper"):
        if args.only not in (None, part):
            continue
        print(f"== {part}", flush=True)
        if part == "library":
            gaps = library(args.limit_large, not args.no_grid, args.tiers.split(","))
        else:
            gaps = paper(args.limit_real, [int(x) for x in args.paper_jobs.split(",")])
        if gaps:
            print(f"median gap {100 * statistics.median(gaps):.2f} % over {len(gaps)}",
                  flush=True)
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
