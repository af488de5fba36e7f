"""Blocks of ``docs/results/hybrid-deadline.md``: rent on the NASA trace, scaling, proofs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from published import Block, compare_summary, load_json, num, pct, secs, sig, table

NASA = "results/hybrid-deadline/nasa.json"
NASA_COMMAND = f"python benchmarks/bench_hybrid_deadline.py --part 1,2 --output {NASA}"


def _machine(data: dict) -> str:
    machine = data["machine"]
    return (f"{machine['cores']} cores, load average {machine['load_before']:.1f} before, "
            f"{machine['load_after']:.1f} after")


def _rent(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows, savings = [], []
    for row in data["trace"]:
        saving = 1 - row["cdf_ra_cost"] / row["ffd_cost"]
        savings.append(saving)
        rows.append([row["alpha"], f"{row['cdf_ra_cost']:,.2f}", f"{row['ffd_cost']:,.2f}",
                     pct(saving), num(row["vms"]), sig(row["cdf_ra_s"])])
    first = data["trace"][0]
    return (table(["alpha", "CDF+RA rent cost ($)", "FFD rent cost ($)",
                   "CDF+RA saves (% of FFD's cost)", "VMs rented by CDF+RA",
                   "CDF+RA run time (s)"], rows)
            + f"\n\n{num(first['tasks'])} tasks; run time: median of {first['repeats']} runs "
            f"in process, {_machine(data)}. Our saving goes from {pct(savings[0])} at alpha "
            f"{data['trace'][0]['alpha']} to {pct(savings[-1])} at alpha "
            f"{data['trace'][-1]['alpha']}.")


def _scaling(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    sizes = sorted({row["tasks"] for row in data["scaling"]})
    exponents = {row["method"]: row for row in data["exponents"]}
    rows = []
    for method in exponents:
        times = {row["tasks"]: row for row in data["scaling"] if row["method"] == method}
        rows.append([method.upper(), *[sig(times[n]["wall_s"]) for n in sizes],
                     f"{exponents[method]['wall']:.2f} ({exponents[method]['cpu']:.2f})"])
    repeats = data["scaling"][0]["repeats"]
    return (table(["method", *[f"{num(n)} tasks (s)" for n in sizes],
                   "empirical exponent, wall (CPU time)"], rows)
            + f"\n\nFirst N records of the NASA trace at alpha 1; wall-time medians of "
            f"{repeats} runs; exponent: slope of a log-log fit from {num(sizes[0])} to "
            f"{num(sizes[-1])} tasks (target <= {exponents[method]['target']:g}); "
            f"{_machine(data)}.")


def _exact(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    bundle = data["bundle"]
    bundle_times = sorted(row["runtime_s"] for row in bundle)
    slowest = max(bundle, key=lambda row: row["runtime_s"])
    matches = sum(abs(row["cost"] - row["recorded"]) <= 1e-6 * max(1.0, row["recorded"])
                  for row in bundle)
    proven = sum(row["status"] == "optimal" for row in bundle)
    rows = [[f"bundled ({len(bundle)}, `instances/hybrid-deadline/small-*`)",
             secs(_median(bundle_times)), f"{secs(slowest['runtime_s'])} ({slowest['instance']})",
             f"{proven}/{len(bundle)}"]]
    for row in data.get("exact", []):
        rows.append([f"generated, {row['tasks']} tasks, seeds 0-{row['seeds'] - 1}",
                     secs(row["median_s"]), secs(row["max_s"])
                     + (" (at the limit)" if row["max_s"] >= 0.95 * row["time_limit_s"] else ""),
                     f"{row['proven']}/{row['seeds']}"])
    limit = bundle[0]["time_limit_s"]
    return (table(["instances", "median time (s)", "largest time (s)", "proven optimal"], rows)
            + f"\n\nTime limit {limit:g} s per run; {matches} of the {len(bundle)} bundled "
            f"instances end at their recorded optimal rent; {_machine(data)}.")


def _median(values: list[float]) -> float:
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def _small(paths: Sequence[Path]) -> str:
    return compare_summary(load_json(paths[0]),
                           {"cdf+ra": "CDF+RA", "cdf": "CDF", "ffd+ra": "FFD+RA", "ffd": "FFD",
                            "bound": "bound", "exact": "exact"}, "rent cost ($)")


BLOCKS = [
    Block("hybrid-deadline-nasa-rent", NASA_COMMAND, (NASA,), _rent),
    Block("hybrid-deadline-nasa-scaling", NASA_COMMAND, (NASA,), _scaling),
    Block("hybrid-deadline-exact",
          "python benchmarks/bench_hybrid_deadline.py --part 3,4 --seeds 7 --time-limit 60 "
          "--output results/hybrid-deadline/exact.json",
          ("results/hybrid-deadline/exact.json",), _exact),
    Block("hybrid-deadline-small",
          "hybridsched compare instances/hybrid-deadline/small-*.json --json > "
          "results/hybrid-deadline/small-compare.json",
          ("results/hybrid-deadline/small-compare.json",), _small),
]
