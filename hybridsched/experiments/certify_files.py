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

``upper_bound``/``lower_bound`` hold the best schedule and bound of an open
instance. A defect is never recorded: it is a bug to fix, not a reference.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from hybridsched.backends import BACKENDS
from hybridsched.catalogue import get_family
from hybridsched.errors import InputError
from hybridsched.experiments.certify import CERTIFIED, DEFECT, OPEN, PROVEN, Certificate, certify
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
    if certificate.verdict == DEFECT and save_dir is not None:
        folder = check_output_folder(save_dir, "--save-dir")
        for backend, run in certificate.runs.items():
            if run.solution is not None:
                save_solution(folder / f"{path.stem}.{backend}.json", family, instance,
                              run.solution, method=f"exact ({backend})",
                              status=run.status.value, objective=run.objective)
    if record and certificate.verdict != DEFECT:
        record_certificate(path, certificate, time_limit)
    return certificate


def record_certificate(path: Path, certificate: Certificate, time_limit: float | None) -> None:
    """Write ``certificate`` into the reference block of the instance file (atomically)."""
    document = read_json(path)
    if not isinstance(document, dict):
        raise InputError(f"{path}: not an instance document")
    reference = dict(document.get("reference") or {})
    # Open instances keep their best schedule and bound under the generic keys, which
    # every family reads for its default objective (another objective's stay in the
    # certificate).
    family_metric = get_family(certificate.family).objective_metric
    summary = certificate.summary()
    metric = certificate.objective
    entry = {key: summary[key] for key in ("verdict", "best_known", "best_bound", "gap",
                                           "proven_by", "hybridsched")}
    entry["backends"] = {name: {key: run.get(key) for key in RECORDED_RUN_FIELDS}
                         for name, run in summary["backends"].items()}
    entry["time_limit_s"] = time_limit
    entry["date"] = datetime.date.today().isoformat()
    reference.setdefault("certificates", {})[metric] = entry
    if certificate.verdict in (CERTIFIED, PROVEN) and not certificate.infeasible:
        reference[f"optimal_{metric}"] = certificate.best_known
        for key in ("upper_bound", "lower_bound"):
            reference.pop(key, None)
    elif certificate.verdict == OPEN and metric == family_metric:
        if certificate.best_known is not None:
            reference["upper_bound"] = certificate.best_known
        if certificate.best_bound is not None:
            reference["lower_bound"] = max(0.0, certificate.best_bound)
    document["reference"] = reference
    write_json(path, document)
