"""The ``malleable`` family's strong lower bound: the time-bucket LP, proven by its duals.

:func:`strong_bound` takes an upper bound (the exact method's warm start,
:func:`hybridsched.models.malleable.warm_start.incumbent`, unless given) to place
the horizon, picks the finest bucket the memory and column budgets allow
(:func:`hybridsched.malleable.relaxation.default_grid`), solves the
relaxation (:mod:`hybridsched.models.malleable.bound_lp`) and returns the
bound its duals prove in exact arithmetic
(:func:`hybridsched.malleable.bound_check.proven_value`), never below the
per-job bound (:func:`hybridsched.malleable.bounds.lower_bound`) nor the
fluid one (:mod:`hybridsched.malleable.fluid_bound`, computed first: at
scale it is what stands). When the time limit is 0 the certificate is the
per-job bound; when the LP cannot fit the memory or column budget or the
time runs out, the closed-form bounds, and the method says why.
"""

from __future__ import annotations

import math
from typing import Any

from hybridsched.bound_proof import BoundCertificate
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.malleable.bound_check import proven_value
from hybridsched.malleable.bounds import lower_bound, weights
from hybridsched.malleable.instance import Instance
from hybridsched.malleable.relaxation import Grid, build, default_grid, estimate_size
from hybridsched.memory import ModelTooLarge, available_bytes, require

#: Bytes per nonzero of the relaxation while it is built and solved: Python rows (float
#: and, for the proof check, Fraction), HiGHS's copy and factor. Measured as the peak RSS
#: (``VmHWM``) of a whole strong-bound run on a generated 100-job mixed instance: 518 MB
#: for a grid of about 400,000 columns (about 10^6 nonzeros), rounded up.
BYTES_PER_NONZERO = 700
#: Most columns a grid may have, and per second of the time limit: HiGHS's interior point
#: solved 67,000 columns of a 100-job grid in 13 s and did not finish 400,000 in 60 s.
MAX_COLUMNS = 200_000
COLUMNS_PER_SECOND = 700
#: Horizons tried, as multiples of the first (placed by the upper bound).
HORIZON_SCALES = (1.0, 0.85, 0.75, 0.6, 0.5, 0.35, 0.25, 1.5, 2.0, 3.0)
#: Columns of the first grid up to which the further horizons are tried.
RETRY_COLUMNS = 30_000
#: Most buckets for which the Lagrangian bound is computed too (its check is quadratic in them).
LAGRANGIAN_BUCKETS = 600
#: Share of the time left that the solve may take (the rest: the exact re-check of the duals).
SOLVE_SHARE = 0.7

CHEAP = "per-job bound (each job alone on its best resource)"
FLUID = "fluid bound (the platform as one SRPT machine)"


def closed_form(instance: Instance, objective: str, reason: str, fluid: bool,
                value: float | None = None) -> BoundCertificate:
    """The per-job bound, raised by the fluid one when ``fluid``; the method says why not the LP.

    ``value``: the proof's value when already computed (the fluid bound takes seconds at
    10^4 jobs).
    """
    proof: dict[str, object] = {"objective": objective}
    if fluid:
        proof["fluid"] = True
    if value is None:
        value = proven_value(instance, proof)
    method = FLUID if value > lower_bound(instance, objective) else CHEAP
    return BoundCertificate(value, f"{method}; {reason}", proof)


def _upper(instance: Instance, objective: str, seed: int, budget: TimeBudget) -> float:
    from hybridsched.models.malleable.warm_start import incumbent

    return incumbent(instance, objective, seed, budget)[1]


def grid_for(instance: Instance, objective: str, upper: float, seconds: float | None
             ) -> Grid | None:
    """The grid for ``upper``: the columns that memory and ``seconds`` allow (see the constants)."""
    columns = min(MAX_COLUMNS, int(available_bytes() / BYTES_PER_NONZERO / 3))
    if seconds is not None:
        columns = min(columns, int(COLUMNS_PER_SECOND * seconds))
    return default_grid(instance, objective, upper, max(columns, 1))


