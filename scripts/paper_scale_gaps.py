"""How far from optimal are the published heuristics at the papers' scale? (issue 32, item 6)

    python scripts/paper_scale_gaps.py                       # every setup, then the table
    python scripts/paper_scale_gaps.py --setups gang-table1 --seeds 3 --time-limit 120
    python scripts/paper_scale_gaps.py --table-only          # gaps.csv from the stores
    python scripts/paper_scale_gaps.py --table-only --docs   # and the docs' table from it

Per family, the paper's heuristic and its baselines run on the paper's setup
(:data:`SETUPS`) together with the family's ``bound`` method (its strong lower
bound, recomputed from its proof), as one campaign per setup through the
campaign engine: the stores in ``--output`` keep every finished run, so a
stopped run resumes (``--mode cluster --scheduler ADDRESS`` spreads it over a
Dask cluster). Each run's gap is ``(objective - bound) / bound`` to the best
bound of its instance (:mod:`hybridsched.experiments.tables`); per method the
table gives the mean gap over the setup's instances (seeds or trace windows)
with a 95% Student-t interval, the bound's method, and the command that makes
the row. ``gaps.csv`` in ``--output`` is what the table of ``docs/guide/bounds.md``
prints: its block ``paper-scale-gaps`` of ``scripts/publish_numbers.py``
(``--docs`` rewrites it; ``tests/test_readme_scale_gaps.py`` and
``tests/test_published_numbers.py`` check that it still does).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from hybridsched.stdio import owned_stdout

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "results" / "paper-scale"
#: The docs' block that prints ``gaps.csv`` (registered in ``scripts/publish_numbers.py``).
BLOCK = "paper-scale-gaps"

#: The table's columns, in order (``gaps.csv``).
COLUMNS = ("family", "setup", "method", "paper", "instances", "bounded", "mean_gap", "ci_low",
           "ci_high", "bound_method", "objective", "time_limit_s", "command")


@dataclass(frozen=True)
class Setup:
    """One paper's experimental setup at its scale.

    Attributes
    ----------
    name:
        Label (``--setups`` takes it).
    family:
        The family.
    description:
        What the instances are, in the paper's words where it has them.
    heuristics:
        The paper's heuristic first, then its baselines.
    sources:
        ``sources(seeds) -> [InstanceSource]``: the instances (a seed or a
        trace window each).
    """

    name: str
    family: str
    description: str
    heuristics: tuple[str, ...]
    sources: Any = field(compare=False)


def _generated(family: str, options: dict[str, Any]) -> Any:
    def make(seeds: int) -> list[Any]:
        from hybridsched.experiments.sources import generator_source

        return [generator_source(family, options, seed) for seed in range(seeds)]
    return make


def _nasa_windows(alpha: float, tasks: int) -> Any:
    """Consecutive windows of ``tasks`` records of the NASA iPSC trace (one per seed)."""
    def make(seeds: int) -> list[Any]:
        from hybridsched.experiments.sources import import_source
        from hybridsched.io.shared_data import shared_data_path

        trace = shared_data_path("traces/NASA-iPSC-1993-3.1-cln.swf.gz")
        if trace is None or not trace.exists():
            raise SystemExit("the NASA trace is not in the shared data folder (set "
                             "HYBRIDSCHED_DATA): the hybrid-deadline setup needs it")
        return [import_source("swf", trace, {"alpha": alpha, "limit": tasks,
                                             "skip": window * tasks})
                for window in range(seeds)]
    return make


def _braun(seeds: int) -> list[Any]:
    """The 12 Braun et al. ETC matrices (``seeds`` is ignored: the set is fixed)."""
    from hybridsched.experiments.sources import import_source
    from hybridsched.io.shared_data import shared_data_path

    folder = shared_data_path("braun-etc-512x16")
    if folder is None or not folder.exists():
        raise SystemExit("the Braun matrices are not in the shared data folder (set "
                         "HYBRIDSCHED_DATA): the bot-sites Braun setup needs them")
    return [import_source("etc", path) for path in sorted(folder.glob("u_*.0"))]


#: The papers' setups. hybrid-deadline: the NASA trace in windows of 1,800 tasks at
#: alpha 1-4 (paper 001 runs the whole trace at each alpha; windows give an interval);
#: bot-sites: GMO's scenario (paper 002: 10 sites, 10 BoTs of 10,000-20,000 tasks) and
#: the Braun matrices; gang: Tables 1 and 2 of paper 004 at 1,000 jobs; malleable:
#: 10,000 jobs (paper 003); pull: 2,000 units on the paper's three DCIs (paper 005).
SETUPS = [
    *[Setup(f"hybrid-deadline-nasa-a{alpha}", "hybrid-deadline",
            f"NASA iPSC trace, windows of 1,800 tasks, alpha {alpha}",
            ("cdf+ra", "cdf", "ffd", "ffd+ra"), _nasa_windows(alpha, 1800))
      for alpha in (1, 2, 3, 4)],
    Setup("bot-sites-gmo", "bot-sites",
          "GMO's scenario: 10 sites, 10 BoTs of 10,000-20,000 tasks, HiHi",
          ("gmo", "g-min-min", "g-max-min", "g-sufferage", "g-mct", "g-met", "g-olb"),
          _generated("bot-sites", {})),
    Setup("bot-sites-braun", "bot-sites", "the 12 Braun et al. ETC matrices (512 x 16)",
          ("gmo", "g-min-min", "g-max-min", "g-sufferage", "g-mct", "g-met", "g-olb"),
          _braun),
    *[Setup(f"gang-{table}", "gang", f"{table[:5].title()} {table[5:]} workload, 1,000 jobs",
            ("cplmt", "fifo", "fair", "asjs", "cmms"),
            _generated("gang", {"jobs": 1000, "scenario": table}))
      for table in ("table1", "table2")],
    Setup("malleable-10k", "malleable", "10,000 malleable jobs, mixed sizes",
          ("tree", "flat", "round-robin"), _generated("malleable", {"jobs": 10_000})),
    Setup("pull-2000", "pull", "2,000 work units on IDG, cloud and BEG",
          ("promethee", "fcfs"), _generated("pull", {"units": 2000})),
]


def command(setup: Setup, seeds: int, time_limit: float) -> str:
    """The command that makes a setup's rows."""
    return (f"python scripts/paper_scale_gaps.py --setups {setup.name} --seeds {seeds} "
            f"--time-limit {time_limit:g}")


