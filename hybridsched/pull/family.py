"""The ``pull`` family as the contract sees it: its :class:`~hybridsched.family.Family`.

The family is declared by its registration module (:mod:`hybridsched.pull.methods`)
and built from here the first time it is asked for.
"""

from __future__ import annotations

import math

import numpy as np

from hybridsched.family import Family, converters
from hybridsched.io.limits import MAX_PULL_SECONDS
from hybridsched.pull import files
from hybridsched.pull.bound_check import verify_bound
from hybridsched.pull.bounds import makespan_lower_bound
from hybridsched.pull.checker import check, evaluate
from hybridsched.pull.instance import Instance
from hybridsched.pull.measures import MEASURES

#: Work units named by :func:`infeasible_items` (then "... and N more").
NAMED_UNITS = 5


def _room(spans: tuple[tuple[float, float], ...], times: np.ndarray) -> np.ndarray:
    """Longest uninterrupted time in ``spans`` (sorted, disjoint) from each of ``times``.

    Up to the horizon. The window holding a time offers its rest; every later
    window its whole length (a suffix maximum): O((windows + times) log) time
    and no windows-by-times table.
    """
    a, b = np.array(spans, dtype=float).reshape(-1, 2).T
    b = np.minimum(b, MAX_PULL_SECONDS)
    later = np.append(np.maximum.accumulate((b - a)[::-1])[::-1], -np.inf)
    k = np.searchsorted(a, times, side="left")  # first window starting at or after
    holding = np.where(k > 0, b[np.maximum(k - 1, 0)] - times, -np.inf)
    return np.maximum(later[k], holding)


def infeasible_items(instance: Instance) -> list[str]:
    """Work units no host can ever complete (so no method completes them).

    A unit needs one host that returns correct results at all (error below 1,
    results not all never returned) and one of its windows, after the unit's
    arrival and before the run's horizon
    (:data:`~hybridsched.io.limits.MAX_PULL_SECONDS`), long enough for the
    unit's ECT.
    """
    if instance.n_units == 0:
        return []
    best = np.zeros(instance.n_units)  # most instructions a host could finish, per unit
    arrivals, which = np.unique(instance.arrival, return_inverse=True)
    for h, spans in enumerate(instance.windows):
        if not spans or instance.error[h] >= 1 or instance.behaviour.never >= 1:
            continue
        best = np.maximum(best, _room(spans, arrivals)[which] * instance.cpu[h])
    short = np.flatnonzero(~(instance.noi <= best))
    if not short.size:
        return []
    named = ", ".join(repr(instance.unit_ids[u]) for u in short[:NAMED_UNITS])
    more = f" and {short.size - NAMED_UNITS} more" if short.size > NAMED_UNITS else ""
    if not np.any(best):
        return [f"work unit(s) {named}{more}: no host ever returns a correct result"]
    return [f"work unit(s) {named}{more} fit in no availability window of any host after "
            f"their arrival (and before the horizon, {MAX_PULL_SECONDS:.0e} s)"]


def reference(instance: Instance) -> dict[str, float]:
    """The recorded clairvoyant offline optimum under ``optimum``, and recorded bounds."""
    recorded = instance.reference or {}
    found = {}
    if recorded.get("optimal_makespan") is not None:
        found["optimum"] = float(recorded["optimal_makespan"])
    for key in ("lower_bound", "upper_bound"):
        if recorded.get(key) is not None:
            found[key] = float(recorded[key])
    return found


def lower_bound(instance: Instance) -> float:
    """The makespan bound from the availability trace (:mod:`.bounds`)."""
    bound = makespan_lower_bound(instance)
    return bound if math.isfinite(bound) else math.nan



FAMILY = Family(
    name="pull",
    objective_name="makespan",
    objective_metric="makespan",
    **converters(files),
    check=check,
    evaluate=evaluate,
    infeasible_items=infeasible_items,
    reference=reference,
    lower_bound=lower_bound,
    strong_bound="hybridsched.models.pull.bound:strong_bound",
    verify_bound=verify_bound,
    measures=MEASURES,
    size_name="work units",
    size=lambda instance: instance.n_units,
)
