"""Campaign bookkeeping speed: expanding a spec of 200 file runs, and a 10,000-row report.

Run ``python benchmarks/bench_spec_report.py [--repeats 5]``.

1. ``load_spec`` of 20 instance files x 5 methods x 2 seeds = 200 runs
   (target < 1 s: reading, validating and expanding a spec is interactive).
2. ``write_report`` of 10,000 result rows, everything but drawing and encoding
   the figures (replaced by stubs, as drawing is the plotting library's time),
   rows replicated from a small real campaign (hybrid-deadline: cdf+ra, ffd,
   exact on six bundled instances). Target < 5 s.

These were wall-clock assertions in ``tests/experiments`` (issue 7); a loaded
machine failed them (issue 17), so they are measured here.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
from _common import machine_line, median_time

from hybridsched.experiments import report
from hybridsched.experiments.campaign import run_campaign
from hybridsched.experiments.spec import load_spec
from hybridsched.experiments.store_read import load_results

INSTANCES = Path(__file__).resolve().parents[1] / "instances" / "hybrid-deadline"
METHODS = ("cdf", "cdf+ra", "ffd", "ffd+ra", "exact")
#: The report's figures, by the alias of their module in report.py.
PLOTS = (("profile_plots", "plot_performance_profile"), ("profile_plots", "plot_gap_boxes"),
         ("profile_plots", "plot_runtime_scaling"), ("pareto_plots", "plot_objective_space"),
         ("gantt_plots", "gantt_for"))


def spec_of_file_runs(folder: Path) -> Path:
    """A spec of 20 copied bundled instances x 5 methods x 2 seeds (200 runs)."""
    for k in range(20):
        (folder / f"i{k:02}.json").write_text(
            (INSTANCES / f"small-{k % 12 + 1:02}.json").read_text())
    spec = folder / "spec.toml"
    spec.write_text('[[instances]]\nfiles = ["*.json"]\n' + "".join(
        f'[[methods]]\nname = "{m}"\nseeds = {{ stop = 2 }}\n' for m in METHODS))
    return spec


def results_table(folder: Path, rows: int) -> pd.DataFrame:
    """``rows`` rows replicated (new keys and seeds) from a small real serial campaign."""
    spec = folder / "small.toml"
    files = [f"{(INSTANCES / f'small-0{i}.json').as_posix()}" for i in range(1, 7)]
    spec.write_text("[campaign]\ntime_limit = 10.0\n[[instances]]\n"
                    f"files = {files}\n" + "".join(
                        f'[[methods]]\nname = "{m}"\n' for m in ("cdf+ra", "ffd", "exact")))
    run_campaign(spec, folder / "small", mode="serial")
    base = load_results(folder / "small")
    copies = rows // len(base) + 1
    big = pd.concat([base.assign(seed=s, key=base["key"] + f"-{s}") for s in range(copies)],
                    ignore_index=True).iloc[:rows]
    big["runtime_s"] = np.random.default_rng(0).uniform(0.001, 1.0, len(big))
    return big


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        spec = spec_of_file_runs(folder)
        seconds, campaign = median_time(lambda: load_spec(spec), args.repeats)
        runs = sum(len(m.seeds) for m in campaign.methods) * len(campaign.sources)
        print(f"1. load_spec, {runs} file runs: median {seconds:.3f} s (target < 1 s)")
        table = results_table(folder, 10_000)
        stubs = [mock.patch.object(report, "_png", lambda figure: b"\x89PNG\r\n\x1a\n")]
        stubs += [mock.patch.object(getattr(report, module), name, lambda *a, **k: "figure")
                  for module, name in PLOTS]
        for stub in stubs:
            stub.start()
        try:
            seconds, written = median_time(
                lambda: report.write_report(table, folder / "report"), args.repeats)
        finally:
            for stub in stubs:
                stub.stop()
        print(f"2. write_report, {len(table):,} rows without drawing: median {seconds:.2f} s "
              f"(target < 5 s), {len(written)} files")


if __name__ == "__main__":
    main()
