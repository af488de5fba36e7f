"""Blocks of ``docs/results/gang.md``: the paper's comparison, the bundled optima, exact, speed."""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from pathlib import Path

from published import Block, count_words, load_json, load_store, num, pct, secs, sig, table

#: The paper's heuristic first, then its baselines, as the page names them.
METHODS = {"cplmt": "CPLMT", "fifo": "FIFO", "fair": "Fair", "asjs": "ASJS", "cmms": "CMMS"}


def _options(source: str) -> dict:
    return dict(json.loads(source)["options"])


def _paper(paths: Sequence[Path]) -> str:
    runs = load_store(paths[0])
    options = runs["source"].map(_options)
    runs = runs.assign(rate=options.map(lambda o: o["rate"]),
                       scenario=options.map(lambda o: o["scenario"]),
                       jobs=options.map(lambda o: o["jobs"]))
    means = runs.groupby(["scenario", "rate", "method"])[
        ["objective", "metric_ave", "metric_sin", "family_bound", "jobs"]].mean()
    seeds = runs.groupby(["scenario", "rate", "method"]).size()
    order = list(METHODS)
    rows = []
    for (scenario, rate), group in means.groupby(level=[0, 1]):
        group = group.droplevel([0, 1])
        jobs = int(group["jobs"].iloc[0])
        label = f"{rate:g}" if scenario == "table1" else f"{rate:g} (Table 2, {num(jobs)} jobs)"
        rows.append([label,
                     " / ".join(num(group.loc[m, "objective"]) for m in order),
                     " / ".join(f"{group.loc[m, 'metric_ave']:.2f}" for m in order),
                     " / ".join(f"{group.loc[m, 'metric_sin'] / 1e3:.1f}" for m in order)])
    names = " / ".join(METHODS.values())
    text = [table(["arrival rate (jobs per time unit)", f"unfinished jobs (UFJ): {names}",
                   f"AVE (time units): {names}", f"SIN (10^3 instructions): {names}"], rows)]
    table1 = means.loc["table1"]
    ufj = table1["objective"].unstack("method")
    close = ufj[["cplmt", "cmms", "fair"]]
    spread = ((close.max(axis=1) - close.min(axis=1)) / close.min(axis=1)).max()
    leader = ufj.idxmin(axis=1).map(METHODS)
    last = ufj.idxmax(axis=1).map(METHODS)
    ave = table1["metric_ave"].unstack("method")
    bound = means["family_bound"] / means["jobs"]
    text.append(
        f"Means over {int(seeds.min())} seeds per rate ({num(int(table1['jobs'].iloc[0]))} jobs "
        "per Table 1 workload). Table 1: CPLMT, CMMS and Fair are within "
        f"{pct(spread)} of one another's unfinished jobs at every rate (fewest: "
        f"{_rates(leader)}); most unfinished: {_rates(last)}. AVE: CMMS "
        f"{ave['cmms'].min():.2f}-{ave['cmms'].max():.2f} time units, CPLMT "
        f"{ave['cplmt'].min():.2f}-{ave['cplmt'].max():.2f}; smallest AVE: "
        f"{_rates(ave.idxmin(axis=1).map(METHODS))}. Jobs that cannot finish even alone "
        "on an idle platform (the family's cheap lower bound on UFJ): "
        f"{pct(bound.xs('table1').mean())} of Table 1's jobs, "
        f"{pct(bound.xs('table2').mean())} of Table 2's.")
    return "\n\n".join(text)


def _rates(best) -> str:
    """``CMMS at every rate`` or ``CMMS at 5, 10; CPLMT at 15`` from a method per rate."""
    by_method: dict[str, list[str]] = {}
    for rate, method in best.items():
        by_method.setdefault(method, []).append(f"{rate:g}")
    if len(by_method) == 1:
        return f"{next(iter(by_method))} at every rate"
    return "; ".join(f"{m} at {', '.join(rates)}" for m, rates in by_method.items())


