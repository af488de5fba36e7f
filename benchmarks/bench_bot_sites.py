"""Speed and quality benchmark of the bot-sites family (issue 3 targets).

Prints, with medians over ``--runs`` runs and ``os.cpu_count()``:

* GMO on 10^2 sites x 10^2 processors with 10^2 BoTs x 10^4 tasks (target
  < 0.3 s) and with 10^3 BoTs x 10^4 tasks (target < 5 s), no DAG as in the
  paper's Table 3;
* G-Min-min, G-Max-min and G-Sufferage on 10^5 tasks on 10^3 processors
  (10 sites x 100 processors, 10 BoTs x 10^4 tasks; target < 30 s each);
* all six greedy heuristics together on each Braun instance (target < 1 s);
* the exact model with a 60 s limit on u_c_hihi.0 and its gap to best_known.csv;
* what the exact DAG model (several blocks per BoT and processor, issue 6) costs:
  solve times on generated DAG instances, against the earlier one-block model
  (a restriction: it can miss the optimum or find no schedule at all);
* the exact method with hard bandwidth/storage limits: how often the static
  limit model is proven optimal by the fluid bound, and its solve time.

Usage: ``python benchmarks/bench_bot_sites.py [--runs 3] [--exact-limit 60] [--no-exact]
[--dag-seeds 10] [--only dag] [--output FILE.json]`` (``--output``: the figures as JSON,
one section per part, with the machine's cores and load, for ``scripts/publish_numbers.py``).
Braun data are read from ``$HYBRIDSCHED_DATA/braun-etc-512x16`` or
``../shared/data/braun-etc-512x16``; that part is skipped when absent.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import time
from pathlib import Path

import numpy as np
from _common import Recorder, median_time

from hybridsched import run_method
from hybridsched.bot_sites.bounds import lower_bound
from hybridsched.bot_sites.checker import check, evaluate
from hybridsched.bot_sites.generator import generate
from hybridsched.heuristics.bot_sites.gmo import gmo
from hybridsched.heuristics.bot_sites.greedy import GREEDY
from hybridsched.io.etc import read_etc
from hybridsched.io.shared_data import BRAUN_FOLDER, shared_data_path

BRAUN = [f"u_{c}_{h}.0" for c in "cis" for h in ("hihi", "hilo", "lohi", "lolo")]


def braun_dir() -> Path | None:
    folder = shared_data_path(BRAUN_FOLDER)
    return folder if folder and (folder / "u_c_hihi.0").is_file() else None


def bench_gmo(runs, record):
    for bots, target in ((100, 0.3), (1000, 5.0)):
        inst = generate(sites=100, bots=bots, tasks_per_bot=(10000, 10000),
                        procs_per_site=(100, 100), scenario="HiHi", seed=0, dependency=0.0)
        median, sol = median_time(lambda inst=inst: gmo(inst), runs)
        ev = evaluate(inst, sol)
        lb = lower_bound(inst)
        assert not check(inst, sol)
        print(f"GMO  100 sites x 100 procs, {bots} BoTs x 10^4 tasks: median {median:.3f} s "
              f"(target < {target} s) | games {sol.notes['games']}, stages "
              f"{sol.notes['stages']} (first game {sol.notes['first_game_stages']}) | "
              f"makespan {ev.objective:.1f}, fluid bound {lb:.1f}, gap "
              f"{ev.objective / lb - 1:.1%}")
        record.add("gmo", sites=100, procs_per_site=100, bots=bots, tasks_per_bot=10000,
                   runs=runs, median_s=median, target_s=target, games=sol.notes["games"],
                   makespan=ev.objective, fluid_bound=lb)


def bench_batch(runs, record):
    inst = generate(sites=10, bots=10, tasks_per_bot=(10000, 10000),
                    procs_per_site=(100, 100), scenario="HiHi", seed=0, dependency=0.0)
    lb = lower_bound(inst)
    for name in ("g-min-min", "g-max-min", "g-sufferage"):
        median, sol = median_time(lambda name=name: GREEDY[name](inst), runs)
        ms = evaluate(inst, sol).objective
        print(f"{name:12s} 10^5 tasks on 10^3 processors: median {median:.2f} s "
              f"(target < 30 s) | makespan {ms:.1f}, gap to fluid bound {ms / lb - 1:.1%}")
        record.add("batch", method=name, tasks=10**5, processors=10**3, runs=runs,
                   median_s=median, target_s=30.0, makespan=ms, fluid_bound=lb)
    median, sol = median_time(lambda: gmo(inst), runs)
    ms = evaluate(inst, sol).objective
    print(f"{'gmo':12s} same instance: median {median:.3f} s | makespan {ms:.1f}, "
          f"gap {ms / lb - 1:.1%}")
    record.add("batch", method="gmo", tasks=10**5, processors=10**3, runs=runs,
               median_s=median, target_s=None, makespan=ms, fluid_bound=lb)


def bench_braun(folder, runs, exact_limit, record):
    worst = 0.0
    for name in BRAUN:
        inst = read_etc(folder / name)
        median, _ = median_time(lambda inst=inst: [f(inst) for f in GREEDY.values()], runs)
        worst = max(worst, median)
        ms = evaluate(inst, GREEDY["g-min-min"](inst)).objective
        print(f"six greedy on {name}: median {median:.3f} s (target < 1 s) | "
              f"G-Min-min {ms:.1f}")
        record.add("braun", instance=name, runs=runs, six_greedy_s=median, target_s=1.0,
                   g_min_min=ms)
    print(f"six greedy, slowest Braun instance: {worst:.3f} s")
    if exact_limit is None:
        return
    with (folder / "best_known.csv").open(newline="") as handle:
        best = {r["instance"]: float(r["best_known_makespan"]) for r in csv.DictReader(handle)}
    inst = read_etc(folder / "u_c_hihi.0")
    result = run_method("bot-sites", "exact", inst, time_limit=exact_limit)
    bk = best["u_c_hihi.0"]
    print(f"exact u_c_hihi.0 ({exact_limit:.0f} s limit): status {result.status.value}, "
          f"makespan {result.objective:.1f}, bound {result.bound:.1f}, own gap "
          f"{result.gap:.4%}, gap to best known {bk:.1f}: {result.objective / bk - 1:.4%} "
          f"(wall {result.runtime_s:.1f} s)")
    record.add("braun_exact", instance="u_c_hihi.0", time_limit_s=exact_limit,
               status=result.status.value, makespan=result.objective, bound=result.bound,
               best_known=bk, runtime_s=result.runtime_s)


DAG_CONFIGS = [   # (sites, bots, tasks per BoT, processors per site, dependency)
    (2, 4, (2, 4), (1, 2), 0.5),
    (3, 5, (2, 4), (1, 3), 0.3),
    (3, 6, (3, 6), (1, 3), 0.3),
    (3, 8, (2, 4), (1, 3), 0.2),
]


def _one_block(inst, limit):
    """Makespan and seconds of the earlier one-block-per-(BoT, processor) model."""
    from hybridsched.bot_sites.adapters import best_start
    from hybridsched.models.bot_sites.milp_build import build, horizon_for
    from hybridsched.models.bot_sites.milp_schedule import extract, warm_start
    from hybridsched.models.solvers.highs import solve_with_highs

    start = time.perf_counter()
    warm = best_start(inst)
    model = build(inst, horizon=horizon_for(inst, None), max_blocks=1)
    warm_start(model, warm)
    out = solve_with_highs(model.model, time_limit=limit, mip_rel_gap=1e-10,
                           warm_start=True)
    span = evaluate(inst, extract(model)).objective if out.has_incumbent else None
    return span, time.perf_counter() - start, out.status.value


def bench_dag(seeds, record, limit=60.0):
    from hybridsched.models.bot_sites.dag import block_bound
    from hybridsched.models.bot_sites.milp_build import model_size

    print(f"exact DAG model: {seeds} seeds per configuration, {limit:.0f} s limit each")
    for sites, bots, tasks, procs, dep in DAG_CONFIGS:
        times, old_times, proven, worse, sizes, blocks = [], [], 0, 0, [], []
        for seed in range(seeds):
            inst = generate(sites=sites, bots=bots, tasks_per_bot=tasks, procs_per_site=procs,
                            dependency=dep, seed=seed)
            if not len(inst.edges):
                continue
            result = run_method("bot-sites", "exact", inst, time_limit=limit)
            times.append(result.runtime_s)
            proven += result.status.value == "optimal"
            sizes.append(model_size(inst))
            blocks.append(float(np.mean(block_bound(inst))))
            span, seconds, _ = _one_block(inst, limit)
            old_times.append(seconds)
            worse += span is None or span > result.objective * (1 + 1e-9)
        n = len(times)
        print(f"  {sites} sites x {bots} BoTs, tasks {tasks[0]}:{tasks[1]}, procs "
              f"{procs[0]}:{procs[1]}, dependency {dep}: {n} DAG instances, "
              f"{proven} proven optimal | median {statistics.median(times):.2f} s, max "
              f"{max(times):.2f} s (one-block model: median "
              f"{statistics.median(old_times):.2f} s, max {max(old_times):.2f} s, worse or "
              f"no schedule on {worse}) | median integer variables "
              f"{statistics.median(sizes):.0f}, mean B_k {statistics.mean(blocks):.2f}")
        record.add("dag", sites=sites, bots=bots, tasks=list(tasks), procs=list(procs),
                   dependency=dep, instances=n, proven=proven, time_limit_s=limit,
                   median_s=statistics.median(times), max_s=max(times),
                   one_block_median_s=statistics.median(old_times),
                   one_block_max_s=max(old_times), one_block_worse=worse)


def bench_limits(seeds, record, limit=60.0):
    print(f"exact with hard limits (3 sites x 4 BoTs, tasks 3:6, procs 1:3, communication "
          f"and storage): {seeds} seeds per tightness, {limit:.0f} s limit each")
    for tightness in (0.3, 1.0):
        times, proven, gaps = [], 0, []
        for seed in range(seeds):
            inst = generate(sites=3, bots=4, tasks_per_bot=(3, 6), procs_per_site=(1, 3),
                            communication=True, storage=True, hard_limits=True,
                            tightness=tightness, seed=seed)
            result = run_method("bot-sites", "exact", inst, time_limit=limit)
            times.append(result.runtime_s)
            proven += result.status.value == "optimal"
            gaps.append(result.gap)
        print(f"  tightness {tightness}: {proven}/{seeds} proven optimal, median gap to the "
              f"fluid/critical-path bound {statistics.median(gaps):.1%} | median "
              f"{statistics.median(times):.2f} s, max {max(times):.2f} s")
        record.add("limits", tightness=tightness, seeds=seeds, proven=proven,
                   median_gap=statistics.median(gaps), median_s=statistics.median(times),
                   max_s=max(times), time_limit_s=limit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--exact-limit", type=float, default=60.0)
    parser.add_argument("--no-exact", action="store_true")
    parser.add_argument("--dag-seeds", type=int, default=10)
    parser.add_argument("--only", choices=["dag"], default=None,
                        help="run only the exact DAG and hard-limit sections")
    parser.add_argument("--output", default=None, help="also write the figures to this JSON")
    args = parser.parse_args()
    record = Recorder(args.output, runs=args.runs, dag_seeds=args.dag_seeds)
    print(f"os.cpu_count() = {os.cpu_count()}; medians of {args.runs} runs")
    if args.only == "dag":
        bench_dag(args.dag_seeds, record)
        bench_limits(args.dag_seeds, record)
        record.write()
        return
    bench_gmo(args.runs, record)
    bench_batch(max(1, min(args.runs, 3)), record)
    folder = braun_dir()
    if folder is None:
        print("Braun data absent: skipped (set HYBRIDSCHED_DATA)")
    else:
        bench_braun(folder, args.runs, None if args.no_exact else args.exact_limit, record)
    bench_dag(args.dag_seeds, record)
    bench_limits(args.dag_seeds, record)
    record.write()


if __name__ == "__main__":
    main()
