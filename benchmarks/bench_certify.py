"""Cross-certification at scale: both exact backends on many random tiny instances per family.

Each family's ``tiny_instance(seed)`` (its generator module) draws tiny
instances, a third of them awkward (near-tolerance numbers, ties, exact
fits, tight limits, DAGs where the family has them). Every instance is
certified (:mod:`hybridsched.experiments.certify`): HiGHS and CP-SAT solve
it, each schedule is checked, and the verdicts are counted. The issue's
target is zero defects (disagreements) on at least 500 instances.

    python benchmarks/bench_certify.py --per-family 100            # 500 instances
    python benchmarks/bench_certify.py --families gang,pull --per-family 20
    python benchmarks/bench_certify.py --chains                      # tolerance chains

``--chains`` certifies instead each family's tolerance chains
(``chain_instance`` in its generator module): n equal tasks or jobs on one
core, processor, VM or host, their works placed at the checker's tolerance,
just below it and just above it, whose optimum is known in closed form. A
checker whose tolerance added up along a chain would accept a schedule that
beats the certified value; the benchmark counts, besides the verdicts, every
certified value that differs from the closed-form optimum the instance
records ("wrong").

Prints, per family: instances, verdict counts, defects (with the instance
seeds or chain names), and the median solve time of each backend; then the
machine line. Exit code 1 when any defect (or wrong certified value) was found.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from importlib import import_module

from _common import machine_line

from hybridsched.catalogue import get_family
from hybridsched.experiments.certify import CERTIFIED, DEFECT, PROVEN, certify, same
from hybridsched.experiments.library import TINY_GENERATORS, tiny_instance
from hybridsched.stdio import owned_stdout

#: Chain sizes and excesses over the tolerance (decimal texts) per family; see --chains.
CHAIN_SIZES = (2, 3, 10, 40, 100, 1000)
CHAIN_EXCESSES = ("0", "-1e-12", "1e-12", "5e-10", "-5e-10", "2e-9")


def chains(family: str) -> list[tuple[str, object]]:
    """``(name, instance)`` of every tolerance chain the benchmark certifies for ``family``."""
    generator = import_module(TINY_GENERATORS[family])
    if family == "hybrid-deadline":
        made = {f"n{n} excess {e}": generator.chain_instance(n, e)
                for n in CHAIN_SIZES for e in CHAIN_EXCESSES}
    elif family == "gang":
        made = {f"n{n} excess {e}": generator.chain_instance(n, e, instructions="0.25")
                for n in CHAIN_SIZES for e in CHAIN_EXCESSES if not e.startswith("-")}
        made["the issue's chain"] = generator.chain_instance(10, "5e-10",
                                                             instructions="0.10000000015")
    elif family == "bot-sites":
        made = {f"n{n} {kind}": generator.chain_instance(n, "0.3", **options)
                for n in CHAIN_SIZES
                for kind, options in (("one processor", {}), ("DAG chain", {"dag": True}),
                                      ("two processors", {"procs": 2}))}
    elif family == "pull":
        made = {f"n{n} duration {d}": generator.chain_instance(n, d)
                for n in (2, 3, 6) for d in (1.0, 0.3)}
    else:
        return []
    return list(made.items())


def certify_family(family: str, seeds: range, time_limit: float,
                   use_chains: bool = False) -> dict[str, object]:
    """Certify ``tiny_instance(seed)`` for every seed (or the chains); counts, defects, times."""
    kind = get_family(family)
    verdicts: dict[str, int] = {}
    defects: list[str] = []
    times: dict[str, list[float]] = {}
    started = time.perf_counter()
    cases = (chains(family) if use_chains
             else [(f"seed {seed}", tiny_instance(family, seed)) for seed in seeds])
    for label, instance in cases:
        cert = certify(family, instance, name=f"{family} {label}", time_limit=time_limit)
        verdicts[cert.verdict] = verdicts.get(cert.verdict, 0) + 1
        if cert.verdict == DEFECT:
            defects.append(f"{label}: {cert.reason}")
        known = kind.reference(instance).get("optimum")
        if (use_chains and known is not None and cert.best_known is not None
                and cert.verdict in (CERTIFIED, PROVEN) and not same(cert.best_known, known)):
            defects.append(f"{label}: wrong: {cert.verdict} {cert.best_known:g}, the exact "
                           f"optimum is {known:g}")
        for backend, run in cert.runs.items():
            times.setdefault(backend, []).append(run.runtime_s)
    return {"verdicts": verdicts, "defects": defects, "n": len(cases),
            "elapsed_s": time.perf_counter() - started,
            "median_s": {b: statistics.median(t) for b, t in times.items()},
            "max_s": {b: max(t) for b, t in times.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-family", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--families", default=",".join(TINY_GENERATORS))
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--chains", action="store_true",
                        help="certify the tolerance chains instead of tiny instances")
    args = parser.parse_args()
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    seeds = range(args.first_seed, args.first_seed + args.per_family)
    total, defects = 0, 0
    print(f"{'family':16} {'n':>4}  verdicts{'':28} defects  median s (highs / cpsat)"
          f"  max s (highs / cpsat)  elapsed s")
    for family in families:
        found = certify_family(family, seeds, args.time_limit, args.chains)
        if not found["n"]:
            continue
        counts = ", ".join(f"{k} {v}" for k, v in sorted(found["verdicts"].items()))
        med, top = found["median_s"], found["max_s"]
        print(f"{family:16} {found['n']:4}  {counts:36} {len(found['defects']):7}  "
              f"{med.get('highs', 0):.3f} / {med.get('cpsat', 0):.3f}"
              f"{'':13}{top.get('highs', 0):.2f} / {top.get('cpsat', 0):.2f}"
              f"{'':10}{found['elapsed_s']:.0f}", flush=True)
        for line in found["defects"]:
            print(f"  DEFECT {family} {line}")
        total += found["n"]
        defects += len(found["defects"])
    print(f"total: {total} instances, {defects} defects; {os.cpu_count()} cores")
    print(machine_line())
    return 1 if defects else 0


if __name__ == "__main__":
    with owned_stdout("discard"):  # HiGHS's banner is not this script's output
        code = main()
    sys.exit(code)
