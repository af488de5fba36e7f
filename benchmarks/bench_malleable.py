"""Malleable family: online simulation speed and the cost of one aggregation vs tree size.

Run ``python benchmarks/bench_malleable.py [--repeats 3] [--jobs 10000]``.

1. Simulation of ``--jobs`` jobs on the 100-leaf platform of
   ``examples/trees/hundred-leaves.toml`` (agent tree, policy A), for the
   mixed, small and big sets: median wall time and events per second.
   Target (issue 8): < 20 s for 10,000 jobs.
2. One decision's aggregation (Algorithm 4 over precomputed leaf
   candidates) on balanced trees of 10, 100 and 1,000 leaves (fan-out 10),
   and on flat stars of the same sizes: median time per decision and the
   fitted exponent of time against the number of nodes (linear expected).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import networkx as nx
import numpy as np
from _common import machine_line

from hybridsched.heuristics.agent_tree import compile_tree, select
from hybridsched.malleable.candidates import Candidate
from hybridsched.malleable.generator import generate
from hybridsched.malleable.tree_config import load_platform
from hybridsched.sim.malleable import simulate

TREE = Path(__file__).parents[1] / "examples" / "trees" / "hundred-leaves.toml"


def bench_simulation(jobs: int, repeats: int) -> None:
    platform = load_platform(TREE)
    print(f"simulation: {jobs} jobs, {len(platform.resources)}-leaf tree, policy A")
    for mix in ("mixed", "small", "big"):
        instance = generate(jobs, mix, 0, resources=platform.resources, tree=platform.tree)
        times, rates = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            _, stats = simulate(instance, "tree", "A", 0)
            times.append(time.perf_counter() - start)
            rates.append(stats.events / times[-1])
        print(f"  {mix:6s} median {statistics.median(times):6.2f} s  "
              f"{statistics.median(rates):8.0f} events/s  "
              f"({stats.decisions} decisions, {stats.metrics()['messages_per_decision']:.0f} "
              f"messages per decision)")


def balanced(leaves: int, fanout: int) -> nx.DiGraph:
    graph = nx.DiGraph()
    level, made = ["root"], 0
    while len(level) * fanout <= leaves and len(level) < leaves:
        nxt = []
        for parent in level:
            for _ in range(fanout):
                made += 1
                graph.add_edge(parent, f"a{made}")
                nxt.append(f"a{made}")
        level = nxt
    for r, node in enumerate(level):
        graph.nodes[node]["resource"] = r
    return graph


def star(leaves: int) -> nx.DiGraph:
    graph = nx.DiGraph([("root", f"l{r}") for r in range(leaves)])
    for r in range(leaves):
        graph.nodes[f"l{r}"]["resource"] = r
    return graph


def bench_aggregation(repeats: int) -> None:
    rng = np.random.default_rng(0)
    print("aggregation of one decision (leaf candidates precomputed):")
    for name, make in (("tree (fan-out 10)", lambda n: balanced(n, 10)), ("flat star", star)):
        sizes, medians = [], []
        for leaves in (10, 100, 1000):
            tree = compile_tree(make(leaves))
            offers = {r: [Candidate(0, r, o, 0, int(rng.integers(5, 50)),
                                    float(rng.integers(0, 100)), 1, bool(rng.random() < 0.2))
                          for o in range(int(rng.integers(1, 3)))] for r in range(leaves)}
            per = []
            for _ in range(repeats):
                calls = max(1, 20000 // leaves)
                start = time.perf_counter()
                for _ in range(calls):
                    select(tree, offers.__getitem__, "A", 30.0, 20)
                per.append((time.perf_counter() - start) / calls)
            sizes.append(len(tree.names))
            medians.append(statistics.median(per))
            print(f"  {name:18s} {leaves:5d} leaves {len(tree.names):5d} nodes  "
                  f"{medians[-1] * 1e6:9.1f} us per decision  "
                  f"{tree.messages_per_decision} messages, critical path {tree.critical_path}")
        slope = np.polyfit(np.log(sizes), np.log(medians), 1)[0]
        print(f"  {name}: fitted exponent of time vs nodes = {slope:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=10000)
    args = parser.parse_args()
    print(machine_line())
    bench_aggregation(args.repeats)
    bench_simulation(args.jobs, args.repeats)


if __name__ == "__main__":
    main()
