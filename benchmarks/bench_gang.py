"""Gang family: online policies on 10,000 jobs, and the offline model's reach.

Run ``python benchmarks/bench_gang.py [--repeats 5] [--online-only]``, or
``--campaign-only`` for the table of section 0 alone; ``--output FILE.json`` also writes
section 0's figures as JSON, with the machine's cores and load, for
``scripts/publish_numbers.py``.

0. What a campaign user waits for (issue 35), per method on 10,000 jobs of
   the Table 2 scenario (``generate(10000, scenario="table2", seed=S)``,
   ``--seed``): the median wall time in process (``run_method``, the checker
   included; target < 0.5 s) and as a command on the instance saved to a
   file (``hybridsched solve inst.json --method M -o sol.json`` and the
   README's ``hybridsched simulate gang inst.json --method M -o sol.json``,
   each in a fresh interpreter: start-up, imports, reading and validating
   the file, the simulation, the checker and writing the schedule with its
   event log; target < 1.5 s), with the core count and the load average.
   Commands run as from an installed package, their bytecode compiled once
   (into a scratch ``PYTHONPYCACHEPREFIX``, by a warm-up run);
   ``--no-bytecode`` keeps ``PYTHONDONTWRITEBYTECODE`` as the environment
   sets it (modules without cached bytecode compile at every start).
   ``--source DIR`` measures another checkout (``DIR`` holds its
   ``hybridsched/``, e.g. ``git archive`` of an older commit), for figures
   before and after a change on the same machine at the same time.
1. Each method on 10,000 jobs on 120 VMs (Table 1 at 10 jobs per time unit,
   and Table 2 at 40): median wall time in process (``run_method``, the
   checker included) and events per second. Target (issue 21): < 0.5 s per
   method on 2 cores.
2. The yardstick (issue 21): strict FIFO on a plain heap of events, no SimPy
   (``gang_heap_fifo.py``), checked to give the identical schedule, against
   the ``fifo`` simulation alone and through ``run_method``; target: the
   simulation within 1.5x of the yardstick.
3. The offline model (``exact``) on the Table 2 scenario at 3 jobs per time
   unit: 10 jobs on 8 VMs (seeds 0-4: median time and statuses; target:
   proven < 10 s), then seed 0 with growing sizes (jobs, VMs) until one is not
   proven within 60 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import Recorder, machine_line, median_time
from gang_heap_fifo import heap_fifo, same_schedule

import hybridsched
from hybridsched import run_method
from hybridsched.catalogue import get_family
from hybridsched.gang.generator import generate
from hybridsched.heuristics.gang.baselines import fifo
from hybridsched.heuristics.gang.simulation import simulate
from hybridsched.result import Status
from hybridsched.storage import save_instance

METHODS = ("cplmt", "fifo", "fair", "asjs", "cmms")
SIZES = ((10, 8), (15, 8), (20, 8), (25, 10), (30, 10), (40, 12), (50, 12))


#: Issue 35's targets: seconds in process and as a command, per method.
TARGET_IN_PROCESS, TARGET_COMMAND = 0.5, 1.5


def _command_env(pycache: Path | None, source: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if pycache is not None:  # as an installed package: bytecode compiled once
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    return env


def _command_time(command: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, check=False, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit code {done.returncode}: {done.stderr}")
    return seconds


def bench_campaign(repeats: int, seed: int, bytecode: bool, source: Path | None,
                   record: Recorder) -> None:
    """Section 0 (module docstring): in process and as a command, per method."""
    instance = generate(10000, scenario="table2", seed=seed)
    scratch = Path(tempfile.mkdtemp(prefix="bench-gang-"))
    try:
        path = scratch / "inst.json"
        save_instance(path, get_family("gang"), instance)
        env = _command_env(scratch / "pycache" if bytecode else None, source)
        print(f"issue 35: 10,000 jobs, table2, seed {seed}; package "
              f"{Path(hybridsched.__file__).parent.parent}; {os.cpu_count()} cores; "
              f"medians of {repeats}; commands {'with' if bytecode else 'without'} bytecode; "
              f"targets < {TARGET_IN_PROCESS:g} s in process, < {TARGET_COMMAND:g} s as a "
              "command", flush=True)
        for method in METHODS:
            output = str(scratch / f"{method}.json")
            commands = {"solve": ["solve", str(path), "--method", method, "-o", output],
                        "simulate gang": ["simulate", "gang", str(path), "--method", method,
                                          "-o", output]}
            run_method("gang", method, instance)
            inside = median_time(lambda method=method: run_method("gang", method, instance),
                                 repeats)[0]
            row = {"method": method, "in_process_s": inside}
            line = (f"  {method:6s} in process {inside:5.3f} s "
                    f"({'met' if inside < TARGET_IN_PROCESS else 'NOT met'}, load "
                    f"{os.getloadavg()[0]:.2f})")
            for name, argv in commands.items():
                command = [sys.executable, "-m", "hybridsched", *argv]
                _command_time(command, env, scratch)  # warm: the file cache, the bytecode
                outside = statistics.median(_command_time(command, env, scratch)
                                            for _ in range(repeats))
                row[f"{name.split()[0]}_s"] = outside
                line += (f"  {name} {outside:5.3f} s "
                         f"({'met' if outside < TARGET_COMMAND else 'NOT met'}, load "
                         f"{os.getloadavg()[0]:.2f})")
            print(line, flush=True)
            record.add(**row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def bench_online(repeats: int) -> None:
    for scenario, rate in (("table1", 10.0), ("table2", 40.0)):
        instance = generate(10000, rate, scenario, 0)
        print(f"10,000 jobs, 120 VMs, {scenario} at {rate:g} jobs per time unit")
        for method in METHODS:
            times, rates = [], []
            for _ in range(repeats):
                start = time.perf_counter()
                result = run_method("gang", method, instance)
                times.append(time.perf_counter() - start)
                rates.append(result.metrics["events"] / times[-1])
            print(f"  {method:6s} median {statistics.median(times):5.2f} s  "
                  f"{statistics.median(rates):8.0f} events/s  UFJ {result.objective:g}")


def bench_yardstick(repeats: int) -> None:
    print(f"yardstick: strict FIFO on a heap, medians of {repeats}")
    for scenario, rate in (("table1", 10.0), ("table2", 40.0)):
        instance = generate(10000, rate, scenario, 0)
        if not same_schedule(heap_fifo(instance), simulate(instance, fifo)[0]):
            raise SystemExit(f"{scenario}: the yardstick's schedule differs from fifo's")
        heap = median_time(lambda instance=instance: heap_fifo(instance), repeats)[0]
        alone = median_time(lambda instance=instance: simulate(instance, fifo), repeats)[0]
        checked = median_time(lambda instance=instance: run_method("gang", "fifo", instance),
                              repeats)[0]
        print(f"  {scenario}: heap {heap:5.3f} s, fifo simulated {alone:5.3f} s "
              f"({alone / heap:.2f}x), through run_method {checked:5.3f} s "
              f"({checked / heap:.2f}x)")


def bench_exact() -> None:
    print("offline model, table2 at 3 jobs per time unit")
    times, statuses = [], []
    for seed in range(5):
        instance = generate(10, 3.0, "table2", seed, vms=8)
        start = time.perf_counter()
        result = run_method("gang", "exact", instance, time_limit=60)
        times.append(time.perf_counter() - start)
        statuses.append(result.status.value)
    print(f"  10 jobs, 8 VMs, seeds 0-4: median {statistics.median(times):.2f} s "
          f"(max {max(times):.2f} s); {statuses}")
    largest = None
    for jobs, vms in SIZES:
        instance = generate(jobs, 3.0, "table2", 0, vms=vms)
        start = time.perf_counter()
        result = run_method("gang", "exact", instance, time_limit=60)
        seconds = time.perf_counter() - start
        print(f"  {jobs} jobs, {vms} VMs: {seconds:6.2f} s  {result.status.value}  "
              f"UFJ {result.objective:g} (bound {result.bound:g})", flush=True)
        if result.status is not Status.OPTIMAL:
            break
        largest = (jobs, vms)
    print(f"  largest proven within 60 s: {largest}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--online-only", action="store_true",
                        help="skip the offline model (minutes)")
    parser.add_argument("--campaign-only", action="store_true",
                        help="only section 0: in process and as a command (issue 35)")
    parser.add_argument("--seed", type=int, default=0, help="seed of section 0's instance")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="section 0's commands compile from source at every start")
    parser.add_argument("--source", type=Path, default=None,
                        help="folder holding another checkout's hybridsched/ to measure")
    parser.add_argument("--output", default=None,
                        help="also write section 0's figures to this JSON file")
    args = parser.parse_args()
    source = args.source.resolve() if args.source is not None else None
    if source is not None and os.environ.get("BENCH_GANG_SOURCE") != str(source):
        # This script again, importing the other checkout (in process and in commands).
        env = _command_env(None, source)
        env["BENCH_GANG_SOURCE"] = str(source)
        raise SystemExit(subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env,
                                        check=False).returncode)
    print(machine_line())
    record = Recorder(args.output, jobs=10000, scenario="table2", seed=args.seed,
                      repeats=args.repeats, bytecode=not args.no_bytecode,
                      targets_s={"in_process": TARGET_IN_PROCESS, "command": TARGET_COMMAND})
    bench_campaign(args.repeats, args.seed, not args.no_bytecode, source, record)
    record.write()
    if args.campaign_only:
        return
    bench_online(args.repeats)
    bench_yardstick(args.repeats)
    if not args.online_only:
        bench_exact()


if __name__ == "__main__":
    main()
