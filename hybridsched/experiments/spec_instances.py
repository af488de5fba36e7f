"""The ``[[instances]]`` tables of a campaign spec, planned and checked before any run.

Each table becomes a :class:`Plan`: its instances counted per family (so
that a campaign over the run limit is refused before it is expanded) and a
way to expand them. Paths are resolved against the spec's folder (``~`` and a
leading ``{data}`` too); instance files and imported traces are loaded now,
so that a bad file is reported before anything runs; generators are not run,
but their options and the files they name are checked.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hybridsched.catalogue import family_names
from hybridsched.errors import InputError
from hybridsched.experiments.campaign_model import MAX_RUNS
from hybridsched.experiments.source_options import (
    GENERATOR_FAMILIES,
    GENERATOR_FILE_OPTIONS,
    IMPORTERS,
    generator_options,
    importer_options,
)
from hybridsched.experiments.sources import (
    InstanceSource,
    file_source,
    import_source,
    load_cached,
)
from hybridsched.experiments.spec_grids import grid_points, grid_size, option_axes, seed_list
from hybridsched.experiments.spec_tables import InstancesTable, SpecError
from hybridsched.io.shared_data import data_variable_problem, shared_data_path
from hybridsched.io.toml_lines import join_path as _join


@dataclass
class Plan:
    """The sources of one ``[[instances]]`` table, counted before they are expanded."""

    path: str
    counts: dict[str, int]  # instances per family
    expand: Callable[[], list[InstanceSource]]


def _magic(text: str) -> bool:
    return re.search(r"[*?[]", text) is not None


def resolve_path(pattern: str, folder: Path, path: str) -> str:
    """``pattern`` with ``{data}``, ``~`` and the spec's folder resolved."""
    if pattern.startswith("{data}"):
        rest = pattern.removeprefix("{data}").lstrip("/\\")
        first = rest.split("/")[0]
        named = bool(first) and not _magic(first)
        problem = data_variable_problem()
        if problem is not None:
            raise SpecError(path, f"{{data}}: {problem} (unset it to use ../shared/data "
                                   "beside the checkout)")
        found = shared_data_path(first if named else ".")
        if found is None:
            raise SpecError(path, f"{{data}}: no shared data folder holds {first!r} (set "
                                   "$HYBRIDSCHED_DATA or use ../shared/data beside the "
                                   "checkout)")
        return os.path.join(found.parent if named else found, rest)
    if "{data}" in pattern:
        raise SpecError(path, f"'{{data}}' may only start a path, got {pattern!r}")
    return os.path.normpath(os.path.join(folder, os.path.expanduser(pattern)))


def _files(patterns: Sequence[str], path: str, folder: Path) -> list[tuple[str, str]]:
    """``(file, key path of its pattern)`` for every match, sorted per pattern, no repeats."""
    found: dict[str, str] = {}
    for k, pattern in enumerate(patterns):
        where = _join(path, k)
        resolved = resolve_path(pattern, folder, where)
        matches = sorted(m for m in glob.glob(resolved, recursive=True) if os.path.isfile(m))
        if not matches:
            what = "no file matches" if _magic(resolved) else "no such file:"
            shown = "" if resolved == pattern else f" (looked for {resolved})"
            raise SpecError(where, f"{what} {pattern!r}{shown}")
        for match in matches:
            found.setdefault(os.path.abspath(match), where)
    return list(found.items())


def plan_instances(table: InstancesTable, path: str, folder: Path) -> Plan:
    """The plan of the ``[[instances]]`` table at ``path``: files, a generator or an importer."""
    if table.generator is not None:
        if table.files is not None or table.importer is not None:
            other = "files" if table.files is not None else "importer"
            raise SpecError(_join(path, other), "give either generator, or files (with an "
                                                 "optional importer), not both")
        return _plan_generator(table, path, folder)
    if table.files is None:
        where = _join(path, "importer") if table.importer is not None else path
        raise SpecError(where, "an [[instances]] table needs generator = \"FAMILY\" or "
                                "files = [\"GLOB\", ...] (with importer for ETC/SWF files)")
    if not table.files:
        raise SpecError(_join(path, "files"), "empty list of files (give at least one path "
                                               "or glob)")
    if table.seeds is not None:
        raise SpecError(_join(path, "seeds"), "seeds apply to generators only")
    if table.importer is not None:
        return _plan_import(table, path, folder)
    if table.options is not None:
        raise SpecError(_join(path, "options"), "options apply to generators and importers; "
                                                 "an instance file holds its parameters")
    sources = []
    for file, where in _files(table.files, _join(path, "files"), folder):
        try:
            sources.append(file_source(file))
        except InputError as exc:
            raise SpecError(where, str(exc)) from None
    counts: dict[str, int] = {}
    for source in sources:
        counts[source.family] = counts.get(source.family, 0) + 1
    return Plan(path, counts, lambda: sources)


