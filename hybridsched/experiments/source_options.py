"""Options of instance generators and importers: validated, then stored in canonical form.

Each generator (one per family) and importer (ETC, SWF, FTA) has a pydantic
model of its options: unknown options are named, with the closest known one,
and checks that tie options together or depend on a generator's size limits
follow the model. Valid options are stored in canonical form: the options
given, sorted by name, ranges as ``"A:B"`` strings, floats as floats, so that
two spellings of the same instance make the same
:class:`~hybridsched.experiments.sources.InstanceSource`. The one-line
messages of option and spec errors (:func:`error_reason`, :func:`short_repr`)
live here too: a campaign spec reports its own keys with them.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from hybridsched.errors import InputError
from hybridsched.io.limits import (
    MAX_PROCESSORS,
    MAX_PULL_UNITS,
    MAX_SITE_BOT_PAIRS,
    MAX_TASKS,
    MAX_TIGHTNESS,
)

#: Largest integer accepted anywhere in options and specs (TOML integers are 64-bit).
MAX_INT = 2**63 - 1

#: Generator name (a family) -> family of the instances it makes.
GENERATOR_FAMILIES: dict[str, str] = {"hybrid-deadline": "hybrid-deadline",
                                      "bot-sites": "bot-sites", "malleable": "malleable",
                                      "gang": "gang", "pull": "pull"}
#: Importer name -> family of the instances it makes.
IMPORTERS: dict[str, str] = {"etc": "bot-sites", "swf": "hybrid-deadline", "fta": "pull"}
#: Generator options that name a file (a spec gives them relative to its folder).
GENERATOR_FILE_OPTIONS: dict[str, tuple[str, ...]] = {"malleable": ("tree",)}


class OptionError(InputError):
    """A bad generator or importer option.

    Attributes
    ----------
    option:
        The option's name (``None``: the combination of options is wrong).
    reason:
        What is wrong, without the option's name.
    """

    def __init__(self, option: str | None, reason: str):
        super().__init__(reason if option is None else f"{option}: {reason}")
        self.option = option
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        # Exceptions pickle their ``args`` (the message) by default; rebuild from both fields.
        return (OptionError, (self.option, self.reason))


def error_reason(error: ErrorDetails, known: tuple[str, ...] = (), what: str = "key") -> str:
    """One-line reason of a pydantic error, with the offending input.

    ``known`` lists the accepted keys (``what``: "key" or "option"), shown
    for an unknown one, with the closest match first when there is one.
    """
    kind = error["type"]
    if kind == "extra_forbidden":
        if not known:
            return f"unknown {what} (none is accepted here)"
        name = str(error["loc"][-1]) if error["loc"] else ""
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return f"unknown {what} ({hint}known: {', '.join(known)})"
    if kind == "missing":
        return "required key missing"
    if kind == "less_than_equal" and error.get("ctx", {}).get("le") == MAX_INT:
        return f"integer too large (at most 2**63 - 1), got {short_repr(error['input'])}"
    message = f"{error['msg'][0].lower()}{error['msg'][1:]}"
    return message if "got " in message else f"{message}, got {short_repr(error['input'])}"


def short_repr(value: Any, width: int = 60) -> str:
    """``repr(value)``, cut to ``width`` characters so that messages stay one short line."""
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


# --------------------------------------------------------------------------- option models


def _no_bool_or_float(value: Any) -> Any:
    # Literal[1, 2, 3, 4] alone would take True and 2.0 (equal to 1 and 2).
    if isinstance(value, bool | float):
        raise PydanticCustomError("alpha", "must be 1, 2, 3, 4 or 'mixed'")
    return value


def _range_text(value: Any) -> str:
    """Canonical ``"A:B"`` for a range given as ``"A:B"``, ``"A"``, an int or a 2-list."""
    from hybridsched.bot_sites.generator import parse_range

    if isinstance(value, str):
        try:
            lo, hi = parse_range(value, "range")
        except InputError as exc:
            raise PydanticCustomError("range", str(exc).removeprefix("range: ")) from None
    elif isinstance(value, int) and not isinstance(value, bool):
        lo = hi = value
    elif (isinstance(value, list | tuple) and len(value) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        lo, hi = value
    else:
        raise PydanticCustomError("range", "expected a range 'A:B', one integer or a list "
                                           "[A, B] of integers")
    if not 1 <= lo <= hi <= MAX_INT:
        raise PydanticCustomError("range", "need 1 <= A <= B")
    return f"{lo}:{hi}"


Int = Annotated[int, Strict(), Field(le=MAX_INT)]
Real = Annotated[float, Strict(), Field(allow_inf_nan=False)]
Range = Annotated[str, BeforeValidator(_range_text)]


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class HybridDeadlineOptions(_Options):
    """Options of the ``hybrid-deadline`` generator (see its ``generate``)."""

    tasks: Annotated[Int, Field(ge=0, le=MAX_TASKS)] = 30
    alpha: Annotated[Literal[1, 2, 3, 4, "mixed"], BeforeValidator(_no_bool_or_float)] = "mixed"
    pms: Annotated[Int, Field(ge=0, le=15)] | None = None
    local_share: Annotated[Real, Field(gt=0, le=1)] = 0.5


class BotSitesOptions(_Options):
    """Options of the ``bot-sites`` generator (those of ``generate bot-sites``)."""

    sites: Annotated[Int, Field(ge=1, le=MAX_PROCESSORS)] = 10
    bots: Annotated[Int, Field(ge=1, le=MAX_TASKS)] = 10
    tasks_per_bot: Range = "10000:20000"
    procs_per_site: Range = "64:128"
    scenario: Literal["HiHi", "HiLo", "LoHi", "LoLo"] = "HiHi"
    consistent: bool = False
    dependency: Annotated[Real, Field(ge=0, le=1)] = 0.1
    private_share: Annotated[Real, Field(ge=0, le=1)] = 0.3
    communication: bool = False
    storage: bool = False
    hard_limits: bool = False
    tightness: Annotated[Real, Field(gt=0, le=MAX_TIGHTNESS)] = 0.5
    preset: str | None = None


class MalleableOptions(_Options):
    """Options of the ``malleable`` generator (those of ``generate malleable``).

    ``tree`` is a platform file (TOML config, GraphML or JSON; a spec gives
    it relative to its folder and stores it absolute). It is loaded and
    checked with the options, and the run key holds its content's hash.
    """

    jobs: Annotated[Int, Field(ge=0, le=10**6)] = 100
    mix: Literal["small", "big", "mixed"] = "mixed"
    serial_fraction: Annotated[Real, Field(ge=0, lt=1)] = 0.0
    tree: str | None = None


class GangOptions(_Options):
    """Options of the ``gang`` generator (those of ``generate gang``)."""

    jobs: Annotated[Int, Field(ge=0, le=10**6)] = 1000
    rate: Annotated[Real, Field(gt=0)] | None = None
    scenario: Literal["table1", "table2"] = "table1"
    vms: Annotated[Int, Field(ge=1, le=100_000)] = 120
    # The workload readings of paper 004 (hybridsched.gang.generator.READINGS, default first).
    instructions: Literal["per-task", "per-job"] = "per-task"
    arrivals: Literal["poisson", "even", "batches"] = "poisson"
    integers: Literal["stated", "all"] = "stated"


class PullOptions(_Options):
    """Options of the ``pull`` generator (those of ``generate pull``)."""

    units: Annotated[Int, Field(ge=0, le=MAX_PULL_UNITS)] = 2000
    dci: str = "idg,cloud,beg"
    capacity: Annotated[Real, Field(gt=0)] = 10_000.0
    behaviour: Literal["all", "intime", "delay", "never"] = "all"


class EtcOptions(_Options):
    """The ``etc`` importer takes no option."""


class SwfOptions(_Options):
    """Options of the ``swf`` importer (those of ``import-swf``)."""

    alpha: Annotated[Real, Field(gt=0)] = 1.0
    grouping: Literal["task", "job", "window"] = "task"
    window_s: Annotated[Real, Field(gt=0)] = 3600.0
    limit: Annotated[Int, Field(ge=1)] | None = None
    pms: Annotated[Int, Field(ge=0, le=15)] | None = None
    skip: Annotated[Int, Field(ge=0)] = 0
    days: Annotated[Real, Field(gt=0)] | None = None




_GENERATOR_MODELS: dict[str, type[_Options]] = {"hybrid-deadline": HybridDeadlineOptions,
                                                "bot-sites": BotSitesOptions,
                                                "malleable": MalleableOptions,
                                                "gang": GangOptions,
                                                "pull": PullOptions}


class FtaOptions(_Options):
    """Options of the ``fta`` importer: one trace, the hosts of one DCI (see ``import-fta``)."""

    dci: Literal["idg", "cloud", "beg"] = "idg"
    units: Annotated[Int, Field(ge=0, le=MAX_PULL_UNITS)] = 2000
    seed: Annotated[Int, Field(ge=0)] = 0
    capacity: Annotated[Real, Field(gt=0)] | None = None
    offset: Annotated[Real, Field(ge=0)] = 0.0
    behaviour: Literal["all", "intime", "delay", "never"] = "all"


_IMPORTER_MODELS: dict[str, type[_Options]] = {"etc": EtcOptions, "swf": SwfOptions,
                                               "fta": FtaOptions}


def _parse(model: type[_Options], options: Mapping[str, Any]) -> _Options:
    """Validate ``options``; the first error becomes an :class:`OptionError` naming it."""
    try:
        return model.model_validate(dict(options))
    except ValidationError as exc:
        error = exc.errors()[0]
        option = str(error["loc"][0]) if error["loc"] else None
        raise OptionError(option, error_reason(error, tuple(model.model_fields), "option")
                          ) from None


def _check_bot_sites(parsed: BotSitesOptions) -> None:
    """What one option's model cannot see: presets and the size limits."""
    from hybridsched.bot_sites.generator import PRESETS

    given = sorted(parsed.model_fields_set - {"preset"})
    if parsed.preset is not None:
        if parsed.preset not in PRESETS:
            raise OptionError("preset", f"unknown preset {parsed.preset!r} "
                                        f"(known: {', '.join(PRESETS)})")
        if given:
            raise OptionError(given[0], "a preset fixes every parameter; drop this option")
        return
    tasks_hi = int(parsed.tasks_per_bot.split(":")[1])
    procs_hi = int(parsed.procs_per_site.split(":")[1])
    if parsed.sites * parsed.bots > MAX_SITE_BOT_PAIRS:
        raise OptionError("bots", f"{parsed.sites} sites x {parsed.bots} BoTs exceeds "
                                  f"{MAX_SITE_BOT_PAIRS} (site, BoT) pairs")
    if parsed.bots * tasks_hi > MAX_TASKS:
        raise OptionError("tasks_per_bot", f"{parsed.bots} BoTs of up to {tasks_hi} tasks may "
                                           f"exceed {MAX_TASKS} tasks")
    if parsed.sites * procs_hi > MAX_PROCESSORS:
        raise OptionError("procs_per_site", f"{parsed.sites} sites of up to {procs_hi} "
                                            f"processors may exceed {MAX_PROCESSORS} processors")


