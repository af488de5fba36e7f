"""Campaign engine speed: serial, the default mode, a 2-worker LocalCluster, a plain pool.

Run ``python benchmarks/bench_campaign.py [--repeats 3] [--tasks 150] [--campaign large]``,
or ``--campaign mixed --repeats 5``.
Each repeat runs the same campaign into a fresh store serially, in the default
mode (``auto``: serial while the runs left are short, then a cluster), and
forced on a ``LocalCluster`` of 2 single-threaded worker processes; the same
runs split over 2 plain processes (``concurrent.futures``, no Dask) give the
ceiling. ``large`` (default): 200 runs (CDF+RA and FFD+RA on 100 generated
hybrid-deadline instances), then the finished campaign is rerun from the
command line (nothing to do: the resume time). ``small``: every heuristic on
every bundled instance of four families (104 short runs). ``mixed``: what a
researcher's campaign looks like, and not what the engine was tuned on: an
exact solve first (HiGHS on a bundled hybrid-deadline instance), then runs
of five families whose times differ by 1,000x (heuristics of microseconds to
milliseconds, simulations, and a few more exact solves). For ``mixed`` the
table is serial, default and forced-cluster wall times (medians), the
default mode's speed relative to serial in every repeat (target: never below
0.95x), and the default mode's one-line note (what it chose).

Per-run overhead = (wall time without cluster start-up x workers - the time
the workers spent inside the runs (``wall_s``: loading or generating the
instance, the method, the checker)) / runs: what planning, shipping, scheduling
and storing a run cost. The time the checker and instance loading take is
printed apart (it is the same in every mode). Targets (issue 7): cluster at least 1.8x
faster than serial on 2 cores; overhead < 20 ms; resume < 2 s.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine_line

from hybridsched.experiments.campaign import run_campaign
from hybridsched.experiments.runner import execute_run
from hybridsched.experiments.runs import plan_runs
from hybridsched.experiments.spec import load_spec
from hybridsched.experiments.store_read import load_results

SPEC = """
[campaign]
name = "bench"
[[instances]]
generator = "hybrid-deadline"
seeds = {{ start = 0, stop = 50 }}
[instances.options]
tasks = [{tasks}, {tasks2}]
[[methods]]
name = "cdf+ra"
[[methods]]
name = "ffd+ra"
"""

ROOT = Path(__file__).resolve().parents[1]
SMALL = f"""
[campaign]
name = "bench-small"
[[instances]]
files = ["{ROOT.as_posix()}/instances/hybrid-deadline/*.json",
         "{ROOT.as_posix()}/instances/bot-sites/*.json",
         "{ROOT.as_posix()}/instances/gang/*.json",
         "{ROOT.as_posix()}/instances/malleable/*.json"]
""" + "".join(f'[[methods]]\nname = "{m}"\n' for m in (
    "cdf", "cdf+ra", "ffd", "ffd+ra", "gmo", "g-met", "g-mct", "g-olb", "g-min-min",
    "g-max-min", "g-sufferage", "cplmt", "fifo", "fair", "asjs", "cmms", "tree", "flat",
    "round-robin"))


#: A mixed campaign: an exact solve first, then methods whose run times differ by 1,000x.
MIXED = f"""
[campaign]
name = "bench-mixed"
time_limit = 20.0
[[instances]]
files = ["{ROOT.as_posix()}/instances/hybrid-deadline/small-0[1-9].json",
         "{ROOT.as_posix()}/instances/bot-sites/*.json",
         "{ROOT.as_posix()}/instances/gang/*.json",
         "{ROOT.as_posix()}/instances/pull/*.json"]
[[methods]]
name = "exact"
family = "hybrid-deadline"
""" + "".join(f'[[methods]]\nname = "{m}"\n' for m in (
    "cdf", "cdf+ra", "ffd", "ffd+ra", "gmo", "g-met", "g-mct", "g-min-min", "g-sufferage",
    "cplmt", "fifo", "fair", "asjs", "cmms")) + """
