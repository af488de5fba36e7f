"""The family's strong lower bound on the rent cost: the energetic LP, with its dual as proof.

:func:`strong_bound` solves the energetic relaxation of
:mod:`hybridsched.hybrid_deadline.bound_rows` (PM capacity classes and VM
types as pools of identical cores, windows of energetic reasoning added
while violated, billed hours per VM type; :mod:`.bound_lp`) and returns its
dual values as the proof. The value is what the exact checker
(:func:`hybridsched.hybrid_deadline.bound_check.verify_bound`) recomputes
from those duals, so the certificate never claims more than the proof
gives; it is never below the cheap bound
(:func:`hybridsched.hybrid_deadline.bounds.lower_bound`), which it falls
back to, saying why in the method's name, when the LP would not fit the
memory budget, the time limit is 0, or nothing needs a VM.
"""

from __future__ import annotations

import time

from hybridsched.bound_proof import BoundCertificate
from hybridsched.budget import TimeBudget
from hybridsched.hybrid_deadline.bound_check import KIND, verify_bound
from hybridsched.hybrid_deadline.bound_rows import layout
from hybridsched.hybrid_deadline.bounds import infeasible_tasks, lower_bound
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.memory import ModelTooLarge, require
from hybridsched.models.hybrid_deadline.bound_lp import (
    BYTES_PER_NONZERO,
    INITIAL_WINDOWS,
    build,
    solve_with_cuts,
)

#: Method names the certificates carry.
CHEAP = "cheap closed-form bound"
ENERGETIC = "energetic LP over core classes and windows, dual"

#: Share of the time limit kept for the exact recomputation of the proof, at most
#: PROOF_SECONDS + PROOF_SECONDS_PER_TASK x tasks (measured: 12 s for the 18,066-task
#: NASA trace, 0.4 s for 400 tasks, on a loaded 2-core machine).
PROOF_SHARE = 0.25
PROOF_SECONDS = 10.0
PROOF_SECONDS_PER_TASK = 0.003


def strong_bound(instance: Instance, *, time_limit: float | None = None,
                 seed: int = 0) -> BoundCertificate:
    """A certified lower bound on the optimal rent cost (see the module docstring).

    ``time_limit`` bounds the whole call (building, solving, exact proof);
    ``seed`` is accepted for the contract (the LP is deterministic).
    """
    budget = TimeBudget(time_limit)
    cheap = BoundCertificate(lower_bound(instance), CHEAP)
    if budget.warm_start_only or instance.n_tasks == 0 or infeasible_tasks(instance):
        return cheap
    lay = layout(instance)
    if not lay.vm_classes:
        return cheap
    try:
        require("the energetic bound LP", estimated_bytes(instance))
    except ModelTooLarge as error:
        return BoundCertificate(cheap.value, f"{CHEAP} ({error})")
    remaining = budget.remaining()
    reserve = None if remaining is None else min(
        PROOF_SHARE * remaining, PROOF_SECONDS + PROOF_SECONDS_PER_TASK * instance.n_tasks)
    deadline = None if remaining is None else time.perf_counter() + remaining - reserve
    try:
        lp = build(instance, lay)
        solve_with_cuts(lp, deadline)
    except MemoryError:
        return BoundCertificate(cheap.value, f"{CHEAP} (out of memory building the LP)")
    if lp.duals is None:
        return BoundCertificate(cheap.value, f"{CHEAP} (the LP did not solve in time)")
    duals = [[*key, float(y)] for key, y in zip(lp.keys, lp.duals, strict=False)
             if abs(y) > 1e-12]
    proof = {"kind": KIND, "duals": duals}
    value = verify_bound(instance, BoundCertificate(0.0, ENERGETIC, proof))
    if value <= cheap.value:
        return cheap
    return BoundCertificate(value, ENERGETIC, proof)


def fallback_reason(certificate: BoundCertificate) -> str:
    """Why ``certificate`` is the cheap bound instead of the LP's ("" when it is not a fallback)."""
    method = certificate.method
    return method[len(CHEAP) + 2:-1] if method.startswith(CHEAP + " (") else ""


def estimated_bytes(instance: Instance) -> float:
    """Memory of the first LP at most: its nonzeros (every initial window full) in bytes.

    The rounds of windows after it check the budget themselves
    (:func:`~hybridsched.models.hybrid_deadline.bound_lp.solve_with_cuts`).
    """
    lay = layout(instance)
    windows = INITIAL_WINDOWS + 2 * lay.hours
    return BYTES_PER_NONZERO * (lay.n_pairs * (3 + windows)
                                + len(lay.vm_classes) * lay.hours * windows)
