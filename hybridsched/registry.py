"""Registry of solution methods, keyed by family and name.

A method is a plain callable. Heuristics take an instance and return a
solution; exact methods return a :class:`~hybridsched.result.Result` carrying
status and bound. :func:`run_method` times the call, re-evaluates the schedule
with the family's checker and always returns a ``Result``.

A family's registration module declares its methods by name, description and
where the callable lives (:func:`declare_method`, a ``"module:attribute"``
target imported on first use), so that listing methods imports no algorithm;
:func:`register_method` registers a callable at hand (a decorator, for
plug-ins). Both fill one table; the family's plug-ins are loaded by the
catalogue (:mod:`hybridsched.catalogue`) the first time the family is asked for.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hybridsched import interrupt
from hybridsched.catalogue import Target, check_family, get_family, plugin_failures, resolve
from hybridsched.errors import InfeasibleInstanceError, InputError, MethodFailedError
from hybridsched.result import Result, Status
from hybridsched.seeding import RNGLike, resolve_seed

__all__ = ["Method", "MethodFailedError", "declare_method", "get_method", "methods",
           "register_method", "run_method"]


@dataclass(frozen=True)
class Method:
    """A registered solution method.

    Attributes
    ----------
    name, family:
        Registry keys.
    target:
        ``func(instance, *, seed, time_limit) -> solution | Result``, or where it
        lives (``"module:attribute"``), imported when :attr:`func` is first read.
    exact:
        True when the method can prove optimality (returns a ``Result``).
    description:
        One line for ``--help`` and tables.
    check_target:
        Optional ``check_options(options)`` (or where it lives): raises a one-line
        :class:`InputError` for option values the method refuses, so bad
        values are reported before a campaign or a simulation starts.
    option_notes:
        ``(option, note)`` pairs that ``hybridsched methods --options`` prints
        under the defaults: the paper's words behind a reading.
    """

    name: str
    family: str
    target: Target
    exact: bool = False
    description: str = ""
    check_target: Target | None = None
    option_notes: tuple[tuple[str, str], ...] = ()

    @property
    def func(self) -> Callable[..., Any]:
        """The method's callable (imported on first use when declared by name)."""
        return resolve(self.target)

    @property
    def check_options(self) -> Callable[[dict[str, Any]], None] | None:
        """The method's check of option values, if it has one."""
        return None if self.check_target is None else resolve(self.check_target)


_METHODS: dict[str, dict[str, Method]] = {}


def register_method(
    family: str, name: str, *, exact: bool = False, description: str = "",
    check_options: Callable[[dict[str, Any]], None] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate ``func`` to register it as method ``name`` of ``family``."""

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        _add(Method(name, family, func, exact, description, check_options))
        return func

    return decorator


def shown_default(value: Any) -> str:
    """An option's default as it is typed on the command line.

    ``a,b`` for a sequence, ``unset`` for None: what ``methods --options`` and the
    documentation show.
    """
    if value is None:
        return "unset"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def declare_method(family: str, name: str, target: str, *, exact: bool = False,
                   description: str = "", check_options: str | None = None,
                   option_notes: dict[str, str] | None = None) -> None:
    """Register method ``name`` of ``family``, whose callable ``target`` is imported on first use.

    ``target`` and ``check_options`` are ``"module:attribute"`` strings (dots
    after the colon walk attributes, e.g. ``"pkg.mod:func.check"``);
    ``option_notes``: option -> note (:attr:`Method.option_notes`).
    """
    _add(Method(name, family, target, exact, description, check_options,
                tuple((option_notes or {}).items())))


def _add(method: Method) -> None:
    """Register ``method``; a name taken by another callable is refused, not replaced.

    A plug-in that reused a name would silently change what every spec,
    result store and comparison means by it; declaring the same target
    again (a module imported twice) is harmless.
    """
    known = _METHODS.setdefault(method.family, {})
    old = known.get(method.name)
    if old is not None and old.target != method.target:
        raise InputError(f"plugin registers method {method.name!r} of family "
                         f"{method.family!r}, which exists already; give the plugin's method "
                         "another name")
    known[method.name] = method


def methods(family: str) -> dict[str, Method]:
    """All methods of ``family`` in registration order (its plug-ins loaded, nothing built)."""
    check_family(family)
    return dict(_METHODS.get(family, {}))


def get_method(family: str, name: str) -> Method:
    """Return the method or raise a one-line :class:`InputError`."""
    known = methods(family)
    if name not in known:
        failed = "".join(f"; {line}" for line in plugin_failures(family))
        raise InputError(
            f"unknown method {name!r} for family {family!r} (known: {', '.join(known)}){failed}"
        )
    return known[name]


def check_options(family: str, name: str, options: dict[str, Any], *, whole: bool = True
                  ) -> None:
    """Reject options that method ``name`` of ``family`` does not take (one-line InputError).

    ``objective`` must also name one of the family's selectable objectives.
    With ``whole`` (``options`` is everything the method will get), the
    method's own check of the values runs too; a part alone may wrongly fail
    a check that ties options together (``q <= p``).
    """
    fam = get_family(family)
    method = get_method(family, name)
    accepted = _accepted_options(method.func)
    for option, value in options.items():
        if accepted is not None and option not in accepted:
            takes = ", ".join(sorted(accepted)) or "no options"
            raise InputError(f"option --{option.replace('_', '-')} is not accepted by family "
                             f"{family!r} "
                             f"(method {name!r} takes: {takes})")
        if option == "objective" and value not in fam.objectives:
            choices = ", ".join(fam.objectives) or "none: it has a single objective"
            raise InputError(f"option --objective: {value!r} is not an objective of family "
                             f"{family!r} (choose from: {choices})")
    if whole and method.check_options is not None:
        method.check_options(options)


def method_defaults(func: Callable[..., Any]) -> dict[str, Any]:
    """A method's keyword options (besides seed and time_limit) and their default values."""
    return {p.name: p.default for p in inspect.signature(func).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in ("seed", "time_limit")
            and p.default is not inspect.Parameter.empty}


def _accepted_options(func: Callable[..., Any]) -> set[str] | None:
    """Keyword options of ``func`` besides seed and time_limit (``None``: anything goes)."""
    parameters = inspect.signature(func).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in ("seed", "time_limit")}


