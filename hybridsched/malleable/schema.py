"""JSON file format of ``malleable`` instances and solutions (pydantic).

An instance document::

    {"format": "hybridsched-instance", "version": 1, "family": "malleable",
     "name": "two-jobs",
     "jobs": [{"id": "j1", "size": 90, "priority": 3, "deadline": 20,
               "budget": 100, "arrival": 0},
              {"id": "j2", "size": 1500, "priority": 12, "deadline": 400,
               "budget": 2000, "arrival": 1, "serial_fraction": 0.05}],
     "resources": [{"id": "ded", "type": "dedicated", "cpus": 16},
                   {"id": "alloc", "type": "allocated", "cpus": 32, "price": 1},
                   {"id": "cloud", "type": "cloud", "cpus": 8, "price": 960,
                    "max_vms": 16, "spot_vms": 8, "on_demand_price": 1440}],
     "tree": {"edges": [["root", "ded"], ["root", "clusters"], ...]}}

Times are whole minutes (``arrival``, absolute ``deadline``); ``size`` is in
processor-minutes at performance 1; ``serial_fraction`` is Amdahl's
(default 0: linear speed-up). ``tree`` is optional: its edges are
``[parent, child]`` node names, and its leaves are resource ids.

A solution gives each job its resource and the pieces it ran: processors
``cpu .. cpu + count - 1`` of that resource from ``start`` to ``end``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool, model_validator

from hybridsched.io.documents import (
    MAX_PROCESSORS,
    Finite,
    Identifier,
    InstanceHeader,
    NonNegative,
    ProcessorCount,
    ProcessorIndex,
    ReferenceBase,
    SolutionHeader,
    Strict,
    integer,
    number,
)
from hybridsched.io.limits import MAX_MINUTES

FAMILY = "malleable"

#: A whole minute in ``[0, MAX_MINUTES]``.
Minute = integer(0, MAX_MINUTES)
#: Largest job size accepted (processor-minutes): one processor for MAX_MINUTES.
MAX_SIZE = float(MAX_MINUTES)
#: Highest price accepted (per processor-minute or per VM-hour): with at most 10^6
#: processors and 10^7 minutes, every bill stays far inside a double.
MAX_PRICE = 1e9
#: Largest budget accepted (a generated one is at most 1.5 x 2,000 processor-minutes x
#: MAX_PRICE / 10^-3, the lowest performance).
MAX_BUDGET = 1e18

#: A price in ``[0, MAX_PRICE]``.
Price = number(ge=0, le=MAX_PRICE)


class JobDoc(Strict):
    """A malleable job (the paper's task)."""

    id: Identifier
    size: number(gt=0, le=MAX_SIZE)
    priority: integer(-10**6, 10**6)
    deadline: Minute
    budget: number(ge=0, le=MAX_BUDGET)
    arrival: Minute = 0
    serial_fraction: number(ge=0, lt=1) = 0.0

    @model_validator(mode="after")
    def _deadline_after_arrival(self) -> JobDoc:
        if self.deadline < self.arrival:
            raise ValueError(f"job {self.id!r}: deadline {self.deadline} is before its "
                             f"arrival {self.arrival}")
        return self


class ResourceDoc(Strict):
    """A dedicated or allocated cluster, or a cloud (see the module docstring)."""

    id: Identifier
    type: Literal["dedicated", "allocated", "cloud"]
    cpus: ProcessorCount
    performance: number(ge=1e-3, le=1e6) = 1.0
    price: Price = 0.0
    max_vms: ProcessorCount | None = None
    spot_vms: integer(0, MAX_PROCESSORS) | None = None
    on_demand_price: Price | None = None

    @model_validator(mode="after")
    def _fields_of_type(self) -> ResourceDoc:
        cloud_only = [f for f in ("max_vms", "spot_vms", "on_demand_price")
                      if getattr(self, f) is not None]
        if self.type != "cloud" and cloud_only:
            raise ValueError(f"resource {self.id!r}: {cloud_only[0]} is for clouds only")
        if self.type == "dedicated" and self.price != 0:
            raise ValueError(f"resource {self.id!r}: a dedicated cluster is free (price 0)")
        if self.type == "cloud":
            if self.max_vms is None:
                raise ValueError(f"resource {self.id!r}: a cloud needs max_vms")
            if self.max_vms * self.cpus > MAX_PROCESSORS:
                raise ValueError(f"resource {self.id!r}: {self.max_vms} VMs x {self.cpus} "
                                 f"CPUs exceeds {MAX_PROCESSORS} processors")
            if self.spot_vms is not None and self.spot_vms > self.max_vms:
                raise ValueError(f"resource {self.id!r}: spot_vms {self.spot_vms} > max_vms "
                                 f"{self.max_vms}")
        return self


class TreeDoc(Strict):
    """An agent tree: ``[parent, child]`` edges; leaves are resource ids."""

    edges: Annotated[list[tuple[Identifier, Identifier]], Field(min_length=1)]


class PlatformDoc(Strict):
    """A platform file: the resources and optional tree of an instance, without jobs."""

    name: Identifier | None = None
    resources: Annotated[list[ResourceDoc], Field(min_length=1)]
    tree: TreeDoc | None = None


class ReferenceDoc(ReferenceBase):
    """Recorded offline optima (``optimal_penalised_a`` etc.) of the batch, or bounds on them.

    Where an optimum is not proven, ``upper_bound_<objective>`` (the best
    schedule's value) and ``lower_bound_<objective>`` (a proven bound).
    """

    optimal_penalised_a: NonNegative | None = None
    optimal_penalised_b: NonNegative | None = None
    optimal_cost: NonNegative | None = None
    upper_bound_penalised_a: NonNegative | None = None
    lower_bound_penalised_a: NonNegative | None = None
    upper_bound_penalised_b: NonNegative | None = None
    lower_bound_penalised_b: NonNegative | None = None


class InstanceDoc(InstanceHeader):
    """A malleable instance file."""

    family: Literal["malleable"] = FAMILY
    units: dict[str, str] = Field(default_factory=lambda: {
        "time": "minute", "size": "processor-minute",
        "price": "per processor-minute (allocated), per VM-hour (cloud)"})
    jobs: list[JobDoc]
    resources: Annotated[list[ResourceDoc], Field(min_length=1)]
    tree: TreeDoc | None = None
    reference: ReferenceDoc | None = None


class PieceDoc(Strict):
    """Processors ``cpu .. cpu + count - 1`` from minute ``start`` to ``end``."""

    start: Minute
    end: Minute
    cpu: ProcessorIndex
    count: ProcessorCount


class PlacementDoc(Strict):
    """Where and when one job ran."""

    job: Identifier
    resource: Identifier
    pieces: Annotated[list[PieceDoc], Field(min_length=1)]


#: Kinds of record of the event log and the fields each carries besides ``time``,
#: ``event`` and ``job`` (every record has those three): exactly what the simulation's
#: ``log.record(...)`` calls write (:mod:`hybridsched.heuristics.malleable.simulation`).
#: ``resource`` is a resource id: where a piece starts or a job ends, the resource a
#: decision chooses, the cluster that gives a queued job up (``reschedule``); a
#: decision's ``option``, ``good``, ``cost`` and ``end`` are the chosen candidate's
#: (:class:`~hybridsched.malleable.candidates.Candidate`); ``until`` is the minute a
#: waiting job is decided again. A record with a field its kind does not carry, or
#: without one it carries, is bad input.
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "arrival": (),
    "start": ("resource", "end", "cpu", "count"),
    "end": ("resource",),
    "decision": ("resource", "option", "good", "cost", "end"),
    "wait": ("until",),
    "reschedule": ("resource",),
}
#: Event names the simulation writes.
EVENTS = tuple(EVENT_FIELDS)