def generator_model(family: str) -> type[_Options]:
    """The options model of the generator of ``family`` (:class:`InputError` if none)."""
    if family not in _GENERATOR_MODELS:
        raise InputError(f"no generator for family {family!r} "
                         f"(generators: {', '.join(GENERATOR_FAMILIES)})")
    return _GENERATOR_MODELS[family]


def _importer_model(importer: str) -> type[_Options]:
    if importer not in _IMPORTER_MODELS:
        raise InputError(f"unknown importer {importer!r} (known: "
                         + ", ".join(f"{k} ({v})" for k, v in IMPORTERS.items()) + ")")
    return _IMPORTER_MODELS[importer]


def _check_gang(parsed: GangOptions) -> None:
    """The gang generator's size limits that do not depend on the seed."""
    from hybridsched.gang.generator import DEFAULT_RATE
    from hybridsched.gang.schema import MAX_TIME
    from hybridsched.io.limits import check_pairs

    try:
        check_pairs(parsed.jobs, parsed.vms, "VMs", "generate gang")
    except InputError as exc:
        raise OptionError("vms", str(exc).removeprefix("generate gang: ")) from None
    rate = DEFAULT_RATE[parsed.scenario] if parsed.rate is None else parsed.rate
    # The mean arrival of the last job; the generator refuses the draws that pass the
    # limit, so a rate whose mean already does would fail for most seeds.
    if parsed.jobs / rate > MAX_TIME - 6:
        raise OptionError("rate", f"{rate:g} jobs per time unit is too low for "
                                  f"{parsed.jobs} jobs (arrivals would pass time "
                                  f"{MAX_TIME:g}, the latest accepted)")


