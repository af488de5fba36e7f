"""Family ``gang``: parallel jobs with memory, bandwidth and disk demands on VMs.

After Wang, Hou, Hao and Wang (2018), *A parallel tasks scheduling heuristic
in the cloud with multiple attributes*. Jobs arrive online; all tasks of a
job start together on distinct VMs (gang) and must end by its deadline, or
the job is dropped. The objective is the number of unfinished jobs (UFJ).

The package imports nothing when it is imported: the names below load their
module on first use (:mod:`hybridsched.lazy`), so that importing one module of
the family (its registration, to list methods) loads no other.
"""

from __future__ import annotations

from hybridsched.lazy import lazy_exports

_EXPORTS = {
    "FAMILY": "hybridsched.gang.family",
    "Instance": "hybridsched.gang.instance",
    "Solution": "hybridsched.gang.solution",
    "check": "hybridsched.gang.checker",
    "could_finish": "hybridsched.gang.checker",
    "evaluate": "hybridsched.gang.checker",
    "infeasible_items": "hybridsched.gang.family",
    "lower_bound": "hybridsched.gang.family",
    "reference": "hybridsched.gang.family",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
