"""Run several methods on several instance files and report gaps to the optimum or a bound.

``compare`` is a small campaign: it plans runs like a campaign spec would,
executes them with the campaign engine (in process by default; on a local
cluster or an existing Dask scheduler when asked), and measures gaps with the
one rule of :mod:`hybridsched.experiments.tables`. Nothing is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from hybridsched.errors import InputError, ParameterError
from hybridsched.experiments.campaign_model import MethodEntry
from hybridsched.experiments.engine import Progress, execute
from hybridsched.experiments.runner import FAILED
from hybridsched.experiments.runs import plan_runs
from hybridsched.experiments.sources import file_source
from hybridsched.experiments.spec import campaign_from_parts
from hybridsched.experiments.tables import add_gaps
from hybridsched.registry import check_options, check_run_settings, get_method
from hybridsched.registry import methods as registered_methods
from hybridsched.seeding import RNGLike, resolve_seed

#: Columns of the comparison table, in order.
COLUMNS = [
    "instance", "family", "method", "status", "objective", "reference", "reference_kind",
    "gap", "bound", "runtime_s", "message",
]

#: How a failed run's message starts when the run found its input unusable: the engine
#: records what a run raised as ``"Type: last line"`` (:func:`runner.last_line`).
BAD_INPUT = f"{InputError.__name__}: "
#: The same for every kind of :class:`InputError` a run may raise (a library error that
#: names its parameter is one).
BAD_INPUTS = tuple(f"{kind.__name__}: " for kind in (InputError, ParameterError))


@dataclass(frozen=True)
class Failure:
    """A run of the table that produced no result, and why."""

    instance: str
    method: str
    reason: str
    bad_input: bool


def failures(records: Sequence[dict[str, Any]]) -> list[Failure]:
    """The failed runs of a comparison's ``records``, in table order.

    A run that raised :class:`InputError` (say, a malleable instance whose
    jobs cannot end within the time range, found only while simulating) is
    bad input; any other failure (a method that raised, a worker that died)
    is not.
    """
    found = []
    for row in records:
        if row.get("status") != FAILED:
            continue
        message = str(row.get("message") or "").strip() or "no reason recorded"
        kind = next((k for k in BAD_INPUTS if message.startswith(k)), None)
        found.append(Failure(str(row.get("instance")), str(row.get("method")),
                             message.removeprefix(kind) if kind else message, kind is not None))
    return found


def _entries(families: Sequence[str], method_names: Sequence[str] | None,
             options: dict[str, Any], time_limit: float | None,
             seed: int, backend: str | None = None) -> list[MethodEntry]:
    entries = []
    for family in dict.fromkeys(families):
        names = list(registered_methods(family) if method_names is None else method_names)
        for name in names:
            method = get_method(family, name)  # fail fast on unknown names
            # The backend is an exact method's option; heuristics run as they are.
            chosen = {**options, "backend": backend} if backend and method.exact else options
            check_options(family, name, chosen)
            entries.append(MethodEntry(family=family, name=name, label=name,
                                       options=tuple(sorted(chosen.items())),
                                       time_limit=time_limit, seeds=(seed,), replications=1))
    return entries


def compare(
    paths: Sequence[str | Path],
    method_names: Sequence[str] | None = None,
    *,
    time_limit: float | None = None,
    rng: RNGLike = None,
    seed: int | None = None,
    objective: str | None = None,
    on_start: Callable[[int], None] | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    backend: str | None = None,
) -> pd.DataFrame:
    """Solve every instance with every method; one row per instance x method.

    Also ``hybridsched.compare``.

    Parameters
    ----------
    paths:
        Instance files (any family; the family is read from each file).
    method_names:
        Methods to run (default, ``None``: every method of each instance's
        family). An empty list is an error.
    time_limit:
        Time limit in seconds of every run.
    rng:
        The seed of every method (:mod:`hybridsched.seeding`): an integer
        (>= 0), ``None`` (seed 0) or a ``numpy.random.Generator``, from which
        one seed is drawn (the generator advances by that draw) for every
        run.
    seed:
        The older name of ``rng`` (an integer); give one or the other.
    objective:
        For families with several objectives (bot-sites: ``"cost"``), passed
        to every method; the table then reports that objective's values.
    on_start:
        Called once with the number of runs, after every file and method
        name has been validated (nothing runs before bad input is reported).
    progress:
        Progress reports of the campaign engine
        (:data:`~hybridsched.experiments.engine.Progress`).
    workers, scheduler:
        Run on a local Dask cluster of ``workers`` processes (when above 1),
        or on the Dask scheduler at this address; in process otherwise.
    backend:
        Exact backend of the exact methods (``highs`` or ``cpsat``; ``None``:
        the default).

    Raises
    ------
    InputError
        Before anything runs: a bad file, an unknown method, an option a
        method does not take, a bad seed or time limit, or an empty
        ``method_names``.
    TypeError
        Both ``rng`` and ``seed`` given.

    Returns
    -------
    pandas.DataFrame
        One row per instance and method, columns :data:`COLUMNS`:
        ``instance`` (the file's stem), ``family``, ``method``, ``status``,
        ``objective`` (the family's objective, in its unit: $ for
        hybrid-deadline, seconds or $ for bot-sites ...), ``reference`` and
        ``reference_kind`` (the optimum or bound the ``gap`` is measured
        against), ``gap`` (relative, 0.05 is 5 %), ``bound`` (the method's
        own), ``runtime_s`` (seconds) and ``message``. Missing values are
        ``None``.

    Examples
    --------
    >>> table = compare(["instances/hybrid-deadline/small-01.json"], ["cdf", "ffd"], rng=0)
    >>> table[["method", "status"]].to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'method': 'cdf', 'status': 'feasible'}, {'method': 'ffd', 'status': 'feasible'}]
    """
    if method_names is not None and not list(method_names):
        raise ParameterError("method_names", "no method given")
    time_limit = check_run_settings(None, time_limit)
    seed = resolve_seed(rng, seed)
    options = {} if objective is None else {"objective": objective}
    sources = [file_source(path) for path in paths]  # fails fast on bad files
    entries = _entries([s.family for s in sources], method_names, options, time_limit, seed,
                       backend)
    campaign = campaign_from_parts(sources, entries, name="compare", time_limit=time_limit)
    runs = list(plan_runs(campaign))
    if on_start:
        on_start(len(runs))
    rows: dict[str, dict[str, Any]] = {}
    local = workers is not None and workers > 1
    execute(runs, lambda row: rows.__setitem__(row["key"], row),
            mode="local" if local else "serial", workers=workers, scheduler=scheduler,
            progress=progress)
    table = add_gaps(pd.DataFrame([rows[run.key] for run in runs]))
    if table.empty:
        return pd.DataFrame(columns=COLUMNS)
    table["instance"] = [Path(run.source.path or run.source.label()).stem for run in runs]
    table["message"] = table["error"]
    table = table.astype({"objective": object, "reference": object, "gap": object,
                          "bound": object})
    return table[COLUMNS].where(table[COLUMNS].notna(), None)
