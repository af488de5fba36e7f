"""Malleable family: online simulation speed and the cost of one aggregation vs tree size.

Run ``python benchmarks/bench_malleable.py [--repeats 5] [--jobs 10000] [--part all]``.

1. One decision's aggregation (Algorithm 4 over precomputed leaf
   candidates) on balanced trees of 10, 100 and 1,000 leaves (fan-out 10),
   and on flat stars of the same sizes: median time per decision and the
   fitted exponent of time against the number of nodes (linear expected).
2. Simulation of ``--jobs`` jobs on the 100-leaf platform of
   ``examples/trees/hundred-leaves.toml`` (agent tree, policy A), for the
   mixed, small and big sets, in process: median wall and CPU time and
   events per second. Target (issue 21): < 2 s for 10,000 jobs.
3. The same as a whole command, as a user runs it on a saved instance:
   ``python -m hybridsched solve INSTANCE --method tree --json -o OUT`` in a
   subprocess (start-up, reading and checking the instance, the simulation,
   the checker and writing the JSON schedule): median wall time, and the
   run's own ``runtime_s`` (the method alone) for comparison.

Every figure is a median over ``--repeats`` runs (>= 5 for the docs). ``--output FILE.json``
also writes them as JSON, one section per part, with the machine's cores and load, for
``scripts/publish_numbers.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx
import numpy as np
from _common import Recorder, machine_line

from hybridsched.heuristics.malleable.agent_tree import compile_tree, select
from hybridsched.heuristics.malleable.simulation import simulate
from hybridsched.malleable.candidates import Candidate
from hybridsched.malleable.generator import generate
from hybridsched.malleable.tree_config import load_platform

TREE = Path(__file__).parents[1] / "examples" / "trees" / "hundred-leaves.toml"
MIXES = ("mixed", "small", "big")


def _instances(jobs: int) -> dict[str, object]:
    platform = load_platform(TREE)
    return {mix: generate(jobs, mix, 0, resources=platform.resources, tree=platform.tree)
            for mix in MIXES}


def bench_simulation(jobs: int, repeats: int, record: Recorder) -> None:
    print(f"simulation in process: {jobs} jobs, {TREE.name}, agent tree, policy A")
    for mix, instance in _instances(jobs).items():
        walls, cpus, rates = [], [], []
        for _ in range(repeats):
            start, cpu = time.perf_counter(), time.process_time()
            _, stats = simulate(instance, "tree", "A", 0)
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
            rates.append(stats.events / walls[-1])
        print(f"  {mix:6s} median {statistics.median(walls):6.2f} s wall "
              f"{statistics.median(cpus):6.2f} s CPU  "
              f"{statistics.median(rates):8.0f} events/s  "
              f"({stats.decisions} decisions, {stats.metrics()['messages_per_decision']:.0f} "
              f"messages per decision)")
        record.add("simulation", mix=mix, wall_s=statistics.median(walls),
                   cpu_s=statistics.median(cpus), events_per_s=statistics.median(rates),
                   decisions=stats.decisions)


def bench_command(jobs: int, repeats: int, record: Recorder) -> None:
    from hybridsched.catalogue import get_family
    from hybridsched.storage import save_instance

    print(f"whole command: python -m hybridsched solve INSTANCE --method tree --json -o OUT "
          f"({jobs} jobs, {TREE.name})")
    family = get_family("malleable")
    with tempfile.TemporaryDirectory() as tmp:
        for mix, instance in _instances(jobs).items():
            path, out = Path(tmp) / f"{mix}.json", Path(tmp) / f"{mix}-schedule.json"
            save_instance(path, family, instance)
            command = [sys.executable, "-m", "hybridsched", "solve", str(path),
                       "--method", "tree", "--json", "-o", str(out)]
            walls, inside = [], []
            for _ in range(repeats):
                start = time.perf_counter()
                done = subprocess.run(command, capture_output=True, text=True, check=True)
                walls.append(time.perf_counter() - start)
                inside.append(json.loads(done.stdout)["runtime_s"])
            print(f"  {mix:6s} median {statistics.median(walls):6.2f} s wall "
                  f"(the method itself: {statistics.median(inside):5.2f} s; "
                  f"schedule file {out.stat().st_size / 1e6:.1f} MB)")
            record.add("command", mix=mix, wall_s=statistics.median(walls),
                       runtime_s=statistics.median(inside),
                       schedule_mb=out.stat().st_size / 1e6)


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


def bench_aggregation(repeats: int, record: Recorder) -> None:
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
            record.add("aggregation", shape=name, leaves=leaves, nodes=len(tree.names),
                       seconds=medians[-1], messages=tree.messages_per_decision,
                       critical_path=tree.critical_path)
        slope = np.polyfit(np.log(sizes), np.log(medians), 1)[0]
        print(f"  {name}: fitted exponent of time vs nodes = {slope:.2f}")
        record.add("aggregation_exponents", shape=name, exponent=float(slope))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=10000)
    parser.add_argument("--part", choices=("all", "aggregation", "simulation", "command"),
                        default="all")
    parser.add_argument("--output", default=None, help="also write the figures to this JSON")
    args = parser.parse_args()
    record = Recorder(args.output, jobs=args.jobs, repeats=args.repeats, tree=TREE.name)
    print(machine_line())
    if args.part in ("all", "aggregation"):
        bench_aggregation(args.repeats, record)
    if args.part in ("all", "simulation"):
        bench_simulation(args.jobs, args.repeats, record)
    if args.part in ("all", "command"):
        bench_command(args.jobs, args.repeats, record)
    record.write()


if __name__ == "__main__":
    main()
