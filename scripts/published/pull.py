"""Blocks of ``docs/results/pull.md``: speed, Table 6, Fig. 5, the paper's scale, sigma, SOFT."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from published import Block, load_json, load_store, num, pct, secs, sig, table

BENCH = "results/pull/bench.json"
BENCH_COMMAND = f"python benchmarks/bench_pull.py --output {BENCH}"
LABELS = {"promethee linear": "Promethee s4,26, Linear",
          "promethee level": "Promethee s4,26, Level",
          "promethee gaussian": "Promethee s4,26, Gaussian", "fcfs": "FCFS"}


def _machine(data: dict) -> str:
    machine = data["machine"]
    return (f"{machine['cores']} cores, load average {machine['load_before']:.1f} before, "
            f"{machine['load_after']:.1f} after")


def _speed(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows = [[LABELS.get(r["method"], r["method"]), secs(r["run_s"]), num(r["makespan"]),
             pct(r["gap"]), sig(r["decisions_per_s"])] for r in data["speed"]]
    first = data["speed"][0]
    text = (table(["method", "one whole run (s)", "makespan (s)", "gap to the bound",
                   "decisions per second"], rows)
            + f"\n\n{num(first['units'])} work units on IDG + cloud + BEG ({first['hosts']} "
            f"hosts for seed 0), medians over {first['seeds']} seeds; gap = `(makespan - "
            "bound) / bound` to the availability bound; sigma read literally; a run "
            "includes the checker-replayable draws.")
    for ratio in data.get("ratio", []):
        text += (f" The Gaussian against the Linear on one instance ({num(ratio['units'])} "
                 f"units, seed {ratio['seed']}, the two alternating, medians of "
                 f"{ratio['repeats']}): {secs(ratio['linear_s'])} s and "
                 f"{secs(ratio['gaussian_s'])} s, {ratio['ratio']:.2f}x (target < "
                 f"{ratio['target']:g}x, issue 35).")
    return text + f" {_machine(data)}."


def _table6(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows = []
    for r in data["table6"]:
        label = LABELS.get(r["method"], r["method"]).replace("s4,26", "s3,1")
        rows.append([label, num(r["mean"]), num(r["std"]),
                     "baseline" if r["method"] == "promethee linear"
                     else pct(r["difference"], 2, sign=True)])
    first = data["table6"][0]
    return (table(["method", "mean makespan (s)", "standard deviation (s)",
                   "difference to Linear"], rows)
            + f"\n\nStrategy s3,1 (mixed targets, so that the functions differ), "
            f"{num(first['units'])} work units, one instance read from "
            f"{first['start_points']} start points 6 h apart; sigma read literally "
            "(`--spread signed-pairs`).")


def _fig5(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    cells: dict[str, dict[str, float]] = {}
    for r in data["fig5"]:
        cells.setdefault(r["dci"], {})[r["behaviour"]] = r["delta_m"]
    behaviours = {"intime": "in time", "delay": "delayed", "never": "never returned"}
    rows = [[dci.replace(",", ", "), *[f"{values[b]:+.1f}" for b in behaviours]]
            for dci, values in cells.items()]
    first = data["fig5"][0]
    lowest = min(r["delta_m"] for r in data["fig5"])
    positive = sum(r["delta_m"] > 0 for r in data["fig5"])
    return (table(["DCIs", *[f"Delta_M (%), hosts {name}" for name in behaviours.values()]],
                  rows)
            + "\n\n`Delta_M = (M_FCFS - M_Promethee) / M_Promethee` in % (Eq. 3), default "
            f"strategy s4,26, {num(first['units'])} work units, mean of {first['seeds']} seeds;"
            f" Promethee has the shorter mean makespan (Delta_M > 0) in {positive} of the "
            f"{len(data['fig5'])} settings; smallest Delta_M {lowest:+.1f}%.")


def _paper(paths: Sequence[Path]) -> str:
    runs = load_store(paths[0])
    wide = runs.pivot_table(index="instance_hash", columns="method_name", values="objective")
    gaps = runs.groupby("method_name")["gap"].median()
    shorter = int((wide["promethee"] < wide["fcfs"]).sum())
    kinds = ", ".join(sorted(set(runs["reference_kind"])))
    return (f"Promethee has the shorter makespan on {shorter} of the {len(wide)} workloads; "
            f"median gap `(makespan - reference) / reference` to the reference ({kinds}): "
            f"Promethee {pct(gaps['promethee'])}, FCFS {pct(gaps['fcfs'])}.")


def _sigma(paths: Sequence[Path]) -> str:
    from hybridsched.experiments.paired import paired_effects

    runs = load_store(paths[0])
    spread = runs["options"].map(lambda o: json.loads(o).get("spread"))
    rows = []
    for reading in ("signed-pairs", "absolute-pairs"):
        part = runs[(spread == reading) | (runs["method_name"] == "fcfs")]
        labels = part[part["method_name"] == "promethee"]["method"].unique()
        baseline = next(m for m in labels if "preference=linear" in m)
        effects = paired_effects(part, baseline)
        for effect in effects.itertuples():
            name = ("FCFS" if effect.method == "fcfs" else
                    effect.method.split("preference=")[1].split(",")[0].split("]")[0].title())
            rows.append([reading, name, effect.pairs,
                         f"{effect.mean:+.2f}% [{effect.ci_low:+.2f}, {effect.ci_high:+.2f}]",
                         f"{effect.losses}/{effect.pairs}"])
    return (table(["reading of sigma", "against its Linear", "paired seeds",
                   "mean makespan difference [95% interval]",
                   "seeds where the Linear is shorter"], rows)
            + "\n\nStrategy s3,1, 500 work units on IDG + cloud + BEG, one instance per "
            "seed; difference = `(M - M_Linear) / M_Linear` with a 95% Student-t interval.")


def _decision(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows = []
    for r in data["linear"]:
        rows.append([num(r["tasks"]), sig(r["fast_s"] * 1e3),
                     "not run" if r["pairwise_s"] is None else
                     f"{sig(r['pairwise_s'] * 1e3)} ({sig(r['pairwise_s'] / r['fast_s'])}x)",
                     "not run" if r["textbook_s"] is None else
                     f"{sig(r['textbook_s'] * 1e3)} ({sig(r['textbook_s'] / r['fast_s'])}x)"])
    return (table(["queued tasks", "Linear, our path (ms)", "one pass per pair (ms)",
                   "the pairwise definition, n x n matrices (ms)"], rows)
            + "\n\nOne decision (ranking the queued tasks for a pulling host), median after "
            f"warm-up; target < 1 ms at 2,000 tasks (issue 10); {_machine(data)}.")


def _strategies(labels: list[str]) -> str:
    """Winners of one place, a family with many weight vectors as one entry (``s4 (15 weight
    vectors)``)."""
    families: dict[str, list[str]] = {}
    for label in labels:
        families.setdefault(label.split(",")[0], []).append(label)
    return " ".join(" ".join(members) if len(members) < 4 else
                    f"{family} ({len(members)} weight vectors)"
                    for family, members in families.items())


def _soft(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    winners: dict[tuple[float, str], dict[str, list[str]]] = {}
    for row in data["table10"]:
        column = "Win_abs" if row["method"] == "Win_abs" else f"Win_freq, q2 = {row['q2']:.0%}"
        places = winners.setdefault((row["q1"], column), {})
        places.setdefault(row["place"], []).append(row["strategy"])
    columns = list(dict.fromkeys(column for _, column in winners))
    rows = []
    for q1 in dict.fromkeys(q1 for q1, _ in winners):
        rows.append([f"{q1:.0%}", *["; ".join(f"{place}: {_strategies(names)}" for place, names
                                              in winners.get((q1, c), {}).items()) or "-"
                                    for c in columns]])
    dcis = [c.removeprefix("efficiency_") for c in data["table11"][0]
            if c.startswith("efficiency_")]
    ranked = sorted(data["table11"], key=lambda r: -r["epsilon_bar"])
    best, *runners = ranked[:3]
    names = {"idg": "IDG", "cloud": "cloud", "beg": "BEG"}
    return (table(["q1 (Filter1)", *columns], rows)
            + f"\n\n{data['strategies']} strategies ran ({len(data['failed'])} failed). "
            f"Filter1 keeps S1 = {len(data['s1'])} strategies; Filter2 ranks by mean utilisation "
            f"efficiency: {best['label']} first ({best['epsilon_bar']:.3f}: "
            + ", ".join(f"{names.get(d, d)} {best[f'efficiency_{d}']:.3f}" for d in dcis)
            + "), then " + " and ".join(f"{r['label']} ({r['epsilon_bar']:.3f})"
                                        for r in runners)
            + f"; S2 keeps {len(data['s2'])} strategies.")


BLOCKS = [
    Block("pull-speed", BENCH_COMMAND, (BENCH,), _speed),
    Block("pull-table6", BENCH_COMMAND, (BENCH,), _table6),
    Block("pull-fig5", BENCH_COMMAND, (BENCH,), _fig5),
    Block("pull-paper",
          "hybridsched campaign examples/campaigns/pull-paper.toml -o results/pull/paper "
          "--serial", ("results/pull/paper",), _paper, scratch=("results/pull/paper",)),
    Block("pull-sigma",
          "hybridsched campaign examples/campaigns/fidelity-pull-sigma.toml -o "
          "results/pull/sigma --serial", ("results/pull/sigma",), _sigma,
          scratch=("results/pull/sigma",)),
    Block("pull-soft",
          "hybridsched soft examples/soft/paper.toml -o build/publish/soft --serial --json > "
          "results/pull/soft.json", ("results/pull/soft.json",), _soft,
          scratch=("build/publish/soft",)),
    Block("pull-decision",
          "python benchmarks/bench_promethee.py --output results/pull/decision.json",
          ("results/pull/decision.json",), _decision),
]
