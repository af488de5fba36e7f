"""What a campaign is once its spec is read: the instances and methods that run.

A :class:`Campaign` is validated and fully expanded (globs, generator grids,
seeds and method option grids): :mod:`~hybridsched.experiments.spec` makes
one from a TOML file, :func:`~hybridsched.experiments.spec.campaign_from_parts`
from names (``compare``), and :mod:`~hybridsched.experiments.runs` turns it
into runs. The limits of an expansion live here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hybridsched.experiments.sources import InstanceSource

#: Most runs one campaign may expand to.
MAX_RUNS = 10**7
#: Per-run time limit when the spec gives none (seconds).
DEFAULT_TIME_LIMIT = 60.0
#: What ``campaign.record`` may ask for beyond the defaults.
RECORD_CHOICES = ("solution",)


@dataclass(frozen=True)
class MethodEntry:
    """One method of a campaign at one point of its options grid.

    Attributes
    ----------
    family, name:
        Registry keys of the method.
    label:
        Display name, unique within the family.
    options:
        Method options (one grid point), sorted by name.
    time_limit:
        Seconds per run (``None``: no limit).
    seeds:
        Method seeds; each runs ``replications`` times.
    replications:
        Repeated runs of the same (instance, method, seed).
    """

    family: str
    name: str
    label: str
    options: tuple[tuple[str, Any], ...] = ()
    time_limit: float | None = DEFAULT_TIME_LIMIT
    seeds: tuple[int, ...] = (0,)
    replications: int = 1

    def options_dict(self) -> dict[str, Any]:
        """The options as keyword arguments."""
        return dict(self.options)


@dataclass(frozen=True)
class Campaign:
    """A validated, fully expanded campaign: which methods run on which instances.

    Attributes
    ----------
    name, description:
        From ``[campaign]`` (the name defaults to the spec file's stem).
    sources:
        Every instance, globs expanded and sorted, generator grids x seeds expanded.
    methods:
        One entry per method x family x options grid point.
    record:
        Extras to record (``"solution"``).
    plugins:
        Absolute paths of the plugin files every worker imports.
    spec_path, spec_text:
        The spec file (absolute) and its text, stored with the results.
    """

    name: str
    description: str
    sources: tuple[InstanceSource, ...]
    methods: tuple[MethodEntry, ...]
    record: frozenset[str] = field(default_factory=frozenset)
    plugins: tuple[str, ...] = ()
    spec_path: str | None = None
    spec_text: str = ""
