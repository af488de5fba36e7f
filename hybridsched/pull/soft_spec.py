"""SOFT study specs (TOML) and the campaign of strategies they expand to.

A spec (every key is optional; the defaults are the paper's study)::

    [study]
    name = "soft-paper"
    seeds = [0]                 # instances (replications of the workload)
    units = 2000                # the paper's WL
    dci = "idg,cloud,beg"
    capacity = 10000.0
    behaviour = "all"
    preference = "linear"
    window = 1.0
    families = [1, 2, 3, 4, 5, 6, 7, 8]   # Table 7 (default: all 8)
    weights = [1, 2, 3]                   # Table 8 (default: all 28)
    time_limit = 600.0          # seconds per run

    [filters]
    q1 = [0.25, 0.15, 0.05]     # Filter1 step 1 ("top" fractions)
    q2 = [0.25, 0.15, 0.05]     # Win_freq
    p = 2                       # winners kept by Step 2
    q3 = 0.25                   # Filter2

:func:`campaign_text` writes the campaign: one ``pull`` generator source
per seed and one ``promethee`` method per strategy, labelled ``s{i},{j}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from hybridsched.errors import InputError
from hybridsched.experiments.toml_lines import load_model, located
from hybridsched.io.documents import integer, number
from hybridsched.pull.schema import MAX_UNITS

Fraction = number(gt=0, le=1)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StudyTable(_Strict):
    """What is simulated: the workload, the platform and the strategies."""

    name: str = "soft"
    seeds: Annotated[list[integer(0, 2**63 - 1)], Field(min_length=1, max_length=1000)] = [0]
    units: integer(1, MAX_UNITS) = 2000
    dci: str = "idg,cloud,beg"
    capacity: number(gt=0, le=1e12) = 10_000.0
    behaviour: Literal["all", "intime", "delay", "never"] = "all"
    preference: Literal["linear", "level", "gaussian"] = "linear"
    window: Fraction = 1.0
    families: Annotated[list[integer(1, 8)], Field(min_length=1)] = list(range(1, 9))
    weights: Annotated[list[integer(1, 28)], Field(min_length=1)] = list(range(1, 29))
    time_limit: number(gt=0, le=86_400) = 600.0


class FiltersTable(_Strict):
    """Percentiles and winners of Filter1 and Filter2."""

    q1: Annotated[list[Fraction], Field(min_length=1)] = [0.25, 0.15, 0.05]
    q2: Annotated[list[Fraction], Field(min_length=1)] = [0.25, 0.15, 0.05]
    p: integer(1, 224) = 2
    q3: Fraction = 0.25


class SoftSpec(_Strict):
    """A SOFT study spec file."""

    study: StudyTable = StudyTable()
    filters: FiltersTable = FiltersTable()


def load_soft_spec(path: str | Path) -> SoftSpec:
    """Read and check a spec; errors are one line ``SPEC:LINE: key: reason``."""
    from hybridsched.pull.generator import parse_dcis

    spec, text = load_model(SoftSpec, path)
    try:
        parse_dcis(spec.study.dci)
    except InputError as exc:
        raise InputError(located(path, text, "study.dci", str(exc))) from None
    for key in ("families", "weights"):
        values = getattr(spec.study, key)
        if len(set(values)) != len(values):
            raise InputError(located(path, text, f"study.{key}", "a strategy index is repeated"))
    return spec


def campaign_text(spec: SoftSpec) -> str:
    """The campaign spec (TOML) running every strategy of ``spec`` on every seed."""
    from hybridsched.pull.soft import strategies

    study = spec.study
    chosen = [s for s in strategies()
              if s.family in study.families and s.index in study.weights]
    lines = [
        "# Written by 'hybridsched soft': one run per SOFT strategy and seed.",
        "[campaign]", f'name = "{study.name}"',
        'description = "SOFT strategies (Moca et al. 2016)"',
        f"time_limit = {study.time_limit!r}", "",
        "[[instances]]", 'generator = "pull"', f"seeds = {list(study.seeds)!r}",
        f'options = {{ units = {study.units}, dci = "{study.dci}", '
        f'capacity = {study.capacity!r}, behaviour = "{study.behaviour}" }}', ""]
    for s in chosen:
        weights = ",".join(repr(w) for w in s.weights)
        lines += ["[[methods]]", 'name = "promethee"', f'label = "{s.label}"',
                  f'options = {{ targets = "{",".join(s.targets)}", weights = "{weights}", '
                  f'preference = "{study.preference}", window = {study.window!r} }}', ""]
    return "\n".join(lines)