def run_setup(setup: Setup, output: Path, *, seeds: int, time_limit: float, mode: str,
              scheduler: str | None) -> Path:
    """Run (or resume) a setup's campaign; the store's folder."""
    from hybridsched.experiments.campaign import run_campaign
    from hybridsched.experiments.spec import campaign_from_parts
    from hybridsched.registry import methods

    registered = methods(setup.family)
    chosen = [m for m in (*setup.heuristics, "bound") if m in registered]
    campaign = campaign_from_parts(setup.sources(seeds), chosen, name=f"scale-{setup.name}",
                                   time_limit=time_limit, description=setup.description)
    store = output / setup.name
    summary = run_campaign(campaign, store, mode=mode, scheduler=scheduler)
    print(f"{setup.name}: {summary.ran} runs now, {summary.stored_before} stored before "
          f"({summary.elapsed_s:.0f} s)", file=sys.stderr, flush=True)
    (store / "setup.json").write_text(json.dumps(
        {"seeds": seeds, "time_limit_s": time_limit}) + "\n")
    return store


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and 95% Student-t interval of ``values`` (the interval is the mean alone for one).

    A gap is never negative, so the interval is cut at 0 (with three seeds a
    Student-t interval easily reaches below).
    """
    from hybridsched.experiments.paired import t_quantile_975

    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile_975(n - 1) * sd / math.sqrt(n)
    return mean, max(0.0, mean - half), mean + half


def setup_rows(setup: Setup, store: Path) -> list[dict[str, Any]]:
    """The table's rows of one setup, from its store."""
    from hybridsched.catalogue import get_family
    from hybridsched.experiments.store_read import load_results

    table = load_results(store)
    # A run made again by newer code (a stopped sitting resumed after a change) is
    # stored beside the old one: the newest of each counts once.
    table = table.sort_values("timestamp").drop_duplicates(
        ["instance_hash", "method", "seed", "replication"], keep="last")
    settings = json.loads((store / "setup.json").read_text())
    bound_runs = table[table["method_name"] == "bound"]
    methods = sorted({_method_kind(json.loads(m).get("bound_method"))
                      for m in bound_runs["metrics"]} - {None})
    rows = []
    for method in [m for m in setup.heuristics if m in set(table["method"])]:
        runs = table[table["method"] == method]
        gaps = [float(g) for g in runs["gap"] if pd.notna(g) and math.isfinite(g)]
        mean, low, high = interval(gaps) if gaps else (math.nan, math.nan, math.nan)
        rows.append({
            "family": setup.family, "setup": setup.description, "method": method,
            "paper": method == setup.heuristics[0], "instances": len(runs),
            "bounded": len(gaps), "mean_gap": mean, "ci_low": low, "ci_high": high,
            "bound_method": " / ".join(methods) or "cheap bound",
            "objective": get_family(setup.family).objective_name,
            "time_limit_s": settings["time_limit_s"],
            "command": command(setup, settings["seeds"], settings["time_limit_s"])})
    return rows


