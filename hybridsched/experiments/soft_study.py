"""The SOFT study end to end: run every strategy as a campaign, then Filter1 and Filter2.

:func:`run_soft` writes the campaign of a :class:`~.soft_spec.SoftSpec`
(``campaign.toml``), runs it into the result store ``runs/`` of the results
folder (on a local Dask cluster by default; runs already stored are
skipped, so an interrupted study resumes), and applies the selection of
:mod:`.soft` to the stored metrics:

1. Theta (Eq. 1) of every strategy for the Table 9 profiles;
2. Filter1 for every ``q1`` (Win_abs) and every ``(q1, q2)`` (Win_freq):
   Table 10; S1 is the union of its winners (the paper's Table 11 lists
   the winners of all of Table 10's rows);
3. Filter2 on S1 with ``q3``: S2, Table 11 (compliance of each S1
   strategy with its family's top 25% and median) and Table 13.

The tables are written beside the store as CSV (``theta.csv``,
``table10.csv``, ``table11.csv``, ``table13.csv``) with ``selected.json``.

**One folder, one study.** ``campaign.toml`` marks the folder as the
results of one study: resuming with a spec that makes another campaign
(another study, or the same name with other settings; the filters may
change) is refused before anything runs, naming the folder and both
studies, and so is a folder holding a result store without it. The tables
only use the store's rows of this study's runs (by run key), so rows of any
other origin never mix into them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from hybridsched.errors import InputError
from hybridsched.experiments.soft import filter2, satisfaction, table10
from hybridsched.experiments.soft_spec import SoftSpec, load_soft_spec, soft_campaign
from hybridsched.pull.schema import parse_dcis

#: Store folder and table files inside a results folder.
RUNS, CAMPAIGN = "runs", "campaign.toml"


class NothingToSelectError(Exception):
    """No run of the study succeeded: a failed study (exit 1), not bad input."""


@dataclass(frozen=True)
class SoftReport:
    """What a study found (see the module docstring)."""

    spec: SoftSpec
    results: pd.DataFrame
    theta: pd.DataFrame
    table10: pd.DataFrame
    s1: tuple[str, ...]
    s2: tuple[str, ...]
    table11: pd.DataFrame
    table13: pd.DataFrame
    failed: tuple[str, ...]

    def summary(self) -> str:
        """One line: runs, S1 and S2."""
        failed = f"; {len(self.failed)} failed runs left out" if self.failed else ""
        return (f"{len(self.results)} strategies x {len(self.spec.study.seeds)} seed(s){failed}; "
                f"Filter1 (S1): {', '.join(self.s1) or 'none'}; "
                f"Filter2 (S2, q3 = {self.spec.filters.q3:g}): {', '.join(self.s2) or 'none'}")

    def tables(self) -> list[tuple[str, pd.DataFrame]]:
        """The printed tables, with their titles."""
        return [("Table 10 shape: Filter1 winners", compact_table10(self.table10)),
                ("Table 11 shape: efficiencies of S1 and compliance within their family",
                 self.table11),
                ("Table 13 shape: highest efficiency per family and DCI", self.table13)]

    def to_dict(self) -> dict[str, Any]:
        """The selections and tables as JSON-ready data."""
        return {"name": self.spec.study.name, "strategies": len(self.results),
                "failed": list(self.failed), "s1": list(self.s1), "s2": list(self.s2),
                "table10": _records(self.table10), "table11": _records(self.table11),
                "table13": _records(self.table13.reset_index())}

    def write(self, folder: Path) -> None:
        """Write the tables and selections into ``folder`` (atomically, file by file)."""
        from hybridsched.io.outputs import atomic_write_text

        for name, frame in (("theta", self.theta), ("table10", self.table10),
                            ("table11", self.table11)):
            atomic_write_text(folder / f"{name}.csv", frame.to_csv(index=False))
        atomic_write_text(folder / "table13.csv", self.table13.to_csv())
        atomic_write_text(folder / "selected.json",
                          json.dumps({"s1": list(self.s1), "s2": list(self.s2)}, indent=2))


def compact_table10(table: pd.DataFrame) -> pd.DataFrame:
    """Table 10 with one row per (q1, method, q2): the winners of each place on one line."""
    rows = []
    keys = ["q1", "method", "q2"]
    for key, group in table.groupby(keys, sort=False, dropna=False):
        places = dict.fromkeys(group["place"])
        winners = "; ".join(f"{place}: {' '.join(group.loc[group['place'] == place, 'strategy'])}"
                            for place in places)
        rows.append({**dict(zip(keys, key, strict=True)), "winners": winners})
    return pd.DataFrame(rows, columns=[*keys, "winners"])


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return json.loads(frame.to_json(orient="records"))


def strategy_results(store: Path, keys: set[str] | None = None
                     ) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Per run: ``family``, ``index`` and the metrics SOFT uses; and the failed runs' labels.

    ``keys``: only the rows of these runs (default: every row of the store).
    """
    from hybridsched.experiments.store_read import load_results

    table = load_results(store)
    if keys is not None and len(table):
        table = table[table["key"].isin(keys)].reset_index(drop=True)
    labels = table["method"].str.extract(r"^s(\d+),(\d+)$")
    if labels.isna().any(axis=None):
        raise InputError(f"{store}: runs not labelled s<family>,<index>: not a SOFT store")
    ok = table["status"] == "feasible"
    failed = tuple(sorted(set(table.loc[~ok, "method"])))
    columns = {c: c.removeprefix("metric_") for c in table.columns
               if c in ("metric_makespan", "metric_cost", "metric_efficiency")
               or c.startswith("metric_efficiency_")}
    results = table.loc[ok, list(columns)].rename(columns=columns)
    results.insert(0, "index", labels.loc[ok, 1].astype(int))
    results.insert(0, "family", labels.loc[ok, 0].astype(int))
    return results.reset_index(drop=True), failed


