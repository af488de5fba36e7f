"""The strong malleable bound against the best known schedules (issue 32 targets).

Parts (``--only``; all by default), each printing per instance the best
known value, the bound, the gap ``(best known - bound) / best known``, the
bound's method and seconds, then medians, ``os.cpu_count()`` and the load
average:

* ``library``: the small and medium batch files of ``instances/malleable``;
  best known = the file's recorded optimum or ``upper_bound``; the bound with
  ``--limit-medium`` seconds (target: 8-job batches gap <= 10 %).
* ``batches``: ``--seeds`` generated offline batches of ``--jobs`` jobs
  (default 100 and 200, the paper's ``mixed`` workload on its platform, and
  ``small`` jobs on the batch platform); best known = the exact method's warm
  start (greedy rules and online heuristics), bound with ``--limit-large``
  seconds (target: a bound with a meaningful gap, reported).
* ``paper``: the paper's 10^4-job mixed workload (``--paper-jobs``), penalised
  cost (policy A) and total time: each online policy's value and the greedy's,
  and their gap to the bound computed with ``--limit-real`` seconds.

Usage: ``python benchmarks/bench_bounds_malleable.py [--only library|batches|paper]
[--limit-medium 120] [--limit-large 300] [--limit-real 600] [--seeds 3]
[--jobs 100,200] [--paper-jobs 10000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hybridsched.budget import TimeBudget  # noqa: E402
from hybridsched.heuristics.malleable.simulation import SCHEDULERS, simulate  # noqa: E402
from hybridsched.malleable import files  # noqa: E402
from hybridsched.malleable.bound_check import verify_bound  # noqa: E402
from hybridsched.malleable.checker import evaluate  # noqa: E402
from hybridsched.malleable.generator import batch_platform, generate  # noqa: E402
from hybridsched.models.malleable import batch_greedy, batch_grid  # noqa: E402
from hybridsched.models.malleable.bound import strong_bound  # noqa: E402
from hybridsched.models.malleable.warm_start import incumbent  # noqa: E402


def gap(best: float, bound: float) -> float:
    """``(best - bound) / best`` (0 when both are 0)."""
    return 0.0 if best == bound else (best - bound) / abs(best) if best else float("inf")


def line(name: str, best: float, bound: float, method: str, seconds: float) -> float:
    g = gap(best, bound)
    print(f"{name:32s} best {best:14.6g}  bound {bound:14.6g}  gap {100 * g:7.2f} %  "
          f"{seconds:7.1f} s  {method[:90]}", flush=True)
    return g


def bounded(instance, objective: str, limit: float, upper: float | None = None):
    began = time.perf_counter()
    certificate = strong_bound(instance, time_limit=limit, objective=objective, upper=upper)
    seconds = time.perf_counter() - began
    verify_bound(instance, certificate)  # the value printed is one the proof checks
    return certificate, seconds


def library(limit: float) -> list[float]:
    gaps = []
    folder = ROOT / "instances" / "malleable"
    for path in sorted([*folder.glob("batch-*.json"), *folder.glob("medium/*.json")]):
        document = json.loads(path.read_text())
        reference = document.get("reference") or {}
        best = reference.get("optimal_penalised_a", reference.get("upper_bound"))
        instance = files.instance_from_dict(document)
        certificate, seconds = bounded(instance, "penalised_a", limit,
                                       None if best is None else float(best))
        if best is None:
            print(f"{path.name:32s} no best known  bound {certificate.value:.6g}  "
                  f"{seconds:.1f} s", flush=True)
            continue
        g = line(path.name, float(best), certificate.value, certificate.method, seconds)
        if "medium" in str(path) or "batch-08" in path.name:
            gaps.append(g)
    return gaps


def batches(limit: float, seeds: int, sizes: list[int]) -> list[float]:
    gaps = []
    for jobs in sizes:
        for kind in ("paper-mixed", "batch-small"):
            for seed in range(seeds):
                instance = (generate(jobs, "mixed", seed) if kind == "paper-mixed" else
                            generate(jobs, "small", seed, resources=batch_platform()))
                budget = TimeBudget(limit)
                best, upper, _ = incumbent(instance, "penalised_a", seed, budget)
                assert upper == float(evaluate(instance, best).metrics["penalised_a"])
                certificate, _ = bounded(instance, "penalised_a", budget.remaining() or 0.0,
                                         upper)
                # Seconds: schedule and bound together, within the one limit.
                gaps.append(line(f"{kind}-{jobs}-s{seed}", upper, certificate.value,
                                 certificate.method, budget.elapsed()))
    return gaps


def paper(limit: float, jobs: int) -> list[float]:
    instance = generate(jobs, "mixed", 0)
    values: dict[str, dict[str, float]] = {}
    for scheduler in SCHEDULERS:
        for policy in ("A", "B"):
            solution, _ = simulate(instance, scheduler, policy, 0)
            metrics = evaluate(instance, solution).metrics
            values[f"{scheduler} ({policy})"] = {o: float(metrics[o])
                                                 for o in ("penalised_a", "total_time")}
    options = batch_grid.job_options(instance)
    began = time.perf_counter()
    _, greedy, _ = batch_greedy.warm_start(instance, "penalised_a", options,
                                           TimeBudget(limit / 2))
    metrics = evaluate(instance, greedy).metrics
    values["greedy (batch)"] = {o: float(metrics[o]) for o in ("penalised_a", "total_time")}
    print(f"greedy warm start: {time.perf_counter() - began:.1f} s", flush=True)
    gaps = []
    for objective in ("penalised_a", "total_time"):
        best = min(v[objective] for v in values.values())
        certificate, seconds = bounded(instance, objective, limit, best)
        print(f"-- {objective}: bound {certificate.value:.6g} ({certificate.method[:90]}), "
              f"{seconds:.1f} s", flush=True)
        for name, v in values.items():
            g = line(f"{jobs} jobs {name}", v[objective], certificate.value, objective,
                     seconds)
            if name == "tree (A)":
                gaps.append(g)
    return gaps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("library", "batches", "paper"))
    parser.add_argument("--limit-medium", type=float, default=120.0)
    parser.add_argument("--limit-large", type=float, default=300.0)
    parser.add_argument("--limit-real", type=float, default=600.0)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--jobs", default="100,200")
    parser.add_argument("--paper-jobs", type=int, default=10_000)
    args = parser.parse_args()
    parts = {"library": lambda: library(args.limit_medium),
             "batches": lambda: batches(args.limit_large, args.seeds,
                                        [int(n) for n in args.jobs.split(",")]),
             "paper": lambda: paper(args.limit_real, args.paper_jobs)}
    for name, run in parts.items():
        if args.only and name != args.only:
            continue
        print(f"== {name}", flush=True)
        gaps = run()
        if gaps:
            print(f"median gap ({name}): {100 * statistics.median(gaps):.2f} % over "
                  f"{len(gaps)}", flush=True)
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
