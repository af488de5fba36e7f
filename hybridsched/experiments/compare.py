"""Run several methods on several instances and report gaps to the optimum or a bound."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from hybridsched.errors import InputError
from hybridsched.registry import check_options, get_method, run_method
from hybridsched.registry import methods as registered_methods
from hybridsched.result import Result, Status, relative_gap
from hybridsched.storage import load_instance

#: Columns of the comparison table, in order.
COLUMNS = [
    "instance", "family", "method", "status", "objective", "reference", "reference_kind",
    "gap", "bound", "runtime_s", "message",
]


def reference_value(family: Any, instance: Any, results: Sequence[Result],
                    objective: str | None = None) -> tuple[float | None, str]:
    """The value gaps are measured against, and what it is.

    Every result reports the objective it optimised, with its status and
    bound (:func:`~hybridsched.registry.run_method`), so one rule serves the
    family's main objective and a chosen one (``objective="cost"``).
    Preference: an optimum recorded with the instance (``optimum``, or
    ``optimum_<objective>`` for a chosen objective); an optimum proven in this
    run; otherwise the best (largest) lower bound known (recorded, from the
    family's cheap bound for its main objective, or from an exact method
    stopped by its time limit). Returns ``(None, "none")`` when nothing is
    known.
    """
    recorded = family.reference(instance) or {}
    key = "optimum" if objective is None else f"optimum_{objective}"
    if key in recorded:
        return recorded[key], "optimum (recorded)"
    for result in results:
        if result.status is Status.OPTIMAL and result.objective is not None:
            return result.objective, "optimum"
    bounds = [r.bound for r in results if r.bound is not None]
    if objective is None:
        bounds += [recorded["lower_bound"]] if "lower_bound" in recorded else []
        if family.lower_bound is not None:
            bounds.append(family.lower_bound(instance))
    if bounds:
        return max(bounds), "lower bound"
    return None, "none"


def compare(
    paths: Sequence[str | Path],
    method_names: Sequence[str] | None = None,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    on_start: Callable[[int], None] | None = None,
    on_step: Callable[[str, str], None] | None = None,
    objective: str | None = None,
    on_run_start: Callable[[str, str], None] | None = None,
) -> pd.DataFrame:
    """Solve every instance with every method; one row per instance x method.

    Parameters
    ----------
    paths:
        Instance files (any family; the family is read from each file).
    method_names:
        Methods to run (default, ``None``: every method of each instance's
        family). An empty list is an error.
    time_limit:
        Time limit in seconds for exact methods.
    seed:
        Seed passed to every method.
    on_start:
        Called once with the number of runs, after every file and method
        name has been validated (nothing runs before bad input is reported).
    on_step:
        Called as ``on_step(instance_path, method)`` after each run (progress).
    objective:
        For families with several objectives (bot-sites: ``"cost"``), passed
        to every method; the table then reports that objective's values.
    on_run_start:
        Called as ``on_run_start(instance_path, method)`` just before each
        run, so that progress displays can name the run in progress.

    Raises
    ------
    InputError
        Before anything runs: a bad file, an unknown method, an option a
        method does not take, or an empty ``method_names``.
    """
    if method_names is not None and not list(method_names):
        raise InputError("--methods: no method given")
    options = {} if objective is None else {"objective": objective}
    loaded = [(path, *load_instance(path)) for path in paths]  # fail fast on bad files
    plans = []
    for path, family, instance in loaded:
        names = list(registered_methods(family.name) if method_names is None
                     else method_names)
        for name in names:
            get_method(family.name, name)  # fail fast on unknown names
            check_options(family.name, name, options)
        plans.append((path, family, instance, names))
    if on_start:
        on_start(sum(len(names) for *_, names in plans))
    rows: list[dict[str, Any]] = []
    for path, family, instance, names in plans:
        results = []
        for name in names:
            if on_run_start:
                on_run_start(str(path), name)
            results.append(run_method(family.name, name, instance, seed=seed,
                                      time_limit=time_limit, **options))
            if on_step:
                on_step(str(path), name)
        reference, kind = reference_value(family, instance, results, objective)
        for result in results:
            value = result.objective
            rows.append({
                "instance": Path(path).stem,
                "family": family.name,
                "method": result.method,
                "status": result.status.value,
                "objective": value,
                "reference": reference,
                "reference_kind": kind,
                "gap": relative_gap(value, reference),
                "bound": result.bound,
                "runtime_s": result.runtime_s,
                "message": result.message,
            })
    return pd.DataFrame(rows, columns=COLUMNS)
