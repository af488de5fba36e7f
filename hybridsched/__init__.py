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

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name -> module that defines it.
_EXPORTS = {
    "Evaluation": "hybridsched.families",
    "Family": "hybridsched.families",
    "family_names": "hybridsched.families",
    "get_family": "hybridsched.families",
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
    from hybridsched.families import Evaluation, Family, family_names, get_family
    from hybridsched.registry import get_method, methods, register_method, run_method
    from hybridsched.result import Result, Status
    from hybridsched.storage import load_instance, load_solution, save_instance, save_solution


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'hybridsched' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
