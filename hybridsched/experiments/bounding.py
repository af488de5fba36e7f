"""``bound``: a family's strong lower bound on an instance, checked and recorded with its proof.

A family's ``strong_bound`` (:class:`~hybridsched.family.Family`) returns a
:class:`~hybridsched.bound_proof.BoundCertificate`; :func:`compute_bound` runs
it and then the family's ``verify_bound``, which recomputes the value from the
instance and the proof alone, in exact arithmetic. The value reported is the
recomputed one, so a bound never rests on a solver's floating-point word.
A family without a strong bound reports its cheap closed-form bound, which its
own formula recomputes.

The reference block of an instance file keeps the best verified bound with
what proves it (:func:`record_bound`)::

    "reference": {
        "lower_bound": 0.945,                 # absent when an optimum is recorded
        "bound_proof": {"value": 0.945, "method": "...", "proof": {...},
                        "hybridsched": "0.1.0+...", "date": "2026-11-28"}
    }

``certify`` checks a recorded proof again (:func:`check_recorded`).
"""

from __future__ import annotations

import datetime
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hybridsched.bound_proof import BoundCertificate, BoundProofError
from hybridsched.catalogue import resolve
from hybridsched.errors import InputError
from hybridsched.family import Family
from hybridsched.io.jsonio import read_json, write_json

#: What a cheap closed-form bound is called when a family has no strong bound.
CHEAP = "cheap closed-form bound (no strong bound for this family)"

#: Relative slack between a claimed bound and its recomputation (float printing).
VERIFY_RTOL = 1e-9


@dataclass
class BoundRun:
    """A strong bound computed on one instance and recomputed from its proof.

    Attributes
    ----------
    verified:
        The value the family's ``verify_bound`` recomputed (the one to trust),
        ``None`` when the proof failed (``error`` says why).
    """

    instance: str
    family: str
    objective_name: str
    certificate: BoundCertificate
    verified: float | None
    error: str | None
    runtime_s: float
    verify_s: float

    @property
    def value(self) -> float | None:
        """The bound to report: the recomputed one, never more than the claim."""
        if self.verified is None:
            return None
        return min(self.verified, self.certificate.value)

    def summary(self) -> dict[str, Any]:
        """A JSON-ready line (without the proof, which can be large)."""
        return {"instance": self.instance, "family": self.family,
                "objective": self.objective_name, "bound": self.value,
                "claimed": self.certificate.value, "method": self.certificate.method,
                "verified": self.error is None, "error": self.error,
                "runtime_s": self.runtime_s, "verify_s": self.verify_s}


def cheap_certificate(family: Family, instance: Any) -> BoundCertificate:
    """The family's cheap bound as a certificate whose proof is its own formula."""
    value = 0.0 if family.lower_bound is None else max(0.0, float(family.lower_bound(instance)))
    return BoundCertificate(value, CHEAP, {})


def strong_certificate(family: Family, instance: Any, *, time_limit: float | None,
                       seed: int = 0) -> BoundCertificate:
    """The family's strong bound, or its cheap bound when it has none."""
    if family.strong_bound is None:
        return cheap_certificate(family, instance)
    return resolve(family.strong_bound)(instance, time_limit=time_limit, seed=seed)


def verify(family: Family, instance: Any, certificate: BoundCertificate) -> float:
    """Recompute ``certificate``'s bound; :class:`BoundProofError` when it proves less."""
    if certificate.method == CHEAP or family.verify_bound is None:
        recomputed = cheap_certificate(family, instance).value
    else:
        recomputed = float(family.verify_bound(instance, certificate))
    claimed = certificate.value
    if recomputed < claimed - VERIFY_RTOL * max(1.0, abs(claimed)):
        raise BoundProofError(f"the proof gives {recomputed:.12g}, below the claimed "
                              f"{claimed:.12g} ({certificate.method})")
    return recomputed


