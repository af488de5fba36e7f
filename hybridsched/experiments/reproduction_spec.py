"""A paper's reproduction file: its claims, its open readings, the instances it is tested on.

``examples/reproduction/<paper>.toml`` says, for one paper (issue 34):

``[paper]``
    ``id``, ``family``, ``title``; ``data`` (what stands in for the paper's
    data) and ``scale`` (how the runs are smaller than the paper's), printed
    beside every claim; ``time_limit`` per run; ``seeds`` (``start``,
    ``step``, ``cap``: the sequential rule of
    :func:`~hybridsched.experiments.verdicts.until_stable`).
``[settings.NAME]``
    An instance source without its seeds: ``generator`` and ``options``, or
    ``files``, ``importer`` and ``options``. An option's list is a grid. An
    imported trace has no seed; ``replicate = {option = "skip", step = 1807}``
    makes "seed" *k* the window starting at record *k* x 1807 (the pairs are
    windows), and without ``replicate`` it is one run (no interval).
``[methods.ROLE]``
    ``name`` and base ``options`` of each method the claims name.
``[[readings]]``
    A point the paper leaves open: ``name``, ``values`` (the literal value,
    the one the text states or the default follows, first), ``quote`` (the
    paper's words), and what each value sets: ``instances = {option =
    [one per value]}`` and/or ``methods = {ROLE = {option = [one per
    value]}}``. A reading set is one value of every reading.
``[[claims]]``
    ``id``, ``text``, ``figure`` (signed *method - baseline*, or
    ``[low, high]`` for a range), ``kind``, ``method``, ``baseline`` (roles;
    no baseline for a one-sample level such as a fairness), ``setting``,
    ``where`` (values of the setting's list options; a list option it leaves
    out is pooled: "on average" over its values, each seed and value a pair),
    ``measure``, ``relative``
    (percent of the baseline, default true) and ``explored`` (earlier
    campaigns that tried more readings of this claim, each ``spec`` and the
    ``label_contains`` text of its labels that count).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from hybridsched.errors import InputError
from hybridsched.experiments.spec_tables import SpecError, validate
from hybridsched.experiments.verdicts import KINDS, check_claim
from hybridsched.io.toml_lines import load_toml, located

OptionValue = str | int | float | bool


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Seeds(_Table):
    """The sequential seed rule: first batch, further batches, at most in all."""

    start: int = Field(10, ge=2)
    step: int = Field(10, ge=1)
    cap: int = Field(40, ge=2)

    @model_validator(mode="after")
    def _order(self) -> Seeds:
        if self.start > self.cap:
            raise ValueError(f"start {self.start} is above cap {self.cap}")
        return self


class Paper(_Table):
    """Who the paper is and how our runs differ from its setup."""

    id: str
    family: str
    title: str
    data: str
    scale: str
    time_limit: float = Field(120.0, gt=0)
    seeds: Seeds = Seeds()


class Replicate(_Table):
    """Pairs of an imported trace: "seed" k sets ``option`` to k x ``step``."""

    option: str
    step: int = Field(ge=1)
    count: int = Field(ge=2)


class Setting(_Table):
    """An instance source without its seeds (see the module's documentation)."""

    generator: str | None = None
    files: list[str] | None = None
    importer: str | None = None
    options: dict[str, OptionValue | list[OptionValue]] = {}
    replicate: Replicate | None = None

    @model_validator(mode="after")
    def _kind(self) -> Setting:
        if (self.generator is None) == (self.files is None):
            raise ValueError("give either generator or files (with importer)")
        if self.files is not None and self.importer is None:
            raise ValueError("files need an importer")
        if self.generator is not None and self.replicate is not None:
            raise ValueError("replicate is for imported traces; a generator's pairs are its seeds")
        return self


class Role(_Table):
    """A method the claims name: its registry name and base options."""

    name: str
    options: dict[str, OptionValue] = {}


class Reading(_Table):
    """A point the paper leaves open, with the literal value first."""

    name: str
    values: list[str] = Field(min_length=2)
    quote: str
    instances: dict[str, list[OptionValue]] = {}
    methods: dict[str, dict[str, list[OptionValue]]] = {}

    @model_validator(mode="after")
    def _lengths(self) -> Reading:
        lists = [*self.instances.values(),
                 *(v for options in self.methods.values() for v in options.values())]
        if not lists:
            raise ValueError("a reading sets instance or method options (instances, methods)")
        for values in lists:
            if len(values) != len(self.values):
                raise ValueError(f"{len(values)} option values for {len(self.values)} reading "
                                 "values: give one per value")
        return self


class Explored(_Table):
    """An earlier campaign that tried more readings of a claim."""

    spec: str
    label_contains: str


class Claim(_Table):
    """One claim of the paper, tested by one paired comparison under every reading set."""

    id: str
    text: str
    figure: float | tuple[float, float]
    kind: Literal["difference", "level", "direction"] = "difference"
    method: str
    baseline: str | None = None
    setting: str
    where: dict[str, OptionValue] = {}
    measure: str = "objective"
    relative: bool = True
    explored: list[Explored] = []

    @model_validator(mode="after")
    def _figure(self) -> Claim:
        check_claim(self.figure, self.kind)  # finite, ordered, on one side of 0 but for a level
        if self.baseline is None and self.kind != "level":
            raise ValueError("only a level claim (a one-sample value) has no baseline")
        return self


class PaperFile(_Table):
    """A whole reproduction file (see the module's documentation)."""

    paper: Paper
    settings: dict[str, Setting] = Field(min_length=1)
    methods: dict[str, Role] = Field(min_length=1)
    readings: list[Reading] = []
    claims: list[Claim] = Field(min_length=1)

    @model_validator(mode="after")
    def _references(self) -> PaperFile:
        for reading in self.readings:
            for role in reading.methods:
                if role not in self.methods:
                    raise ValueError(f"reading {reading.name!r}: unknown method role {role!r}")
        ids = [claim.id for claim in self.claims]
        if len(set(ids)) != len(ids):
            raise ValueError("claim ids must be unique")
        for claim in self.claims:
            for role in (claim.method, claim.baseline):
                if role is not None and role not in self.methods:
                    raise ValueError(f"claim {claim.id!r}: unknown method role {role!r}")
            if claim.setting not in self.settings:
                raise ValueError(f"claim {claim.id!r}: unknown setting {claim.setting!r}")
            grid = {key for key, value in self.settings[claim.setting].options.items()
                    if isinstance(value, list)}
            if not set(claim.where) <= grid:
                raise ValueError(f"claim {claim.id!r}: where may fix only options of setting "
                                 f"{claim.setting!r} given as a list ({', '.join(sorted(grid))}); "
                                 "the others are pooled, each value a pair of its own")
        return self

    # --- reading sets -------------------------------------------------------------------

    def reading_sets(self) -> list[tuple[str, ...]]:
        """Every reading set (one value per reading), the literal one first."""
        return list(itertools.product(*(reading.values for reading in self.readings)))

    def literal(self) -> tuple[str, ...]:
        """The literal reading set: the first value of every reading."""
        return tuple(reading.values[0] for reading in self.readings)

    def departures(self, chosen: tuple[str, ...]) -> list[str]:
        """``reading=value`` for each reading where ``chosen`` is not the literal value."""
        return [f"{reading.name}={value}" for reading, value in zip(self.readings, chosen,
                                                                     strict=True)
                if value != reading.values[0]]

    def instance_options(self, chosen: tuple[str, ...]) -> dict[str, OptionValue]:
        """The instance options the reading set ``chosen`` fixes."""
        options: dict[str, OptionValue] = {}
        for reading, value in zip(self.readings, chosen, strict=True):
            k = reading.values.index(value)
            options.update({key: values[k] for key, values in reading.instances.items()})
        return options

    def method_options(self, role: str, chosen: tuple[str, ...]) -> dict[str, OptionValue]:
        """A role's options under the reading set ``chosen``: base options, then the readings'."""
        options = dict(self.methods[role].options)
        for reading, value in zip(self.readings, chosen, strict=True):
            k = reading.values.index(value)
            options.update({key: values[k]
                            for key, values in reading.methods.get(role, {}).items()})
        return options

    def label(self, role: str, chosen: tuple[str, ...]) -> str:
        """The store label of a role under ``chosen``: the role and the readings that touch it."""
        words = [f"{reading.name}={value}"
                 for reading, value in zip(self.readings, chosen, strict=True)
                 if role in reading.methods]
        return f"{role}[{','.join(words)}]" if words else role

    def touches(self, claim: Claim, reading: Reading) -> bool:
        """Whether ``reading`` can change ``claim``'s comparison."""
        roles = {claim.method, claim.baseline}
        return bool(reading.instances) or bool(roles & set(reading.methods))

    def claim_reading(self, claim: Claim, chosen: tuple[str, ...]) -> tuple[str, ...]:
        """The part of ``chosen`` that can change ``claim`` (equal ones give the same runs)."""
        return tuple(f"{reading.name}={value}"
                     for reading, value in zip(self.readings, chosen, strict=True)
                     if self.touches(claim, reading))


def load_paper(path: str | Path) -> PaperFile:
    """Read and check a reproduction file.

    Raises
    ------
    InputError
        One line ``FILE[:LINE]: key.path: reason`` for the first problem found.
    """
    data, text = load_toml(path)
    try:
        return validate(PaperFile, data, "")
    except SpecError as exc:
        raise InputError(located(path, text, exc.path, exc.reason)) from None


__all__ = ["KINDS", "Claim", "PaperFile", "Reading", "Setting", "load_paper"]
