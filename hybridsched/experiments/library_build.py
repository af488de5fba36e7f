"""Certify and bound the benchmark library through the campaign engine, resumably.

Every file of a tier runs three methods as one campaign: ``exact`` on HiGHS,
``exact`` on CP-SAT, and the family's ``bound`` (its strong lower bound with
the proof). Runs go through :func:`~hybridsched.experiments.campaign.run_campaign`,
so a Dask cluster (``mode="cluster"``, ``scheduler=...``) spreads them over
machines, and their results stay in a store: a build that stops (Ctrl-C, a
time-out, a crash) keeps every finished run, and the next one only runs the
rest.

The campaign runs on *copies* of the files without their reference block
(:func:`stripped_copy`): recording a result changes a library file, and the
store knows an instance by its content, so the copies keep the hashes stable
from one sitting to the next. What the runs show is then recorded into the
library (:func:`record_entry`): the two backends' verdict
(:func:`~hybridsched.experiments.certify.judge`, as ``certify --record``) and
the bound, recomputed from its proof (``bound --record``). Records never get
worse; a defect (the backends contradicting each other, or a proof that does
not prove its bound) is never recorded and is reported.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hybridsched.bound_proof import BoundCertificate, BoundProofError
from hybridsched.experiments.bounding import BoundRun, record_bound, verify
from hybridsched.experiments.campaign_model import Campaign, MethodEntry
from hybridsched.experiments.certify import DEFECT, Certificate, crosses, judge
from hybridsched.experiments.certify_files import record_certificate
from hybridsched.experiments.sources import file_source
from hybridsched.experiments.spec import campaign_from_parts
from hybridsched.io.jsonio import read_json, write_json
from hybridsched.registry import methods as registered_methods
from hybridsched.result import Result, Status
from hybridsched.storage import load_instance
from hybridsched.version import __version__

#: The campaign's method labels: the two backends' exact runs, then the bound.
EXACT_LABELS = {"highs": "exact-highs", "cpsat": "exact-cpsat"}
BOUND_LABEL = "bound"

#: Methods that only search for better schedules (best known), by family: gang's
#: grid-restricted MIP finds schedules the exact model does not reach at 200 jobs.
SCHEDULE_METHODS: dict[str, tuple[str, ...]] = {"gang": ("grid",)}


@dataclass(frozen=True)
class Entry:
    """One instance of the build.

    Attributes
    ----------
    source:
        The copy without reference block that the campaign runs on.
    target:
        The file whose reference block receives the record.
    tier:
        Its tier (the time limit is the tier's).
    after:
        Called with ``target`` once something was recorded (a real set copies
        the reference back into its recipe).
    """

    source: Path
    target: Path
    tier: str
    after: Callable[[Path], None] | None = None


@dataclass
class Outcome:
    """What the build recorded for one instance."""

    target: Path
    verdict: str
    reason: str
    best_known: float | None
    best_bound: float | None
    bound_method: str | None
    bound_error: str | None


def stripped_copy(path: Path, folder: Path) -> Path:
    """``path`` without its reference block, in ``folder`` (rewritten only when it differs)."""
    document = read_json(path)
    document.pop("reference", None)
    copy = folder / path.name
    text = json.dumps(document, sort_keys=True)
    if not copy.exists() or json.dumps(read_json(copy), sort_keys=True) != text:
        folder.mkdir(parents=True, exist_ok=True)
        write_json(copy, document)
    return copy


def tier_campaign(entries: Iterable[Entry], *, tier: str, time_limit: float | None,
                  backends: Iterable[str] = ("highs", "cpsat"),
                  with_bound: bool = True) -> Campaign:
    """The campaign of one tier's entries: exact per backend and ``bound``, one seed.

    ``backends=()`` leaves the exact runs out (a build of bounds only).
    """
    entries = list(entries)
    families = sorted({load_instance(e.source)[0].name for e in entries})
    methods = [MethodEntry(family, "exact", EXACT_LABELS[backend], (("backend", backend),),
                           time_limit)
               for family in families for backend in backends]
    if with_bound:  # a family without a strong bound has no ``bound`` method
        methods += [MethodEntry(family, name, name, (), time_limit)
                    for family in families
                    for name in (BOUND_LABEL, *SCHEDULE_METHODS.get(family, ()))
                    if name in registered_methods(family)]
    return campaign_from_parts([file_source(e.source) for e in entries], methods,
                               name=f"library-{tier}" + ("" if backends else "-bounds"),
                               time_limit=time_limit,
                               description=f"benchmark library, tier {tier}")


def _result(row: Any) -> Result:
    """A store row as the :class:`Result` that :func:`judge` reads."""
    number = _number
    status = Status(row["status"]) if row["status"] in Status._value2member_map_ \
        else Status.NO_SOLUTION
    return Result(row["method_name"], row["family"], status, objective=number(row["objective"]),
                  bound=number(row["bound"]), runtime_s=number(row["runtime_s"]) or 0.0,
                  message=str(row.get("error") or ""))


def record_entry(entry: Entry, rows: Any, *, time_limit: float | None) -> Outcome | None:
    """Record what ``rows`` (the store's rows of ``entry``) prove; ``None`` when there are none.

    The exact runs are judged as ``certify`` judges them; the bound run's
    proof is recomputed; a bound above any checked schedule (the exact runs'
    or the bound run's own) is a defect, and nothing of a defect is recorded.
    """
    by_label = {row["method"]: row for _, row in rows.iterrows()}
    exact = {backend: _result(by_label[label]) for backend, label in EXACT_LABELS.items()
             if label in by_label}
    bound_row = by_label.get(BOUND_LABEL)
    if not exact and bound_row is None:
        return None
    family, instance = load_instance(entry.target)
    certificate = _judged(family.name, family.objective_metric, str(entry.target), exact)
    bound_run = bound_error = None
    schedules = [] if certificate is None or certificate.best_known is None \
        else [certificate.best_known]
    if bound_row is not None:
        bound_run, bound_error = _bound_run(family, instance, bound_row, str(entry.target))
    for label in (BOUND_LABEL, *SCHEDULE_METHODS.get(family.name, ())):
        row = by_label.get(label)
        if row is not None and _number(row["objective"]) is not None:
            schedules.append(float(row["objective"]))  # a checked schedule (the runner checks)
    best_known = min(schedules, default=None)
    verdict, reason = (certificate.verdict, certificate.reason) if certificate is not None \
        else ("bound only", "no exact run")
    if bound_error is not None:
        verdict, reason = DEFECT, bound_error
    elif bound_run is not None and bound_run.value is not None and best_known is not None \
            and crosses(bound_run.value, best_known):
        verdict, reason = DEFECT, (f"the bound {bound_run.value:g} "
                                   f"({bound_run.certificate.method}) lies above a checked "
                                   f"schedule of value {best_known:g}")
    if verdict != DEFECT:
        if certificate is not None:
            record_certificate(entry.target, certificate, time_limit)
        if bound_run is not None:
            record_bound(entry.target, bound_run, __version__, best_known=best_known)
        if entry.after is not None:
            entry.after(entry.target)
    return Outcome(entry.target, verdict, reason, best_known,
                   None if bound_run is None else bound_run.value,
                   None if bound_run is None else bound_run.certificate.method, bound_error)


def _number(value: Any) -> float | None:
    return None if value is None or value != value else float(value)


def _judged(family: str, metric: str, name: str, runs: dict[str, Result]
            ) -> Certificate | None:
    """The backends' runs judged as ``certify`` judges them (``None`` without runs)."""
    if not runs:
        return None
    verdict, reason = judge(runs)
    values = [r.objective for r in runs.values() if r.objective is not None]
    bounds = [r.bound if r.bound is not None else (r.objective if r.status is Status.OPTIMAL
                                                   else None) for r in runs.values()]
    return Certificate(
        instance=name, family=family, objective=metric, verdict=verdict, reason=reason,
        best_known=min(values) if values else None,
        best_bound=max((b for b in bounds if b is not None), default=None), runs=runs,
        infeasible=any(r.status is Status.INFEASIBLE for r in runs.values()))


def _bound_run(family: Any, instance: Any, row: Any, name: str
               ) -> tuple[BoundRun | None, str | None]:
    """The ``bound`` run's certificate from its metrics, recomputed from its proof."""
    try:
        metrics = json.loads(row["metrics"]) if isinstance(row["metrics"], str) else {}
    except json.JSONDecodeError:
        metrics = {}
    doc = metrics.get("bound_certificate")
    if doc is None:
        return None, None
    try:
        certificate = BoundCertificate.from_dict(doc, f"{name}: bound certificate")
        verified = verify(family, instance, certificate)
    except BoundProofError as exc:
        return None, f"bound proof fails: {exc}"
    runtime = float(row["runtime_s"]) if row["runtime_s"] == row["runtime_s"] else 0.0
    return BoundRun(name, family.name, family.objective_name, certificate, verified, None,
                    runtime, 0.0), None


def record_store(entries: Iterable[Entry], table: Any, *, time_limit: float | None
                 ) -> list[Outcome]:
    """Record every entry whose runs are in ``table`` (a store's result table)."""
    outcomes = []
    paths = table["source"].map(lambda text: json.loads(text).get("path"))
    for entry in entries:
        rows = table[paths == str(entry.source.resolve())]
        outcome = record_entry(entry, rows, time_limit=time_limit) if len(rows) else None
        if outcome is not None:
            outcomes.append(outcome)
    return outcomes