def compute_bound(family: Family, instance: Any, *, name: str, time_limit: float | None,
                  seed: int = 0) -> BoundRun:
    """Run the family's strong bound on ``instance``, then check it from its proof."""
    start = time.perf_counter()
    certificate = strong_certificate(family, instance, time_limit=time_limit, seed=seed)
    middle = time.perf_counter()
    try:
        verified, error = verify(family, instance, certificate), None
    except BoundProofError as exc:
        verified, error = None, str(exc)
    return BoundRun(name, family.name, family.objective_name, certificate, verified, error,
                    middle - start, time.perf_counter() - middle)


def recorded_certificate(instance: Any) -> BoundCertificate | None:
    """The bound proof recorded in the instance's reference block, if any."""
    reference = getattr(instance, "reference", None) or {}
    doc = reference.get("bound_proof")
    if doc is None:
        return None
    return BoundCertificate.from_dict(doc, "reference.bound_proof")


def check_recorded(family: Family, instance: Any) -> str | None:
    """Why the recorded bound proof fails (one line), or ``None`` when it holds or is absent.

    The recorded ``lower_bound`` must not exceed what the proof recomputes either.
    """
    try:
        certificate = recorded_certificate(instance)
        if certificate is None:
            return None
        value = verify(family, instance, certificate)
    except BoundProofError as exc:
        return f"recorded bound proof fails: {exc}"
    recorded = (getattr(instance, "reference", None) or {}).get("lower_bound")
    if recorded is not None and float(recorded) > value + VERIFY_RTOL * max(1.0, abs(value)):
        return (f"recorded lower_bound {float(recorded):.12g} exceeds what its proof "
                f"recomputes ({value:.12g})")
    return None


def record_bound(path: Path, run: BoundRun, version: str, *,
                 best_known: float | None = None) -> bool:
    """Keep ``run``'s verified bound and its proof in ``path``'s reference block, if better.

    A record never gets worse: a proof replaces the recorded one only when it
    proves more. ``lower_bound`` is written only where no optimum is recorded,
    and so is ``best_known`` (a checked schedule's value) as ``upper_bound``
    when it is better than the one recorded. Returns whether the file changed.
    """
    value = run.value
    document = read_json(path)
    if not isinstance(document, dict):
        raise InputError(f"{path}: not an instance document")
    reference = dict(document.get("reference") or {})
    proven = any(key.startswith("optimal_") for key in reference)
    upper = reference.get("upper_bound")
    better_schedule = (not proven and best_known is not None
                       and (upper is None or best_known < float(upper)))
    if better_schedule:
        reference["upper_bound"] = best_known
    old = reference.get("bound_proof")
    # A bound of 0 is still recorded where nothing is: the file then says what was
    # tried and proved (nothing), rather than nothing at all.
    if value is None or value < 0 or (
            isinstance(old, dict) and isinstance(old.get("value"), int | float)
            and float(old["value"]) >= value):
        if better_schedule:
            document["reference"] = reference
            write_json(path, document)
        return better_schedule
    reference["bound_proof"] = {**run.certificate.to_dict(), "value": value,
                                "hybridsched": version,
                                "date": datetime.date.today().isoformat()}
    if not proven:
        _demote_solver_bound(reference, value)
        reference["lower_bound"] = value
    document["reference"] = reference
    write_json(path, document)
    return True


def _demote_solver_bound(reference: dict[str, Any], proven: float) -> None:
    """Move a recorded ``lower_bound`` above ``proven`` to ``solver_lower_bound``.

    Such a bound came from a solver's word (a branch-and-bound bound, which no
    proof accompanies); it stays on record, named for what it is, but the gap
    reference is what a proof shows.
    """
    old = reference.get("lower_bound")
    if old is None or float(old) <= proven:
        return
    kept = reference.get("solver_lower_bound")
    reference["solver_lower_bound"] = float(old) if kept is None else max(float(kept), float(old))
