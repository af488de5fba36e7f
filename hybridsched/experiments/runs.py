"""The runs of a campaign: what each one computes, and the key that names it.

A run is a pure function of (family, method, options, instance content,
seed, time limit, code version), plus its replication number: its key is a
hash of exactly those, so a result store can tell which runs are already
done. The method's *label* is a display name and is not part of the key.
Workers receive a :class:`Run` (instance *source*, not instance), which
stays small when pickled.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hybridsched.experiments.campaign_model import MAX_RUNS, Campaign, MethodEntry
from hybridsched.experiments.sources import InstanceSource
from hybridsched.provenance import code_version

__all__ = ["MAX_RUNS", "Run", "code_version", "hash_instance", "plan_runs", "run_key"]


def _hash(payload: Any) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def hash_instance(source: InstanceSource) -> str:
    """The instance hash of ``source``: SHA-256 of its content identity.

    The identity (:meth:`~hybridsched.experiments.sources.InstanceSource.identity`)
    never holds the path, so the same instance found twice has one hash.
    """
    return _hash(json.loads(source.identity()))


@dataclass(frozen=True)
class Run:
    """One method on one instance with one seed: a row of the result table.

    Attributes
    ----------
    key:
        Hash of what determines the result (module docstring).
    campaign:
        Name of the campaign it belongs to.
    source:
        Where the worker loads the instance from.
    instance_hash:
        Hash of the instance's content identity.
    method:
        The method entry (family, registry name, label, options, time limit).
    seed, replication:
        The method's seed and the 0-based replication number.
    record_solution:
        Whether the row keeps the schedule itself.
    plugins:
        Python files the worker imports first (extra methods or families).
    code_version:
        The driver's :func:`code_version`; a worker running other code refuses the run.
    """

    key: str
    campaign: str
    source: InstanceSource
    instance_hash: str
    method: MethodEntry
    seed: int
    replication: int
    record_solution: bool
    plugins: tuple[str, ...]
    code_version: str

    def describe(self) -> str:
        """E.g. ``"running cdf+ra on small-01"`` for progress displays."""
        where = Path(self.source.path).stem if self.source.kind == "file" and \
            self.source.path else self.source.label()
        return f"running {self.method.label} on {where}"


def run_key(*, family: str, method: str, options: dict[str, Any], instance_hash: str,
            seed: int, time_limit: float | None, replication: int, version: str) -> str:
    """The key of a run (module docstring)."""
    return _hash({"family": family, "method": method, "options": options,
                  "instance": instance_hash, "seed": seed, "time_limit": time_limit,
                  "replication": replication, "code_version": version})


def plan_runs(campaign: Campaign, version: str | None = None) -> Iterator[Run]:
    """Every run of ``campaign``, instance by instance (a worker reuses a loaded instance).

    Runs with equal keys (the same file listed twice, say) are given once.
    """
    version = code_version() if version is None else version
    by_family: dict[str, list[MethodEntry]] = {}
    for entry in campaign.methods:
        by_family.setdefault(entry.family, []).append(entry)
    seen: set[str] = set()
    for source in campaign.sources:
        instance_hash = hash_instance(source)
        for entry in by_family.get(source.family, ()):
            for seed in entry.seeds:
                for replication in range(entry.replications):
                    key = run_key(family=entry.family, method=entry.name,
                                  options=entry.options_dict(), instance_hash=instance_hash,
                                  seed=seed, time_limit=entry.time_limit,
                                  replication=replication, version=version)
                    if key in seen:
                        continue
                    seen.add(key)
                    yield Run(key, campaign.name, source, instance_hash, entry, seed,
                              replication, "solution" in campaign.record, campaign.plugins,
                              version)
