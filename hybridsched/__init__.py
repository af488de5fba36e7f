"""hybridsched: multi-criteria scheduling of bag-of-tasks work on hybrid platforms.

Each problem family has an instance format, generators and importers, exact
MILP models solved with HiGHS, the published heuristics and one independent
checker. Methods are looked up by name in a registry::

    from hybridsched import load_instance, run_method
    family, inst = load_instance("instances/hybrid-deadline/small-01.json")
    result = run_method(family.name, "cdf+ra", inst)

or, from a file, ``hybridsched.solve("instances/hybrid-deadline/small-01.json",
"cdf+ra")``. Schedules and tables are pandas DataFrames for analysis and
plots: ``result.to_frame(inst)`` (one row per assignment, the unit of each
time in its column's name), ``hybridsched.compare(files, methods)`` (one row
per instance and method). Whatever draws random numbers takes ``rng`` (an
integer seed, ``None`` or a ``numpy.random.Generator``; SPEC 7, see
:mod:`hybridsched.seeding`), and the older ``seed`` keyword too.

The names below are imported on first use, so that ``import hybridsched``
(and the command line's start-up) stays cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    "compare": "hybridsched.experiments.compare",
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
    "compare",
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
    "solve",
]

if TYPE_CHECKING:
    from hybridsched.catalogue import family_names, get_family
    from hybridsched.experiments.compare import compare
    from hybridsched.family import Evaluation, Family
    from hybridsched.registry import get_method, methods, register_method, run_method
    from hybridsched.result import Result, Status
    from hybridsched.seeding import RNGLike
    from hybridsched.storage import load_instance, load_solution, save_instance, save_solution


def solve(instance: str | Path | Any, method: str, *, family: str | None = None,
          rng: RNGLike = None, seed: int | None = None, time_limit: float | None = None,
          **options: Any) -> Result:
    """Solve one instance, given as a file or as an instance object, with one method.

    :func:`run_method` for an instance file: the family is read from it.

    Parameters
    ----------
    instance : str, pathlib.Path or an instance
        An instance file (JSON), or an instance object of ``family``.
    method : str
        A method of the family (``hybridsched.methods(family)``).
    family : str, optional
        The family's name; needed for an instance object only.
    rng : int, numpy.random.Generator or None
        The method's seed (:mod:`hybridsched.seeding`); ``None``: seed 0.
    seed : int, optional
        The older name of ``rng``; give one or the other.
    time_limit : float, optional
        Seconds for the method (exact methods; ``None``: no limit).
    **options
        The method's options (``objective="cost"``, ``backend="cpsat"``, ...).

    Returns
    -------
    Result
        The checked result; ``result.to_frame()`` is its schedule as a table.

    Examples
    --------
    >>> import hybridsched
    >>> result = hybridsched.solve("instances/hybrid-deadline/small-01.json", "cdf", rng=0)
    >>> result.status.value, result.seed
    ('feasible', 0)
    """
    from hybridsched.errors import ParameterError
    from hybridsched.registry import run_method
    from hybridsched.storage import load_instance

    if isinstance(instance, str | Path):
        found, instance = load_instance(instance)
        if family is not None and family != found.name:
            raise ParameterError("family", f"the file holds a {found.name} instance, not a "
                                           f"{family} one")
        family = found.name
    elif family is None:
        raise ParameterError("family", "name the family of an instance object (e.g. "
                                       "family='hybrid-deadline'), or give an instance file")
    return run_method(family, method, instance, rng=rng, seed=seed, time_limit=time_limit,
                      **options)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