[[methods]]
name = "promethee"
seeds = [0, 1, 2]
[[methods]]
name = "fcfs"
seeds = [0, 1, 2]
[[methods]]
name = "exact"
family = "gang"
"""


def _run_half(runs: list) -> float:
    start = time.perf_counter()
    for run in runs:
        execute_run(run)
    return time.perf_counter() - start


def hardware_ceiling(spec: Path) -> float:
    """Speed-up of the same runs split over 2 plain processes (no Dask): what 2 cores give."""
    runs = list(plan_runs(load_spec(spec)))
    start = time.perf_counter()
    _run_half(runs)
    alone = time.perf_counter() - start
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
        # Both processes started and warm (imports done) before timing, as the driver is.
        list(pool.map(_run_half, [runs[:1], runs[1:2]]))
        start = time.perf_counter()
        half = len(runs) // 2  # runs come instance by instance: each process loads its own
        list(pool.map(_run_half, [runs[:half], runs[half:]]))
        both = time.perf_counter() - start
    return alone / both


def one_repeat(folder: Path, tasks: int, which: str) -> dict[str, float]:
    spec = folder / "bench.toml"
    spec.write_text(SPEC.format(tasks=tasks, tasks2=tasks + 10) if which == "large"
                    else MIXED if which == "mixed" else SMALL)
    expected = len(list(plan_runs(load_spec(spec))))
    figures: dict[str, float] = {"runs": expected}
    if which == "mixed":
        return mixed_repeat(folder, spec, expected, figures)
    run_campaign(spec, folder / "warm", mode="serial")  # imports paid before any timing
    for mode in ("serial", "auto", "local"):
        out = folder / mode
        start, cpu = time.perf_counter(), time.process_time()
        summary = run_campaign(spec, out, mode=mode, workers=2)
        wall = time.perf_counter() - start
        figures[f"{mode}_driver_cpu"] = time.process_time() - cpu
        figures[f"{mode}_cluster"] = float(summary.mode != "serial")
        assert summary.ran == expected, summary
        table = load_results(out)
        work = float(table["wall_s"].sum())
        figures[f"{mode}_method"] = float(table["runtime_s"].sum())
        workers = 1 if summary.mode == "serial" else summary.workers
        figures[f"{mode}_wall"] = wall
        figures[f"{mode}_runs_wall"] = wall - summary.startup_s
        figures[f"{mode}_startup"] = summary.startup_s
        figures[f"{mode}_overhead_ms"] = 1000 * ((wall - summary.startup_s) * workers
                                                 - work) / summary.ran
        figures[f"{mode}_work"] = work
    figures["ceiling"] = hardware_ceiling(spec)
    if which != "large":
        return figures
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hybridsched", "--quiet", "campaign", str(spec),
                    "-o", str(folder / "local")], check=True, stdout=subprocess.DEVNULL)
    figures["resume_cli"] = time.perf_counter() - start
    return figures


def mixed_repeat(folder: Path, spec: Path, expected: int, figures: dict) -> dict:
    """Serial, default and forced-cluster runs of the mixed campaign, each in a fresh process.

    A fresh process each time (the command line, as a user runs it): the
    imports are part of what the user waits for, and a warm process would
    hide the first run's import cost that fooled the old start-up estimate.
    """
    for mode, flags in (("serial", ["--serial"]), ("auto", []), ("local", ["--workers", "2"])):
        out = folder / mode
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "hybridsched", "--quiet", "campaign",
                               str(spec), "-o", str(out), "--json", *flags],
                              check=True, capture_output=True, text=True)
        figures[f"{mode}_wall"] = time.perf_counter() - start
        summary = json.loads(done.stdout)
        assert summary["ran"] == expected, summary
        if mode == "auto":
            figures["auto_note"] = summary["mode_note"]
    figures["auto_ratio"] = figures["serial_wall"] / figures["auto_wall"]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=150,
                        help="tasks of the smaller instances (the others have 10 more)")
    parser.add_argument("--campaign", choices=("large", "small", "mixed"), default="large")
    args = parser.parse_args()
    print(machine_line())
    rows = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as folder:
            rows.append(one_repeat(Path(folder), args.tasks, args.campaign))
    if args.campaign == "mixed":
        print_mixed(rows)
        return
    med = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    print(f"{med['runs']:.0f} runs: methods alone {med['serial_method']:.2f} s serial / "
          f"{med['local_method']:.2f} s on the cluster; with instance generation and checks "
          f"{med['serial_work']:.2f} s serial / {med['local_work']:.2f} s on the cluster "
          f"(medians of {args.repeats})")
    print(f"driver CPU: serial {med['serial_driver_cpu']:.2f} s, cluster "
          f"{med['local_driver_cpu']:.2f} s (scheduler, client and store)")
    print(f"serial:           {med['serial_wall']:.2f} s, per-run overhead "
          f"{med['serial_overhead_ms']:.1f} ms")
    print(f"LocalCluster (2): {med['local_wall']:.2f} s including start-up "
          f"{med['local_startup']:.2f} s; runs alone {med['local_runs_wall']:.2f} s; "
          f"per-run overhead {med['local_overhead_ms']:.1f} ms")
    where = "on the cluster" if med["auto_cluster"] else "serial"
    print(f"default mode:     {med['auto_wall']:.2f} s ({where} in most repeats)")
    print(f"speed-up over serial: default mode {med['serial_wall'] / med['auto_wall']:.2f}x "
          f"(target: never below 1), LocalCluster {med['serial_wall'] / med['local_wall']:.2f}x "
          f"with start-up, {med['serial_wall'] / med['local_runs_wall']:.2f}x without (target "
          f">= 1.8x); the same runs on 2 plain processes without Dask: {med['ceiling']:.2f}x, "
          f"so the cluster reaches "
          f"{med['serial_wall'] / med['local_runs_wall'] / med['ceiling']:.2f} of the plain "
          "pool (target >= 0.95)")
    if args.campaign != "large":
        return
    print(f"resume of the finished campaign (CLI, nothing to do): {med['resume_cli']:.2f} s "
          "(target < 2 s)")


def print_mixed(rows: list[dict]) -> None:
    """The mixed campaign's table: medians, every repeat's ratio and note, the load."""
    def med(key: str) -> float:
        return statistics.median(r[key] for r in rows)

    print(f"mixed campaign, {rows[0]['runs']:.0f} runs, medians of {len(rows)} "
          f"(whole commands, imports included): serial {med('serial_wall'):.1f} s, default "
          f"{med('auto_wall'):.1f} s, forced 2-worker cluster {med('local_wall'):.1f} s")
    print("default / serial speed, each repeat: "
          + ", ".join(f"{r['auto_ratio']:.2f}x" for r in rows)
          + f" (median {med('auto_ratio'):.2f}x; target >= 0.95x); forced cluster "
          f"{med('serial_wall') / med('local_wall'):.2f}x")
    for r in rows:
        print(f"  default: {r['auto_note']}")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