def check_run_settings(seed: int | None, time_limit: float | None) -> float | None:
    """Validate a seed and a time limit; return the limit (``inf`` becomes ``None``).

    A time limit of 0 is valid: exact methods then return their warm start
    with the bound they have, without building a model.
    """
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise InputError(f"seed: must be a non-negative integer, got {seed!r}")
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float):
        raise InputError(f"time limit: must be a number of seconds, got {time_limit!r}")
    if math.isnan(time_limit) or time_limit < 0:
        raise InputError(f"time limit: must be >= 0 seconds (0: warm start only), "
                         f"got {time_limit}")
    return None if math.isinf(time_limit) else float(time_limit)


def run_method(
    family: str,
    name: str,
    instance: Any,
    *,
    rng: RNGLike = None,
    seed: int | None = None,
    time_limit: float | None = None,
    **options: Any,
) -> Result:
    """Run one method and return a checked :class:`Result`.

    ``options`` are passed on to the method (e.g. ``objective="cost"`` for
    families with several objectives); options the method does not take,
    bad seeds and negative or NaN time limits raise :class:`InputError`
    before anything runs.

    ``rng`` is the method's seed (:mod:`hybridsched.seeding`): an integer
    (>= 0), ``None`` (seed 0) or a ``numpy.random.Generator``, from which
    one seed is drawn (the generator advances by that draw). ``seed`` is its
    older name (give one or the other). Methods receive an integer ``seed``,
    recorded as the result's :attr:`~Result.seed`.

    The objective and metrics always come from the family's ``evaluate``;
    with ``objective=...`` the result's ``objective`` is that metric (and the
    method's bound and status refer to it). A schedule that fails the
    family's checker is reported as an error rather than passed on.
    """
    fam = get_family(family)
    method = get_method(family, name)
    check_options(family, name, options)
    time_limit = check_run_settings(None, time_limit)
    seed = resolve_seed(rng, seed)
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
    except (InfeasibleInstanceError, MethodFailedError) as exc:
        produced = exc
    # Whatever the method made of a Ctrl-C (a solver's "interrupted" status, an
    # incumbent kept as "feasible", a failure), an interrupted run is never a result.
    interrupt.raise_if_requested()
    if isinstance(produced, InfeasibleInstanceError | MethodFailedError):
        status = (Status.INFEASIBLE if isinstance(produced, InfeasibleInstanceError)
                  else Status.NO_SOLUTION)
        return Result(name, family, status, runtime_s=time.perf_counter() - start,
                      seed=seed, message=str(produced))
    runtime, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if isinstance(produced, Result):
        result = produced
        result.method, result.family, result.seed = name, family, seed
        result.runtime_s, result.cpu_s = runtime, cpu
    else:
        result = Result(name, family, Status.FEASIBLE, solution=produced, runtime_s=runtime,
                        cpu_s=cpu, seed=seed)
    # The objective a method optimised when the caller named none (a malleable policy
    # picks its own score), so that objective, bound and gap measure the same thing.
    objective = options.get("objective") or result.metrics.get("optimised")
    if objective is not None:
        result.metrics.setdefault("optimised", objective)
    if result.status.has_solution:
        violations = fam.check(instance, result.solution)
        if violations:
            raise AssertionError(
                f"method {name!r} produced an invalid schedule: " + "; ".join(violations[:5])
            )
        evaluation = fam.evaluate(instance, result.solution)
        result.objective = (evaluation.objective if objective is None
                            else float(evaluation.metrics[objective]))
        result.metrics = {**evaluation.metrics, **result.metrics}
        if result.status is Status.OPTIMAL and result.bound is None:
            result.bound = result.objective
    return result
