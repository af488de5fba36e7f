"""Campaign specs: a TOML file, validated before anything runs and fully expanded.

:func:`load_spec` reads the TOML with :mod:`tomllib`, checks its structure
with pydantic models (unknown keys, strict types, finite numbers), then
every name and option against the registries, and expands globs, generator
grids, seeds and method option grids into a frozen :class:`Campaign`. Every
error is one :class:`~hybridsched.errors.InputError` line
``SPEC:LINE: key.path: reason``; the line comes from tomllib for syntax
errors and from a small scan of the TOML text for everything else.

Format (every key but ``[[instances]]`` and ``[[methods]]`` is optional)::

    [campaign]
    name = "gaps"                   # default: the spec file's stem
    description = "..."
    time_limit = 30.0               # seconds per run (default 60)
    replications = 1                # repeated runs of one (instance, method, seed)
    record = ["solution"]           # also store each schedule
    plugins = ["my_methods.py"]     # Python files registering methods or families

    [[instances]]
    generator = "hybrid-deadline"   # or files = [...] (globs), optionally with importer
    seeds = { start = 0, stop = 5 } # or a list; default [0]
    options = { tasks = [10, 20] }  # a list is a grid axis, a scalar is fixed

    [[methods]]
    name = "cdf+ra"
    family = "hybrid-deadline"      # default: every family of the instances that has it
    options = { objective = "cost" }
    time_limit = 60
    seeds = [0]
    replications = 1
    label = "cdf+ra"                # default: name (+ "[k=v]" of a grid of options)

A list is always a grid axis: a bot-sites range option is written ``"A:B"``
(or ``[[A, B], ...]`` inside a grid). Paths in ``files``, ``plugins`` and
generator options naming a file (the malleable ``tree``) are relative to the
spec's folder; ``~`` is expanded and a leading ``{data}`` stands for the
shared data folder (:mod:`hybridsched.io.shared_data`).

Everything a run needs is checked here, before any run: instance files are
loaded, and so is every imported file (once per importer option point), so
that a bad file or trace is reported now; plugins are imported; generators
are not run, but their options are checked against the generator's limits
and the files they name are loaded.
"""

from __future__ import annotations

import glob
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from hybridsched.errors import InputError
from hybridsched.experiments.plugins import import_plugins
from hybridsched.experiments.sources import (
    GENERATOR_FAMILIES,
    GENERATOR_FILE_OPTIONS,
    IMPORTERS,
    MAX_INT,
    InstanceSource,
    Int,
    OptionError,
    Real,
    error_reason,
    file_source,
    generator_options,
    import_source,
    importer_options,
    load_cached,
    short_repr,
)
from hybridsched.experiments.toml_lines import join_path as _join
from hybridsched.experiments.toml_lines import load_toml, located, parse_toml
from hybridsched.families import family_names, get_family
from hybridsched.io.shared_data import data_variable_problem, shared_data_path
from hybridsched.registry import check_options, check_run_settings, get_method
from hybridsched.registry import methods as registered_methods

#: Most runs one campaign may expand to.
MAX_RUNS = 10**7
#: Per-run time limit when the spec gives none (seconds).
DEFAULT_TIME_LIMIT = 60.0
#: What ``campaign.record`` may ask for beyond the defaults.
RECORD_CHOICES = ("solution",)


@dataclass(frozen=True)
class MethodEntry:
    """One method of a campaign at one point of its options grid.

    Attributes
    ----------
    family, name:
        Registry keys of the method.
    label:
        Display name, unique within the family.
    options:
        Method options (one grid point), sorted by name.
    time_limit:
        Seconds per run (``None``: no limit).
    seeds:
        Method seeds; each runs ``replications`` times.
    replications:
        Repeated runs of the same (instance, method, seed).
    """

    family: str
    name: str
    label: str
    options: tuple[tuple[str, Any], ...] = ()
    time_limit: float | None = DEFAULT_TIME_LIMIT
    seeds: tuple[int, ...] = (0,)
    replications: int = 1

    def options_dict(self) -> dict[str, Any]:
        """The options as keyword arguments."""
        return dict(self.options)


