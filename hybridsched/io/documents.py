"""Building blocks shared by every family's JSON document models (pydantic).

Numbers are strict: the published schemas say ``number`` or ``integer``, so a
string (``"1.5"``) or a boolean (``true``) is rejected rather than coerced.
Integral floats are accepted where an integer is expected (``2.0``, which
JSON Schema also counts as an integer).

Sizes are capped *before* anything is allocated, by the limits of
:mod:`hybridsched.io.limits` (re-exported here): ``MAX_TASKS`` (10^7 tasks
per instance), ``MAX_CORES_PER_MACHINE`` (10^4), ``MAX_PROCESSORS`` (10^6 per
bot-sites instance), ``MAX_SITE_BOT_PAIRS`` (10^7). The count types below
(:data:`TaskCount`, :data:`CoreCount`, :data:`ProcessorCount`, ...) carry them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from hybridsched.io.limits import (  # noqa: F401  (re-exported: the schemas' limits)
    MAX_CORES_PER_MACHINE,
    MAX_INPUT_BYTES,
    MAX_JSON_DEPTH,
    MAX_PROCESSORS,
    MAX_SITE_BOT_PAIRS,
    MAX_TASKS,
)


def _reject_text_and_bool(value: Any) -> Any:
    """Refuse strings and booleans where a number is expected (no silent coercion)."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got the boolean {str(value).lower()}")
    if isinstance(value, str | bytes):
        raise ValueError(f"expected a number, got the string {value!r}")
    return value


_NumberOnly = BeforeValidator(_reject_text_and_bool)

#: Any finite number (integers accepted).
Finite = Annotated[float, Field(allow_inf_nan=False), _NumberOnly]
#: A finite number > 0.
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False), _NumberOnly]
#: A finite number >= 0.
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False), _NumberOnly]
#: A non-empty string.
Identifier = Annotated[str, Field(min_length=1)]


def integer(low: int, high: int | None = None) -> Any:
    """An integer type in ``[low, high]`` that refuses strings and booleans.

    Example
    -------
    >>> Cores = integer(1, MAX_CORES_PER_MACHINE)
    """
    # Field first, so that the bounds appear in the JSON Schema as minimum/maximum.
    return Annotated[int, Field(ge=low, le=high), _NumberOnly]


def number(*, gt: float | None = None, ge: float | None = None, lt: float | None = None,
           le: float | None = None) -> Any:
    """A finite number type within the given bounds that refuses strings and booleans.

    Example
    -------
    >>> Fraction = number(ge=0, lt=1)
    """
    return Annotated[float, Field(gt=gt, ge=ge, lt=lt, le=le, allow_inf_nan=False), _NumberOnly]


#: Tasks of one item (a BoT, or a whole instance): 1 .. :data:`MAX_TASKS`.
TaskCount = integer(1, MAX_TASKS)
#: Cores of one machine: 1 .. :data:`MAX_CORES_PER_MACHINE`.
CoreCount = integer(1, MAX_CORES_PER_MACHINE)
#: Processors of one site: 1 .. :data:`MAX_PROCESSORS`.
ProcessorCount = integer(1, MAX_PROCESSORS)
#: A core index on one machine: 0 .. :data:`MAX_CORES_PER_MACHINE` - 1.
CoreIndex = integer(0, MAX_CORES_PER_MACHINE - 1)
#: A processor index on one site: 0 .. :data:`MAX_PROCESSORS` - 1.
ProcessorIndex = integer(0, MAX_PROCESSORS - 1)
#: A non-negative integer (no upper bound: it must not size an allocation).
NonNegativeInt = integer(0)


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
    #: Summary values the producer states; checkers recompute and compare them.
    objective: Finite | None = None
    makespan: NonNegative | None = None
    cost: NonNegative | None = None


def first_duplicate(ids: list[str]) -> str | None:
    """The first id that appears twice in ``ids`` (``None`` when all differ)."""
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            return i
        seen.add(i)
    return None


def compact_number(x: float) -> float | int:
    """Integral floats as integers when writing files (readable, exact round trip)."""
    x = float(x)
    return int(x) if x.is_integer() and abs(x) < 2**53 else x
