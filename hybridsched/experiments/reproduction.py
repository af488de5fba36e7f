"""Reproduce a paper's claims: one store, every reading set, seeds until each verdict is stable.

:func:`reproduce` reads a reproduction file
(:mod:`~hybridsched.experiments.reproduction_spec`), runs its comparisons as
campaigns into one result store (seeds in batches, by the rule of
:func:`~hybridsched.experiments.verdicts.until_all_stable`: a claim draws
more seeds only while its class is unstable, up to the file's cap), and
returns a record of every claim under every reading set, the literal
reading set and the best joint one (the set reproducing the most claims
together), with the commit and library versions behind it.

A claim's *readings tried* counts the distinct comparisons it was run under
(reading sets that differ only in readings that cannot change the claim
give the same runs and count once), plus the readings an earlier campaign
tried for it (``explored``), counted from that spec's labels.
"""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hybridsched.experiments.paired import difference_values
from hybridsched.experiments.reproduction_spec import Claim, OptionValue, PaperFile, Setting
from hybridsched.experiments.verdicts import REPRODUCED, ClaimRule, until_all_stable

#: Version of the record :func:`reproduce` writes (``summary.json``).
RECORD_VERSION = 1
#: The checkout's paths whose changes can change a record (``changed_files``).
RESULT_INPUTS = ("hybridsched", "examples/reproduction", "scripts/reproduce.py",
                 "pyproject.toml")


@dataclass(frozen=True)
class Comparison:
    """One claim under one reading of it: the labels and the instances it compares."""

    claim: Claim
    reading: tuple[str, ...]
    chosen: tuple[str, ...]
    method: str
    baseline: str | None
    fixed: tuple[tuple[str, OptionValue], ...]

    @property
    def setting(self) -> str:
        """The setting whose instances the comparison pairs on."""
        return self.claim.setting


def comparisons(paper: PaperFile) -> dict[tuple[str, tuple[str, ...]], Comparison]:
    """Every distinct comparison: per claim, one per reading of it (see the module docs)."""
    found: dict[tuple[str, tuple[str, ...]], Comparison] = {}
    for chosen in paper.reading_sets():
        for claim in paper.claims:
            reading = paper.claim_reading(claim, chosen)
            key = (claim.id, reading)
            if key in found:
                continue
            baseline = None if claim.baseline is None else paper.label(claim.baseline, chosen)
            fixed = {**paper.instance_options(chosen), **claim.where}
            found[key] = Comparison(claim, reading, chosen, paper.label(claim.method, chosen),
                                    baseline, tuple(sorted(fixed.items())))
    return found


def spec_text(paper: PaperFile, name: str, seeds: range,
              needed: Iterable[Comparison], folder: Path) -> str:
    """A campaign spec running ``needed`` on ``seeds`` (its instances and labels, each once)."""
    needed = list(needed)
    lines = ["[campaign]", f"name = {_toml(name)}",
             f"description = {_toml('Reproduction of paper ' + paper.paper.id)}",
             f"time_limit = {_toml(paper.paper.time_limit)}", ""]
    tables: dict[tuple[str, str], list[str]] = {}
    for comparison in needed:
        setting = paper.settings[comparison.setting]
        table = _instances_table(setting, dict(comparison.fixed), seeds, folder)
        tables.setdefault((comparison.setting, "\n".join(table)), table)
    for table in tables.values():
        lines += table + [""]
    methods: dict[str, dict[str, OptionValue]] = {}
    for comparison in needed:
        for role, label in _roles(comparison):
            methods.setdefault(label, {"name": paper.methods[role].name,
                                       **paper.method_options(role, comparison.chosen)})
    for label, entry in methods.items():
        options = {k: v for k, v in entry.items() if k != "name"}
        lines += ["[[methods]]", f"name = {_toml(entry['name'])}", f"label = {_toml(label)}"]
        if options:
            lines += ["[methods.options]", *(f"{k} = {_toml(v)}" for k, v in options.items())]
        lines.append("")
    return "\n".join(lines)


