"""The ``pull`` family's strong makespan bound: the window LP, bisected on the run's end.

:func:`strong_bound` searches the latest run end ``T`` at which the window
LP (:mod:`hybridsched.pull.bound_lp`: each unit's first correct result in
one window of one host, windows' capacities, the hosts' draws) leaves some
unit uncovered, solving it with HiGHS (SciPy) at each step: between the
closed-form bound (:mod:`hybridsched.pull.bounds` and
:mod:`hybridsched.pull.bound_units`, each unit's earliest completion from its
hosts' draws) and the end of the clairvoyant
greedy schedule (:mod:`hybridsched.heuristics.pull.clairvoyant`), at which
the LP is feasible. The LP's duals at that ``T`` are the proof; the value
is what the exact check (:func:`hybridsched.pull.bound_check.verify_bound`)
recomputes from them, so a certificate never claims more than its proof.

Falls back to the cheap bound, saying why in the method's name, when the
time limit is 0, the LP would not fit the memory budget
(:mod:`hybridsched.memory`), or the LP never beats the cheap bound.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from hybridsched.bound_proof import BoundCertificate, BoundProofError
from hybridsched.budget import TimeBudget
from hybridsched.memory import ModelTooLarge, require
from hybridsched.pull.bound_check import verify_bound
from hybridsched.pull.bound_lp import RHO, FloatLP, float_rows, host_classes, structure
from hybridsched.pull.bound_units import closed_form_bound
from hybridsched.pull.instance import Instance

#: Method names the certificates carry.
CHEAP = "capacity, largest-unit and earliest-completion bound"
WINDOW = "window LP (first correct results in windows, draws' waste), dual at the run's end"
#: Bisection stops when the bracket is this small relative to the makespan.
PRECISION = 1e-4
#: An LP minimum (uncovered units) below this is read as feasible (solver tolerance).
POSITIVE = 1e-6
#: Bytes per LP column while it is built and solved: the structure's index pair, the
#: float arrays, the COO/CSR copies of its 2-3 nonzeros and HiGHS's own copy (measured:
#: one solve at 2,000 units, 98,839 columns and 826 rows, grows the peak resident set by
#: 136 MB, ~1,440 B per column; rounded up).
BYTES_PER_COLUMN = 2_000
#: Share of the time limit kept for the exact check of the proof.
PROOF_SHARE = 0.2


def fallback_reason(certificate: BoundCertificate) -> str:
    """Why ``certificate`` is the closed-form bound when the LP did not run ("" if it did)."""
    return "" if certificate.method in (WINDOW, CHEAP) else certificate.method


def estimated_columns(instance: Instance, end: float, rho: float = RHO) -> int:
    """At most the LP's columns at ``end``: unit classes times windows meeting ``[t0, end)``."""
    t0 = float(instance.arrival.min())
    span = math.log(float(instance.noi.max()) / float(instance.noi.min())) if rho > 0 else 0.0
    classes = min(instance.n_units, int(span / math.log1p(rho)) + 2 if rho > 0
                  else instance.n_units) * min(32, len(np.unique(instance.arrival)))
    windows = sum(sum(1 for a, b in instance.windows[m[0]] if a < end and b > t0)
                  for m in host_classes(instance))
    return min(classes, instance.n_units) * windows


def solve_lp(lp: FloatLP, time_limit: float | None) -> tuple[float, np.ndarray] | None:
    """The LP's minimum and its duals (``<=`` rows' marginals); ``None`` if not solved."""
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix

    matrix = csr_matrix((lp.values, (lp.rows, lp.cols)),
                        shape=(len(lp.rhs), len(lp.cost)))
    options: dict[str, Any] = {"presolve": True}
    if time_limit is not None:
        options["time_limit"] = max(time_limit, 0.01)
    out = linprog(lp.cost, A_ub=matrix, b_ub=lp.rhs,
                  bounds=np.stack((np.zeros(len(lp.cost)), lp.upper), axis=1),
                  method="highs", options=options)
    if out.status != 0 or out.ineqlin is None:
        return None
    return float(out.fun), np.asarray(out.ineqlin.marginals, dtype=float)


def proof_of(s: Any, lp: FloatLP, marginals: np.ndarray) -> dict[str, Any]:
    """The JSON-ready proof of :mod:`hybridsched.pull.bound_check` from the solver's duals."""
    n_c, n_w = lp.n_cover, lp.n_capacity
    cover = [float(-m) for m in marginals[:n_c]]  # rows were negated to ``<=``
    capacity = {s.window_key(g): float(m) for g, m in enumerate(marginals[n_c:n_c + n_w])
                if m != 0}
    waste = {s.class_key(k): [a, float(m)] for k, a, m in
             zip(lp.waste_rows, lp.slopes, marginals[n_c + n_w:], strict=True)}
    return {"end": s.end, "rho": s.rho, "cover": cover, "capacity": capacity, "waste": waste}


