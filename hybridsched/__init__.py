"""hybridsched: multi-criteria scheduling of bag-of-tasks work on hybrid platforms.

Each problem family has an instance format, generators and importers, exact
MILP models solved with HiGHS, the published heuristics and one independent
checker. Methods are looked up by name in a registry::

    from hybridsched import load_instance, run_method
    inst = load_instance("instances/hybrid-deadline/small-01.json")
    result = run_method("hybrid-deadline", "cdf+ra", inst)
"""

from hybridsched.families import Evaluation, Family, family_names, get_family
from hybridsched.registry import get_method, methods, register_method, run_method
from hybridsched.result import Result, Status
from hybridsched.storage import load_instance, load_solution, save_instance, save_solution

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
__version__ = "0.1.0"