def _small(paths: Sequence[Path]) -> str:
    records = load_json(paths[0])
    by = {(r["instance"], r["method"]): r for r in records}
    instances = sorted({r["instance"] for r in records}, key=lambda name: int(name.split("-")[1]))
    rows, reached, excess = [], {m: 0 for m in METHODS}, {m: [] for m in METHODS}
    kinds = sorted({r["reference_kind"] for r in records})
    for name in instances:
        optimum = by[name, "cplmt"]["reference"]
        cells = []
        for method in METHODS:
            value = by[name, method]["objective"]
            more = value - optimum
            reached[method] += more == 0
            if more:
                excess[method].append(f"+{more:g}")
            cells.append(f"{value:g}" + (f" (+{more:g}, {pct(more / optimum, 0)})" if more
                                          else ""))
        exact = by.get((name, "exact"))
        rows.append([name, f"{optimum:g}", *cells,
                     f"{exact['objective']:g}, {exact['status']}" if exact else "not run"])
    summary = "; ".join(
        f"{METHODS[m]} {count_words(reached[m], len(instances))}"
        + (f" ({', '.join(excess[m])} elsewhere)" if excess[m] and reached[m] else
           f" ({', '.join(excess[m])})" if excess[m] else "") for m in METHODS)
    header = ["instance", "optimum (unfinished jobs)", *METHODS.values(), "exact"]
    return (table(header, rows) + "\n\nOptimum reached (jobs more where it is not): "
            f"{summary}. Reference: {' or '.join(kinds)}; a gap is "
            "`(UFJ - optimum) / optimum`.")


def _exact(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows = {}
    for row in data["rows"]:
        cell = (f"{row['proven']}/{row['seeds']}, {secs(row['median_s'])} s, "
                f"{row['median_heuristic']:g} -> {row['median_exact']:g}")
        if row["proven"] < row["seeds"]:
            cell += f" (median {row['median_gap']:g} jobs above the bound)"
        rows.setdefault(row["jobs"], {})[row["scenario"]] = cell
    scenarios = sorted({row["scenario"] for row in data["rows"]})
    header = ["jobs", *[f"{s[:5].title()} {s[5:]}: proven, median time, median UFJ of the "
                        "best heuristic -> exact" for s in scenarios]]
    machine = data["machine"]
    return (table(header, [[jobs, *[cells.get(s, "") for s in scenarios]]
                           for jobs, cells in sorted(rows.items())])
            + f"\n\n{data['seeds']} seeds per size, 120 VMs, {data['time_limit_s']:g} s limit "
            f"per run; times on {machine['cores']} cores, load average "
            f"{machine['load_before']:.1f}-{machine['load_after']:.1f}.")


def _speed(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows = [[METHODS[r["method"]], sig(r["in_process_s"]), sig(r["solve_s"]),
             sig(r["simulate_s"])] for r in data["rows"]]
    machine = data["machine"]
    targets = data["targets_s"]
    fixed = statistics.median(r["solve_s"] - r["in_process_s"] for r in data["rows"])
    return (table(["method", "in process, checker included (s)", "`hybridsched solve` (s)",
                   "`hybridsched simulate gang` (s)"], rows)
            + f"\n\n{num(data['jobs'])} jobs of Table 2's scenario on 120 VMs (seed "
            f"{data['seed']}), medians of {data['repeats']}; targets < {targets['in_process']:g}"
            f" s in process and < {targets['command']:g} s as a command. A command's fixed "
            f"part (start-up and imports, reading and validating the instance, writing the "
            f"schedule) is about {sig(fixed)} s (median over the methods). "
            f"{machine['cores']} cores, load average {machine['load_before']:.1f} before, "
            f"{machine['load_after']:.1f} after.")


BLOCKS = [
    Block("gang-paper",
          "hybridsched campaign examples/campaigns/gang-paper.toml -o results/gang/paper "
          "--serial", ("results/gang/paper",), _paper, scratch=("results/gang/paper",)),
    Block("gang-small",
          "hybridsched compare instances/gang/small-*.json --json > "
          "results/gang/small-compare.json", ("results/gang/small-compare.json",), _small),
    Block("gang-exact",
          "python benchmarks/bench_gang_exact.py --limit 60 --output results/gang/exact.json",
          ("results/gang/exact.json",), _exact),
    Block("gang-speed",
          "python benchmarks/bench_gang.py --campaign-only --output results/gang/speed.json",
          ("results/gang/speed.json",), _speed),
]
