"""The ``bot-sites`` family as the contract sees it: its :class:`~hybridsched.family.Family`.

The family is declared by its registration module (:mod:`hybridsched.bot_sites.methods`)
and built from here the first time it is asked for.
"""

from __future__ import annotations

import numpy as np

from hybridsched.bot_sites import files
from hybridsched.bot_sites.bound_check import verify_bound
from hybridsched.bot_sites.checker import check, evaluate
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.measures import MEASURES
from hybridsched.family import Family, converters


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
    """Recorded values under the generic keys of :class:`~hybridsched.family.Family`.

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

    See :mod:`hybridsched.bot_sites.bounds`; scales to 10^5+ tasks.
    """
    from hybridsched.bot_sites.bounds import lower_bound as bound

    return bound(instance)



FAMILY = Family(
    name="bot-sites",
    objective_name="makespan",
    objective_metric="makespan",
    **converters(files),
    check=check,
    evaluate=evaluate,
    infeasible_items=infeasible_items,
    reference=reference,
    lower_bound=lower_bound,
    strong_bound="hybridsched.models.bot_sites.bound:strong_bound",
    verify_bound=verify_bound,
    objectives=("makespan", "cost"),
    measures=MEASURES,
    size_name="BoTs",
    size=lambda instance: instance.n_bots,
)
