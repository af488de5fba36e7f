"""Gang family: where the exact method proves the fewest unfinished jobs, and by how much it
improves on the best heuristic it starts from.

Run ``python benchmarks/bench_gang_exact.py [--limit 60] [--seeds 3] [--sizes 80]
[--backend highs|cpsat] [--threads 1] [--output FILE.json]`` (``--output``: the figures
as JSON, with the machine's cores and load, for ``scripts/publish_numbers.py``).

The ``exact`` method (best of CPLMT, FIFO, Fair, ASJS and CMMS as the MIP
start, then the continuous-time MILP; see :mod:`hybridsched.models.gang.milp`)
on ``generate(n, scenario=..., seed=s)`` (120 VMs) for n = 10, 20, 40, 80 and
both scenarios (generator defaults otherwise): per ``n``, how many runs are
proven optimal, the median time (heuristics, model and solve), the median
UFJ of the best heuristic and of ``exact``, in how many runs ``exact`` finished
more jobs, and the median gap of ``exact`` to its bound (unfinished jobs).
``--backend cpsat`` runs the CP-SAT model (:mod:`hybridsched.models.gang.cpsat`)
with ``--threads`` search workers instead of HiGHS.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

from _common import Recorder, machine_line

from hybridsched import run_method
from hybridsched.gang.adapters import best_heuristic
from hybridsched.gang.checker import evaluate
from hybridsched.gang.generator import generate
from hybridsched.result import Status

SIZES = (10, 20, 40, 80)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--scenarios", default="table1,table2")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)),
                        help="job counts, comma-separated")
    parser.add_argument("--backend", choices=("highs", "cpsat"), default="highs")
    parser.add_argument("--threads", type=int, default=1, help="CP-SAT search workers")
    parser.add_argument("--output", default=None, help="also write the figures to this JSON")
    args = parser.parse_args()
    record = Recorder(args.output, time_limit_s=args.limit, seeds=args.seeds,
                      backend=args.backend, threads=args.threads, vms=120)
    options = {} if args.backend == "highs" else {"backend": "cpsat", "threads": args.threads}
    warnings.simplefilter("ignore")  # PuLP's deprecation notices
    print(machine_line())
    print(f"os.cpu_count() = {os.cpu_count()} cores; time limit {args.limit:g} s, "
          f"{args.backend} {args.threads} thread(s), {args.seeds} seeds")
    for scenario in args.scenarios.split(","):
        print(f"\n{scenario} (120 VMs)")
        for n in map(int, args.sizes.split(",")):
            proven, better, seconds, heuristic, exact, gaps = 0, 0, [], [], [], []
            for seed in range(args.seeds):
                instance = generate(n, scenario=scenario, seed=seed)  # type: ignore[arg-type]
                heuristic.append(evaluate(instance, best_heuristic(instance)[1]).objective)
                began = time.perf_counter()
                result = run_method("gang", "exact", instance, time_limit=args.limit,
                                    **options)
                seconds.append(time.perf_counter() - began)
                proven += result.status is Status.OPTIMAL
                exact.append(result.objective)
                better += result.objective < heuristic[-1]
                gaps.append(result.objective - result.bound)
            print(f"  n={n:3d}: proven {proven}/{args.seeds}, median "
                  f"{statistics.median(seconds):6.2f} s (max {max(seconds):.2f}), "
                  "UFJ best heuristic "
                  f"{statistics.median(heuristic):5.1f} -> exact {statistics.median(exact):5.1f} "
                  f"(fewer in {better}/{args.seeds}), "
                  f"median gap to the bound {statistics.median(gaps):4.1f} jobs")
            record.add(scenario=scenario, jobs=n, seeds=args.seeds, proven=proven,
                       median_s=statistics.median(seconds), max_s=max(seconds),
                       median_heuristic=statistics.median(heuristic),
                       median_exact=statistics.median(exact), fewer=better,
                       median_gap=statistics.median(gaps))
    record.write()


if __name__ == "__main__":
    main()