def _file_options(generator: str, options: Mapping[str, Any], path: str, folder: Path
                  ) -> dict[str, Any]:
    """``options`` with the files they name resolved like ``files`` (relative to the spec)."""
    resolved = dict(options)
    for key in GENERATOR_FILE_OPTIONS.get(generator, ()):
        value = resolved.get(key)
        if isinstance(value, str):
            resolved[key] = resolve_path(value, folder, _join(path, key))
        elif isinstance(value, list):
            resolved[key] = [resolve_path(v, folder, _join(path, key, k)) if isinstance(v, str)
                             else v for k, v in enumerate(value)]
    return resolved


def _plan_generator(table: InstancesTable, path: str, folder: Path) -> Plan:
    name = str(table.generator)
    if name not in GENERATOR_FAMILIES:
        known = ", ".join(GENERATOR_FAMILIES)
        reason = (f"family {name!r} has no generator (generators: {known})"
                  if name in family_names() else
                  f"unknown family {name!r} (families with a generator: {known})")
        raise SpecError(_join(path, "generator"), reason)
    options_path = _join(path, "options")
    axes = option_axes(_file_options(name, table.options or {}, options_path, folder),
                 options_path, scalar=False)
    seeds = seed_list(table.seeds, _join(path, "seeds"))
    count = grid_size(axes) * len(seeds)
    if count > MAX_RUNS:
        raise SpecError(path, f"expands to {count:,} instances, more than the limit of "
                               f"{MAX_RUNS:,} runs per campaign")
    points = grid_points(axes, options_path, lambda options: generator_options(name, options))
    presets = [dict(point).get("preset") is not None for point in points]
    if any(presets) and table.seeds is not None:
        raise SpecError(_join(path, "seeds"), "a preset fixes every parameter, the seed too; "
                                               "drop seeds")
    family = GENERATOR_FAMILIES[name]

    def expand() -> list[InstanceSource]:
        return [InstanceSource("generator", family, options=point, seed=seed)
                for point, preset in zip(points, presets, strict=True)
                for seed in ((None,) if preset else seeds)]

    total = sum(1 if preset else len(seeds) for preset in presets)
    return Plan(path, {family: total}, expand)


def _plan_import(table: InstancesTable, path: str, folder: Path) -> Plan:
    name = str(table.importer)
    if name not in IMPORTERS:
        known = ", ".join(f"{k} ({v})" for k, v in IMPORTERS.items())
        raise SpecError(_join(path, "importer"), f"unknown importer {name!r} (known: {known})")
    options_path = _join(path, "options")
    axes = option_axes(table.options or {}, options_path, scalar=False)
    if grid_size(axes) > MAX_RUNS:
        raise SpecError(options_path, f"the grid has more than {MAX_RUNS:,} points")
    points = grid_points(axes, options_path, lambda options: importer_options(name, options))
    files = _files(table.files or [], _join(path, "files"), folder)
    sources = []
    for file, where in files:
        for point in points:
            source = import_source(name, file, dict(point))
            _check_import(source, where)
            sources.append(source)
    return Plan(path, {IMPORTERS[name]: len(sources)}, lambda: sources)


def _check_import(source: InstanceSource, where: str) -> None:
    """Import ``source`` once, so that a bad trace or matrix is reported before any run.

    Like instance files, which are loaded here; a serial campaign then reuses
    the instance (:func:`~.sources.load_cached`).
    """
    try:
        load_cached(source)
    except InputError as exc:
        raise SpecError(where, str(exc)) from None
    except OSError as exc:
        raise SpecError(where, f"{source.path}: cannot read ({exc.strerror or exc})"
                         ) from None