@dataclass(frozen=True)
class Campaign:
    """A validated, fully expanded campaign: which methods run on which instances.

    Attributes
    ----------
    name, description:
        From ``[campaign]`` (the name defaults to the spec file's stem).
    sources:
        Every instance, globs expanded and sorted, generator grids x seeds expanded.
    methods:
        One entry per method x family x options grid point.
    record:
        Extras to record (``"solution"``).
    plugins:
        Absolute paths of the plugin files every worker imports.
    spec_path, spec_text:
        The spec file (absolute) and its text, stored with the results.
    """

    name: str
    description: str
    sources: tuple[InstanceSource, ...]
    methods: tuple[MethodEntry, ...]
    record: frozenset[str] = field(default_factory=frozenset)
    plugins: tuple[str, ...] = ()
    spec_path: str | None = None
    spec_text: str = ""


class _SpecError(Exception):
    """A bad spec value: ``path`` is its key path (``""``: the whole campaign)."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


# --------------------------------------------------------------------------- structure


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


_SEED_LIST = TypeAdapter(list[Seed])
#: Table models by the key path of their parent, for "unknown key" hints.
_TABLES: dict[tuple[str, ...], type[BaseModel]] = {
    (): SpecFile, ("campaign",): CampaignTable, ("instances", "#"): InstancesTable,
    ("methods", "#"): MethodTable,
}


def _validate(model: type[BaseModel] | TypeAdapter, value: Any, path: str) -> Any:
    """Validate with pydantic; the first error becomes a :class:`_SpecError` at its key path."""
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
        raise _SpecError(_join(path, *loc), reason) from None


def _reason(error: Any, known: tuple[str, ...]) -> str:
    kind = error["type"]
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"expected a table, got {short_repr(error['input'])}"
    if kind == "list_type":
        return f"expected an array, got {short_repr(error['input'])}"
    if kind == "string_pattern_mismatch":
        return f"expected one line without control characters, got {short_repr(error['input'])}"
    return error_reason(error, known)


# --------------------------------------------------------------------------- grids and seeds

Axis = tuple[str, list[Any], bool]  # (key, values, whether the value was a list)


def _bad_value(value: Any, scalar: bool) -> str | None:
    """Why ``value`` cannot be an option value (``None``: it can)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number, got {value}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        return f"integer too large (at most 2**63 - 1), got {short_repr(value)}"
    if isinstance(value, str | bool | int | float):
        return None
    if isinstance(value, list) and not scalar:
        return next(filter(None, (_bad_value(v, scalar) for v in value)), None)
    return f"expected a string, number or boolean, got {short_repr(value)}"


def _axes(options: Mapping[str, Any], path: str, *, scalar: bool) -> list[Axis]:
    """Grid axes of an options table: a list is an axis, a scalar a one-value axis."""
    axes = []
    for key, value in options.items():
        is_list = isinstance(value, list)
        values = value if is_list else [value]
        if not values:
            raise _SpecError(_join(path, key), "empty grid: an empty list of values (give at "
                                               "least one, or leave the option out)")
        for k, item in enumerate(values):
            reason = _bad_value(item, scalar)
            if reason is None and any(type(item) is type(v) and item == v
                                      for v in values[:k]):
                reason = f"{short_repr(item)} given twice in the grid"
            if reason is not None:
                raise _SpecError(_join(path, key, k if is_list else None), reason)
        axes.append((key, list(values), is_list))
    return axes


def _grid_size(axes: Sequence[Axis]) -> int:
    return math.prod(len(values) for _, values, _ in axes)


