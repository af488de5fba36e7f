"""Blocks of ``docs/reproduction.md``: each paper's claims, verdicts and reading sets (issue 34).

Every figure comes from ``results/reproduction/<paper>/summary.json``, which
``python scripts/reproduce.py --paper <paper>`` writes from its result store
(``results/reproduction/<paper>/store``); the verdicts are those of
``hybridsched.experiments.verdicts`` in that record, never typed here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from published import ROOT, Block, load_json, load_store, secs, sig, table

PAPERS = ("000", "001", "002", "003", "004")


def unit_of(claim: dict[str, Any]) -> str:
    """``%`` for a paired difference in percent of the baseline; nothing for a plain value."""
    return "%" if claim["relative"] and claim["baseline"] is not None else ""


def figure_text(claim: dict[str, Any]) -> str:
    """The paper's figure as the table prints it (signed, with its unit)."""
    figure, unit = claim["figure"], unit_of(claim)
    if claim["kind"] == "direction":
        return "lower (no figure)" if figure < 0 else "higher (no figure)"
    if isinstance(figure, list):
        return f"{figure[0]:+g} to {figure[1]:+g}{unit}"
    return f"{figure:+g}{unit}" if unit else f"{figure:g}"


def effect_text(row: dict[str, Any], claim: dict[str, Any], pairs_are: str) -> str:
    """Mean [95% interval], pairs and the seeds (or windows) behind them, class, stability."""
    unit = unit_of(claim)
    digits = 1 if unit else 3
    mean, low, high = (_number(row[k]) for k in ("mean", "ci_low", "ci_high"))
    sign = "+" if unit else ""
    value = f"{mean:{sign}.{digits}f}{unit}" if math.isfinite(mean) else "no value"
    interval = (f" [{low:{sign}.{digits}f}, {high:{sign}.{digits}f}]"
                if math.isfinite(low) and math.isfinite(high) else " (no interval: one run)")
    first, stop = row["seeds"]
    pairs = f"{row['pairs']} {'pair' if row['pairs'] == 1 else 'pairs'}"
    if row["pairs"] > 1:
        pairs += f" ({pairs_are} {first}-{stop - 1})"
    why = (row["reason"] if row["stable"] else "one run: more seeds cannot help"
           if row["pairs"] == 1 else "not stable at the cap")
    return f"{value}{interval}, {pairs}: **{row['verdict']}** ({why})"


def reproduced_under(record: dict[str, Any], claim: dict[str, Any]) -> str:
    """The claim's readings that reproduce it, and how many readings were tried for it."""
    seen: dict[tuple[str, ...], str] = {}
    for reading_set in record["reading_sets"]:
        for row in reading_set["claims"]:
            if row["claim"] == claim["id"]:
                seen.setdefault(tuple(row["reading"]), row["verdict"])
    literal = {f"{r['name']}={r['values'][0]}" for r in record["readings"]}
    names = ["literal" if not (set(reading) - literal) else
             ", ".join(word for word in reading if word not in literal)
             for reading, verdict in seen.items() if verdict == "reproduced"]
    tried = f"{claim['readings_tried']} tried"
    if claim["explored"]:
        where = "; ".join(f"{e['readings']} in `{e['spec']}`" for e in claim["explored"])
        tried += f": {claim['tried_here']} here, {where}"
    return f"{' / '.join(names) if names else 'none'} ({tried})"


