"""Family ``pull``: pull-based scheduling on desktop grid, cloud and best-effort grid.

After Moca, Litan, Silaghi and Fedak (2016), *Multi-criteria and
satisfaction oriented scheduling for hybrid distributed computing
infrastructures*. Hosts join and leave (their availability windows) and
pull one task at a time; a scheduler picks the task. Results may be late,
never returned or wrong; a unit is done at its first correct result. The
objective is the makespan; cost, execution efficiency and per-DCI
utilisation efficiency are reported beside it.

The package imports nothing when it is imported: the names below load their
module on first use (:mod:`hybridsched.lazy`), so that importing one module of
the family (its registration, to list methods) loads no other.
"""

from __future__ import annotations

from hybridsched.lazy import lazy_exports

_EXPORTS = {
    "FAMILY": "hybridsched.pull.family",
    "Instance": "hybridsched.pull.instance",
    "NAMED_UNITS": "hybridsched.pull.family",
    "Solution": "hybridsched.pull.solution",
    "check": "hybridsched.pull.checker",
    "evaluate": "hybridsched.pull.checker",
    "infeasible_items": "hybridsched.pull.family",
    "lower_bound": "hybridsched.pull.family",
    "makespan_lower_bound": "hybridsched.pull.bounds",
    "reference": "hybridsched.pull.family",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
