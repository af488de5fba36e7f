"""The JSON documents of ``toy-makespan`` as pydantic models (``hybridsched schema``).

An instance::

    {"format": "hybridsched-instance", "family": "toy-makespan", "name": "four",
     "machines": 2, "tasks": [{"id": "a", "duration": 3}, ...],
     "reference": {"optimum": 5}}

A solution: ``{"format": "hybridsched-solution", "family": "toy-makespan",
"machine_of": {"a": 0, ...}, "makespan": 5}``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from hybridsched.io.documents import (
    InstanceHeader,
    ReferenceBase,
    SolutionHeader,
    integer,
    number,
)

FAMILY = "toy-makespan"


class TaskDoc(BaseModel):
    """One task: its id and duration."""

    id: str = Field(min_length=1)
    duration: number(ge=0, le=1e12)  # type: ignore[valid-type]


class ReferenceDoc(ReferenceBase):
    """Recorded values: the proven optimal makespan."""

    optimum: number(ge=0) | None = None  # type: ignore[valid-type]


class InstanceDoc(InstanceHeader):
    """An instance file."""

    family: Literal["toy-makespan"]
    machines: integer(1, 1000)  # type: ignore[valid-type]
    tasks: list[TaskDoc] = Field(min_length=1, max_length=10_000)
    reference: ReferenceDoc | None = None


class SolutionDoc(SolutionHeader):
    """A solution file: the machine of each task, by task id."""

    family: Literal["toy-makespan"]
    machine_of: dict[str, int]