def paper_section(record: dict[str, Any], path: str, store: Any) -> str:
    """One paper: what stands in for its data, its claims under both reading sets."""
    paper = record["paper"]
    literal, best = record["literal"], record["best_joint"]
    claims = {claim["id"]: claim for claim in record["claims"]}
    rows = []
    for lit_row, best_row in zip(literal["claims"], best["claims"], strict=True):
        claim = claims[lit_row["claim"]]
        rows.append([claim["text"], figure_text(claim),
                     effect_text(lit_row, claim, record["settings"][claim["setting"]]),
                     effect_text(best_row, claim, record["settings"][claim["setting"]]),
                     reproduced_under(record, claim)])
    total = len(record["claims"])
    departures = ", ".join(f"`{d}`" for d in best["departures"]) or "the literal set itself"
    readings = "; ".join(f"`{r['name']}`: {' / '.join(r['values'])} ({r['quote']})"
                         for r in record["readings"]) or "none"
    commit = (record["commit"] or "unknown")[:12] + (" with uncommitted changes"
                                                     if record["changed_files"] else "")
    header = ["claim", "paper's figure", "literal readings", f"best joint set ({departures})",
              "reproduced under (readings tried)"]
    return "\n".join([
        f"### {paper['id']} {paper['family']}: {paper['title']}",
        "",
        f"- **Data:** {paper['data']}.",
        f"- **Scale:** {paper['scale']}.",
        f"- **Readings** (the literal value first): {readings}.",
        f"- **Literal reading set:** reproduces {literal['reproduced']} of {total} claims "
        f"together. **Best joint set** ({departures}): {best['reproduced']} of {total}, "
        f"out of {len(record['reading_sets'])} reading sets.",
        f"- **Store:** `{path}/store`, {record['runs']} runs ({record['failed_runs']} failed), "
        f"made in {_duration(store)} on 2 cores, commit {commit}; library versions in "
        f"`{path}/summary.json`.",
        "",
        table(header, rows),
    ])


def _render(paths: Sequence[Path]) -> str:
    records = [load_json(path) for path in paths[:len(PAPERS)]]
    stores = [load_store(path) for path in paths[len(PAPERS):]]
    overview = []
    for record, store in zip(records, stores, strict=True):
        best = record["best_joint"]
        overview.append([f"{record['paper']['id']} {record['paper']['family']}",
                         len(record["claims"]), record["literal"]["reproduced"],
                         ", ".join(f"`{d}`" for d in best["departures"]) or "literal",
                         best["reproduced"], len(record["reading_sets"]), record["runs"],
                         _duration(store)])
    head = table(["paper", "claims", "reproduced by the literal readings", "best joint set",
                  "reproduced by it", "reading sets run", "runs", "made in (2 cores)"],
                 overview)
    sections = [paper_section(record, str(path.parent.relative_to(ROOT)), store)
                for record, store, path in zip(records, stores, paths[:len(PAPERS)], strict=True)]
    return "\n\n".join([head, *sections]) + (
        "\n\nEach cell: mean effect (method − baseline, in % of the baseline; a level without "
        "a baseline in its own unit) with its 95% Student-t interval over paired seeds or "
        "windows, the pairs, the verdict of `hybridsched.experiments.verdicts.classify`, and "
        "why it is stable (the two halves of the seeds agree, or the interval is narrower than "
        "a tenth of the figure) or that the seed cap came first. A claim's readings tried count "
        "the distinct comparisons it was run under here, plus the readings an earlier fidelity "
        "campaign tried for it.")


def _duration(store: Any) -> str:
    """From the first run's start to the last run's end, as a store's rows give them."""
    import pandas as pd

    ends = pd.to_datetime(store["timestamp"])
    starts = ends - pd.to_timedelta(store["wall_s"], unit="s")
    seconds = (ends.max() - starts.min()).total_seconds()
    return f"{secs(seconds)} s" if seconds < 60 else f"{sig(seconds / 60)} min"


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


BLOCKS = (
    Block(name="reproduction-claims",
          command="python scripts/reproduce.py --paper all --out results/reproduction",
          results=(*(f"results/reproduction/{paper}/summary.json" for paper in PAPERS),
                   *(f"results/reproduction/{paper}/store" for paper in PAPERS)),
          render=_render,
          scratch=tuple(f"results/reproduction/{paper}/store" for paper in PAPERS)),
)
