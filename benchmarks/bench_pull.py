"""Pull family: time of a full run of the paper's workload, and Table 6's comparison.

Run ``python benchmarks/bench_pull.py [--units 2000] [--seeds 3] [--skip-gaussian]
[--gaussian-pairwise] [--ratio-repeats 5] [--table6-units 500] [--start-points 20]
[--output FILE.json]`` (``--output``: the figures as JSON, one section per part, with the
machine's cores and load, for ``scripts/publish_numbers.py``).

0. **Gaussian against Linear** (issue 35: the Gaussian's whole run within
   2x the Linear's). The instance of the issue, ``generate(units, ("idg",
   "cloud", "beg"), seed=1)``, run by ``run_method("pull", "promethee",
   instance, seed=1, preference=...)`` ``--ratio-repeats`` times for each
   function, the two alternating (a load that changes on a shared machine
   weighs on both): the median of each, their ratio and the median of the
   repeats' own ratios, beside the machine's cores and load averages
   (``os.getloadavg()``, 1, 5 and 15 minutes) before and after.
1. **Speed.** For each method (Promethee, default strategy s4,26, with the
   Linear, Level and Gaussian functions; FCFS), on seeded hybrid instances
   (IDG + cloud + BEG, 2,000 work units by default): the median wall time of
   one whole simulated run (decisions included), the median makespan, its
   gap to the availability bound, and the decisions per second. Target
   (issue 10): a full 2,000-unit run < 5 s; the Gaussian's run < 2x the
   Linear's (issue 35, after < 3x in issue 21: its ratio is printed).
   ``--gaussian-pairwise`` adds the Gaussian on the pairwise flows it
   replaced (quadratic: minutes).
2. **Table 6 shape.** Strategy s3,1 (mixed targets, so that the preference
   functions differ) with each function, and FCFS, on one instance read
   from ``--start-points`` start points 6 hours apart: mean and standard
   deviation of the makespan, and the difference to Linear.
3. **Fig. 5 shape.** ``Delta_M = (M_FCFS - M_Promethee) / M_Promethee`` (Eq. 3,
   default strategy) per DCI combination and behaviour, mean over seeds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from types import SimpleNamespace

import numpy as np
from _common import Recorder, machine_line

from hybridsched.heuristics.pull.policies import PrometheeScheduler, strategy
from hybridsched.heuristics.pull.simulation import simulate
from hybridsched.pull import evaluate, lower_bound
from hybridsched.pull.generator import generate
from hybridsched.pull.traces import start_later
from hybridsched.registry import run_method

METHODS = [("promethee linear", "promethee", {"preference": "linear"}),
           ("promethee level", "promethee", {"preference": "level"}),
           ("promethee gaussian", "promethee", {"preference": "gaussian"}),
           ("fcfs", "fcfs", {})]
#: The Gaussian on the pairwise flows (``--gaussian-pairwise``): same schedules, quadratic.
PAIRWISE = ("gaussian pairwise", "promethee", {"preference": "gaussian"})
S31 = {"targets": "max,max,min", "weights": "0.3333333333333333,0.3333333333333333,"
                                            "0.3333333333333334"}


def run_pairwise(instance, seed: int, **options) -> SimpleNamespace:
    """The promethee method with the Gaussian's pairwise flows (the path before issue 21)."""
    solution, stats = simulate(instance, PrometheeScheduler(
        strategy(**options), np.random.default_rng(seed), flows_method="pairwise"))
    return SimpleNamespace(objective=evaluate(instance, solution).objective,
                           metrics=stats.metrics())


def load() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def gaussian_ratio(units: int, repeats: int, record: Recorder) -> None:
    """Section 0 of the module doc: the Gaussian's whole run against the Linear's."""
    instance = generate(units, ("idg", "cloud", "beg"), seed=1)
    warm = generate(50, seed=99)
    for preference in ("linear", "gaussian"):
        run_method("pull", "promethee", warm, seed=0, preference=preference)
    print(f"gaussian vs linear: {units} work units (IDG + cloud + BEG, seed 1), "
          f"{repeats} runs each, alternating; {os.cpu_count()} cores, load {load()}")
    walls: dict[str, list[float]] = {"linear": [], "gaussian": []}
    spans = {}
    for _ in range(repeats):
        for preference in walls:
            start = time.perf_counter()
            result = run_method("pull", "promethee", instance, seed=1, preference=preference)
            walls[preference].append(time.perf_counter() - start)
            spans[preference] = result.objective
    for preference, times in walls.items():
        print(f"  {preference:8s} median {statistics.median(times):6.2f} s  "
              f"(runs {' '.join(f'{t:.2f}' for t in times)})  makespan "
              f"{spans[preference]:,.0f} s")
    linear, gaussian = (statistics.median(walls[p]) for p in ("linear", "gaussian"))
    paired = statistics.median(g / lin for g, lin in zip(walls["gaussian"], walls["linear"],
                                                         strict=True))
    print(f"  gaussian / linear: {gaussian / linear:.2f}x (medians), {paired:.2f}x (median of "
          f"the runs' ratios); target < 2x (issue 35); load {load()}")
    record.add("ratio", units=units, seed=1, repeats=repeats, linear_s=linear,
               gaussian_s=gaussian, ratio=gaussian / linear, paired_ratio=paired, target=2.0)


