"""The strong pull makespan bound against the best known schedules (issue 32 targets).

For each generated instance (:func:`hybridsched.pull.generator.generate`,
tiers below; seeds ``--seeds``) it prints the online policies' makespans
(PROMETHEE II, FCFS random and oldest), the clairvoyant greedy's
(:mod:`hybridsched.heuristics.pull.clairvoyant`) and its jittered restarts
(``--rounds``, at most a quarter of the time limit), the best known (the
least of them), the cheap bound, the strong bound (within the tier's time limit;
re-checked by ``verify_bound``, exact arithmetic) and its seconds, the gap
``(best known - bound) / best known`` and the bound's distance below
PROMETHEE ``(promethee - bound) / promethee``; then medians, the core count
and the load average. Every schedule is checked by the family's checker.

Tiers (``--tiers``; the generator's paper settings, three DCIs, behaviour
``all``, unless said):

* ``medium``: 60 units, ``capacity`` 1,000 per DCI (about 17 hosts), 120 s;
* ``large``: 500 units, the paper's capacity (10,000 per DCI), 300 s;
* ``paper``: 2,000 units (the paper's WL), 600 s.

Usage: ``python benchmarks/bench_bounds_pull.py [--tiers medium,large,paper]
[--seeds 0,1,2] [--limit-medium 120] [--limit-large 300] [--limit-paper 600]
[--rounds 200]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hybridsched.heuristics.pull.clairvoyant import best_clairvoyant, perturbed  # noqa: E402
from hybridsched.heuristics.pull.policies import Fcfs, PrometheeScheduler, strategy  # noqa: E402
from hybridsched.heuristics.pull.simulation import simulate  # noqa: E402
from hybridsched.models.pull.bound import strong_bound  # noqa: E402
from hybridsched.pull.bound_check import verify_bound  # noqa: E402
from hybridsched.pull.bounds import makespan_lower_bound  # noqa: E402
from hybridsched.pull.checker import check, evaluate  # noqa: E402
from hybridsched.pull.generator import generate  # noqa: E402

#: ``tier -> (units, capacity per DCI)``.
TIERS = {"medium": (60, 1000.0), "large": (500, 10_000.0), "paper": (2000, 10_000.0)}


def checked_makespan(instance, solution) -> float:
    """The checker's makespan of ``solution``, which must be valid."""
    problems = check(instance, solution)
    assert not problems, problems[:3]
    return evaluate(instance, solution).objective


def online(instance) -> dict[str, float]:
    """Makespans of the online policies (default readings)."""
    out = {}
    for name, policy in (("promethee", PrometheeScheduler(strategy(), np.random.default_rng(0))),
                         ("fcfs", Fcfs(np.random.default_rng(0), "random")),
                         ("fcfs-oldest", Fcfs(np.random.default_rng(0), "oldest"))):
        out[name] = checked_makespan(instance, simulate(instance, policy)[0])
    return out


def gap(best: float, bound: float) -> float:
    """``(best - bound) / best``."""
    return (best - bound) / best if best else 0.0


def run(tier: str, seed: int, limit: float, rounds: int = 200) -> dict[str, float]:
    """One instance's line (printed) and figures."""
    units, capacity = TIERS[tier]
    instance = generate(units, seed=seed, capacity=capacity)
    values = online(instance)
    cheap = makespan_lower_bound(instance)
    origin = instance.first_schedule()
    started = time.perf_counter()
    found = best_clairvoyant(instance, origin + cheap)
    clairvoyant_s = time.perf_counter() - started
    values["clairvoyant"] = checked_makespan(instance, found)
    started = time.perf_counter()
    jittered = perturbed(instance, origin + cheap, found, seed=seed, rounds=rounds,
                         deadline=started + 0.25 * limit)
    values["jittered"] = checked_makespan(instance, jittered)
    clairvoyant_s += time.perf_counter() - started
    best = min(values.values())
    started = time.perf_counter()
    certificate = strong_bound(instance, time_limit=limit, upper_end=origin + best)
    seconds = time.perf_counter() - started
    verified = verify_bound(instance, certificate)
    assert verified >= certificate.value, (verified, certificate.value)
    row = {"units": units, "hosts": instance.n_hosts, **values, "best": best, "cheap": cheap,
           "bound": certificate.value, "seconds": seconds, "clairvoyant_s": clairvoyant_s,
           "gap": gap(best, certificate.value), "cheap_gap": gap(best, cheap),
           "below_promethee": gap(values["promethee"], certificate.value)}
    print(f"{tier:6} s{seed} units={units} hosts={instance.n_hosts} "
          f"promethee={values['promethee']:.0f} fcfs={values['fcfs']:.0f} "
          f"clairvoyant={values['clairvoyant']:.0f} jittered={values['jittered']:.0f} "
          f"({clairvoyant_s:.1f}s) best={best:.0f} "
          f"cheap={cheap:.0f} bound={certificate.value:.0f} ({seconds:.1f}s) "
          f"gap={row['gap']:.2%} cheap_gap={row['cheap_gap']:.2%} "
          f"below_promethee={row['below_promethee']:.2%} [{certificate.method[:40]}]",
          flush=True)
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiers", default="medium,large,paper")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--limit-medium", type=float, default=120.0)
    parser.add_argument("--limit-large", type=float, default=300.0)
    parser.add_argument("--limit-paper", type=float, default=600.0)
    parser.add_argument("--rounds", type=int, default=200,
                        help="jittered clairvoyant restarts per instance")
    args = parser.parse_args(argv)
    limits = {"medium": args.limit_medium, "large": args.limit_large,
              "paper": args.limit_paper}
    seeds = [int(s) for s in args.seeds.split(",")]
    for tier in args.tiers.split(","):
        rows = [run(tier, seed, limits[tier], args.rounds) for seed in seeds]
        print(f"{tier}: median gap {statistics.median(r['gap'] for r in rows):.2%}, "
              f"cheap gap {statistics.median(r['cheap_gap'] for r in rows):.2%}, "
              f"bound below promethee {statistics.median(r['below_promethee'] for r in rows):.2%}, "
              f"clairvoyant below promethee "
              f"{statistics.median(gap(r['promethee'], r['clairvoyant']) for r in rows):.2%}, "
              f"bound seconds {statistics.median(r['seconds'] for r in rows):.1f}")
    print(f"cores: {os.cpu_count()}, load average: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
