"""Strong makespan bound for bot-sites: the configuration LP, searched over its capacity.

:func:`strong_bound` returns the best of

* the critical-path bound (exact, closed form),
* the family's cheap fluid bound (LP, LST-strengthened; :mod:`hybridsched.bot_sites.bounds`),
  proven by the LP's duals (:mod:`.bound_fluid`),
* configuration-LP certificates (:mod:`hybridsched.bot_sites.bound_check`'s
  docstring): for the whole instance, and with a DAG for the BoTs whose head
  and tail are at least some ``(t, q)`` (the tasks of those BoTs must run in
  ``[t, C - q]``), a binary search on the capacity ``T``, each step a column
  generation (:mod:`.bound_config`) whose duals, once the exact verifier
  confirms them, prove ``C > t + q + T``.

The configuration LP is the strongest LP known for R||Cmax (Braun's
instances: one task per BoT, one processor per site) and it carries over to
BoTs of identical tasks on sites of identical processors (bounded knapsack
pricing), with hard limits as time-averaged resource rows. Every value
returned is what :func:`hybridsched.bot_sites.bound_check.verify_bound`
recomputes from the proof; ``seed`` is accepted for the contract and unused
(the search is deterministic).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from hybridsched.bot_sites import bound_check
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import allowed_pairs
from hybridsched.bound_proof import BoundCertificate, BoundProofError
from hybridsched.budget import TimeBudget
from hybridsched.memory import ModelTooLarge, require
from hybridsched.models.bot_sites.bound_config import MAX_ROUNDS, solve_at
from hybridsched.models.bot_sites.bound_fluid import fluid_certificate

#: Knapsack grid of the pricing and the proof: a configuration's load is read to within
#: (tasks in it) / GRID of the capacity. 2^14 keeps pricing a 512-task site near 10 ms.
GRID = 1 << 17

#: The binary search stops when the bracket is this narrow (relative).
BRACKET = 2e-6

#: Bytes per byte-cell of the pricing tables and per master-LP nonzero (numpy booleans;
#: HiGHS stores a nonzero as an 8-byte value and a 4-byte index, doubled for its copies).
NONZERO_BYTES = 32

#: Seconds of the time limit kept for the exact check after the search stops.
CHECK_RESERVE = 5.0

#: Share of the remaining time spent trying to prove the known makespan optimal outright.
OPTIMUM_SHARE = 0.25

#: Distinct heads (and tails) combined into DAG windows, at most.
WINDOW_VALUES = 8

#: DAG windows tried beyond the whole instance (the most promising first).
MAX_WINDOWS = 12

METHOD = "configuration LP (Lagrangian certificate, knapsack-verified)"


def _cheap(instance: Instance) -> BoundCertificate:
    cp = bound_check.certified_value(instance, {"kind": "critical_path"})
    return BoundCertificate(cp, "critical path (exact)", {"kind": "critical_path"})


def estimate_bytes(instance: Instance, grid: int = GRID) -> float:
    """Memory of one column generation: pricing tables and the master LP's columns."""
    K, M = instance.n_bots, instance.n_sites
    pieces = float(sum(max(1, math.ceil(math.log2(n + 1))) for n in instance.tasks.tolist()))
    tables = pieces * (grid + 1)
    master = NONZERO_BYTES * (K * M + MAX_ROUNDS * M) * (K + 3)
    return tables + master


def _attempt(instance: Instance, subset: np.ndarray, capacity: float, grid: int,
             budget: TimeBudget) -> tuple[dict | None, bool]:
    """Try to prove ``capacity`` too small for ``subset``: (proof or None, relaxation feasible)."""
    found = solve_at(instance, subset, capacity, grid, budget)
    if budget.expired():
        return None, False                  # no time left for the exact check
    if not found.bots.any():
        return None, found.converged and found.uncovered <= 1e-9
    scale = float(found.bots.max())
    proof = {"kind": "configuration", "capacity": capacity, "grid": grid,
             "bots": (found.bots / scale).tolist()}
    for name, values in found.resources.items():
        proof[name] = (values / scale).tolist()
    try:
        excess, _, _ = bound_check.configuration_excess(instance, proof)
    except BoundProofError:
        return None, False
    if excess > 0:
        return proof, False
    return None, found.converged


