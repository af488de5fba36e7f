"""Family ``bot-sites``: bags of tasks on heterogeneous sites (ETC matrix).

After Duan, Prodan and Li (2014), *Multi-objective game theoretic scheduling
of bag-of-tasks workflows on hybrid clouds* (IEEE TCC 2(1)). The objective is
the overall makespan; cost (Eq. 6), aggregated makespan (Eq. 15), Jain's
fairness (Eq. 22), efficiency (Eq. 23-25) and bandwidth/storage feasibility
are metrics.
"""

from __future__ import annotations

import numpy as np

from hybridsched.bot_sites import files
from hybridsched.bot_sites.checker import check, evaluate
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.families import Family, converters, register_family


def infeasible_items(instance: Instance) -> list[str]:
    """BoTs that no site can run under hard bandwidth/storage limits (empty otherwise).

    A task of BoT ``k`` alone on site ``i`` uses ``d_ki / p_ki`` bandwidth and
    ``sr_k`` storage; if that exceeds site ``i``'s limit for every site (the
    checker's rule, :func:`~hybridsched.bot_sites.limits.allowed_pairs`), no
    schedule exists. Conversely, with one allowed site per BoT, running one
    task at a time is a valid schedule.
    """
    from hybridsched.bot_sites.limits import allowed_pairs

    ok = allowed_pairs(instance)
    return [instance.bot_ids[k] for k in np.flatnonzero(~ok.any(axis=1))]


def reference(instance: Instance) -> dict[str, float]:
    """Recorded values under the generic keys of :class:`~hybridsched.families.Family`.

    ``optimum`` is the proven optimal makespan, ``optimum_cost`` the proven
    minimum cost (``compare --objective cost``), ``lower_bound`` a recorded
    bound and ``upper_bound`` e.g. a best-known makespan (Braun instances).
    """
    recorded = instance.reference or {}
    found: dict[str, float] = {}
    for key, generic in (("optimal_makespan", "optimum"), ("optimal_cost", "optimum_cost"),
                         ("lower_bound", "lower_bound"), ("upper_bound", "upper_bound")):
        if recorded.get(key) is not None:
            found[generic] = float(recorded[key])
    if "upper_bound" not in found and recorded.get("best_known_makespan") is not None:
        found["upper_bound"] = float(recorded["best_known_makespan"])
    return found


def lower_bound(instance: Instance) -> float:
    """Proven lower bound on the makespan (fluid LP, LST-strengthened, and critical path).

    See :mod:`hybridsched.models.bot_bounds`; scales to 10^5+ tasks.
    """
    from hybridsched.models.bot_bounds import lower_bound as bound

    return bound(instance)


FAMILY = register_family(
    Family(
        name="bot-sites",
        objective_name="makespan",
        **converters(files),
        check=check,
        evaluate=evaluate,
        infeasible_items=infeasible_items,
        reference=reference,
        lower_bound=lower_bound,
        objectives=("makespan", "cost"),
        size=lambda instance: instance.n_bots,
    )
)



# The methods live in :mod:`hybridsched.bot_sites.methods`, imported by the family loader
# (importing them here would make ``import hybridsched.heuristics.gmo`` circular).
__all__ = ["FAMILY", "Instance", "Solution", "check", "evaluate", "lower_bound", "reference"]
