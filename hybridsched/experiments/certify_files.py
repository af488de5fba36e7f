"""Certifying instance files: a defect's two schedules saved, a certificate recorded in the file.

The reference block of an instance file says what is known of it and who
proved it (``certify --record``)::

    "reference": {
        "optimal_cost": 0.525,               # when proven (certified or one backend)
        "certificates": {"cost": {           # one per objective certified
            "verdict": "certified", "best_known": 0.525, "best_bound": 0.525,
            "proven_by": ["highs", "cpsat"],
            "backends": {"highs": {"status": "optimal", "objective": 0.525,
                                   "bound": 0.525, "runtime_s": 0.2,
                                   "version": "1.16.0"}, ...},
            "hybridsched": "0.1.0+...", "time_limit_s": 60, "date": "2026-11-27"}}
    }

``upper_bound`` holds the best schedule of an open instance and
``solver_lower_bound`` the best bound either backend reported (a solver's word,
kept for information); ``lower_bound`` is only written with a proof that
``certify`` recomputes (``hybridsched bound --record``,
:mod:`hybridsched.experiments.bounding`). A defect is never recorded: it is a bug
to fix, not a reference.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hybridsched.backends import BACKENDS
from hybridsched.catalogue import get_family
from hybridsched.errors import InputError
from hybridsched.experiments.bounding import check_recorded, recorded_certificate
from hybridsched.experiments.certify import (
    CERTIFIED,
    DEFECT,
    OPEN,
    PROVEN,
    Certificate,
    certify,
    crosses,
)
from hybridsched.family import Family
from hybridsched.io.jsonio import read_json, write_json
from hybridsched.io.outputs import check_output_folder
from hybridsched.registry import check_options
from hybridsched.storage import load_instance, save_solution

#: Fields of a backend's run kept in a recorded certificate (messages stay in reports).
RECORDED_RUN_FIELDS = ("status", "objective", "bound", "runtime_s", "version")


def load_checked(path: Path, *, objective: str | None = None,
                 options: dict[str, Any] | None = None) -> tuple[Family, Any]:
    """Load the instance in ``path`` and check the exact method's options on every backend.

    Called for every file before any is solved, so a bad option or file fails
    at once, not after an hour of solving.
    """
    family, instance = load_instance(path)
    chosen = {**(options or {}), **({} if objective is None else {"objective": objective})}
    for backend in BACKENDS:
        check_options(family.name, "exact", {**chosen, "backend": backend})
    return family, instance


def certify_file(path: Path, loaded: tuple[Family, Any], *, time_limit: float | None,
                 objective: str | None = None, options: dict[str, Any] | None = None,
                 save_dir: Path | None = None, record: bool = False) -> Certificate:
    """Certify the loaded instance of ``path``; save a defect's schedules; maybe record it."""
    family, instance = loaded
    certificate = certify(family.name, instance, name=str(path), time_limit=time_limit,
                          objective=objective, options=options)
    if certificate.objective == family.objective_metric:
        _check_recorded_proof(family, instance, certificate)
    if certificate.verdict == DEFECT and save_dir is not None:
        folder = check_output_folder(save_dir, "--save-dir")
        for backend, run in certificate.runs.items():
            if run.solution is not None:
                save_solution(folder / f"{path.stem}.{backend}.json", family, instance,
                              run.solution, method=f"exact ({backend})",
                              status=run.status.value, objective=run.objective)
    if record and certificate.verdict != DEFECT:
        certificate.recorded = record_certificate(path, certificate, time_limit)
    return certificate


def _check_recorded_proof(family: Family, instance: Any, certificate: Certificate) -> None:
    """Make ``certificate`` a defect when the recorded bound proof fails or is crossed.

    The proof is recomputed from the instance in exact arithmetic
    (:func:`hybridsched.experiments.bounding.check_recorded`); a recorded bound
    above a checked schedule of either backend contradicts it too.
    """
    problem = check_recorded(family, instance)
    if problem is None:
        recorded = recorded_certificate(instance)
        if recorded is not None and crosses(recorded.value, certificate.best_known):
            problem = (f"the recorded bound {recorded.value:g} ({recorded.method}) lies "
                       f"above a checked schedule of value {certificate.best_known:g}")
    if problem is not None:
        certificate.verdict, certificate.reason = DEFECT, problem


def record_certificate(path: Path, certificate: Certificate, time_limit: float | None) -> bool:
    """Write ``certificate`` into the reference block of the instance file (atomically).

    A run never makes the record worse: an open certificate does not replace
    an optimum recorded earlier (a proof stays a proof; the file is left as
    it is and the result is False), and it only tightens recorded bounds.
    """
    document = read_json(path)
    if not isinstance(document, dict):
        raise InputError(f"{path}: not an instance document")
    reference = dict(document.get("reference") or {})
    metric = certificate.objective
    proven = certificate.verdict in (CERTIFIED, PROVEN) and not certificate.infeasible
    if not proven and reference.get(f"optimal_{metric}") is not None:
        return False
    summary = certificate.summary()
    entry = {key: summary[key] for key in ("verdict", "best_known", "best_bound", "gap",
                                           "proven_by", "hybridsched")}
    entry["backends"] = {name: {key: run.get(key) for key in RECORDED_RUN_FIELDS}
                         for name, run in summary["backends"].items()}
    entry["time_limit_s"] = time_limit
    entry["date"] = datetime.date.today().isoformat()
    reference.setdefault("certificates", {})[metric] = entry
    # Bounds of the default objective go under the generic keys, which every family
    # reads; another objective's carry its name (``upper_bound_cost``).
    suffix = "" if metric == get_family(certificate.family).objective_metric else f"_{metric}"
    if proven:
        reference[f"optimal_{metric}"] = certificate.best_known
        for key in ("upper_bound", "lower_bound", "solver_lower_bound"):
            reference.pop(key + suffix, None)
    elif certificate.verdict == OPEN:
        _tighten(reference, "upper_bound" + suffix, certificate.best_known, min)
        # A branch-and-bound bound is a solver's word, not a proof anyone can check:
        # it is kept under its own name; ``lower_bound`` holds what a proof shows
        # (``hybridsched bound --record``).
        _tighten(reference, "solver_lower_bound" + suffix,
                 None if certificate.best_bound is None else max(0.0, certificate.best_bound),
                 max)
    document["reference"] = reference
    write_json(path, document)
    return True


def _tighten(reference: dict[str, Any], key: str, value: float | None,
             better: Callable[[float, float], float]) -> None:
    if value is None:
        return
    old = reference.get(key)
    reference[key] = value if old is None else better(float(old), value)
