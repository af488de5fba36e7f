"""JSON file format of ``pull`` instances and solutions (pydantic).

An instance document::

    {"format": "hybridsched-instance", "version": 1, "family": "pull", "name": "tiny",
     "work_units": [{"id": "w0", "noi": 2000000, "arrival": 0}],
     "hosts": [{"id": "idg-0", "dci": "idg", "cpu": 200, "price": 0, "error": 0.3,
                "windows": [[0, 7200], [9000, null]]},
               {"id": "cloud-1", "dci": "cloud", "cpu": 300, "price": 0.005}],
     "behaviour": {"delayed": 0.15, "never": 0.05, "max_delay": 1.5, "seed": 0}}

Times are seconds. ``windows`` are a host's availability spans, sorted and
disjoint; an end of ``null`` means the host stays; without ``windows`` the
host is available from time 0 on. ``error`` is the probability that a result
of the host is wrong (default 0).

A solution lists the tasks the hosts ran: unit, host, start, end, delay
factor and outcome (``correct``, ``wrong``, ``never``, ``lost``,
``cancelled``); optionally the event log (records ``{"time", "event", ...}``
of the kinds in :data:`EVENT_FIELDS`, each with exactly its kind's fields) and
stated values (``objective``, ``makespan``, ``cost``, ``efficiency``, counts),
which ``validate`` compares with the schedule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field

from hybridsched.errors import InputError
from hybridsched.io.documents import (
    Identifier,
    InstanceHeader,
    NonNegative,
    ReferenceBase,
    SolutionHeader,
    Strict,
    integer,
    number,
)
from hybridsched.io.limits import MAX_PULL_SECONDS, MAX_PULL_TASKS, MAX_PULL_UNITS

#: The three kinds of distributed computing infrastructure of the paper.
DCIS = ("idg", "cloud", "beg")

#: Outcomes of a task, in the order of their integer codes (:mod:`.solution`).
OUTCOMES = ("correct", "wrong", "never", "lost", "cancelled")

FAMILY = "pull"
#: Latest time accepted (seconds; about 31.7 years): the horizon of a run
#: (see :data:`~hybridsched.io.limits.MAX_PULL_SECONDS`).
MAX_TIME = float(MAX_PULL_SECONDS)
#: Most work units (see :data:`~hybridsched.io.limits.MAX_PULL_UNITS`), hosts and
#: windows of one instance, and tasks of one schedule.
MAX_UNITS = MAX_PULL_UNITS
MAX_HOSTS = 10**5
MAX_WINDOWS = 10**7
MAX_TASKS = MAX_PULL_TASKS

Time = number(ge=0, le=MAX_TIME)
Probability = number(ge=0, le=1)


class UnitDoc(Strict):
    """A work unit of ``noi`` instructions arriving at ``arrival``."""

    id: Identifier
    noi: number(gt=0, le=1e15)
    arrival: Time = 0.0


class HostDoc(Strict):
    """A host of a DCI, with its capacity, price, error probability and windows."""

    id: Identifier
    dci: Literal["idg", "cloud", "beg"]
    cpu: number(gt=0, le=1e12)
    price: number(ge=0, le=1e6) = 0.0
    error: Probability = 0.0
    windows: Annotated[list[tuple[Time, Time | None]], Field(max_length=MAX_WINDOWS)] | None = None


class BehaviourDoc(Strict):
    """Probabilities of never-returned and delayed results, the delay cap and the seed."""

    delayed: Probability = 0.15
    never: Probability = 0.05
    max_delay: number(ge=1, le=100) = 1.5
    seed: integer(0, 2**63 - 1) = 0


class ReferenceDoc(ReferenceBase):
    """Recorded clairvoyant offline optimum (``optimal_makespan``), or bounds on it."""

    optimal_makespan: NonNegative | None = None


class InstanceDoc(InstanceHeader):
    """A pull instance file."""

    family: Literal["pull"] = FAMILY
    units: dict[str, str] = Field(default_factory=lambda: {
        "time": "second", "noi": "instructions", "cpu": "instructions per second",
        "price": "monetary units per second"})
    work_units: Annotated[list[UnitDoc], Field(max_length=MAX_UNITS)]
    hosts: Annotated[list[HostDoc], Field(min_length=1, max_length=MAX_HOSTS)]
    behaviour: BehaviourDoc = Field(default_factory=BehaviourDoc)
    seed: integer(0, 2**63 - 1) = 0
    reference: ReferenceDoc | None = None


class TaskDoc(Strict):
    """One task (replica) a host ran."""

    unit: Identifier
    host: Identifier
    start: Time
    end: Time
    delay: number(ge=1, le=100) = 1.0
    outcome: Literal[OUTCOMES]  # type: ignore[valid-type]


#: Kinds of event of the log (:mod:`hybridsched.heuristics.pull.simulation`) and the fields each
#: carries.
EVENT_FIELDS = {"HJ": ("host",), "HLE": ("host",), "WKUA": ("unit",),
                "SCH": ("unit", "host", "replica"), "RET": ("unit", "host", "result"),
                "LOST": ("unit", "host")}
#: The ``result`` of a RET event, by outcome.
RESULTS = {"correct": "correct", "wrong": "wrong", "never": "none"}


class EventDoc(Strict):
    """One record of the event log; which optional fields it has depends on ``event``."""

    time: Time
    event: Literal[tuple(EVENT_FIELDS)]  # type: ignore[valid-type]
    unit: Identifier | None = None
    host: Identifier | None = None
    replica: integer(1, MAX_TASKS) | None = None
    result: Literal[tuple(RESULTS.values())] | None = None  # type: ignore[valid-type]


class SolutionDoc(SolutionHeader):
    """A pull solution file: the tasks, an optional event log, and stated counts.

    Extra fields named like a metric of the checker (``completed``,
    ``tasks_<outcome>``, ``tasks_delayed``, ``efficiency_<dci>``,
    ``instructions_<dci>``, ``completed_<dci>``) are claims, compared with the
    recomputed values.
    """

    family: Literal["pull"] = FAMILY
    tasks: Annotated[list[TaskDoc], Field(max_length=MAX_TASKS)]
    events: list[EventDoc] | None = None
    efficiency: number(ge=0, le=1) | None = None


def check_dcis(dcis: Sequence[str]) -> None:
    """One-line :class:`InputError` for an empty, unknown or repeated DCI list."""
    unknown = [d for d in dcis if d not in DCIS]
    if unknown or not dcis:
        raise InputError(f"dci: choose among {', '.join(DCIS)} (got "
                         f"{', '.join(dcis) or 'none'}): an infrastructure is needed")
    if len(set(dcis)) != len(dcis):
        raise InputError(f"dci: {', '.join(dcis)} names a DCI twice")


def parse_dcis(text: str) -> tuple[str, ...]:
    """DCIs from a comma-separated list (``"idg,cloud"``), checked by :func:`check_dcis`."""
    dcis = tuple(d.strip().lower() for d in text.split(",") if d.strip())
    check_dcis(dcis)
    return dcis
