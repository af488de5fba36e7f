"""The instance files of the benchmark library (instances/), by family and tier, for tests."""

from __future__ import annotations

from pathlib import Path

from hybridsched.experiments.library import instance_files as library_files
from hybridsched.experiments.library import tier_of

LIBRARY = Path(__file__).resolve().parents[1] / "instances"


def instance_files(family: str, *tiers: str) -> list[Path]:
    """Instance files of ``family`` (real-data recipes left out) in ``tiers`` (all if none)."""
    return [p for p in library_files(LIBRARY / family) if not tiers or tier_of(p) in tiers]
