"""Strong lower bounds of the hybrid-deadline family against the best known costs (issue 32).

For each instance of the chosen sets, prints the best known cost (the
library's recorded best, or the best heuristic CDF+RA / FFD+RA when nothing
is recorded), the cheap bound, the certified strong bound
(:func:`hybridsched.models.hybrid_deadline.bound.strong_bound`, checked again
by :func:`hybridsched.hybrid_deadline.bound_check.verify_bound`), the gap
``(best known - bound) / best known``, the gap in billed hours of the
cheapest VM type, and the median wall time of the bound and of its exact check.

Sets: ``medium`` and ``large`` (the library's 100- and 400-task files),
``windows`` (the NASA windows of instances/hybrid-deadline/real/nasa.json),
``nasa`` (the whole NASA iPSC trace, one record = one task, alpha 1-4; its
best known is CDF+RA's cost, the issue's reference there).

Usage: ``python benchmarks/bench_bounds_hybrid_deadline.py [--sets medium,large,windows,nasa]
[--time-limit-medium 120] [--time-limit-large 300] [--time-limit-nasa 600] [--repeats 1]
[--alphas 1,2,3,4]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from _common import machine_line

from hybridsched.hybrid_deadline.adapters import best_heuristic_solution, cdf_ra
from hybridsched.hybrid_deadline.bound_check import verify_bound
from hybridsched.hybrid_deadline.bounds import lower_bound
from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.hybrid_deadline.files import instance_from_dict
from hybridsched.models.hybrid_deadline.bound import strong_bound

LIBRARY = Path(__file__).resolve().parents[1] / "instances" / "hybrid-deadline"


def recorded_best(instance) -> float | None:
    """The library's best known cost of ``instance`` (``None`` when none is recorded)."""
    reference = instance.reference or {}
    certificate = reference.get("certificates", {}).get("cost", {})
    known = [v for v in (reference.get("optimal_cost"), reference.get("upper_bound"),
                         certificate.get("best_known")) if v is not None]
    return min(known, default=None)


def instances(name: str, alphas: list[int]):
    """``(instance, time-limit key)`` of one set."""
    if name in ("medium", "large"):
        for path in sorted((LIBRARY / name).glob("*.json")):
            yield instance_from_dict(json.loads(path.read_text()), str(path)), name
    elif name == "windows":
        from hybridsched.experiments.real_sets import build_instance, load_real_set

        for item in load_real_set(LIBRARY / "real" / "nasa.json").instances:
            yield build_instance(item, "hybrid-deadline"), "medium"
    elif name == "nasa":
        from hybridsched.hybrid_deadline.trace import instance_from_trace
        from hybridsched.io.shared_data import NASA_TRACE, shared_data_path
        from hybridsched.io.swf import read_swf

        trace = read_swf(shared_data_path(NASA_TRACE), usable=lambda r: r.run_time > 0)
        for alpha in alphas:
            yield instance_from_trace(trace, alpha=alpha, name=f"nasa-a{alpha}").instance, "nasa"
    else:
        raise SystemExit(f"unknown set {name!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="medium,large,windows,nasa")
    parser.add_argument("--time-limit-medium", type=float, default=120.0)
    parser.add_argument("--time-limit-large", type=float, default=300.0)
    parser.add_argument("--time-limit-nasa", type=float, default=600.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--alphas", default="1,2,3,4")
    args = parser.parse_args()
    limits = {"medium": args.time_limit_medium, "large": args.time_limit_large,
              "nasa": args.time_limit_nasa}
    alphas = [int(a) for a in args.alphas.split(",")]
    print(machine_line())
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()}")
    print(f"{'instance':26} {'tasks':>6} {'best':>9} {'cheap':>9} {'bound':>9} {'gap':>7} "
          f"{'gap h':>6} {'bound s':>8} {'check s':>8}  method")
    gaps = []
    for name in args.sets.split(","):
        for instance, key in instances(name, alphas):
            best = recorded_best(instance)
            if best is None:
                start = cdf_ra(instance) if key == "nasa" else best_heuristic_solution(instance)
                best = None if start is None else rent_cost(instance, start)
            times, checks, certificate = [], [], None
            for _ in range(args.repeats):
                begin = time.perf_counter()
                certificate = strong_bound(instance, time_limit=limits[key])
                times.append(time.perf_counter() - begin)
                begin = time.perf_counter()
                verify_bound(instance, certificate)
                checks.append(time.perf_counter() - begin)
            assert certificate is not None
            bound = certificate.value
            gap = (best - bound) / best if best else 0.0
            cheapest = min((vm.price for vm in instance.vm_types), default=1.0)
            gaps.append(gap)
            print(f"{instance.name:26} {instance.n_tasks:6d} {best:9.4f} "
                  f"{lower_bound(instance):9.4f} {bound:9.4f} {gap:7.2%} "
                  f"{(best - bound) / cheapest:6.1f} {statistics.median(times):8.2f} "
                  f"{statistics.median(checks):8.2f}  {certificate.method}", flush=True)
    if gaps:
        print(f"median gap {statistics.median(gaps):.2%}; load average {os.getloadavg()}")


if __name__ == "__main__":
    sys.exit(main())
