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
per seed and one ``promethee`` method per strategy, labelled ``s{i},{j}``;
:func:`soft_campaign` checks it (as the campaign engine will) before
anything is written, so a spec that passes :func:`load_soft_spec` but makes
a campaign the engine refuses is an error naming the spec, not a file left
behind.

Beyond types and ranges, :func:`load_soft_spec` refuses what cannot make a
study: a name that is blank or has control characters, a seed, family,
weight vector or filter fraction given twice, a capacity that needs more
hosts than an instance may have, fewer than 2 strategies (SOFT compares
them), and ``p`` larger than the number of strategies.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from hybridsched.errors import InputError
from hybridsched.io.documents import integer, number
from hybridsched.io.toml_lines import load_model, located
from hybridsched.pull.schema import MAX_UNITS

if TYPE_CHECKING:
    from hybridsched.experiments.campaign_model import Campaign

Fraction = number(gt=0, le=1)
#: Longest study name.
MAX_NAME = 100


def _study_name(value: str) -> str:
    if not value.strip() or re.search(r"[\x00-\x1f\x7f]", value):
        raise ValueError(f"a study name needs a visible character and no control character "
                         f"(newline, tab), got {value!r}")
    return value


def _distinct(values: list[Any]) -> list[Any]:
    for k, value in enumerate(values):
        if value in values[:k]:
            raise ValueError(f"{value!r} is given twice")
    return values


Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME), AfterValidator(_study_name)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StudyTable(_Strict):
    """What is simulated: the workload, the platform and the strategies."""

    name: Name = "soft"
    seeds: Annotated[list[integer(0, 2**63 - 1)], Field(min_length=1, max_length=1000),
                     AfterValidator(_distinct)] = [0]
    units: integer(1, MAX_UNITS) = 2000
    dci: str = "idg,cloud,beg"
    capacity: number(gt=0, le=1e12) = 10_000.0
    behaviour: Literal["all", "intime", "delay", "never"] = "all"
    preference: Literal["linear", "level", "gaussian"] = "linear"
    window: Fraction = 1.0
    families: Annotated[list[integer(1, 8)], Field(min_length=1),
                        AfterValidator(_distinct)] = list(range(1, 9))
    weights: Annotated[list[integer(1, 28)], Field(min_length=1),
                       AfterValidator(_distinct)] = list(range(1, 29))
    time_limit: number(gt=0, le=86_400) = 600.0


class FiltersTable(_Strict):
    """Percentiles and winners of Filter1 and Filter2."""

    q1: Annotated[list[Fraction], Field(min_length=1), AfterValidator(_distinct)] = [
        0.25, 0.15, 0.05]
    q2: Annotated[list[Fraction], Field(min_length=1), AfterValidator(_distinct)] = [
        0.25, 0.15, 0.05]
    p: integer(1, 224) = 2
    q3: Fraction = 0.25


class SoftSpec(_Strict):
    """A SOFT study spec file."""

    study: StudyTable = StudyTable()
    filters: FiltersTable = FiltersTable()


def load_soft_spec(path: str | Path) -> SoftSpec:
    """Read and check a spec; errors are one line ``SPEC:LINE: key: reason``."""
    from hybridsched.pull.generator import check_capacity
    from hybridsched.pull.schema import parse_dcis

    spec, text = load_model(SoftSpec, path)
    study = spec.study
    try:
        dcis = parse_dcis(study.dci)
    except InputError as exc:
        raise InputError(located(path, text, "study.dci",
                                 str(exc).removeprefix("dci: "))) from None
    try:
        check_capacity(study.capacity, dcis)
    except InputError as exc:
        raise InputError(located(path, text, "study.capacity",
                                 str(exc).removeprefix("capacity: "))) from None
    count = len(study.families) * len(study.weights)
    if count < 2:
        raise InputError(located(path, text, "study.weights", "a study compares at least 2 "
                                 "strategies (families x weights); this one has 1"))
    if spec.filters.p > count:
        raise InputError(located(path, text, "filters.p", f"{spec.filters.p} winners asked "
                                 f"of the study's {count} strategies"))
    return spec


def _toml(text: str) -> str:
    """``text`` as a TOML basic string (JSON's escapes are TOML's for printable text)."""
    return json.dumps(text)


def campaign_text(spec: SoftSpec) -> str:
    """The campaign spec (TOML) running every strategy of ``spec`` on every seed."""
    from hybridsched.experiments.soft import strategies
    from hybridsched.pull.schema import parse_dcis

    study = spec.study
    chosen = [s for s in strategies()
              if s.family in study.families and s.index in study.weights]
    dci = ",".join(parse_dcis(study.dci))
    lines = [
        "# Written by 'hybridsched soft': one run per SOFT strategy and seed.",
        "[campaign]", f"name = {_toml(study.name)}",
        'description = "SOFT strategies (Moca et al. 2016)"',
        f"time_limit = {study.time_limit!r}", "",
        "[[instances]]", 'generator = "pull"', f"seeds = {list(study.seeds)!r}",
        f'options = {{ units = {study.units}, dci = "{dci}", '
        f'capacity = {study.capacity!r}, behaviour = "{study.behaviour}" }}', ""]
    for s in chosen:
        weights = ",".join(repr(w) for w in s.weights)
        lines += ["[[methods]]", 'name = "promethee"', f'label = "{s.label}"',
                  f'options = {{ targets = "{",".join(s.targets)}", weights = "{weights}", '
                  f'preference = "{study.preference}", window = {study.window!r} }}', ""]
    return "\n".join(lines)


def soft_campaign(spec: SoftSpec, source: str | Path = "<spec>") -> tuple[str, Campaign]:
    """The campaign text of ``spec`` and the campaign, checked before anything is written.

    The text is checked by the campaign engine's own loader, from a temporary
    file; ``source`` (the SOFT spec) is named in errors.

    Raises
    ------
    InputError
        ``SOURCE: the study's campaign is refused: reason`` (a bug of the
        checks above if it ever happens, but still bad input, not a crash).
    """
    from hybridsched.experiments.spec import load_spec

    text = campaign_text(spec)
    with tempfile.TemporaryDirectory(prefix="hybridsched-soft-") as folder:
        path = Path(folder) / "campaign.toml"
        path.write_text(text, encoding="utf-8")
        try:
            campaign = load_spec(path)
        except InputError as exc:
            reason = str(exc).removeprefix(str(path)).lstrip(":0123456789 ")
            raise InputError(f"{source}: the study's campaign is refused: {reason}") from None
    return text, replace(campaign, spec_path=None)