def _points(axes: Sequence[Axis], path: str,
            canonical: Callable[[dict[str, Any]], tuple[tuple[str, Any], ...]]
            ) -> list[tuple[tuple[str, Any], ...]]:
    """Every grid point, validated by ``canonical`` (errors name the option and its index)."""
    keys = [key for key, _, _ in axes]
    points = []
    for index in product(*(range(len(values)) for _, values, _ in axes)):
        point = {key: values[i] for (key, values, _), i in zip(axes, index, strict=True)}
        try:
            points.append(canonical(point))
        except OptionError as exc:
            where = path
            if exc.option in keys:
                n = keys.index(exc.option)
                where = _join(path, exc.option, index[n] if axes[n][2] else None)
            elif exc.option is not None:
                where = _join(path, exc.option)
            raise _SpecError(where, exc.reason) from None
        except InputError as exc:
            raise _SpecError(path, str(exc)) from None
    return points


def _seeds(value: Any, path: str) -> Sequence[int]:
    """A seeds list or range table (a ``range`` stays lazy until the run count is checked)."""
    if value is None:
        return (0,)
    if isinstance(value, list):
        if not value:
            raise _SpecError(path, "empty grid: no seed (give at least one, or leave seeds out "
                                   "for [0])")
        seeds = _validate(_SEED_LIST, value, path)
        for k, seed in enumerate(seeds):
            if seed in seeds[:k]:
                raise _SpecError(_join(path, k), f"seed {seed} given twice (use replications "
                                                 "to repeat runs)")
        return tuple(seeds)
    if isinstance(value, dict):
        table = _validate(SeedRange, value, path)
        seeds = range(table.start, table.stop, table.step)
        if not seeds:
            raise _SpecError(path, f"empty range: start {table.start} >= stop {table.stop} "
                                   "(stop is exclusive)")
        return seeds
    raise _SpecError(path, "expected a list of seeds or a range table {start, stop, step}, "
                           f"got {short_repr(value)}")


# --------------------------------------------------------------------------- instances


@dataclass
class _Plan:
    """The sources of one ``[[instances]]`` table, counted before they are expanded."""

    path: str
    counts: dict[str, int]  # instances per family
    expand: Callable[[], list[InstanceSource]]


def _magic(text: str) -> bool:
    return re.search(r"[*?[]", text) is not None


def _spec_path(pattern: str, folder: Path, path: str) -> str:
    """``pattern`` with ``{data}``, ``~`` and the spec's folder resolved."""
    if pattern.startswith("{data}"):
        rest = pattern.removeprefix("{data}").lstrip("/\\")
        first = rest.split("/")[0]
        named = bool(first) and not _magic(first)
        problem = data_variable_problem()
        if problem is not None:
            raise _SpecError(path, f"{{data}}: {problem} (unset it to use ../shared/data "
                                   "beside the checkout)")
        found = shared_data_path(first if named else ".")
        if found is None:
            raise _SpecError(path, f"{{data}}: no shared data folder holds {first!r} (set "
                                   "$HYBRIDSCHED_DATA or use ../shared/data beside the "
                                   "checkout)")
        return os.path.join(found.parent if named else found, rest)
    if "{data}" in pattern:
        raise _SpecError(path, f"'{{data}}' may only start a path, got {pattern!r}")
    return os.path.normpath(os.path.join(folder, os.path.expanduser(pattern)))


def _files(patterns: Sequence[str], path: str, folder: Path) -> list[tuple[str, str]]:
    """``(file, key path of its pattern)`` for every match, sorted per pattern, no repeats."""
    found: dict[str, str] = {}
    for k, pattern in enumerate(patterns):
        where = _join(path, k)
        resolved = _spec_path(pattern, folder, where)
        matches = sorted(m for m in glob.glob(resolved, recursive=True) if os.path.isfile(m))
        if not matches:
            what = "no file matches" if _magic(resolved) else "no such file:"
            shown = "" if resolved == pattern else f" (looked for {resolved})"
            raise _SpecError(where, f"{what} {pattern!r}{shown}")
        for match in matches:
            found.setdefault(os.path.abspath(match), where)
    return list(found.items())


