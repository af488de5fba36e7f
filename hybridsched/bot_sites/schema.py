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

from typing import Annotated, Literal

from pydantic import Field

from hybridsched.io.documents import (
    Finite,
    Identifier,
    InstanceHeader,
    NonNegative,
    ProcessorCount,
    ProcessorIndex,
    ReferenceBase,
    SolutionHeader,
    Strict,
    TaskCount,
    number,
)

#: Integers are capped before they reach int64 arrays (a count of 2**64 + 5 must not
#: wrap around): tasks of a BoT and of a block <= MAX_TASKS, processors <= MAX_PROCESSORS.
Count = TaskCount

#: Bounds of the real numbers: a task's time (ETC, seconds) and data size, bandwidths,
#: storage sizes and prices. Times, transfer times, costs and the sums of squares of the
#: fairness index computed from them then stay far inside a double (an ETC of 5e-324
#: or 1e300 ended in an internal error, 1e-300 in a run that never ended).
MIN_ETC, MAX_ETC = 1e-6, 1e9
MAX_DATA = 1e12
MIN_BANDWIDTH, MAX_BANDWIDTH = 1e-9, 1e15
MIN_STORAGE, MAX_STORAGE = 1e-6, 1e15
MAX_PRICE = 1e9

Etc = number(ge=MIN_ETC, le=MAX_ETC)
Data = number(gt=0, le=MAX_DATA)
Bandwidth = number(ge=MIN_BANDWIDTH, le=MAX_BANDWIDTH)
Storage = number(ge=MIN_STORAGE, le=MAX_STORAGE)
Price = number(ge=0, le=MAX_PRICE)

#: Per-site rows: a list in site order or an object keyed by site id.
EtcRow = list[Etc] | dict[str, Etc]
DataRow = list[Data] | dict[str, Data]
BandwidthRow = list[Bandwidth] | dict[str, Bandwidth]

FAMILY = "bot-sites"


class SiteDoc(Strict):
    """A site: ``procs`` identical processors, ``price`` per time unit of computation."""

    id: Identifier
    procs: ProcessorCount
    price: Price = 0.0
    bandwidth: Bandwidth | None = None
    storage: Storage | None = None


class BotDoc(Strict):
    """A bag of ``tasks`` identical tasks; ``etc`` gives one task's time on each site."""

    id: Identifier
    tasks: Count
    etc: EtcRow
    data: DataRow | None = None
    bandwidth: BandwidthRow | None = None
    storage: Storage | None = None


class ReferenceDoc(ReferenceBase):
    """Recorded optimum or bounds (``optimal_makespan`` when proven)."""

    optimal_makespan: NonNegative | None = None
    optimal_cost: NonNegative | None = None


class InstanceDoc(InstanceHeader):
    """A bot-sites instance file."""

    family: Literal["bot-sites"] = FAMILY
    units: dict[str, str] = Field(
        default_factory=lambda: {"time": "second", "price": "per second of computation"}
    )
    sites: Annotated[list[SiteDoc], Field(min_length=1)]
    bots: list[BotDoc]
    edges: list[tuple[Identifier, Identifier]] = Field(default_factory=list)
    hard_limits: bool = False
    reference: ReferenceDoc | None = None


class BlockDoc(Strict):
    """``count`` tasks of ``bot`` back to back on ``processor`` of ``site`` from ``start``."""

    bot: Identifier
    site: Identifier
    processor: ProcessorIndex
    count: TaskCount
    start: Finite


class SolutionDoc(SolutionHeader):
    """A bot-sites solution file (extra summary fields are allowed)."""

    family: Literal["bot-sites"] = FAMILY
    blocks: list[BlockDoc]