def speed(units: int, seeds: int, skip_gaussian: bool, gaussian_pairwise: bool,
          record: Recorder) -> None:
    instances = [generate(units, seed=s) for s in range(seeds)]
    bounds = [lower_bound(i) for i in instances]
    print(f"speed: {units} work units, {instances[0].n_hosts} hosts (seed 0), {seeds} seeds; "
          f"median bound {statistics.median(bounds):,.0f} s")
    warm = generate(50, seed=99)  # one-time imports and caches, outside the timings
    for _, method, options in METHODS:
        run_method("pull", method, warm, seed=0, **options)
    medians = {}
    for label, method, options in METHODS + ([PAIRWISE] if gaussian_pairwise else []):
        if skip_gaussian and "gaussian" in label:
            continue
        walls, spans, gaps, rates = [], [], [], []
        for instance, bound in zip(instances, bounds, strict=True):
            start = time.perf_counter()
            result = (run_pairwise(instance, 0, **options) if label == PAIRWISE[0]
                      else run_method("pull", method, instance, seed=0, **options))
            walls.append(time.perf_counter() - start)
            spans.append(result.objective)
            gaps.append(result.objective / bound - 1)
            rates.append(result.metrics["decisions_per_second"])
        print(f"  {label:19s} run {statistics.median(walls):6.2f} s   makespan "
              f"{statistics.median(spans):>10,.0f} s   gap to bound "
              f"{statistics.median(gaps):6.1%}   {statistics.median(rates):>10,.0f} "
              "decisions/s")
        medians[label] = statistics.median(walls)
        record.add("speed", method=label, units=units, hosts=instances[0].n_hosts,
                   seeds=seeds, run_s=medians[label], makespan=statistics.median(spans),
                   gap=statistics.median(gaps),
                   decisions_per_s=statistics.median(rates))
    for label in ("promethee gaussian", PAIRWISE[0]):
        if label in medians:
            print(f"  {label} / promethee linear: "
                  f"{medians[label] / medians['promethee linear']:.2f}x (target < 2x, "
                  "issue 35)")


def table6(units: int, points: int, record: Recorder) -> None:
    base = generate(units, seed=0, horizon=90 * 86_400.0)
    print(f"Table 6 shape: s3,1, {units} work units, {points} start points 6 h apart")
    spans: dict[str, list[float]] = {}
    for k in range(points):
        instance = start_later(base, k * 6 * 3600.0)
        for label, method, options in METHODS:
            extra = S31 if method == "promethee" else {}
            result = run_method("pull", method, instance, seed=k, **options, **extra)
            spans.setdefault(label, []).append(result.objective)
    linear = float(np.mean(spans["promethee linear"]))
    for label, values in spans.items():
        mean = float(np.mean(values))
        print(f"  {label:19s} mean {mean:>10,.0f} s   std {np.std(values, ddof=1):>9,.0f} s"
              f"   difference {100 * (mean / linear - 1):+6.2f}%")
        record.add("table6", method=label, units=units, start_points=points, mean=mean,
                   std=float(np.std(values, ddof=1)), difference=mean / linear - 1)


def fig5(units: int, seeds: int, record: Recorder) -> None:
    combinations = ["idg", "cloud", "beg", "idg,cloud", "idg,beg", "cloud,beg",
                    "idg,cloud,beg"]
    print(f"Fig. 5 shape: Delta_M in % (FCFS vs Promethee s4,26), {units} work units, "
          f"mean of {seeds} seeds")
    print(f"  {'DCIs':14s} {'intime':>8s} {'delay':>8s} {'never':>8s}")
    for dci in combinations:
        cells = []
        for behaviour in ("intime", "delay", "never"):
            deltas = []
            for seed in range(seeds):
                instance = generate(units, dci.split(","), seed=seed, behaviour=behaviour)
                prom = run_method("pull", "promethee", instance, seed=seed).objective
                fcfs = run_method("pull", "fcfs", instance, seed=seed).objective
                deltas.append(100 * (fcfs - prom) / prom)
            cells.append(f"{np.mean(deltas):+8.1f}")
            record.add("fig5", dci=dci, behaviour=behaviour, units=units, seeds=seeds,
                       delta_m=float(np.mean(deltas)))
        print(f"  {dci:14s} {' '.join(cells)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--skip-gaussian", action="store_true",
                        help="leave the Gaussian out of the speed runs")
    parser.add_argument("--gaussian-pairwise", action="store_true",
                        help="also time the Gaussian on its pairwise flows (quadratic)")
    parser.add_argument("--ratio-repeats", type=int, default=5,
                        help="runs of each function in the Gaussian vs Linear timing (0: skip)")
    parser.add_argument("--table6-units", type=int, default=500)
    parser.add_argument("--start-points", type=int, default=20)
    parser.add_argument("--fig5-units", type=int, default=500)
    parser.add_argument("--fig5-seeds", type=int, default=3)
    parser.add_argument("--output", default=None, help="also write the figures to this JSON")
    args = parser.parse_args()
    record = Recorder(args.output)
    print(machine_line())
    if args.ratio_repeats > 0 and not args.skip_gaussian:
        gaussian_ratio(args.units, args.ratio_repeats, record)
    speed(args.units, args.seeds, args.skip_gaussian, args.gaussian_pairwise, record)
    if args.start_points > 1:
        table6(args.table6_units, args.start_points, record)
    if args.fig5_seeds > 0:
        fig5(args.fig5_units, args.fig5_seeds, record)
    record.write()


if __name__ == "__main__":
    main()