def _search(instance: Instance, subset: np.ndarray, offset: float, best: float,
            upper: float | None, grid: int, budget: TimeBudget) -> dict | None:
    """Largest capacity proven too small for ``subset`` above ``best - offset``: its proof."""
    lo = max(best - offset, 0.0)
    if lo <= 0:
        p = np.where(allowed_pairs(instance) & subset[:, None], instance.p, np.inf)
        lo = float(p.min())
    hi = None if upper is None else upper - offset
    proof, feasible = _attempt(instance, subset, lo * (1 + BRACKET), grid, budget)
    if proof is None:
        return None
    lo = lo * (1 + BRACKET)
    if hi is not None and hi > lo:
        # Proving the known makespan itself (within the optimality tolerance) ends the
        # search at once; given a quarter of the time left, as it may well fail.
        left = budget.remaining()
        share = TimeBudget(None if left is None else left * OPTIMUM_SHARE)
        top, _ = _attempt(instance, subset, hi * (1 - 5e-10), grid, share)
        if top is not None:
            return top
    while hi is None or hi > lo * (1 + BRACKET):
        if budget.expired():
            break
        mid = lo * 2 if hi is None else (lo + hi) / 2
        found, feasible = _attempt(instance, subset, mid, grid, budget)
        if found is not None:
            lo, proof = mid, found
        elif feasible or hi is None:
            hi = mid
        else:                       # out of time or no convergence: stop here
            break
    return proof


def _spread_values(values: list, most: int = WINDOW_VALUES) -> list:
    """At most ``most`` of the sorted ``values``, evenly spread (first and last kept)."""
    if len(values) <= most:
        return values
    picks = np.linspace(0, len(values) - 1, most).round().astype(int)
    return [values[j] for j in sorted(set(picks.tolist()))]


def _windows(instance: Instance) -> list[tuple[float, np.ndarray]]:
    """``(t + q, subset)`` of the DAG windows worth trying, most promising first."""
    if not len(instance.edges):
        return []
    head, tail, fastest = bound_check.windows(instance)
    heads = _spread_values(sorted(set(head)))
    tails = _spread_values(sorted(set(tail)))
    work = np.where(allowed_pairs(instance), instance.p, np.inf).min(axis=1) * instance.tasks
    procs = float(instance.n_procs)
    found = []
    for t in heads:
        for q in tails:
            subset = np.array([head[k] >= t and tail[k] >= q for k in range(instance.n_bots)])
            if not subset.any() or (t == 0 and q == 0):
                continue
            longest = max(float(fastest[k]) for k in np.flatnonzero(subset))
            guess = float(t + q) + max(float(work[subset].sum()) / procs, longest)
            found.append((guess, float(t + q), subset))
    found.sort(key=lambda g: -g[0])
    return [(offset, subset) for _, offset, subset in found[:MAX_WINDOWS]]


def strong_bound(instance: Instance, *, time_limit: float | None = None, seed: int = 0,
                 upper: float | None = None, grid: int = GRID) -> BoundCertificate:
    """The strongest proven makespan bound found within ``time_limit`` (module docstring).

    ``upper`` (e.g. a known schedule's makespan) caps the binary search;
    without it the search doubles the capacity until it stops being proven
    too small. Falls back to the cheap bounds, saying so in the method name,
    when the memory budget (:func:`hybridsched.memory.require`) or the time
    limit leaves no room for the configuration LP.
    """
    del seed  # deterministic
    # The exact check of the last proposal runs after the search's budget expires: keep
    # room for it (a Braun matrix takes about 2 s).
    budget = TimeBudget(None if time_limit is None
                        else max(0.0, time_limit - min(CHECK_RESERVE, 0.1 * time_limit)))
    best = _cheap(instance)
    if instance.n_bots == 0 or not allowed_pairs(instance).any(axis=1).all():
        return best
    fluid_cert = fluid_certificate(instance)
    if fluid_cert.value > best.value:
        best = fluid_cert
    if budget.expired():
        return _named(best, "time limit")
    try:
        require("the configuration LP bound", estimate_bytes(instance, grid))
    except ModelTooLarge as exc:
        return _named(best, str(exc))
    try:
        everything = np.ones(instance.n_bots, dtype=bool)
        tries = [(0.0, everything), *_windows(instance)]
        for offset, subset in tries:
            if budget.expired():
                break
            proof = _search(instance, subset, offset, best.value, upper, grid, budget)
            if proof is None:
                continue
            value = bound_check.certified_value(instance, proof)
            if value > best.value:
                best = BoundCertificate(value, METHOD, proof)
    except MemoryError:
        return _named(best, "out of memory")
    return best


def _named(cert: BoundCertificate, reason: str) -> BoundCertificate:
    return BoundCertificate(cert.value, f"{cert.method}; configuration LP skipped: {reason}",
                            cert.proof)


def proven_fraction(instance: Instance, cert: BoundCertificate) -> Fraction:
    """The exact value a certificate proves (before the float shave), for tests."""
    return bound_check.proven(instance, cert.proof or {"kind": "critical_path"})
