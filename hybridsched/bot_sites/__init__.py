"""Family ``bot-sites``: bags of tasks on heterogeneous sites (ETC matrix).

After Duan, Prodan and Li (2014), *Multi-objective game theoretic scheduling
of bag-of-tasks workflows on hybrid clouds* (IEEE TCC 2(1)). The objective is
the overall makespan; cost (Eq. 6), aggregated makespan (Eq. 15), Jain's
fairness (Eq. 22), efficiency (Eq. 23-25) and bandwidth/storage feasibility
are metrics.

The package imports nothing when it is imported: the names below load their
module on first use (:mod:`hybridsched.lazy`), so that importing one module of
the family (its registration, to list methods) loads no other.
"""

from __future__ import annotations

from hybridsched.lazy import lazy_exports

_EXPORTS = {
    "FAMILY": "hybridsched.bot_sites.family",
    "Instance": "hybridsched.bot_sites.instance",
    "Solution": "hybridsched.bot_sites.solution",
    "check": "hybridsched.bot_sites.checker",
    "evaluate": "hybridsched.bot_sites.checker",
    "infeasible_items": "hybridsched.bot_sites.family",
    "lower_bound": "hybridsched.bot_sites.family",
    "reference": "hybridsched.bot_sites.family",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