def _method_kind(method: str | None) -> str | None:
    """A bound method's kind, without its per-instance details (grid sizes, solver words)."""
    if method is None:
        return None
    kind = re.split(r"[:;]", method, maxsplit=1)[0]
    kind = re.sub(r"\s*\([^()]*\d[^()]*\)", "", kind)  # "(grid 0.25, 2 VM classes)"
    return re.sub(r",? HiGHS dual$", "", " ".join(kind.split()))


def render(gaps: pd.DataFrame) -> str:
    """The docs' table from ``gaps.csv``'s rows."""
    lines = ["| family | setup | method | objective | instances with a bound | mean gap to the "
             "bound [95% interval] | bound's method | command |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in gaps.itertuples(index=False):
        name = f"**{row.method}** (paper)" if row.paper else row.method
        gap = ("no bound" if not row.bounded else
               f"{100 * row.mean_gap:.1f}% [{100 * row.ci_low:.1f}, {100 * row.ci_high:.1f}]")
        lines.append(f"| {row.family} | {row.setup} | {name} | {row.objective} | "
                     f"{row.bounded}/{row.instances} | {gap} | {row.bound_method} | "
                     f"`{row.command}` |")
    return "\n".join(lines)


def write_docs() -> None:
    """Rewrite the docs' block of the table from ``results/paper-scale/gaps.csv``."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from publish_numbers import UsageError, publish

    try:
        publish(only={BLOCK})
    except UsageError as error:
        raise SystemExit(f"--docs: {error}") from None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setups", default=",".join(s.name for s in SETUPS))
    parser.add_argument("--seeds", type=int, default=5,
                        help="seeds or trace windows per setup (the Braun set is fixed)")
    parser.add_argument("--time-limit", type=float, default=600.0,
                        help="seconds per run (the bound's included)")
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT))
    parser.add_argument("--mode", default="serial", help="campaign mode (serial, auto, ...)")
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("--table-only", action="store_true",
                        help="only gaps.csv from the stores that exist")
    parser.add_argument("--docs", action="store_true",
                        help="rewrite the table of docs/guide/bounds.md (from the default "
                             "--output)")
    args = parser.parse_args()
    # The solver libraries' banners (HiGHS's) are not this script's output.
    with owned_stdout("discard"):
        return run(args)


def run(args: argparse.Namespace) -> int:
    """Run the chosen setups, then write gaps.csv (and the docs' table)."""
    output = Path(args.output)
    if args.docs and output.resolve() != DEFAULT_OUTPUT:
        raise SystemExit("--docs: the docs print results/paper-scale/gaps.csv; leave --output "
                         "out")
    chosen = {name.strip() for name in args.setups.split(",") if name.strip()}
    unknown = chosen - {s.name for s in SETUPS}
    if unknown:
        raise SystemExit(f"--setups: unknown setup {sorted(unknown)[0]!r} (known: "
                         + ", ".join(s.name for s in SETUPS) + ")")
    if not args.table_only:
        for setup in SETUPS:
            if setup.name in chosen:
                run_setup(setup, output, seeds=args.seeds, time_limit=args.time_limit,
                          mode=args.mode, scheduler=args.scheduler)
    rows = [row for setup in SETUPS if (output / setup.name / "setup.json").exists()
            for row in setup_rows(setup, output / setup.name)]
    gaps = pd.DataFrame(rows, columns=list(COLUMNS))
    output.mkdir(parents=True, exist_ok=True)
    gaps.to_csv(output / "gaps.csv", index=False)
    print(render(gaps))
    if args.docs:
        write_docs()
    return 0


if __name__ == "__main__":
    sys.exit(main())
