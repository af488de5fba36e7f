"""The methods of a campaign: requests resolved to families, checked and expanded.

A :class:`MethodRequest` is one ``[[methods]]`` table (or one method named
to :func:`~hybridsched.experiments.spec.campaign_from_parts`) before its
families and options grid are resolved. :func:`method_entries` finds the
families it runs on, checks every option and grid point against the
registry, refuses a campaign over :data:`MAX_RUNS` runs and labels each
grid point uniquely.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product

from hybridsched.catalogue import family_names, get_family
from hybridsched.errors import InputError
from hybridsched.experiments.campaign_model import MAX_RUNS, MethodEntry
from hybridsched.experiments.source_options import option_text
from hybridsched.experiments.spec_grids import Axis, grid_size
from hybridsched.experiments.spec_tables import SpecError
from hybridsched.io.toml_lines import join_path as _join
from hybridsched.registry import check_options, get_method
from hybridsched.registry import methods as registered_methods


@dataclass(frozen=True)
class MethodRequest:
    """A method as asked for, before its families and grid are resolved."""

    path: str
    name: str
    family: str | None
    label: str | None
    axes: list[Axis]
    time_limit: float | None
    seeds: Sequence[int]
    replications: int


def _method_families(request: MethodRequest, families: Sequence[str]) -> list[str]:
    """The families of the campaign ``request`` runs on (errors name what is wrong)."""
    name = request.name
    if request.family is not None:
        try:
            get_family(request.family)
        except InputError as exc:
            raise SpecError(_join(request.path, "family"), str(exc)) from None
        try:
            get_method(request.family, name)
        except InputError as exc:
            raise SpecError(_join(request.path, "name"), str(exc)) from None
        if request.family not in families:
            raise SpecError(_join(request.path, "family"),
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
    raise SpecError(_join(request.path, "name"), reason)


def _check_options(request: MethodRequest, family: str) -> None:
    for key, values, is_list in request.axes:
        for k, value in enumerate(values):
            try:
                check_options(family, request.name, {key: value}, whole=False)
            except InputError as exc:
                where = _join(request.path, "options", key, k if is_list else None)
                raise SpecError(where, str(exc)) from None
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
            raise SpecError(where, str(exc)) from None



def method_entries(requests: Sequence[MethodRequest], counts: Mapping[str, int],
             family_paths: Mapping[str, str]) -> tuple[MethodEntry, ...]:
    """Resolve, check and expand every method; refuse campaigns over :data:`MAX_RUNS`."""
    resolved = [(request, _method_families(request, list(counts))) for request in requests]
    for request, families in resolved:
        for family in families:
            _check_options(request, family)
    covered = {family for _, families in resolved for family in families}
    for family in counts:
        if family not in covered:
            raise SpecError(family_paths.get(family, ""),
                             f"no method runs on the {family} instances (add a [[methods]] "
                             f"table; its methods: {', '.join(registered_methods(family))})")
    runs = sum(counts[family] * grid_size(request.axes) * len(request.seeds)
               * request.replications for request, families in resolved for family in families)
    if runs > MAX_RUNS:
        raise SpecError("", f"the campaign expands to {runs:,} runs, more than the limit of "
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
                    label += "[" + ",".join(f"{key}={option_text(value)}" for key, value
                                            in zip(keys, point, strict=True)
                                            if key in varying) + "]"
                first = labels.setdefault((family, label), request.path)
                if first != request.path:
                    where = _join(request.path, "label" if request.label else "name")
                    raise SpecError(where, f"duplicate label {label!r} in family {family} "
                                            f"(also {first or 'an earlier method'}); give "
                                            "each a distinct label")
                entries.append(MethodEntry(family, request.name, label,
                                           tuple(sorted(zip(keys, point, strict=True))),
                                           request.time_limit, seeds, request.replications))
    return tuple(entries)
