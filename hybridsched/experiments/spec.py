"""Campaign specs: a TOML file, validated before anything runs and fully expanded.

:func:`load_spec` reads the TOML with :mod:`tomllib`, checks its structure
with pydantic models (unknown keys, strict types, finite numbers), then
every name and option against the registries, and expands globs, generator
grids, seeds and method option grids into a frozen
:class:`~hybridsched.experiments.campaign_model.Campaign`. Every error is one
:class:`~hybridsched.errors.InputError` line ``SPEC:LINE: key.path: reason``;
the line comes from tomllib for syntax errors and from a small scan of the
TOML text for everything else. This module is the entry point (and
:func:`campaign_from_parts` the one without a file); the steps are
:mod:`~hybridsched.experiments.spec_tables` (structure),
:mod:`~hybridsched.experiments.spec_grids` (option grids and seeds),
:mod:`~hybridsched.experiments.spec_instances` and
:mod:`~hybridsched.experiments.spec_methods`.

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

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hybridsched.errors import InputError
from hybridsched.experiments.campaign_model import RECORD_CHOICES, Campaign, MethodEntry
from hybridsched.experiments.plugins import import_plugins
from hybridsched.experiments.sources import InstanceSource
from hybridsched.experiments.spec_grids import bad_option_value, option_axes, seed_list
from hybridsched.experiments.spec_instances import plan_instances, resolve_path
from hybridsched.experiments.spec_methods import MethodRequest, method_entries
from hybridsched.experiments.spec_tables import SpecError, SpecFile, validate
from hybridsched.io.toml_lines import join_path as _join
from hybridsched.io.toml_lines import load_toml, located, parse_toml
from hybridsched.registry import check_run_settings
from hybridsched.registry import methods as registered_methods


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
    except SpecError as exc:
        raise InputError(located(path, text, exc.path, exc.reason)) from None


def _campaign(data: dict[str, Any], path: Path, text: str) -> Campaign:
    spec: SpecFile = validate(SpecFile, data, "")
    folder = path.resolve().parent
    plugins = []
    for k, plugin in enumerate(spec.campaign.plugins):
        where = _join("campaign", "plugins", k)
        file = resolve_path(plugin, folder, where)
        try:
            import_plugins([file])
        except InputError as exc:
            raise SpecError(where, str(exc)) from None
        plugins.append(file)
    if not spec.instances:
        raise SpecError("", "no [[instances]] table: a campaign needs at least one source "
                             "of instances")
    if not spec.methods:
        raise SpecError("", "no [[methods]] table: a campaign needs at least one method")
    plans = [plan_instances(table, _join("instances", i), folder)
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
        requests.append(MethodRequest(
            where, table.name, table.family, table.label,
            option_axes(table.options, _join(where, "options"), scalar=True),
            defaults.time_limit if table.time_limit is None else table.time_limit,
            seed_list(table.seeds, _join(where, "seeds")),
            defaults.replications if table.replications is None else table.replications))
    entries = method_entries(requests, counts, family_paths)
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
        :data:`~hybridsched.experiments.campaign_model.MAX_RUNS` runs.
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
            requests.append(MethodRequest(where, method.name, method.family, method.label,
                                     [(k, [v], False) for k, v in method.options],
                                     method.time_limit, method.seeds, method.replications))
        else:
            try:
                axes = [(k, [v], False) for k, v in (options or {}).items()]
                for key, values, _ in axes:
                    reason = bad_option_value(values[0], scalar=True)
                    if reason is not None:
                        raise SpecError(key, reason)
                requests.append(MethodRequest(where, method, None, None, axes, limit, tuple(seeds),
                                         replications))
            except SpecError as exc:
                raise InputError(f"option {exc.path}: {exc.reason}") from None
    try:
        entries = method_entries(requests, counts, {})
    except SpecError as exc:
        raise InputError(exc.reason) from None
    return Campaign(name=name, description=description, sources=unique, methods=entries,
                    record=frozenset(record), plugins=plugin_paths)
