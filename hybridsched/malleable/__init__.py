"""Family ``malleable``: malleable jobs on dedicated, allocated and cloud resources.

After Caron and Dias de Assuncao (2016), *Multi-criteria malleable task
management for hybrid-cloud platforms* (CloudTech'16). Jobs arrive online
with a priority, a deadline and a budget; local schedulers (DCA, ACA, CCA)
offer candidates, and a tree of agents selects one (Algorithm 4). The
objective is the penalised cost of policy A (``penalised_a``); ``cost``,
``total_time``, ``total_delay`` and ``penalised_b`` are selectable too.

The package imports nothing when it is imported: the names below load their
module on first use (:mod:`hybridsched.lazy`), so that importing one module of
the family (its registration, to list methods) loads no other.
"""

from __future__ import annotations

from hybridsched.lazy import lazy_exports

_EXPORTS = {
    "FAMILY": "hybridsched.malleable.family",
    "Instance": "hybridsched.malleable.instance",
    "OPTIMUM_KEYS": "hybridsched.malleable.family",
    "Resource": "hybridsched.malleable.instance",
    "ResourceType": "hybridsched.malleable.instance",
    "Solution": "hybridsched.malleable.solution",
    "check": "hybridsched.malleable.checker",
    "evaluate": "hybridsched.malleable.checker",
    "infeasible_items": "hybridsched.malleable.family",
    "lower_bound": "hybridsched.malleable.bounds",
    "reference": "hybridsched.malleable.family",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