def _plan(table: InstancesTable, path: str, folder: Path) -> _Plan:
    if table.generator is not None:
        if table.files is not None or table.importer is not None:
            other = "files" if table.files is not None else "importer"
            raise _SpecError(_join(path, other), "give either generator, or files (with an "
                                                 "optional importer), not both")
        return _plan_generator(table, path, folder)
    if table.files is None:
        where = _join(path, "importer") if table.importer is not None else path
        raise _SpecError(where, "an [[instances]] table needs generator = \"FAMILY\" or "
                                "files = [\"GLOB\", ...] (with importer for ETC/SWF files)")
    if not table.files:
        raise _SpecError(_join(path, "files"), "empty list of files (give at least one path "
                                               "or glob)")
    if table.seeds is not None:
        raise _SpecError(_join(path, "seeds"), "seeds apply to generators only")
    if table.importer is not None:
        return _plan_import(table, path, folder)
    if table.options is not None:
        raise _SpecError(_join(path, "options"), "options apply to generators and importers; "
                                                 "an instance file holds its parameters")
    sources = []
    for file, where in _files(table.files, _join(path, "files"), folder):
        try:
            sources.append(file_source(file))
        except InputError as exc:
            raise _SpecError(where, str(exc)) from None
    counts: dict[str, int] = {}
    for source in sources:
        counts[source.family] = counts.get(source.family, 0) + 1
    return _Plan(path, counts, lambda: sources)


def _file_options(generator: str, options: Mapping[str, Any], path: str, folder: Path
                  ) -> dict[str, Any]:
    """``options`` with the files they name resolved like ``files`` (relative to the spec)."""
    resolved = dict(options)
    for key in GENERATOR_FILE_OPTIONS.get(generator, ()):
        value = resolved.get(key)
        if isinstance(value, str):
            resolved[key] = _spec_path(value, folder, _join(path, key))
        elif isinstance(value, list):
            resolved[key] = [_spec_path(v, folder, _join(path, key, k)) if isinstance(v, str)
                             else v for k, v in enumerate(value)]
    return resolved


def _plan_generator(table: InstancesTable, path: str, folder: Path) -> _Plan:
    name = str(table.generator)
    if name not in GENERATOR_FAMILIES:
        known = ", ".join(GENERATOR_FAMILIES)
        reason = (f"family {name!r} has no generator (generators: {known})"
                  if name in family_names() else
                  f"unknown family {name!r} (families with a generator: {known})")
        raise _SpecError(_join(path, "generator"), reason)
    options_path = _join(path, "options")
    axes = _axes(_file_options(name, table.options or {}, options_path, folder),
                 options_path, scalar=False)
    seeds = _seeds(table.seeds, _join(path, "seeds"))
    count = _grid_size(axes) * len(seeds)
    if count > MAX_RUNS:
        raise _SpecError(path, f"expands to {count:,} instances, more than the limit of "
                               f"{MAX_RUNS:,} runs per campaign")
    points = _points(axes, options_path, lambda options: generator_options(name, options))
    presets = [dict(point).get("preset") is not None for point in points]
    if any(presets) and table.seeds is not None:
        raise _SpecError(_join(path, "seeds"), "a preset fixes every parameter, the seed too; "
                                               "drop seeds")
    family = GENERATOR_FAMILIES[name]

    def expand() -> list[InstanceSource]:
        return [InstanceSource("generator", family, options=point, seed=seed)
                for point, preset in zip(points, presets, strict=True)
                for seed in ((None,) if preset else seeds)]

    total = sum(1 if preset else len(seeds) for preset in presets)
    return _Plan(path, {family: total}, expand)


