"""Execute one run and turn its outcome into a row of the result table.

This is the function Dask workers call (and the serial mode, in process).
It never raises for a failing method: an exception, a schedule the checker
rejects or a time limit without incumbent becomes a row with its status and
the error's last line, so one bad run never stops a campaign.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from hybridsched.experiments.runs import Run
from hybridsched.family import Family
from hybridsched.provenance import code_version, provenance

#: Status of a run that raised, ran other code, or lost its worker.
FAILED = "failed"


@dataclass(frozen=True)
class Prepared:
    """An instance loaded on this worker, with what gaps are measured against."""

    instance_hash: str
    family: Family
    instance: Any
    name: str
    size: int
    recorded: dict[str, float]
    family_bound: float | None


@functools.lru_cache(maxsize=8)
def _prepare(source: Any) -> Prepared:
    # A worker runs the methods of one instance in a row: load and bound it once.
    from hybridsched.experiments.runs import hash_instance
    from hybridsched.experiments.sources import load_cached

    family, instance = load_cached(source)
    bound = None
    if family.lower_bound is not None:
        try:
            bound = float(family.lower_bound(instance))
        except Exception:  # a bound is a convenience; the runs still count without it
            bound = None
    name = getattr(instance, "name", None) or source.label()
    return Prepared(hash_instance(source), family, instance, str(name),
                    family.size(instance) if family.size is not None else 0,
                    dict(family.reference(instance) or {}), bound)


def source_to_json(source: Any) -> str:
    """The instance source as JSON text (the ``source`` column), to reload it later."""
    return json.dumps(dataclasses.asdict(source), sort_keys=True)


def source_from_json(text: str) -> Any:
    """Inverse of :func:`source_to_json`."""
    from hybridsched.experiments.sources import InstanceSource

    fields = json.loads(text)
    fields["options"] = tuple((str(k), v) for k, v in fields.get("options") or ())
    return InstanceSource(**fields)


def load_row_instance(row: Any) -> tuple[Family, Any] | None:
    """The family and instance a stored row ran on (``None`` if it cannot be loaded now)."""
    from hybridsched.errors import InputError
    from hybridsched.experiments.sources import load_cached

    text = row.get("source") if hasattr(row, "get") else None
    if not isinstance(text, str):
        return None
    try:
        return load_cached(source_from_json(text))
    except (InputError, OSError, TypeError, ValueError):
        return None


def worker_name() -> str:
    """The Dask worker's address, or ``host:pid`` outside a Dask worker."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return f"{socket.gethostname()}:{os.getpid()}"


def last_line(exc: BaseException) -> str:
    """``"Type: last line of the message"``: what a table cell can hold."""
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[-1]}" if lines else type(exc).__name__


def _number(value: Any) -> float | None:
    return None if value is None or not math.isfinite(float(value)) else float(value)


def base_row(run: Run) -> dict[str, Any]:
    """The columns a row has whatever happens to the run."""
    entry = run.method
    return {
        "key": run.key, "campaign": run.campaign, "family": entry.family,
        "instance": run.source.label(), "instance_hash": run.instance_hash,
        "instance_source": run.source.label(), "source": source_to_json(run.source),
        "instance_size": None,
        "method": entry.label, "method_name": entry.name,
        "options": json.dumps(entry.options_dict(), sort_keys=True),
        "objective_name": dict(entry.options).get("objective"),
        "seed": run.seed, "replication": run.replication, "time_limit": entry.time_limit,
        "status": FAILED, "objective": None, "bound": None,
        "recorded_optimum": None, "recorded_lower_bound": None, "family_bound": None,
        "metrics": "{}", "runtime_s": None, "cpu_s": None, "wall_s": None, "solver": "{}",
        "worker": worker_name(), "code_version": code_version(),
        "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "error": "", "solution": None, "versions": _versions_text(),
    }


@functools.cache
def _versions_text() -> str:
    """The provenance record of this worker, as the ``versions`` column holds it."""
    return json.dumps(provenance(), sort_keys=True)


