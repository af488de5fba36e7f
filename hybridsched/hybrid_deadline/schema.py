"""JSON file format of hybrid-deadline instances and solutions (pydantic).

Validation happens here, once, at the boundary; the result is converted to
the frozen :class:`~hybridsched.hybrid_deadline.instance.Instance` that the
algorithms use without re-validating. ``hybridsched schema hybrid-deadline``
prints the JSON Schema generated from these models.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from hybridsched.io.documents import (
    MAX_TASKS,
    CoreCount,
    CoreIndex,
    Finite,
    Identifier,
    InstanceHeader,
    NonNegative,
    NonNegativeInt,
    ReferenceBase,
    SolutionHeader,
    Strict,
    number,
)

FAMILY = "hybrid-deadline"

#: Largest work of a task (GHz-hours) and latest deadline (hours): run times, VM hours,
#: costs and the work machines can do by a deadline stay far inside a double (a price
#: of 1e308 made the cost of one VM-hour infinite). Deadlines may be far away: a trace
#: imported with a large --alpha has deadlines of millions of years.
MAX_WORK = 1e9
MAX_HOURS = 1e15
#: Core speeds (GHz) and VM prices (USD per hour) accepted.
MIN_CAPACITY, MAX_CAPACITY = 1e-6, 1e6
MAX_PRICE = 1e9

Work = number(gt=0, le=MAX_WORK)
Hours = number(gt=0, le=MAX_HOURS)
Capacity = number(ge=MIN_CAPACITY, le=MAX_CAPACITY)
Price = number(gt=0, le=MAX_PRICE)

#: Identifiers given to rented VMs in solution files (``vm-0``, ``vm-1``, ...).
VM_ID = re.compile(r"vm-\d+")


def _not_a_vm_id(value: str) -> str:
    """PM ids may not look like generated VM ids, which would make solutions ambiguous."""
    if VM_ID.fullmatch(value):
        raise ValueError(f"PM id {value!r} is reserved: ids vm-<number> name rented VMs "
                         "in solution files")
    return value


PMId = Annotated[Identifier, AfterValidator(_not_a_vm_id)]


class TaskDoc(Strict):
    """One task: its work in GHz-hours (run time on a 1 GHz core)."""

    id: Identifier
    work: Work


class JobDoc(Strict):
    """A bag of independent tasks sharing one deadline (hours from time 0)."""

    id: Identifier
    deadline: Hours
    tasks: list[TaskDoc]


class PMDoc(Strict):
    """A local physical machine: identical cores of ``capacity`` GHz each.

    Its id may not have the form ``vm-<number>``, which names rented VMs.
    """

    id: PMId
    cores: CoreCount
    capacity: Capacity


class VMTypeDoc(Strict):
    """A public-cloud VM type, billed ``price`` dollars per started hour."""

    id: Identifier
    cores: CoreCount
    capacity: Capacity
    price: Price


class ReferenceDoc(ReferenceBase):
    """Recorded optimum or bounds of the instance (``optimal_cost`` when proven)."""

    optimal_cost: NonNegative | None = None


class InstanceDoc(InstanceHeader):
    """A hybrid-deadline instance file."""

    family: Literal["hybrid-deadline"] = FAMILY
    units: dict[str, str] = Field(
        default_factory=lambda: {
            "time": "hour",
            "work": "GHz-hour",
            "capacity": "GHz per core",
            "price": "USD per VM-hour",
        }
    )
    jobs: list[JobDoc]
    pms: list[PMDoc]
    vm_types: list[VMTypeDoc]
    max_vms: NonNegativeInt | None = None
    reference: ReferenceDoc | None = None

    @model_validator(mode="after")
    def _unique_ids(self) -> InstanceDoc:
        n_tasks = sum(len(j.tasks) for j in self.jobs)
        if n_tasks > MAX_TASKS:
            raise ValueError(f"{n_tasks} tasks: an instance may have at most {MAX_TASKS}")
        def duplicates(ids: list[str]) -> list[str]:
            seen: set[str] = set()
            return [i for i in ids if i in seen or seen.add(i)]

        for what, ids in (
            ("jobs", [j.id for j in self.jobs]),
            ("tasks", [t.id for j in self.jobs for t in j.tasks]),
            ("pms", [p.id for p in self.pms]),
            ("vm_types", [v.id for v in self.vm_types]),
        ):
            dup = duplicates(ids)
            if dup:
                raise ValueError(f"duplicate {what} id {dup[0]!r}")
        return self


class VMDoc(Strict):
    """A rented VM: its own id, its type, and the billed hours it claims."""

    id: Identifier
    type: Identifier
    lease_hours: NonNegativeInt | None = None


class AssignmentDoc(Strict):
    """Where and when one task runs."""

    task: Identifier
    machine: Identifier
    core: CoreIndex
    start: Finite
    finish: Finite


class SolutionDoc(SolutionHeader):
    """A hybrid-deadline solution file (extra summary fields are allowed)."""

    family: Literal["hybrid-deadline"] = FAMILY
    vms: list[VMDoc] = Field(default_factory=list)
    assignments: list[AssignmentDoc]
