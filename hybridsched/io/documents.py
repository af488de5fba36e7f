"""Building blocks shared by every family's JSON document models (pydantic)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Finite = Annotated[float, Field(allow_inf_nan=False)]
Identifier = Annotated[str, Field(min_length=1)]


class Strict(BaseModel):
    """A frozen model that rejects unknown fields (typos are errors, not ignored)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class InstanceHeader(Strict):
    """Fields every instance file starts with; a family adds ``family`` and its data."""

    format: Literal["hybridsched-instance"] = "hybridsched-instance"
    version: Literal[1] = 1
    name: Identifier = "unnamed"
    provenance: dict[str, Any] = Field(default_factory=dict)


class ReferenceBase(BaseModel):
    """Recorded bounds of an instance; families add their proven optima."""

    model_config = ConfigDict(extra="allow", frozen=True)

    lower_bound: NonNegative | None = None
    upper_bound: NonNegative | None = None


class SolutionHeader(BaseModel):
    """Fields every solution file starts with (extra summary fields are allowed)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    format: Literal["hybridsched-solution"] = "hybridsched-solution"
    version: Literal[1] = 1
    instance: str | None = None
    method: str | None = None