def _check_pull(parsed: PullOptions) -> None:
    """DCI names and the host count the capacity needs (the pull generator's limits)."""
    from hybridsched.pull.generator import BEG_CPU, IDG_CPU
    from hybridsched.pull.schema import MAX_HOSTS, parse_dcis

    try:
        dcis = parse_dcis(parsed.dci)
    except InputError as exc:
        raise OptionError("dci", str(exc).removeprefix("dci: ")) from None
    if parsed.capacity / min(BEG_CPU[0], IDG_CPU[0]) * len(dcis) > MAX_HOSTS:
        raise OptionError("capacity", f"{parsed.capacity:g} per DCI could need more than "
                                      f"{MAX_HOSTS:,} hosts")


def _check_malleable(parsed: MalleableOptions) -> None:
    """The tree file loads and the jobs stay within the generator's size limits."""
    from hybridsched.malleable.generator import default_platform
    from hybridsched.malleable.limits import check_size

    resources = (default_platform() if parsed.tree is None
                 else platform_file(parsed.tree).resources)
    try:
        check_size(parsed.jobs, resources, "generate malleable")
    except InputError as exc:
        raise OptionError("jobs", str(exc).removeprefix("generate malleable: ")) from None


def platform_file(path: str) -> Any:
    """The platform of a ``tree`` option (:class:`OptionError` naming the file otherwise).

    Remembered while the file's size and modification time stay the same, so
    that checking every grid point and loading every run read it once.
    """
    try:
        stat = os.stat(path)
    except OSError as exc:
        what = "no such file" if isinstance(exc, FileNotFoundError) else (
            f"cannot read ({exc.strerror or exc})")
        raise OptionError("tree", f"{path}: {what}") from None
    if os.path.isdir(path):
        raise OptionError("tree", f"{path}: is a folder, not a tree file")
    try:
        return _platform(path, stat.st_size, stat.st_mtime_ns)
    except InputError as exc:
        raise OptionError("tree", str(exc)) from None
    except OSError as exc:
        raise OptionError("tree", f"{path}: cannot read ({exc.strerror or exc})") from None


