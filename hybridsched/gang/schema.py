"""JSON file format of ``gang`` instances and solutions (pydantic).

An instance document::

    {"format": "hybridsched-instance", "version": 1, "family": "gang", "name": "tiny",
     "jobs": [{"id": "j0", "arrival": 0.0, "parallelism": 2, "instructions": 12,
               "memory": 2, "bandwidth": 5, "deadline": 4}],
     "vms": [{"id": "v0", "speed": 3, "memory": 4, "bandwidth": 10},
             {"id": "v1", "speed": 6, "memory": 2, "bandwidth": 20, "disk": 100}]}

``deadline`` is relative to ``arrival``; ``disk`` is optional on both sides.
A solution lists the started jobs (start time and VMs) and the dropped ones
(with the reason the method gives). A started job that did not finish by its
deadline (only a deadline-oblivious policy starts one) says what happened to
it: ``"missed": "killed"`` (stopped at its deadline) or ``"late"`` (ran to
completion after it); it counts as unfinished. Files without ``missed`` stay
valid and mean what they meant.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from hybridsched.io.documents import (
    MAX_PROCESSORS,
    Identifier,
    InstanceHeader,
    ReferenceBase,
    SolutionHeader,
    Strict,
    integer,
    number,
)

FAMILY = "gang"
#: Latest time accepted (time units).
MAX_TIME = 1e9

#: Slowest VM accepted: a task of the most instructions (10^12) then takes 10^18
#: time units, far inside a double (a speed of 1e-320 would overflow to infinity).
MIN_SPEED = 1e-6

Time = number(ge=0, le=MAX_TIME)
Amount = number(gt=0, le=1e12)
#: A start time: a started job starts by its due date, arrival + deadline <= 2 x MAX_TIME.
StartTime = number(ge=0, le=2 * MAX_TIME)


class JobDoc(Strict):
    """A parallel job of ``parallelism`` identical tasks."""

    id: Identifier
    arrival: Time = 0.0
    parallelism: integer(1, MAX_PROCESSORS)
    instructions: Amount
    memory: Amount
    bandwidth: Amount
    disk: number(ge=0, le=1e12) = 0.0
    deadline: number(gt=0, le=MAX_TIME)


class VmDoc(Strict):
    """A space-shared VM."""

    id: Identifier
    speed: number(ge=MIN_SPEED, le=1e12)
    memory: Amount
    bandwidth: Amount
    disk: Amount | None = None


class ReferenceDoc(ReferenceBase):
    """Recorded offline optimum (fewest unfinished jobs)."""

    optimal_unfinished: integer(0) | None = None


class InstanceDoc(InstanceHeader):
    """A gang instance file."""

    family: Literal["gang"] = FAMILY
    units: dict[str, str] = Field(default_factory=lambda: {
        "time": "time unit", "instructions": "time units on a VM of speed 1"})
    jobs: list[JobDoc]
    vms: Annotated[list[VmDoc], Field(min_length=1)]
    reference: ReferenceDoc | None = None


#: What happened to a started job that missed its deadline (:class:`StartDoc`).
MISSED = ("killed", "late")


class StartDoc(Strict):
    """A started job: its start time, the VMs of its tasks, and whether it missed its deadline."""

    job: Identifier
    start: StartTime
    vms: Annotated[list[Identifier], Field(min_length=1)]
    missed: Literal[MISSED] | None = None  # type: ignore[valid-type]


class DropDoc(Strict):
    """A job the method did not run, with its reason."""

    job: Identifier
    reason: str = ""


#: Event names the simulation writes (``kill``: a job stopped at its deadline).
EVENTS = ("arrival", "start", "end", "drop", "kill")
#: Metrics a solution file may state (the checker compares each stated one).
CLAIMS = ("unfinished", "finished", "awt", "ave", "sin", "utilisation")


class EventDoc(Strict):
    """One record of the event log: the simulation's fields, each with its type.

    Whether the records agree with the schedule is the checker's question
    (:mod:`hybridsched.gang.event_log`); a record that is not one the
    simulation could write is bad input.
    """

    time: StartTime
    event: Literal[EVENTS]  # type: ignore[valid-type]
    job: Identifier
    vms: Annotated[list[Identifier], Field(min_length=1)] | None = None
    end: number(ge=0) | None = None
    reason: str | None = None


class SolutionDoc(SolutionHeader):
    """A gang solution file: started and dropped jobs, an optional log, stated metrics.

    Each stated metric (and ``objective``) is compared with the checker's by ``validate``.
    """

    family: Literal["gang"] = FAMILY
    started: list[StartDoc]
    dropped: list[DropDoc] = Field(default_factory=list)
    events: list[EventDoc] | None = None
    unfinished: integer(0) | None = None
    finished: integer(0) | None = None
    awt: number(ge=0) | None = None
    ave: number(ge=0) | None = None
    sin: number(ge=0) | None = None
    utilisation: number(ge=0) | None = None
