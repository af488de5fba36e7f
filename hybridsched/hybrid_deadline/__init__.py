"""Family ``hybrid-deadline``: deadline-constrained BoT jobs on PMs plus per-hour VMs.

After Wang, Song, Sun and Liu (2016), *Managing deadline-constrained
bag-of-tasks jobs on hybrid clouds with closest deadline first scheduling*.

The package imports nothing when it is imported: the names below load their
module on first use (:mod:`hybridsched.lazy`), so that importing one module of
the family (its registration, to list methods) loads no other.
"""

from __future__ import annotations

from hybridsched.lazy import lazy_exports

_EXPORTS = {
    "FAMILY": "hybridsched.hybrid_deadline.family",
    "Instance": "hybridsched.hybrid_deadline.instance",
    "PM": "hybridsched.hybrid_deadline.instance",
    "Solution": "hybridsched.hybrid_deadline.solution",
    "VMType": "hybridsched.hybrid_deadline.instance",
    "check": "hybridsched.hybrid_deadline.checker",
    "evaluate": "hybridsched.hybrid_deadline.checker",
    "infeasible_items": "hybridsched.hybrid_deadline.family",
    "lower_bound": "hybridsched.hybrid_deadline.family",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
