"""Blocks of ``docs/results/malleable.md``: the paper's comparison, offline optima, speed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from published import Block, load_json, load_store, num, pct, sig, table

#: The paper's metrics (Figs. 2-7) as store columns, with their printed names.
METRICS = {"metric_cost": "total cost", "metric_total_time": "total execution time",
           "metric_total_delay": "total delay"}
POLICIES = {"A": "A (money saving)", "B": "B (time saving)"}


def _option(options: str, key: str, default: str | None = None) -> str | None:
    return json.loads(options).get(key, default)


def _paper(paths: Sequence[Path]) -> str:
    runs = load_store(paths[0])
    sources = runs["source"].map(lambda s: dict(json.loads(s)["options"]))
    runs = runs.assign(jobs=sources.map(lambda o: o["jobs"]), mix=sources.map(lambda o: o["mix"]),
                       policy=runs["options"].map(lambda o: _option(o, "policy")))
    largest = int(runs["jobs"].max())
    runs = runs[runs["jobs"] == largest]
    keys = ["mix", "method_name", "policy"]
    means = runs.groupby(keys, dropna=False)[list(METRICS)].mean()
    seeds = int(runs.groupby(keys, dropna=False).size().min())
    rows = []
    for mix in ("big", "mixed", "small"):
        baseline = means.loc[(mix, "round-robin")].iloc[0]
        for policy in POLICIES:
            tree = means.loc[(mix, "tree", policy)]
            rows.append([mix, POLICIES[policy],
                         *[f"{tree[m] / baseline[m]:.2f}" for m in METRICS]])
    return (table(["job set", "policy", *[f"{name} (tree / round robin)"
                                         for name in METRICS.values()]], rows)
            + f"\n\nMean of each metric for the agent tree divided by round robin's, at "
            f"{num(largest)} jobs on the default platform ({seeds} seeds); below 1 the tree "
            "does better.")


def _batch(paths: Sequence[Path]) -> str:
    runs = load_store(paths[0])
    runs = runs.assign(policy=runs["options"].map(lambda o: _option(o, "policy")))
    proven = runs["reference_kind"] == "optimum (recorded)"
    bounded = sorted(set(runs.loc[~proven, "instance"]))
    rows = []
    for policy in POLICIES:
        for method in ("tree", "flat", "round-robin"):
            chosen = runs[(runs["method_name"] == method) & (runs["policy"] == policy)]
            recorded = chosen["reference_kind"] == "optimum (recorded)"
            optimum = chosen[recorded]
            by_bound = chosen[~recorded].set_index("instance")["gap"]
            rows.append([POLICIES[policy], method, len(optimum), pct(optimum["gap"].mean(), 0),
                         pct(optimum["gap"].max(), 0),
                         "; ".join(f"{name}: {pct(by_bound[name], 0)}"
                                   for name in bounded if name in by_bound) or "-"])
    same = _same_schedules(runs)
    return (table(["policy (scored by its own penalised cost)", "method",
                   "batches with a recorded optimum", "mean gap to the optimum", "largest gap",
                   "gap to the recorded lower bound (no optimum proven)"], rows)
            + "\n\nGap = `(penalised cost - reference) / reference`; against a lower bound it "
            "is an upper bound on the distance to the optimum. Tree and flat reach the same "
            f"penalised cost on {same}.")


def _same_schedules(runs) -> str:
    tree = runs[runs["method_name"] == "tree"].set_index(["instance", "policy"])["objective"]
    flat = runs[runs["method_name"] == "flat"].set_index(["instance", "policy"])["objective"]
    equal = int((tree.sort_index() == flat.sort_index()).sum())
    return "every batch under both policies" if equal == len(tree) else \
        f"{equal} of {len(tree)} (batch, policy) pairs"


def _speed(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows = []
    for sim in data.get("simulation", []):
        command = next((c for c in data.get("command", []) if c["mix"] == sim["mix"]), None)
        rows.append([sim["mix"], sig(sim["wall_s"]), sig(sim["events_per_s"]),
                     sig(command["wall_s"]) if command else "not run",
                     sig(command["runtime_s"]) if command else "not run"])
    aggregation = data.get("aggregation", [])
    machine = data["machine"]
    text = table(["job set", "simulation in process (s)", "events per second",
                  "`hybridsched solve --method tree` (s)", "the method alone in that command (s)"],
                 rows)
    text += (f"\n\n{num(data['jobs'])} jobs on the 100-leaf tree of "
             "`examples/trees/hundred-leaves.toml` (policy A), medians of "
             f"{data['repeats']} runs; target < 2 s in process (issue 21).")
    if aggregation:
        tree = [a for a in aggregation if a["shape"].startswith("tree")]
        exponent = next(e["exponent"] for e in data["aggregation_exponents"]
                        if e["shape"].startswith("tree"))
        text += (" One aggregation (Algorithm 4 over precomputed leaf candidates) on balanced "
                 "trees of " + " / ".join(num(a["leaves"]) for a in tree) + " leaves (fan-out "
                 "10): " + " / ".join(sig(a["seconds"] * 1e6) for a in tree) + " us; fitted "
                 f"exponent against the number of nodes {exponent:.2f} (linear expected).")
    return text + (f" {machine['cores']} cores, load average {machine['load_before']:.1f} "
                   f"before, {machine['load_after']:.1f} after.")


def _messages(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    at = {(a["shape"].split()[0], a["leaves"]): a for a in data["aggregation"]}
    tree, flat = at["tree", 100], at["flat", 100]
    return (f"Messages per decision on 100 leaves: {tree['messages']} for the two-level tree "
            f"(fan-out 10), {flat['messages']} for the flat broadcast (the job down each edge "
            f"and one reply up); on the critical path (the sum of fan-outs down the deepest "
            f"chain, the paper's O(mn)): {tree['critical_path']} and {flat['critical_path']}.")


BLOCKS = [
    Block("malleable-paper",
          "hybridsched campaign examples/campaigns/malleable-paper.toml -o "
          "results/malleable/paper --serial", ("results/malleable/paper",), _paper,
          scratch=("results/malleable/paper",)),
    Block("malleable-batch",
          "hybridsched campaign results/malleable/batch-optima.toml -o results/malleable/batch "
          "--serial", ("results/malleable/batch",), _batch, scratch=("results/malleable/batch",)),
    Block("malleable-speed",
          "python benchmarks/bench_malleable.py --output results/malleable/speed.json",
          ("results/malleable/speed.json",), _speed),
    Block("malleable-messages",
          "python benchmarks/bench_malleable.py --output results/malleable/speed.json",
          ("results/malleable/speed.json",), _messages),
]