@functools.lru_cache(maxsize=16)
def _platform(path: str, size: int, mtime_ns: int) -> Any:
    from hybridsched.malleable.tree_config import load_platform

    del size, mtime_ns  # only part of the cache key
    return load_platform(path)


def parse_generator(family: str, options: Mapping[str, Any]) -> _Options:
    """The validated options of the generator of ``family`` (:class:`OptionError` naming one)."""
    parsed = _parse(generator_model(family), options)
    if isinstance(parsed, BotSitesOptions):
        _check_bot_sites(parsed)
    if isinstance(parsed, GangOptions):
        _check_gang(parsed)
    if isinstance(parsed, PullOptions):
        _check_pull(parsed)
    if isinstance(parsed, MalleableOptions):
        _check_malleable(parsed)
    return parsed


def canonical_options(parsed: _Options) -> tuple[tuple[str, Any], ...]:
    """The options that were given, validated, sorted by name."""
    return tuple(sorted(parsed.model_dump(include=parsed.model_fields_set).items()))


def check_generator_options(family: str, options: Mapping[str, Any]) -> None:
    """Raise :class:`InputError` (an :class:`OptionError` naming the option) on bad options."""
    parse_generator(family, options)


def parse_importer(importer: str, options: Mapping[str, Any]) -> _Options:
    """The validated options of ``importer`` (:class:`OptionError` naming a bad one)."""
    return _parse(_importer_model(importer), options)


def check_importer_options(importer: str, options: Mapping[str, Any]) -> None:
    """Raise :class:`InputError` (an :class:`OptionError` naming the option) on bad options."""
    parse_importer(importer, options)


def generator_options(family: str, options: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Validated, canonical options of the generator of ``family`` (as sources store them)."""
    return canonical_options(parse_generator(family, options))


def importer_options(importer: str, options: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Validated, canonical options of ``importer`` (as sources store them)."""
    return canonical_options(parse_importer(importer, options))


def option_text(value: Any) -> str:
    """An option value as a user would type it (strings bare, others as JSON)."""
    return value if isinstance(value, str) else json.dumps(value)