def _solve_grid(instance: Instance, objective: str, grid: Grid, budget: TimeBudget
                ) -> tuple[float, dict[str, Any]] | None:
    """Solve the LP on ``grid``: HiGHS's value and the proof (None: no duals).

    HiGHS's value only ranks the grids tried; the value proven is computed
    once, from the proof of the grid kept.
    """
    from hybridsched.models.malleable.bound_lp import solve

    _, nonzeros = estimate_size(instance, grid)
    require("the malleable time-bucket LP", nonzeros * BYTES_PER_NONZERO)
    lp = build(instance, objective, grid)
    budget.check("building the time-bucket LP")
    remaining = budget.remaining()
    outcome = solve(lp, TimeBudget(None if remaining is None else remaining * SOLVE_SHARE))
    del lp
    budget.check("solving the time-bucket LP")
    if not outcome.duals:
        return None
    w_over = weights(objective)[2]
    # The overspend columns have no upper bound: a dual a hair above their cost would
    # make weak duality prove nothing, and any dual vector is safe, so clip it.
    duals = {key: (min(value, w_over) if key.startswith("over:") else value)
             for key, value in outcome.duals.items()}
    proof: dict[str, Any] = {
        "objective": objective, "fluid": True, "horizon": grid.horizon, "bucket": grid.bucket,
        "fine_until": grid.cuts[-1] if grid.fine_until is None else grid.fine_until,
        "duals": duals}
    if not (instance.serial_fraction > 0).any() and grid.n_buckets <= LAGRANGIAN_BUCKETS:
        proof["lagrangian"] = True
    return outcome.objective, proof


def strong_bound(instance: Instance, *, time_limit: float | None = None, seed: int = 0,
                 objective: str = "penalised_a", upper: float | None = None
                 ) -> BoundCertificate:
    """The best bound of the module docstring within ``time_limit`` seconds."""
    weights(objective)
    budget = TimeBudget(time_limit)
    if instance.n_jobs == 0:
        return closed_form(instance, objective, "no jobs", False)
    if budget.warm_start_only:
        return closed_form(instance, objective, "time limit 0", False)
    base = proven_value(instance, {"objective": objective, "fluid": True})
    try:
        budget.check("computing the fluid bound")
        if upper is None:
            upper = _upper(instance, objective, seed, budget)
        budget.check("finding the upper bound that places the horizon")
        if not math.isfinite(upper):
            return closed_form(instance, objective, "no finite upper bound", True, base)
        grid = grid_for(instance, objective, upper, budget.remaining())
        if grid is None:
            return closed_form(instance, objective, "no time-bucket grid fits the time and "
                               "memory budgets", True, base)
        best: tuple[float, Grid, dict[str, Any]] | None = None
        # Every horizon gives a valid bound and none dominates (a short one makes the tail
        # cheap, a long one gives the LP room): on small grids a few are tried. The choice
        # depends on the instance only, so a run is deterministic unless time runs out.
        small = estimate_size(instance, grid)[0] <= RETRY_COLUMNS
        for scale in HORIZON_SCALES if small else HORIZON_SCALES[:1]:
            tried = Grid(max(int(grid.horizon * scale), int(instance.arrival.max()) + 1),
                         grid.bucket, grid.fine_until)
            try:
                found = _solve_grid(instance, objective, tried, budget)
            except BudgetExpired:
                if best is None:
                    raise
                break  # keep what the horizons tried so far prove
            if found is not None:
                # On small grids the value proven ranks them (the Lagrangian bound can
                # reverse HiGHS's order); else there is one grid.
                score = proven_value(instance, found[1]) if small else found[0]
                if best is None or score > best[0]:
                    best = (score, tried, found[1])
        if best is None:
            return closed_form(instance, objective, "LP ended without duals", True, base)
        score, grid, proof = best
        value = score if small else proven_value(instance, proof)
    except (ModelTooLarge, BudgetExpired) as err:
        return closed_form(instance, objective, str(err), True, base)
    except MemoryError:
        return closed_form(instance, objective, "out of memory building the LP", True, base)
    if value <= base:
        return closed_form(instance, objective, "the LP proves no more", True, base)
    lagrangian = " and its Lagrangian" if proof.get("lagrangian") else ""
    return BoundCertificate(value, f"time-bucket LP relaxation (horizon {grid.horizon} min, "
                                   f"{grid.n_buckets} buckets of {grid.bucket} min and more), "
                                   f"exact dual bound{lagrangian}", proof)