def failed_row(run: Run, error: str, worker: str | None = None) -> dict[str, Any]:
    """The row of a run that produced nothing (e.g. its worker died twice)."""
    row = {**base_row(run), "error": error}
    return row if worker is None else {**row, "worker": worker}


def warm_up(methods: list[tuple[str, str]], plugins: tuple[str, ...]) -> None:
    """Import what runs of ``methods`` (family, name) need, before any run is timed.

    Cluster workers call it once they start, so that their first runs do not
    pay for imports (seconds on a cold worker). Anything that fails here is
    left for the runs themselves to report, in their rows.
    """
    from hybridsched.catalogue import get_family
    from hybridsched.experiments.plugins import import_plugins
    from hybridsched.registry import get_method

    try:
        import_plugins(plugins)
    except Exception:
        return
    for family, name in methods:
        try:
            get_family(family)
            get_method(family, name).func  # noqa: B018 -- resolving imports it
        except Exception:
            continue


def execute_run(run: Run) -> dict[str, Any]:
    """Run ``run`` and return its row (never raises for a failing method)."""
    from hybridsched.experiments.plugins import import_plugins

    row = base_row(run)
    started = time.perf_counter()
    try:
        import_plugins(run.plugins)
        if run.code_version != row["code_version"]:
            return {**row, "error": f"this worker runs hybridsched {row['code_version']}, "
                                    f"the campaign {run.code_version}: install the same "
                                    "code on every worker"}
        prepared = _prepare(run.source)
        if prepared.instance_hash != run.instance_hash:
            return {**row, "error": f"{run.source.label()}: the instance changed since the "
                                    "campaign was planned"}
        row.update(_describe_instance(run, prepared))
        solved = _solve(run, prepared)
        # A method may pick its objective from its options (a malleable policy): the
        # recorded optimum and bounds must then be those of that objective.
        row.update(_describe_instance(run, prepared, solved.pop("optimised")))
        row.update(solved)
    except Exception as exc:  # the row records it; the campaign goes on
        row.update(error=last_line(exc),
                   runtime_s=time.perf_counter() - started)
    row["wall_s"] = time.perf_counter() - started
    return row


def _describe_instance(run: Run, prepared: Prepared, optimised: str | None = None
                       ) -> dict[str, Any]:
    """Instance columns for the objective of the run (named, or ``optimised`` by the method)."""
    objective = dict(run.method.options).get("objective")
    default = prepared.family.objectives[0] if prepared.family.objectives else None
    if objective is None and optimised not in (None, default):
        objective = optimised
    recorded = prepared.recorded
    return {
        "instance": prepared.name,
        "instance_size": prepared.size,
        "objective_name": objective or prepared.family.objective_name,
        "recorded_optimum": recorded.get("optimum" if objective is None
                                         else f"optimum_{objective}"),
        "recorded_lower_bound": recorded.get("lower_bound") if objective is None else None,
        "family_bound": prepared.family_bound if objective is None else None,
    }


def _solve(run: Run, prepared: Prepared) -> dict[str, Any]:
    from hybridsched.io.jsonio import dumps_strict
    from hybridsched.progress import solver_statistics
    from hybridsched.registry import run_method

    entry = run.method
    with solver_statistics() as statistics:
        result = run_method(entry.family, entry.name, prepared.instance, seed=run.seed,
                            time_limit=entry.time_limit, **entry.options_dict())
    solution = None
    if run.record_solution and result.solution is not None:
        solution = dumps_strict(prepared.family.solution_to_dict(result.solution,
                                                                 prepared.instance))
    return {
        "status": result.status.value,
        "objective": _number(result.objective),
        "bound": _number(result.bound),
        "metrics": dumps_strict(result.metrics),
        "runtime_s": result.runtime_s,
        "cpu_s": result.cpu_s,
        "solver": dumps_strict(statistics),
        "error": result.message,
        "solution": solution,
        "optimised": result.metrics.get("optimised"),
    }
