"""Family ``pull``: pull-based scheduling on desktop grid, cloud and best-effort grid.

After Moca, Litan, Silaghi and Fedak (2016), *Multi-criteria and
satisfaction oriented scheduling for hybrid distributed computing
infrastructures*. Hosts join and leave (their availability windows) and
pull one task at a time; a scheduler picks the task. Results may be late,
never returned or wrong; a unit is done at its first correct result. The
objective is the makespan; cost, execution efficiency and per-DCI
utilisation efficiency are reported beside it.
"""

from __future__ import annotations

import math

import numpy as np

from hybridsched.families import Family, converters, register_family
from hybridsched.pull import files
from hybridsched.pull.bounds import makespan_lower_bound
from hybridsched.pull.checker import check, evaluate
from hybridsched.pull.instance import Instance
from hybridsched.pull.solution import Solution


def infeasible_items(instance: Instance) -> list[str]:
    """Work units no host window after their arrival is long enough for (never completed)."""
    best = np.zeros(instance.n_units)  # longest ECT a host could finish, per unit
    arrivals, which = np.unique(instance.arrival, return_inverse=True)
    for h, spans in enumerate(instance.windows):
        if not spans:
            continue
        a, b = np.array(spans, dtype=float).reshape(-1, 2).T
        room = (b[None, :] - np.maximum(a[None, :], arrivals[:, None])).max(axis=1)
        best = np.maximum(best, room[which] * instance.cpu[h])
    short = np.flatnonzero(instance.noi > best)
    return [f"work unit {instance.unit_ids[u]!r} ({instance.noi[u]:g} instructions) fits in "
            "no availability window of any host after its arrival" for u in short]


def reference(instance: Instance) -> dict[str, float]:
    """Nothing is recorded with pull instances (the bound is computed)."""
    return {}


def lower_bound(instance: Instance) -> float:
    """The makespan bound from the availability trace (:mod:`.bounds`)."""
    bound = makespan_lower_bound(instance)
    return bound if math.isfinite(bound) else math.nan


FAMILY = register_family(
    Family(
        name="pull",
        objective_name="makespan",
        **converters(files),
        check=check,
        evaluate=evaluate,
        infeasible_items=infeasible_items,
        reference=reference,
        lower_bound=lower_bound,
        size=lambda instance: instance.n_units,
    )
)

__all__ = ["FAMILY", "Instance", "Solution", "check", "evaluate"]
