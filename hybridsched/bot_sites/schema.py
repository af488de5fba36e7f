"""JSON file format of bot-sites instances and solutions (pydantic).

Validation happens here, once, at the boundary: every error names the field
path (``bots.3.etc``). Cross-references (unknown site or BoT ids, ragged
rows, cyclic DAGs) are checked by :mod:`hybridsched.bot_sites.files`, which
builds the frozen :class:`~hybridsched.bot_sites.instance.Instance`.

An instance document::

    {"format": "hybridsched-instance", "version": 1, "family": "bot-sites",
     "name": "gmo-table2-inconsistent",
     "sites": [{"id": "S1", "procs": 3, "price": 0.0},
               {"id": "S2", "procs": 2, "price": 0.0}],
     "bots": [{"id": "T1", "tasks": 5, "etc": [15, 10]},
              {"id": "T2", "tasks": 5, "etc": {"S1": 8, "S2": 9}}],
     "edges": [],
     "reference": {"optimal_makespan": 23}}

``etc`` is either a list in site order or an object keyed by site id.
Optional per-BoT ``data`` and ``bandwidth`` (same shapes as ``etc``) and
``storage``; optional per-site ``bandwidth`` (input bandwidth) and
``storage`` (limit); ``hard_limits`` makes bandwidth/storage limits hard
constraints for the checker.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Finite = Annotated[float, Field(allow_inf_nan=False)]
Identifier = Annotated[str, Field(min_length=1)]
Count = Annotated[int, Field(ge=1)]
Row = list[Positive] | dict[str, Positive]

FAMILY = "bot-sites"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SiteDoc(_Strict):
    """A site: ``procs`` identical processors, ``price`` per time unit of computation."""

    id: Identifier
    procs: Count
    price: NonNegative = 0.0
    bandwidth: Positive | None = None
    storage: Positive | None = None


class BotDoc(_Strict):
    """A bag of ``tasks`` identical tasks; ``etc`` gives one task's time on each site."""

    id: Identifier
    tasks: Count
    etc: Row
    data: Row | None = None
    bandwidth: Row | None = None
    storage: Positive | None = None


class ReferenceDoc(BaseModel):
    """Recorded optimum or bounds (``optimal_makespan`` when proven)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    optimal_makespan: NonNegative | None = None
    optimal_cost: NonNegative | None = None
    lower_bound: NonNegative | None = None
    upper_bound: NonNegative | None = None


class InstanceDoc(_Strict):
    """A bot-sites instance file."""

    format: Literal["hybridsched-instance"] = "hybridsched-instance"
    version: Literal[1] = 1
    family: Literal["bot-sites"] = FAMILY
    name: Identifier = "unnamed"
    units: dict[str, str] = Field(
        default_factory=lambda: {"time": "second", "price": "per second of computation"}
    )
    sites: Annotated[list[SiteDoc], Field(min_length=1)]
    bots: list[BotDoc]
    edges: list[tuple[Identifier, Identifier]] = Field(default_factory=list)
    hard_limits: bool = False
    reference: ReferenceDoc | None = None
    provenance: dict[str, Any] = Field(default_factory=dict)


class BlockDoc(_Strict):
    """``count`` tasks of ``bot`` back to back on ``processor`` of ``site`` from ``start``."""

    bot: Identifier
    site: Identifier
    processor: Annotated[int, Field(ge=0)]
    count: Count
    start: Finite


class SolutionDoc(BaseModel):
    """A bot-sites solution file (extra summary fields are allowed)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    format: Literal["hybridsched-solution"] = "hybridsched-solution"
    version: Literal[1] = 1
    family: Literal["bot-sites"] = FAMILY
    instance: str | None = None
    method: str | None = None
    blocks: list[BlockDoc]
