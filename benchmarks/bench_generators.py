"""Generation time against size, every family: generators must stay linear in their input.

    python benchmarks/bench_generators.py                 # 10^3 .. 10^6 tasks or jobs
    python benchmarks/bench_generators.py --largest 100000 --repeats 5

For each family, the median wall time of ``generate`` (the draws and the
frozen instance, no file writing) at each size, and the empirical exponent
``log(t2 / t1) / log(n2 / n1)`` between the two largest sizes (1: linear).
Sizes are tasks (hybrid-deadline), jobs (gang, malleable), units (pull, at
most 10^5: the format's limit) and BoTs of one task on 10 sites without a DAG
(bot-sites: a DAG draws one number per pair of BoTs, quadratic by
definition). Gang uses 16 VMs (the format caps job x VM pairs at 2 x 10^7).
"""

from __future__ import annotations

import argparse
import math
import os

from _common import machine_line, median_time

from hybridsched.bot_sites.generator import generate as bot_sites
from hybridsched.gang.generator import generate as gang
from hybridsched.hybrid_deadline.generator import generate as hybrid_deadline
from hybridsched.io.limits import MAX_PULL_UNITS
from hybridsched.malleable.generator import generate as malleable
from hybridsched.pull.generator import generate as pull

GENERATORS = {
    "hybrid-deadline": lambda n: hybrid_deadline(n, "mixed", 1),
    "bot-sites": lambda n: bot_sites(sites=10, bots=n, tasks_per_bot=(1, 1), dependency=0.0,
                                     seed=1),
    "gang": lambda n: gang(n, seed=1, vms=16),
    "malleable": lambda n: malleable(n, seed=1),
    "pull": lambda n: pull(n, seed=1),
}
LIMITS = {"pull": MAX_PULL_UNITS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--largest", type=int, default=10**6)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [10**k for k in range(3, int(math.log10(args.largest)) + 1)]
    print(f"{'family':16}" + "".join(f"{n:>12,}" for n in sizes) + "   exponent (s, median)")
    for family, make in GENERATORS.items():
        usable = [n for n in sizes if n <= LIMITS.get(family, n)]
        times = [median_time(lambda n=n, make=make: make(n), args.repeats)[0] for n in usable]
        slope = (math.log(times[-1] / times[-2]) / math.log(usable[-1] / usable[-2])
                 if len(times) > 1 and times[-2] > 0 else float("nan"))
        cells = "".join(f"{t:12.3f}" for t in times) + " " * 12 * (len(sizes) - len(times))
        print(f"{family:16}{cells}   {slope:.2f}", flush=True)
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(machine_line())


if __name__ == "__main__":
    main()
