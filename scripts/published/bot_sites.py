"""Blocks of ``docs/results/bot-sites.md``: speed against the paper, the DAG model, Braun,
Table 2."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from published import Block, load_json, load_store, num, pct, secs, table

BENCH = "results/bot-sites/bench.json"
BENCH_COMMAND = f"python benchmarks/bench_bot_sites.py --runs 3 --output {BENCH}"
#: The paper's run times (Duan et al. 2014, on a 2.4 GHz Opteron), beside ours.
PAPER_S = {("gmo", 100): "0.362", ("gmo", 1000): "11.9", "g-min-min": "~250"}
GREEDY = {"g-min-min": "G-Min-min", "g-max-min": "G-Max-min", "g-sufferage": "G-Sufferage",
          "g-mct": "G-MCT", "g-met": "G-MET", "g-olb": "G-OLB", "gmo": "GMO"}


def _machine(data: dict) -> str:
    machine = data["machine"]
    return (f"{machine['cores']} cores, load average {machine['load_before']:.1f} before, "
            f"{machine['load_after']:.1f} after")


def _speed(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows = []
    for r in data["gmo"]:
        rows.append([f"GMO, 10^2 sites x 10^2 processors, {num(r['bots'])} BoTs x 10^4 tasks",
                     PAPER_S.get(("gmo", r["bots"]), ""), f"< {r['target_s']:g}",
                     f"{secs(r['median_s'])} ({r['games']} games)"])
    for r in data["batch"]:
        if r["method"] in PAPER_S or r["target_s"] is not None:
            rows.append([f"{GREEDY[r['method']]}, 10^5 tasks on 10^3 processors",
                         PAPER_S.get(r["method"], ""), f"< {r['target_s']:g}",
                         secs(r["median_s"])])
    braun = [r["six_greedy_s"] for r in data.get("braun", [])]
    if braun:
        rows.append([f"all six greedy heuristics, each of the {len(braun)} Braun 512 x 16 "
                     "instances", "", f"< {data['braun'][0]['target_s']:g}",
                     f"{secs(min(braun))}-{secs(max(braun))}"])
    return (table(["what", "paper (s)", "target (s)", "measured (s)"], rows)
            + f"\n\nMedians of {data['runs']} runs"
            + (" (3 for the 10^5-task runs)" if data["runs"] > 3 else "") + "; GMO "
            "under its literal readings (a new game at each BoT's completion); "
            f"{_machine(data)}. The paper's figures were on a 2.4 GHz Opteron.")


def _exact_braun(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows = data.get("braun_exact", [])
    if not rows:
        return "Not measured (the Braun matrices were absent, or `--no-exact`)."
    r = rows[0]
    above = r["makespan"] / r["best_known"] - 1
    known = (f"{pct(above, 2)} above the best known" if above >= 5e-5 else
             f"{pct(-above, 2)} below the best known" if above <= -5e-5 else
             "equal to the best known")
    return (f"The exact method on `{r['instance']}` ({r['time_limit_s']:g} s limit, "
            f"{_machine(data)}): status {r['status']}, makespan {num(r['makespan'], 1)} s, "
            f"{known} {num(r['best_known'], 1)} s; its proven lower bound "
            f"{num(r['bound'], 1)} s ({pct(r['makespan'] / r['bound'] - 1, 2)} below the "
            "makespan).")


def _dag(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows = [[f"{r['sites']} sites x {r['bots']} BoTs, tasks {r['tasks'][0]}:{r['tasks'][1]}",
             f"{r['proven']}/{r['instances']}",
             f"{secs(r['median_s'])} / {secs(r['max_s'])}",
             f"{secs(r['one_block_median_s'])} / {secs(r['one_block_max_s'])}",
             r["one_block_worse"]] for r in data["dag"]]
    limit = data["dag"][0]["time_limit_s"]
    text = table(["DAG instances", "proven optimal", "exact: median / max (s)",
                  "one-block (not exact): median / max (s)",
                  "one-block worse or without a schedule"], rows)
    limits = data.get("limits", [])
    if limits:
        text += ("\n\nWith hard bandwidth/storage limits (3 sites x 4 BoTs): "
                 + "; ".join(f"tightness {r['tightness']:g}: {r['proven']}/{r['seeds']} proven, "
                             f"median gap to the fluid/critical-path bound "
                             f"{pct(r['median_gap'])}" for r in limits) + ".")
    return text + (f"\n\n{data['dag_seeds']} seeds per configuration (instances without edges "
                   f"skipped), {limit:g} s limit per run; {_machine(data)}.")


def _braun(paths: Sequence[Path]) -> str:
    data = load_json(paths[0])
    rows = [[GREEDY.get(r["method"], r["method"]), f"{r['solved']}/{r['runs']}",
             pct(r["mean_gap"]), pct(r["max_gap"]), r["wins"]] for r in data["leaderboard"]]
    kinds = ", ".join(f"{n} {kind}" for kind, n in data["references"].items())
    return (table(["method", "instances solved", "mean gap", "largest gap",
                   "best on (instances)"], rows)
            + f"\n\nObjective: {data['objective']}; reference per instance: {kinds} (the "
            "configuration LP's certified bound recorded in `instances/bot-sites/real/`); gap "
            "= `(makespan - bound) / bound`, an upper bound on the distance to the optimum.")


def _table2(paths: Sequence[Path]) -> str:
    runs = load_store(paths[0])
    optimum = runs["reference"].iloc[0]
    rows = []
    for run in runs.sort_values(["objective", "method"]).itertuples():
        name = run.method
        for key, label in GREEDY.items():
            name = name.replace(key, label) if name.split("[")[0] == key else name
        rows.append([name, f"{run.objective:g}", pct(run.gap), run.status])
    return (table(["method", "makespan", "gap to the optimum", "status"], rows)
            + f"\n\nThe optimum recorded with the instance: {optimum:g} "
            f"({runs['reference_kind'].iloc[0]}).")


BLOCKS = [
    Block("bot-sites-speed", BENCH_COMMAND, (BENCH,), _speed),
    Block("bot-sites-exact-braun", BENCH_COMMAND, (BENCH,), _exact_braun),
    Block("bot-sites-dag", BENCH_COMMAND, (BENCH,), _dag),
    Block("bot-sites-braun",
          "hybridsched bench bot-sites --tier real --methods "
          "gmo,g-min-min,g-max-min,g-sufferage,g-mct,g-met,g-olb -o build/publish/bot-braun "
          "--serial --json > results/bot-sites/braun-leaderboard.json",
          ("results/bot-sites/braun-leaderboard.json",), _braun,
          scratch=("build/publish/bot-braun",)),
    Block("bot-sites-table2",
          "hybridsched campaign results/bot-sites/table2.toml -o results/bot-sites/table2 "
          "--serial", ("results/bot-sites/table2",), _table2,
          scratch=("results/bot-sites/table2",)),
]
