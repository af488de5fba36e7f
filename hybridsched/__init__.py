"""hybridsched: multi-criteria scheduling of bag-of-tasks work on hybrid platforms.

Each problem family has an instance format, generators and importers, exact
MILP models solved with HiGHS, the published heuristics and one independent
checker. Methods are looked up by name in a registry::

    from hybridsched import load_instance, run_method
    family, inst = load_instance("instances/hybrid-deadline/small-01.json")
    result = run_method(family.name, "cdf+ra", inst)

The names below are imported on first use, so that ``import hybridsched``
(and the command line's start-up) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hybridsched.lazy import lazy_exports
from hybridsched.version import __version__

#: Public name -> module that defines it.
_EXPORTS = {
    "Evaluation": "hybridsched.family",
    "Family": "hybridsched.family",
    "family_names": "hybridsched.catalogue",
    "get_family": "hybridsched.catalogue",
    "get_method": "hybridsched.registry",
    "methods": "hybridsched.registry",
    "register_method": "hybridsched.registry",
    "run_method": "hybridsched.registry",
    "Result": "hybridsched.result",
    "Status": "hybridsched.result",
    "load_instance": "hybridsched.storage",
    "load_solution": "hybridsched.storage",
    "save_instance": "hybridsched.storage",
    "save_solution": "hybridsched.storage",
}

__all__ = [
    "__version__",
    "Evaluation",
    "Family",
    "Result",
    "Status",
    "family_names",
    "get_family",
    "get_method",
    "load_instance",
    "load_solution",
    "methods",
    "register_method",
    "run_method",
    "save_instance",
    "save_solution",
]

if TYPE_CHECKING:
    from hybridsched.catalogue import family_names, get_family
    from hybridsched.family import Evaluation, Family
    from hybridsched.registry import get_method, methods, register_method, run_method
    from hybridsched.result import Result, Status
    from hybridsched.storage import load_instance, load_solution, save_instance, save_solution


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
