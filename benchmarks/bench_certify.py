"""Cross-certification at scale: both exact backends on many random tiny instances per family.

Each family's ``tiny_instance(seed)`` (its generator module) draws tiny
instances, a third of them awkward (near-tolerance numbers, ties, exact
fits, tight limits, DAGs where the family has them). Every instance is
certified (:mod:`hybridsched.experiments.certify`): HiGHS and CP-SAT solve
it, each schedule is checked, and the verdicts are counted. The issue's
target is zero defects (disagreements) on at least 500 instances.

    python benchmarks/bench_certify.py --per-family 100            # 500 instances
    python benchmarks/bench_certify.py --families gang,pull --per-family 20

Prints, per family: instances, verdict counts, defects (with the instance
seeds), and the median solve time of each backend; then the machine line.
Exit code 1 when any defect was found.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from _common import machine_line

from hybridsched.catalogue import get_family
from hybridsched.experiments.certify import DEFECT, certify
from hybridsched.experiments.library import TINY_GENERATORS, tiny_instance
from hybridsched.stdio import owned_stdout


def certify_family(family: str, seeds: range, time_limit: float) -> dict[str, object]:
    """Certify ``tiny_instance(seed)`` for every seed; counts, defects and backend times."""
    get_family(family)
    verdicts: dict[str, int] = {}
    defects: list[str] = []
    times: dict[str, list[float]] = {}
    started = time.perf_counter()
    for seed in seeds:
        cert = certify(family, tiny_instance(family, seed), name=f"{family}#{seed}",
                       time_limit=time_limit)
        verdicts[cert.verdict] = verdicts.get(cert.verdict, 0) + 1
        if cert.verdict == DEFECT:
            defects.append(f"seed {seed}: {cert.reason}")
        for backend, run in cert.runs.items():
            times.setdefault(backend, []).append(run.runtime_s)
    return {"verdicts": verdicts, "defects": defects, "elapsed_s": time.perf_counter() - started,
            "median_s": {b: statistics.median(t) for b, t in times.items()},
            "max_s": {b: max(t) for b, t in times.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-family", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--families", default=",".join(TINY_GENERATORS))
    parser.add_argument("--time-limit", type=float, default=30.0)
    args = parser.parse_args()
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    seeds = range(args.first_seed, args.first_seed + args.per_family)
    total, defects = 0, 0
    print(f"{'family':16} {'n':>4}  verdicts{'':28} defects  median s (highs / cpsat)"
          f"  max s (highs / cpsat)  elapsed s")
    for family in families:
        found = certify_family(family, seeds, args.time_limit)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(found["verdicts"].items()))
        med, top = found["median_s"], found["max_s"]
        print(f"{family:16} {len(seeds):4}  {counts:36} {len(found['defects']):7}  "
              f"{med.get('highs', 0):.3f} / {med.get('cpsat', 0):.3f}"
              f"{'':13}{top.get('highs', 0):.2f} / {top.get('cpsat', 0):.2f}"
              f"{'':10}{found['elapsed_s']:.0f}", flush=True)
        for line in found["defects"]:
            print(f"  DEFECT {family} {line}")
        total += len(seeds)
        defects += len(found["defects"])
    print(f"total: {total} instances, {defects} defects; {os.cpu_count()} cores")
    print(machine_line())
    return 1 if defects else 0


if __name__ == "__main__":
    with owned_stdout("discard"):  # HiGHS's banner is not this script's output
        code = main()
    sys.exit(code)
