"""The library build: campaigns through the engine, resumable, recording without getting worse."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hybridsched.experiments.campaign import run_campaign
from hybridsched.experiments.certify import CERTIFIED
from hybridsched.experiments.library_build import (
    Entry,
    record_store,
    stripped_copy,
    tier_campaign,
)
from hybridsched.experiments.store_read import load_results

LIBRARY = Path(__file__).resolve().parents[2] / "instances"


def _entries(tmp_path: Path, family: str, count: int) -> list[Entry]:
    entries = []
    for path in sorted((LIBRARY / family / "tiny").glob("*.json"))[:count]:
        target = tmp_path / "library" / path.name
        target.parent.mkdir(exist_ok=True)
        shutil.copy(path, target)
        document = json.loads(target.read_text())
        document["reference"] = {"tier": "tiny"}  # forget what is known
        target.write_text(json.dumps(document))
        entries.append(Entry(stripped_copy(target, tmp_path / "sources"), target, "tiny"))
    return entries


def test_a_build_records_what_both_backends_prove_and_resumes(tmp_path: Path):
    entries = _entries(tmp_path, "hybrid-deadline", 2)
    store = tmp_path / "store"
    campaign = tier_campaign(entries, tier="tiny", time_limit=10)
    first = run_campaign(campaign, store, mode="serial")
    assert first.ran == len(campaign.methods) * len(entries)
    outcomes = record_store(entries, load_results(store), time_limit=10)
    assert [o.verdict for o in outcomes] == [CERTIFIED, CERTIFIED]
    for entry, outcome in zip(entries, outcomes, strict=True):
        reference = json.loads(entry.target.read_text())["reference"]
        assert reference["optimal_cost"] == outcome.best_known
        assert reference["certificates"]["cost"]["proven_by"] == ["highs", "cpsat"]
    # The library files changed, their copies did not: a second sitting runs nothing.
    assert [stripped_copy(e.target, tmp_path / "sources") for e in entries] == \
        [e.source for e in entries]
    again = run_campaign(tier_campaign(entries, tier="tiny", time_limit=10), store,
                         mode="serial")
    assert again.ran == 0 and again.stored_before == first.ran
