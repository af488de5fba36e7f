"""Registry of solution methods, keyed by family and name.

A method is a plain callable. Heuristics take an instance and return a
solution; exact methods return a :class:`~hybridsched.result.Result` carrying
status and bound. :func:`run_method` times the call, re-evaluates the schedule
with the family's checker and always returns a ``Result``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hybridsched.errors import InfeasibleInstanceError, InputError
from hybridsched.families import get_family
from hybridsched.result import Result, Status


class MethodFailedError(Exception):
    """A heuristic that could not build a schedule (not a proof of infeasibility)."""


@dataclass(frozen=True)
class Method:
    """A registered solution method.

    Attributes
    ----------
    name, family:
        Registry keys.
    func:
        ``func(instance, *, seed, time_limit) -> solution | Result``.
    exact:
        True when the method can prove optimality (returns a ``Result``).
    description:
        One line for ``--help`` and tables.
    """

    name: str
    family: str
    func: Callable[..., Any]
    exact: bool = False
    description: str = ""


_METHODS: dict[str, dict[str, Method]] = {}


def register_method(
    family: str, name: str, *, exact: bool = False, description: str = ""
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate ``func`` to register it as method ``name`` of ``family``."""

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        _METHODS.setdefault(family, {})[name] = Method(name, family, func, exact, description)
        return func

    return decorator


def methods(family: str) -> dict[str, Method]:
    """All methods of ``family`` in registration order."""
    get_family(family)  # loads built-in families and validates the name
    return dict(_METHODS.get(family, {}))


def get_method(family: str, name: str) -> Method:
    """Return the method or raise a one-line :class:`InputError`."""
    known = methods(family)
    if name not in known:
        raise InputError(
            f"unknown method {name!r} for family {family!r} (known: {', '.join(known)})"
        )
    return known[name]


def run_method(
    family: str,
    name: str,
    instance: Any,
    *,
    seed: int | None = 0,
    time_limit: float | None = None,
    **options: Any,
) -> Result:
    """Run one method and return a checked :class:`Result`.

    ``options`` are passed on to the method (e.g. ``objective="cost"`` for
    families with several objectives).

    The objective and metrics always come from the family's ``evaluate``;
    a schedule that fails the family's checker is reported as an error
    rather than passed on.
    """
    fam = get_family(family)
    method = get_method(family, name)
    infeasible = fam.infeasible_items(instance)
    if infeasible:
        return Result(
            name,
            family,
            Status.INFEASIBLE,
            seed=seed,
            message="infeasible: " + ", ".join(infeasible),
        )
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        produced = method.func(instance, seed=seed, time_limit=time_limit, **options)
    except InfeasibleInstanceError as exc:
        runtime = time.perf_counter() - start
        return Result(name, family, Status.INFEASIBLE, runtime_s=runtime, seed=seed,
                      message=str(exc))
    except MethodFailedError as exc:
        runtime = time.perf_counter() - start
        return Result(name, family, Status.NO_SOLUTION, runtime_s=runtime, seed=seed,
                      message=str(exc))
    runtime, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if isinstance(produced, Result):
        result = produced
        result.method, result.family, result.seed = name, family, seed
        result.runtime_s, result.cpu_s = runtime, cpu
    else:
        result = Result(name, family, Status.FEASIBLE, solution=produced, runtime_s=runtime,
                        cpu_s=cpu, seed=seed)
    if result.status.has_solution:
        violations = fam.check(instance, result.solution)
        if violations:
            raise AssertionError(
                f"method {name!r} produced an invalid schedule: " + "; ".join(violations[:5])
            )
        evaluation = fam.evaluate(instance, result.solution)
        result.objective = evaluation.objective
        result.metrics = {**evaluation.metrics, **result.metrics}
        if result.status is Status.OPTIMAL and result.bound is None:
            result.bound = result.objective
    return result