def _plan_import(table: InstancesTable, path: str, folder: Path) -> _Plan:
    name = str(table.importer)
    if name not in IMPORTERS:
        known = ", ".join(f"{k} ({v})" for k, v in IMPORTERS.items())
        raise _SpecError(_join(path, "importer"), f"unknown importer {name!r} (known: {known})")
    options_path = _join(path, "options")
    axes = _axes(table.options or {}, options_path, scalar=False)
    if _grid_size(axes) > MAX_RUNS:
        raise _SpecError(options_path, f"the grid has more than {MAX_RUNS:,} points")
    points = _points(axes, options_path, lambda options: importer_options(name, options))
    files = _files(table.files or [], _join(path, "files"), folder)
    sources = []
    for file, where in files:
        for point in points:
            source = import_source(name, file, dict(point))
            _check_import(source, where)
            sources.append(source)
    return _Plan(path, {IMPORTERS[name]: len(sources)}, lambda: sources)


def _check_import(source: InstanceSource, where: str) -> None:
    """Import ``source`` once, so that a bad trace or matrix is reported before any run.

    Like instance files, which are loaded here; a serial campaign then reuses
    the instance (:func:`~.sources.load_cached`).
    """
    try:
        load_cached(source)
    except InputError as exc:
        raise _SpecError(where, str(exc)) from None
    except OSError as exc:
        raise _SpecError(where, f"{source.path}: cannot read ({exc.strerror or exc})"
                         ) from None


# --------------------------------------------------------------------------- methods


@dataclass(frozen=True)
class _Request:
    """A method as asked for, before its families and grid are resolved."""

    path: str
    name: str
    family: str | None
    label: str | None
    axes: list[Axis]
    time_limit: float | None
    seeds: Sequence[int]
    replications: int


def _method_families(request: _Request, families: Sequence[str]) -> list[str]:
    """The families of the campaign ``request`` runs on (errors name what is wrong)."""
    name = request.name
    if request.family is not None:
        try:
            get_family(request.family)
        except InputError as exc:
            raise _SpecError(_join(request.path, "family"), str(exc)) from None
        try:
            get_method(request.family, name)
        except InputError as exc:
            raise _SpecError(_join(request.path, "name"), str(exc)) from None
        if request.family not in families:
            raise _SpecError(_join(request.path, "family"),
                             f"method {name!r} matches no instance: the campaign has no "
                             f"{request.family} instance (its instances: "
                             f"{', '.join(families)})")
        return [request.family]
    found = [family for family in families if name in registered_methods(family)]
    if found:
        return found
    elsewhere = [family for family in family_names() if name in registered_methods(family)]
    if elsewhere:
        reason = (f"method {name!r} of {', '.join(elsewhere)} matches no instance (the "
                  f"campaign's instances: {', '.join(families)})")
    else:
        known = "; ".join(f"{family}: {', '.join(registered_methods(family))}"
                          for family in families)
        reason = f"unknown method {name!r} (methods of the campaign's families: {known})"
    raise _SpecError(_join(request.path, "name"), reason)