def reproduce(paper: PaperFile, output: str | Path, *, cap: int | None = None,
              mode: str = "auto", progress: Callable[[str], None] | None = None,
              folder: str | Path = ".") -> dict[str, Any]:
    """Run every comparison of ``paper`` into the store ``output``/``store``; the record.

    Parameters
    ----------
    paper:
        The reproduction file.
    output:
        Folder of the store (``store/``) and of the record (``summary.json``).
    cap:
        Seeds at most per comparison (default: the file's ``seeds.cap``).
    mode:
        Where runs execute (:func:`~hybridsched.experiments.campaign.run_campaign`).
    progress:
        Called with one line before each batch.
    folder:
        Where the file's relative ``files`` are found from.
    """
    from hybridsched.experiments.campaign import run_campaign
    from hybridsched.experiments.spec import load_spec
    from hybridsched.experiments.store_read import load_results, newest_runs

    out = Path(output)
    store = out / "store"
    name = f"reproduce-{paper.paper.id}"
    rule = paper.paper.seeds
    cap = rule.cap if cap is None else cap
    start = min(rule.start, cap)
    found = comparisons(paper)
    claims = {key: ClaimRule(c.claim.figure, c.claim.kind) for key, c in found.items()}

    def draw(seeds: range, keys: list[Any]) -> dict[Any, Any]:
        needed = [found[key] for key in keys]
        if progress is not None:
            progress(f"paper {paper.paper.id}: seeds {seeds.start}-{seeds.stop - 1} for "
                     f"{len(needed)} comparisons")
        text = spec_text(paper, name, seeds, needed, Path(folder))
        spec_path = Path(folder) / f"{name}.toml"
        run_campaign(load_spec(spec_path, text=text), store, mode=mode)
        runs = with_settings(newest_runs(load_results(store)), paper)
        return {key: differences(runs, found[key], seeds) for key in keys}

    verdicts = until_all_stable(draw, claims, start=start, step=rule.step, cap=cap)
    runs = with_settings(newest_runs(load_results(store)), paper)
    record = _plain(_record(paper, found, verdicts, runs, Path(folder)))
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(record, indent=1, allow_nan=False) + "\n")
    return record


def with_settings(runs: pd.DataFrame, paper: PaperFile) -> pd.DataFrame:
    """The store's rows with their instance's ``setting``, ``pair`` and ``instance_options``.

    ``pair`` is the seed, or the window's number for a trace cut into windows;
    ``instance_options`` is a dict of the source's options without the window's.
    """
    settings, pairs, options = [], [], []
    for text in runs["source"]:
        source = json.loads(text)
        given = dict(source["options"])
        setting, pair = _setting_of(paper, source, given)
        replicate = paper.settings[setting].replicate if setting in paper.settings else None
        if replicate is not None:
            given.pop(replicate.option, None)
        settings.append(setting)
        pairs.append(pair)
        options.append(given)
    return runs.assign(setting=settings, pair=pairs, instance_options=options)


def differences(runs: pd.DataFrame, comparison: Comparison, seeds: range) -> np.ndarray:
    """The comparison's paired differences on ``seeds``, in seed order (NaN for a failed pair).

    Runs pair on their seed (or window) and on the values of the list options
    the claim pools. Relative differences are in percent of the baseline, as
    :func:`~hybridsched.experiments.paired.paired_effects` computes them; a
    claim without baseline (a level) gives the method's values themselves.
    """
    claim = comparison.claim
    fixed = dict(comparison.fixed)
    chosen = [(row.setting == comparison.setting and row.pair in seeds
               and all(row.instance_options.get(k) == v for k, v in fixed.items()))
              for row in runs[["setting", "pair", "instance_options"]].itertuples()]
    part = runs[chosen]
    own = _by_pair(part, comparison.method, claim.measure, fixed)
    if comparison.baseline is None:
        return np.array([own[key] for key in sorted(own, key=_natural_key)], dtype=float)
    base = _by_pair(part, comparison.baseline, claim.measure, fixed)
    keys = sorted(own, key=_natural_key)
    left = np.array([base.get(key, math.nan) for key in keys], dtype=float)
    right = np.array([own[key] for key in keys], dtype=float)
    out = np.full(len(keys), math.nan)
    finite = np.isfinite(left) & np.isfinite(right)
    keep, values = difference_values(left[finite], right[finite], claim.relative)
    out[np.flatnonzero(finite)[keep]] = values
    return out


