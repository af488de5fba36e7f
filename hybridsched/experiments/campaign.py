"""Run a campaign into a result store: plan, skip what is stored, execute the rest.

>>> from hybridsched.experiments.campaign import run_campaign   # doctest: +SKIP
>>> summary = run_campaign("examples/campaigns/hybrid-deadline-gaps.toml", "results/hd")
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hybridsched import interrupt
from hybridsched.experiments.campaign_model import Campaign
from hybridsched.experiments.engine import Execution, Progress, execute
from hybridsched.experiments.runs import MAX_RUNS, Run, plan_runs
from hybridsched.experiments.spec import load_spec
from hybridsched.experiments.store import ResultStore
from hybridsched.experiments.store_read import check_resume
from hybridsched.io.outputs import check_output_folder


@dataclass
class CampaignSummary:
    """What a campaign did: runs planned, already stored, run now, and how they ended."""

    name: str
    output: str
    planned: int
    stored_before: int
    ran: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    mode: str = "serial"
    workers: int = 1
    startup_s: float = 0.0
    elapsed_s: float = 0.0
    plan_s: float = 0.0
    #: How the default mode chose between serial and a cluster (empty when forced).
    mode_note: str = ""
    #: The runs' own wall times summed (what they would take one after the other).
    runs_s: float = 0.0
    #: ``runs_s`` over the time the runs took on workers: the speed-up over serial
    #: (``None`` when they ran in this process).
    speedup: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (``campaign --json``)."""
        return dict(vars(self))


def version_changes(records: list[dict[str, Any]]) -> list[str]:
    """How the versions that made stored runs differ from this process's, one line each.

    ``records`` are the store's provenance records (what
    :func:`~hybridsched.experiments.store_read.check_resume` returns). Empty when
    every stored run was made with today's versions. Runs of other
    hybridsched code have other keys, so they are kept apart and run again;
    runs made with other library versions are not.
    """
    from hybridsched.provenance import changes, provenance

    now = provenance()
    found = (", ".join(changes(before, now)) for before in records)
    return sorted({line for line in found if line})


def plan(campaign: Campaign) -> list[Run]:
    """Every run of ``campaign`` (refused above :data:`~.runs.MAX_RUNS`)."""
    from hybridsched.errors import InputError

    runs = []
    for run in plan_runs(campaign):
        runs.append(run)
        if len(runs) > MAX_RUNS:
            raise InputError(f"campaign {campaign.name!r}: more than {MAX_RUNS} runs; split it")
    return runs


def run_campaign(spec: str | Path | Campaign, output: str | Path, *, mode: str = "auto",
                 workers: int | None = None, scheduler: str | None = None,
                 progress: Progress | None = None,
                 on_planned: Any = None) -> CampaignSummary:
    """Run every run of ``spec`` not yet in the store at ``output``.

    Parameters
    ----------
    spec:
        A spec file or a :class:`~hybridsched.experiments.campaign_model.Campaign`.
    output:
        The result store's folder (made if missing; see
        :mod:`~hybridsched.experiments.store_format`).
    mode, workers, scheduler:
        Where runs execute (:func:`~hybridsched.experiments.engine.execute`).
    progress:
        Receives progress counts (see :data:`~hybridsched.experiments.engine.Progress`).
    on_planned:
        Called as ``on_planned(summary)`` once the runs to do are known.

    Returns
    -------
    CampaignSummary
        Counts of the runs done now by status; the rows are in the store.
    """
    started = time.perf_counter()
    campaign = spec if isinstance(spec, Campaign) else load_spec(spec)
    check_resume(output, campaign.name)  # a store of another campaign, or a damaged one
    folder = check_output_folder(output, "-o")
    runs = plan(campaign)
    statuses: Counter[str] = Counter()
    with ResultStore(folder) as store:
        stored = store.keys()
        todo = [run for run in runs if run.key not in stored]
        summary = CampaignSummary(campaign.name, str(folder), len(runs), len(runs) - len(todo),
                                  mode=scheduler or mode,
                                  plan_s=time.perf_counter() - started)
        if on_planned is not None:
            on_planned(summary)
        if campaign.spec_text:
            store.save_spec(campaign.spec_text)

        def on_row(row: dict[str, Any]) -> None:
            # A row that arrives after Ctrl-C may come from a run the signal reached (a
            # worker's solver stopped early): it is not stored, and is run again on resume.
            interrupt.raise_if_requested()
            store.add([row])
            statuses[row["status"]] += 1
            summary.runs_s += float(row.get("wall_s") or 0.0)

        try:
            execution: Execution | None = None
            if todo:
                execution = execute(todo, on_row, mode=mode, workers=workers,
                                    scheduler=scheduler, progress=progress)
            interrupt.raise_if_requested()
        finally:
            summary.ran = sum(statuses.values())
            summary.statuses = dict(sorted(statuses.items()))
    if execution is not None:
        summary.mode, summary.mode_note = execution.mode, execution.note
        summary.workers, summary.startup_s = execution.workers, execution.startup_s
        if execution.mode != "serial" and execution.elapsed_s > 0:
            summary.speedup = summary.runs_s / execution.elapsed_s
    summary.elapsed_s = time.perf_counter() - started
    return summary