def _check_options(request: _Request, family: str) -> None:
    for key, values, is_list in request.axes:
        for k, value in enumerate(values):
            try:
                check_options(family, request.name, {key: value}, whole=False)
            except InputError as exc:
                where = _join(request.path, "options", key, k if is_list else None)
                raise _SpecError(where, str(exc)) from None
    # Then every grid point whole: some checks tie options together (q <= p).
    for index in product(*(range(len(values)) for _, values, _ in request.axes)):
        point = {key: values[i] for (key, values, _), i in zip(request.axes, index,
                                                                strict=True)}
        try:
            check_options(family, request.name, point)
        except InputError as exc:
            # Point at the option the message names ("option --q: ..."), if one does.
            named = re.match(r"option --([\w-]+)", str(exc))
            key = named.group(1).replace("-", "_") if named else None
            where = _join(request.path, "options")
            for (axis, _, is_list), i in zip(request.axes, index, strict=True):
                if axis == key:
                    where = _join(where, axis, i if is_list else None)
            raise _SpecError(where, str(exc)) from None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _entries(requests: Sequence[_Request], counts: Mapping[str, int],
             family_paths: Mapping[str, str]) -> tuple[MethodEntry, ...]:
    """Resolve, check and expand every method; refuse campaigns over :data:`MAX_RUNS`."""
    resolved = [(request, _method_families(request, list(counts))) for request in requests]
    for request, families in resolved:
        for family in families:
            _check_options(request, family)
    covered = {family for _, families in resolved for family in families}
    for family in counts:
        if family not in covered:
            raise _SpecError(family_paths.get(family, ""),
                             f"no method runs on the {family} instances (add a [[methods]] "
                             f"table; its methods: {', '.join(registered_methods(family))})")
    runs = sum(counts[family] * _grid_size(request.axes) * len(request.seeds)
               * request.replications for request, families in resolved for family in families)
    if runs > MAX_RUNS:
        raise _SpecError("", f"the campaign expands to {runs:,} runs, more than the limit of "
                             f"{MAX_RUNS:,}; split it into several campaigns")
    entries: list[MethodEntry] = []
    labels: dict[tuple[str, str], str] = {}
    for request, families in resolved:
        keys = [key for key, _, _ in request.axes]
        varying = {key for key, values, _ in request.axes if len(values) > 1}
        seeds = tuple(request.seeds)
        for family in families:
            for point in product(*(values for _, values, _ in request.axes)):
                label = request.label or request.name
                if varying:
                    label += "[" + ",".join(f"{key}={_text(value)}" for key, value
                                            in zip(keys, point, strict=True)
                                            if key in varying) + "]"
                first = labels.setdefault((family, label), request.path)
                if first != request.path:
                    where = _join(request.path, "label" if request.label else "name")
                    raise _SpecError(where, f"duplicate label {label!r} in family {family} "
                                            f"(also {first or 'an earlier method'}); give "
                                            "each a distinct label")
                entries.append(MethodEntry(family, request.name, label,
                                           tuple(sorted(zip(keys, point, strict=True))),
                                           request.time_limit, seeds, request.replications))
    return tuple(entries)


# --------------------------------------------------------------------------- campaigns


def _unique(sources: Iterable[InstanceSource]) -> tuple[InstanceSource, ...]:
    return tuple(dict.fromkeys(sources))


def load_spec(path: str | Path, *, text: str | None = None) -> Campaign:
    """Read, validate and expand a campaign spec (see the module docstring).

    Plugins named by the spec are imported into this process first, so
    their methods and families can be used. ``text``, when given, is read
    instead of the file, as if it were at ``path`` (its relative paths are
    found from ``path``'s folder): a notebook scales a bundled spec down
    this way without writing a copy.

    Raises
    ------
    InputError
        One line ``SPEC[:LINE]: key.path: reason`` for the first problem
        found, before anything runs.
    """
    if text is None:
        data, text = load_toml(path)
    else:
        data = parse_toml(text, path)
    try:
        return _campaign(data, Path(path), text)
    except _SpecError as exc:
        raise InputError(located(path, text, exc.path, exc.reason)) from None


def _campaign(data: dict[str, Any], path: Path, text: str) -> Campaign:
    spec: SpecFile = _validate(SpecFile, data, "")
    folder = path.resolve().parent
    plugins = []
    for k, plugin in enumerate(spec.campaign.plugins):
        where = _join("campaign", "plugins", k)
        file = _spec_path(plugin, folder, where)
        try:
            import_plugins([file])
        except InputError as exc:
            raise _SpecError(where, str(exc)) from None
        plugins.append(file)
    if not spec.instances:
        raise _SpecError("", "no [[instances]] table: a campaign needs at least one source "
                             "of instances")
    if not spec.methods:
        raise _SpecError("", "no [[methods]] table: a campaign needs at least one method")
    plans = [_plan(table, _join("instances", i), folder)
             for i, table in enumerate(spec.instances)]
    counts: dict[str, int] = {}
    family_paths: dict[str, str] = {}
    for plan in plans:
        for family, count in plan.counts.items():
            counts[family] = counts.get(family, 0) + count
            family_paths.setdefault(family, plan.path)
    defaults = spec.campaign
    requests = []
    for j, table in enumerate(spec.methods):
        where = _join("methods", j)
        requests.append(_Request(
            where, table.name, table.family, table.label,
            _axes(table.options, _join(where, "options"), scalar=True),
            defaults.time_limit if table.time_limit is None else table.time_limit,
            _seeds(table.seeds, _join(where, "seeds")),
            defaults.replications if table.replications is None else table.replications))
    entries = _entries(requests, counts, family_paths)
    return Campaign(
        name=defaults.name or path.stem,
        description=defaults.description,
        sources=_unique(source for plan in plans for source in plan.expand()),
        methods=entries,
        record=frozenset(defaults.record),
        plugins=tuple(plugins),
        spec_path=str(path.resolve()),
        spec_text=text,
    )