def best_joint(paper: PaperFile, per_set: list[dict[str, Any]]) -> dict[str, Any]:
    """The reading set reproducing the most claims together (ties: nearest the literal set)."""
    return max(per_set, key=lambda entry: (entry["reproduced"], -len(entry["departures"]),
                                           -per_set.index(entry)))


def provenance_record(folder: Path) -> dict[str, Any]:
    """The commit, whether :data:`RESULT_INPUTS` had uncommitted changes, the library versions."""
    from hybridsched.provenance import provenance

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True,
                                  timeout=30, check=False)
        except OSError:
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    # Only what can change a result counts as a change (the docs being edited does not).
    changed = git("status", "--porcelain", "--untracked-files=no", "--", *RESULT_INPUTS)
    return {"commit": git("rev-parse", "HEAD") or None, "changed_files": bool(changed),
            "versions": provenance()}


# --- helpers -------------------------------------------------------------------------------


def _record(paper: PaperFile, found: dict[Any, Comparison], verdicts: dict[Any, Any],
            runs: pd.DataFrame, folder: Path) -> dict[str, Any]:
    tried = {claim.id: sum(1 for key in found if key[0] == claim.id) for claim in paper.claims}
    explored = {claim.id: _explored(claim, folder) for claim in paper.claims}
    per_set = []
    for chosen in paper.reading_sets():
        rows = []
        for claim in paper.claims:
            key = (claim.id, paper.claim_reading(claim, chosen))
            rows.append({"claim": claim.id, "reading": list(key[1]),
                         "method": found[key].method, "baseline": found[key].baseline,
                         **verdicts[key].to_dict()})
        per_set.append({"readings": list(chosen), "departures": paper.departures(chosen),
                        "reproduced": sum(row["verdict"] == REPRODUCED for row in rows),
                        "claims": rows})
    return {
        "record_version": RECORD_VERSION,
        "paper": paper.paper.model_dump(),
        "readings": [reading.model_dump() for reading in paper.readings],
        "claims": [{**claim.model_dump(exclude={"explored"}),
                    "figure": list(claim.figure) if isinstance(claim.figure, tuple)
                    else claim.figure,
                    "readings_tried": tried[claim.id] + explored[claim.id][0],
                    "tried_here": tried[claim.id], "explored": explored[claim.id][1]}
                   for claim in paper.claims],
        "reading_sets": per_set,
        "literal": per_set[0],
        "best_joint": best_joint(paper, per_set),
        "settings": {name: ("windows" if setting.replicate is not None
                            else "seeds" if setting.generator is not None else "one run")
                     for name, setting in paper.settings.items()},
        "runs": int(len(runs)),
        "failed_runs": int((runs["status"] == "error").sum()),
        # The code that made the runs (a store keeps each run's), and below, the checkout that
        # wrote this record: they differ when a record is written again from an older store.
        "run_code_versions": sorted(set(runs["code_version"].astype(str))),
        **provenance_record(folder),
    }


def _explored(claim: Claim, folder: Path) -> tuple[int, list[dict[str, Any]]]:
    from hybridsched.experiments.spec import load_spec

    count, where = 0, []
    for entry in claim.explored:
        campaign = load_spec(folder / entry.spec)
        labels = {method.label for method in campaign.methods
                  if entry.label_contains in method.label}
        count += len(labels)
        where.append({"spec": entry.spec, "label_contains": entry.label_contains,
                      "readings": len(labels)})
    return count, where


