"""JSON file format of hybrid-deadline instances and solutions (pydantic).

Validation happens here, once, at the boundary; the result is converted to
the frozen :class:`~hybridsched.hybrid_deadline.instance.Instance` that the
algorithms use without re-validating. ``hybridsched schema hybrid-deadline``
prints the JSON Schema generated from these models.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from hybridsched.io.documents import (
    Identifier,
    InstanceHeader,
    NonNegative,
    Positive,
    ReferenceBase,
    SolutionHeader,
    Strict,
)

FAMILY = "hybrid-deadline"


class TaskDoc(Strict):
    """One task: its work in GHz-hours (run time on a 1 GHz core)."""

    id: Identifier
    work: Positive


class JobDoc(Strict):
    """A bag of independent tasks sharing one deadline (hours from time 0)."""

    id: Identifier
    deadline: Positive
    tasks: list[TaskDoc]


class PMDoc(Strict):
    """A local physical machine: identical cores of ``capacity`` GHz each."""

    id: Identifier
    cores: Annotated[int, Field(gt=0)]
    capacity: Positive


class VMTypeDoc(Strict):
    """A public-cloud VM type, billed ``price`` dollars per started hour."""

    id: Identifier
    cores: Annotated[int, Field(gt=0)]
    capacity: Positive
    price: Positive


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
    max_vms: Annotated[int, Field(ge=0)] | None = None
    reference: ReferenceDoc | None = None

    @model_validator(mode="after")
    def _unique_ids(self) -> InstanceDoc:
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
    lease_hours: Annotated[int, Field(ge=0)] | None = None


class AssignmentDoc(Strict):
    """Where and when one task runs."""

    task: Identifier
    machine: Identifier
    core: Annotated[int, Field(ge=0)]
    start: float
    finish: float


class SolutionDoc(SolutionHeader):
    """A hybrid-deadline solution file (extra summary fields are allowed)."""

    family: Literal["hybrid-deadline"] = FAMILY
    vms: list[VMDoc] = Field(default_factory=list)
    assignments: list[AssignmentDoc]
    cost: NonNegative | None = None