def campaign_from_parts(
    sources: Sequence[InstanceSource],
    methods: Sequence[str | MethodEntry] | None,
    *,
    name: str,
    time_limit: float | None,
    record: Iterable[str] = (),
    plugins: Sequence[str] = (),
    seeds: Sequence[int] = (0,),
    replications: int = 1,
    options: Mapping[str, Any] | None = None,
    description: str = "",
) -> Campaign:
    """Build and check a campaign without a spec file (e.g. for ``compare``).

    Parameters
    ----------
    sources:
        The instances (repeats are dropped).
    methods:
        Method names, run on every family of ``sources`` that has them (with
        ``options``, ``time_limit``, ``seeds`` and ``replications``), or ready
        :class:`MethodEntry` objects (taken as they are); ``None``: every
        method of every family of ``sources``.
    name, description:
        Campaign name and description.
    time_limit:
        Seconds per run for named methods (``None`` or ``inf``: no limit).
    record, plugins:
        As in a spec (plugins are imported here).
    seeds, replications, options:
        Seeds, repeated runs and options of named methods.

    Raises
    ------
    InputError
        One line: no source, an unknown method or option, a family no
        method runs on, a duplicate label, a bad setting, or more than
        :data:`MAX_RUNS` runs.
    """
    plugin_paths = tuple(os.path.abspath(os.path.expanduser(p)) for p in plugins)
    import_plugins(plugin_paths)
    unknown = sorted(set(record) - set(RECORD_CHOICES))
    if unknown:
        raise InputError(f"record: unknown value {unknown[0]!r} (choose from: "
                         f"{', '.join(RECORD_CHOICES)})")
    limit = check_run_settings(None, time_limit)
    for seed in seeds:
        check_run_settings(seed, None)
    if isinstance(replications, bool) or not isinstance(replications, int) or replications < 1:
        raise InputError(f"replications: must be an integer >= 1, got {replications!r}")
    unique = _unique(sources)
    if not unique:
        raise InputError("no instance to run")
    counts: dict[str, int] = {}
    for source in unique:
        counts[source.family] = counts.get(source.family, 0) + 1
    if methods is None:
        methods = [MethodEntry(family, method, method, tuple(sorted((options or {}).items())),
                               limit, tuple(seeds), replications)
                   for family in counts for method in registered_methods(family)]
    if not methods:
        raise InputError("no method to run")
    requests = []
    for j, method in enumerate(methods):
        where = _join("methods", j)
        if isinstance(method, MethodEntry):
            requests.append(_Request(where, method.name, method.family, method.label,
                                     [(k, [v], False) for k, v in method.options],
                                     method.time_limit, method.seeds, method.replications))
        else:
            try:
                axes = [(k, [v], False) for k, v in (options or {}).items()]
                for key, values, _ in axes:
                    reason = _bad_value(values[0], scalar=True)
                    if reason is not None:
                        raise _SpecError(key, reason)
                requests.append(_Request(where, method, None, None, axes, limit, tuple(seeds),
                                         replications))
            except _SpecError as exc:
                raise InputError(f"option {exc.path}: {exc.reason}") from None
    try:
        entries = _entries(requests, counts, {})
    except _SpecError as exc:
        raise InputError(exc.reason) from None
    return Campaign(name=name, description=description, sources=unique, methods=entries,
                    record=frozenset(record), plugins=plugin_paths)