def _plain(value: Any) -> Any:
    """``value`` as strict JSON values: a missing number (NaN, one run: no interval) is null."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _by_pair(part: pd.DataFrame, label: str, measure: str,
             fixed: dict[str, Any]) -> dict[tuple[int, tuple[Any, ...]], float]:
    """A label's value per pair key (NaN for a failed run or one without the measure)."""
    rows = part[part["method"] == label]
    values = (pd.to_numeric(rows[measure], errors="coerce").to_numpy(dtype=float)
              if measure in rows else np.full(len(rows), math.nan))
    failed = (rows["status"] == "error").to_numpy()
    found = {}
    for pair, options, value, bad in zip(rows["pair"], rows["instance_options"], values,
                                         failed, strict=True):
        pooled = tuple(sorted((k, v) for k, v in options.items() if k not in fixed))
        found[int(pair), pooled] = math.nan if bad else float(value)
    return found


def _natural_key(key: tuple[int, tuple[Any, ...]]) -> tuple[int, str]:
    return key[0], repr(key[1])


def _setting_of(paper: PaperFile, source: dict[str, Any],
                options: dict[str, Any]) -> tuple[str, int]:
    """Which setting a stored source belongs to, and its pair number (seed or window)."""
    for name, setting in paper.settings.items():
        if setting.generator is not None and source["kind"] == "generator" \
                and source["family"] == setting.generator \
                and _fits(setting, options, _reading_keys(paper)):
            return name, int(source["seed"])
        if setting.files is not None and source["kind"] == "import" \
                and source["importer"] == setting.importer \
                and _fits(setting, options, _reading_keys(paper)):
            step = setting.replicate
            if step is None:
                return name, 0
            return name, int(options[step.option]) // step.step
    return "?", -1


def _fits(setting: Setting, options: dict[str, Any], reading_keys: set[str]) -> bool:
    """Whether a stored source's options are exactly those of ``setting`` (a list: one of them)."""
    for key, value in setting.options.items():
        allowed = value if isinstance(value, list) else [value]
        if key not in options or options[key] not in allowed:
            return False
    own = set(setting.options) | reading_keys
    if setting.replicate is not None:
        own.add(setting.replicate.option)
    return set(options) <= own


def _reading_keys(paper: PaperFile) -> set[str]:
    return {key for reading in paper.readings for key in reading.instances}


def _roles(comparison: Comparison) -> list[tuple[str, str]]:
    claim = comparison.claim
    pairs = [(claim.method, comparison.method)]
    if claim.baseline is not None and comparison.baseline is not None:
        pairs.append((claim.baseline, comparison.baseline))
    return pairs


def _instances_table(setting: Setting, fixed: dict[str, OptionValue], seeds: range,
                     folder: Path) -> list[str]:
    options: dict[str, OptionValue | list[OptionValue]] = {**setting.options, **fixed}
    if setting.generator is not None:
        head = ["[[instances]]", f"generator = {_toml(setting.generator)}",
                f"seeds = {{ start = {seeds.start}, stop = {seeds.stop} }}"]
    else:
        files = [str(_data_path(f, folder)) for f in setting.files or []]
        head = ["[[instances]]", f"files = {_toml(files)}", f"importer = {_toml(setting.importer)}"]
        if setting.replicate is not None:
            windows = [k * setting.replicate.step for k in seeds if k < setting.replicate.count]
            options[setting.replicate.option] = windows
    return [*head, "[instances.options]", *(f"{k} = {_toml(v)}" for k, v in options.items())]


def _data_path(pattern: str, folder: Path) -> str:
    # ``{data}`` is kept: the campaign engine resolves it (HYBRIDSCHED_DATA or ../shared/data).
    return pattern if "{data}" in pattern else str((folder / pattern).resolve())


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value))
