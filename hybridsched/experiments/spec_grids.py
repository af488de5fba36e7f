"""Grids of a campaign spec: option tables whose lists are axes, and seed lists or ranges.

A list in an ``options`` table is a grid axis, a scalar a one-value axis;
every grid point is validated whole (by the generator's, importer's or
method's checks), and an error names the option and the index of its value.
Seeds are a list or a lazy ``{start, stop, step}`` range.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from itertools import product
from typing import Any

from pydantic import TypeAdapter

from hybridsched.errors import InputError
from hybridsched.experiments.source_options import MAX_INT, OptionError, short_repr
from hybridsched.experiments.spec_tables import Seed, SeedRange, SpecError, validate
from hybridsched.io.toml_lines import join_path as _join

_SEED_LIST = TypeAdapter(list[Seed])

Axis = tuple[str, list[Any], bool]  # (key, values, whether the value was a list)


def bad_option_value(value: Any, scalar: bool) -> str | None:
    """Why ``value`` cannot be an option value (``None``: it can)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number, got {value}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        return f"integer too large (at most 2**63 - 1), got {short_repr(value)}"
    if isinstance(value, str | bool | int | float):
        return None
    if isinstance(value, list) and not scalar:
        return next(filter(None, (bad_option_value(v, scalar) for v in value)), None)
    return f"expected a string, number or boolean, got {short_repr(value)}"


def option_axes(options: Mapping[str, Any], path: str, *, scalar: bool) -> list[Axis]:
    """Grid axes of an options table: a list is an axis, a scalar a one-value axis."""
    axes = []
    for key, value in options.items():
        is_list = isinstance(value, list)
        values = value if is_list else [value]
        if not values:
            raise SpecError(_join(path, key), "empty grid: an empty list of values (give at "
                                               "least one, or leave the option out)")
        for k, item in enumerate(values):
            reason = bad_option_value(item, scalar)
            if reason is None and any(type(item) is type(v) and item == v
                                      for v in values[:k]):
                reason = f"{short_repr(item)} given twice in the grid"
            if reason is not None:
                raise SpecError(_join(path, key, k if is_list else None), reason)
        axes.append((key, list(values), is_list))
    return axes


def grid_size(axes: Sequence[Axis]) -> int:
    """How many points the grid of ``axes`` has."""
    return math.prod(len(values) for _, values, _ in axes)


def grid_points(axes: Sequence[Axis], path: str,
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
            raise SpecError(where, exc.reason) from None
        except InputError as exc:
            raise SpecError(path, str(exc)) from None
    return points


def seed_list(value: Any, path: str) -> Sequence[int]:
    """A seeds list or range table (a ``range`` stays lazy until the run count is checked)."""
    if value is None:
        return (0,)
    if isinstance(value, list):
        if not value:
            raise SpecError(path, "empty grid: no seed (give at least one, or leave seeds out "
                                   "for [0])")
        seeds = validate(_SEED_LIST, value, path)
        for k, seed in enumerate(seeds):
            if seed in seeds[:k]:
                raise SpecError(_join(path, k), f"seed {seed} given twice (use replications "
                                                 "to repeat runs)")
        return tuple(seeds)
    if isinstance(value, dict):
        table = validate(SeedRange, value, path)
        seeds = range(table.start, table.stop, table.step)
        if not seeds:
            raise SpecError(path, f"empty range: start {table.start} >= stop {table.stop} "
                                   "(stop is exclusive)")
        return seeds
    raise SpecError(path, "expected a list of seeds or a range table {start, stop, step}, "
                           f"got {short_repr(value)}")
