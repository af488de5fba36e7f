"""The structure of a campaign spec: its TOML tables as strict pydantic models.

Unknown keys, wrong types and non-finite numbers are refused here, before
any name is looked up; every error is a :class:`SpecError` at the key path
of the bad value (turned into ``SPEC:LINE: key.path: reason`` by
:func:`~hybridsched.experiments.spec.load_spec`). Grids of options and seeds
are checked by :mod:`~hybridsched.experiments.spec_grids`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from hybridsched.experiments.campaign_model import DEFAULT_TIME_LIMIT
from hybridsched.experiments.source_options import Int, Real, error_reason, short_repr
from hybridsched.io.toml_lines import join_path as _join


class SpecError(Exception):
    """A bad spec value: ``path`` is its key path (``""``: the whole campaign)."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


Count = Annotated[Int, Field(ge=1)]
Seconds = Annotated[Real, Field(ge=0)]
Seed = Annotated[Int, Field(ge=0)]
Text = Annotated[str, Field(min_length=1)]
#: A name shown in one line of tables, plots and messages: no control character.
Name = Annotated[str, Field(min_length=1, pattern=r"^[^\x00-\x1f\x7f]+$")]


class CampaignTable(_Table):
    """``[campaign]``."""

    name: Name | None = None
    description: str = ""
    time_limit: Seconds = DEFAULT_TIME_LIMIT
    replications: Count = 1
    record: list[Literal["solution"]] = []
    plugins: list[Text] = []


class InstancesTable(_Table):
    """One ``[[instances]]`` table (seeds and options are checked by hand: grids)."""

    generator: str | None = None
    files: list[Text] | None = None
    importer: str | None = None
    seeds: Any = None
    options: dict[str, Any] | None = None


class MethodTable(_Table):
    """One ``[[methods]]`` table."""

    name: Text
    family: str | None = None
    label: Name | None = None
    options: dict[str, Any] = {}
    time_limit: Seconds | None = None
    seeds: Any = None
    replications: Count | None = None


class SpecFile(_Table):
    """The whole TOML document."""

    campaign: CampaignTable = CampaignTable()
    instances: list[InstancesTable] = []
    methods: list[MethodTable] = []


class SeedRange(_Table):
    """``seeds = { start = 0, stop = 5, step = 1 }`` (stop exclusive)."""

    start: Seed = 0
    stop: Seed
    step: Count = 1


#: Table models by the key path of their parent, for "unknown key" hints.
_TABLES: dict[tuple[str, ...], type[BaseModel]] = {
    (): SpecFile, ("campaign",): CampaignTable, ("instances", "#"): InstancesTable,
    ("methods", "#"): MethodTable,
}


def validate(model: type[BaseModel] | TypeAdapter, value: Any, path: str) -> Any:
    """Validate with pydantic; the first error becomes a :class:`SpecError` at its key path."""
    try:
        if isinstance(model, TypeAdapter):
            return model.validate_python(value)
        return model.model_validate(value)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = tuple(error["loc"])
        table = model if not isinstance(model, TypeAdapter) else None
        if model is SpecFile:
            shape = tuple("#" if isinstance(p, int) else str(p) for p in loc[:-1])
            table = _TABLES.get(shape)
        known = tuple(table.model_fields) if table is not None else ()
        reason = _reason(error, known)
        if model is SpecFile and error["type"] == "list_type" and len(loc) == 1:
            reason = f"expected an array of tables: write [[{loc[0]}]], not [{loc[0]}]"
        raise SpecError(_join(path, *loc), reason) from None


def _reason(error: Any, known: tuple[str, ...]) -> str:
    kind = error["type"]
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"expected a table, got {short_repr(error['input'])}"
    if kind == "list_type":
        return f"expected an array, got {short_repr(error['input'])}"
    if kind == "string_pattern_mismatch":
        return f"expected one line without control characters, got {short_repr(error['input'])}"
    return error_reason(error, known)