class EventDoc(Strict):
    """One record of the event log: the simulation's fields, each with its type.

    Which of the optional fields a record has depends on its ``event``
    (:data:`EVENT_FIELDS`, checked with the instance's ids when a solution is
    read, :func:`hybridsched.malleable.files.solution_from_dict`). Whether the
    records agree with the schedule is the checker's question
    (:mod:`hybridsched.malleable.event_log`); a record that is not one the
    simulation could write is bad input.
    """

    time: Minute
    event: Literal[EVENTS]  # type: ignore[valid-type]
    job: Identifier
    resource: Identifier | None = None
    end: Minute | None = None
    cpu: ProcessorIndex | None = None
    count: ProcessorCount | None = None
    #: 0: a cluster's only schedule or a cloud's deadline one; 1: a cloud's budget one.
    option: integer(0, 1) | None = None
    good: StrictBool | None = None
    #: What the decision adds to the bills: never negative.
    cost: NonNegative | None = None
    until: Minute | None = None


class SolutionDoc(SolutionHeader):
    """A malleable solution file: the realised schedule (plus an optional event log)."""

    family: Literal["malleable"] = FAMILY
    jobs: list[PlacementDoc]
    events: list[EventDoc] | None = None
    policy: Literal["A", "B"] | None = None
    total_delay: Finite | None = None