def analyse(spec: SoftSpec, results: pd.DataFrame, failed: tuple[str, ...] = ()
            ) -> SoftReport:
    """Filter1 and Filter2 on per-run results (see the module docstring)."""
    if results.empty:
        raise NothingToSelectError("SOFT: no strategy ran successfully; nothing to select"
                                   + (f" (failed: {', '.join(failed[:5])}"
                                      f"{' ...' if len(failed) > 5 else ''})" if failed
                                      else ""))
    filters = spec.filters
    theta = satisfaction(results)
    theta.insert(0, "strategy", [f"s{f},{i}" for f, i in zip(theta["family"], theta["index"],
                                                             strict=True)])
    winners = table10(theta, filters.q1, filters.q2, filters.p)
    s1 = tuple(dict.fromkeys(winners["strategy"]))
    dcis = list(parse_dcis(spec.study.dci))
    if s1:
        second = filter2(results, list(s1), filters.q3, dcis)
        s2, table11, table13 = second.selected, second.table11, second.table13
    else:
        s2, table11, table13 = (), pd.DataFrame(), pd.DataFrame()
    per_strategy = results.groupby(["family", "index"]).mean(numeric_only=True).reset_index()
    return SoftReport(spec, per_strategy, theta, winners, s1, tuple(s2), table11, table13,
                      failed)


def _study_of(text: str | None) -> str | None:
    """The study name a campaign text records (``None``: unreadable)."""
    import tomllib

    try:
        name = tomllib.loads(text or "").get("campaign", {}).get("name")
    except (tomllib.TOMLDecodeError, AttributeError):
        return None
    return name if isinstance(name, str) else None


def check_study_folder(output: str | Path, text: str, name: str) -> None:
    """Refuse a results folder that holds another study (see the module docstring).

    ``text`` is this study's campaign and ``name`` its name. A missing folder,
    or one without a store, passes (it is made or used as it is).
    """
    folder = Path(output)
    if not folder.is_dir():
        return
    marker = folder / CAMPAIGN
    if marker.is_file():
        try:
            found: str | None = marker.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            found = None
        if found == text:
            return
        other = _study_of(found)
        if other == name:
            raise InputError(f"-o {output}: holds SOFT study {name!r} run with other settings "
                             f"(its {CAMPAIGN} differs from this spec's): use another folder, "
                             "or the spec it was run with")
        held = f"SOFT study {other!r}" if other is not None else f"an unreadable {CAMPAIGN}"
        raise InputError(f"-o {output}: holds {held}, not study {name!r}: use another folder "
                         "(its runs would mix into this study's tables)")
    if (folder / RUNS).exists():
        raise InputError(f"-o {output}: holds a result store ({RUNS}/) but no {CAMPAIGN}: not "
                         f"the results folder of SOFT study {name!r}; use another folder")


def prepare_soft(spec: SoftSpec, output: str | Path, source: str | Path = "<spec>"
                 ) -> tuple[Path, Any]:
    """Check the study's campaign and results folder, then make it and mark it as the study's.

    Returns the folder and the campaign (see :func:`~.soft_spec.soft_campaign`).
    Nothing is written before every check has passed.
    """
    from hybridsched.io.outputs import atomic_write_text, check_output_folder

    text, campaign = soft_campaign(spec, source)
    check_study_folder(output, text, spec.study.name)
    folder = check_output_folder(output, "-o")
    atomic_write_text(folder / CAMPAIGN, text)
    return folder, campaign


def run_soft(spec: SoftSpec | str | Path, output: str | Path, *, mode: str = "local",
             workers: int | None = None, progress: Any = None,
             source: str | Path | None = None) -> SoftReport:
    """Run the study of ``spec`` into the results folder ``output`` and select strategies.

    ``source`` names the spec in errors (default: ``spec`` when it is a path).
    """
    from hybridsched.experiments.campaign import run_campaign
    from hybridsched.experiments.runs import plan_runs

    if not isinstance(spec, SoftSpec):
        source = spec if source is None else source
        spec = load_soft_spec(spec)
    folder, campaign = prepare_soft(spec, output, "<spec>" if source is None else source)
    run_campaign(campaign, folder / RUNS, mode=mode, workers=workers, progress=progress)
    results, failed = strategy_results(folder / RUNS, {run.key for run in plan_runs(campaign)})
    report = analyse(spec, results, failed)
    report.write(folder)
    return report