def _upper_end(instance: Instance, low_end: float, deadline: float | None) -> float:
    """A run end at which some checked schedule exists (the clairvoyant greedy's)."""
    from hybridsched.heuristics.pull.clairvoyant import best_clairvoyant

    found = best_clairvoyant(instance, low_end, deadline=deadline)
    if found is None:
        return math.inf
    return float(found.completion(instance.n_units).max())


def _next_probe(uncovered: list[tuple[float, float]], low: float, high: float, origin: float,
                units: int, step: float) -> float:
    """The next run end to try: the LP minimum extrapolated to 0, kept inside the bracket.

    The minimum (units left uncovered) falls roughly linearly as ``T`` grows,
    so a secant through the last two positive values lands near the
    threshold in a few solves, where bisection needs a dozen; the first step
    guesses the slope from the share of units uncovered. The guess aims a
    hair past the threshold and stays 5% of the bracket inside it (after a
    feasible probe the caller bisects instead).
    """
    end, value = uncovered[-1]
    if len(uncovered) >= 2 and uncovered[-2][1] > value:
        slope = (uncovered[-2][1] - value) / (end - uncovered[-2][0])
    else:
        slope = units / max(end - origin, 1e-9)
    guess = end + value / slope + step / 2  # a hair past the threshold
    margin = 0.05 * (high - low)
    return min(max(guess, low + margin), high - margin)


def strong_bound(instance: Instance, *, time_limit: float | None = None, seed: int = 0,
                 rho: float = RHO, upper_end: float | None = None) -> BoundCertificate:
    """A certified lower bound on the makespan (module docstring).

    ``time_limit`` bounds the whole call; ``seed`` is accepted for the
    contract (everything is deterministic). ``upper_end``: a run end known
    to be reachable (a checked schedule's), else the clairvoyant greedy's.
    """
    budget = TimeBudget(time_limit)
    cheap_value = closed_form_bound(instance)
    cheap = BoundCertificate(cheap_value, CHEAP)
    if instance.n_units == 0 or not math.isfinite(cheap_value):
        return cheap
    if budget.warm_start_only:
        return BoundCertificate(cheap_value, f"{CHEAP} (time limit 0: no LP)")
    origin = instance.first_schedule()
    low = origin + cheap_value
    deadline = None if budget.remaining() is None else time.perf_counter() + (
        0.1 * budget.remaining())
    high = upper_end if upper_end is not None else _upper_end(instance, low, deadline)
    if not math.isfinite(high):
        return BoundCertificate(cheap_value, f"{CHEAP} (no schedule to bracket the LP)")
    try:
        require("the pull window LP", estimated_columns(instance, high, rho) * BYTES_PER_COLUMN)
    except ModelTooLarge as error:
        return BoundCertificate(cheap_value, f"{CHEAP} ({error})")
    best: list[tuple[float, dict[str, Any]]] = []
    uncovered: list[tuple[float, float]] = []  # (end, LP minimum) where it is positive
    probe = low  # first the cheap bound's end: if the LP is feasible there, it adds nothing
    while True:
        left = budget.remaining()
        if left is not None and left <= PROOF_SHARE * float(budget.seconds or 0):
            break
        s = structure(instance, probe, rho)
        lp = float_rows(s)
        try:
            solved = solve_lp(lp, None if left is None else left * (1 - PROOF_SHARE))
        except MemoryError:
            break
        if solved is None:
            break
        if solved[0] > POSITIVE:
            best.append((probe, proof_of(s, lp, solved[1])))
            uncovered.append((probe, solved[0]))
            low = probe
        elif not best:
            break
        else:
            high = probe
        if high - low <= PRECISION * max(high - origin, 1.0):
            break
        if solved[0] > POSITIVE:
            probe = _next_probe(uncovered, low, high, origin, instance.n_units,
                                PRECISION * max(high - origin, 1.0))
        else:
            probe = (low + high) / 2
    for _end, proof in reversed(best):
        candidate = BoundCertificate(0.0, WINDOW, proof)
        try:
            value = verify_bound(instance, candidate)
        except BoundProofError:
            continue
        if value > cheap_value:
            return BoundCertificate(value, WINDOW, proof)
        break
    return BoundCertificate(cheap_value, f"{CHEAP} (the window LP does not beat it)"
                            if best or budget.remaining() != 0 else CHEAP)
