"""The ``gang`` family's methods as the registry calls them (online policies, simulated).

Declared by name in :mod:`hybridsched.gang.methods`; this module turns each
policy into a method ``method(instance, *, seed, time_limit, **readings)``.

Every online method takes its readings of the paper as keyword options
(issue 19), validated before anything runs (``check_options``): CPLMT's
(:mod:`hybridsched.heuristics.gang.cplmt`), each baseline's
(:mod:`hybridsched.heuristics.gang.baselines`) and, for all of them, when a
waiting job is dropped (``drop``, :mod:`hybridsched.heuristics.gang.simulation`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from hybridsched.budget import TimeBudget
from hybridsched.gang.checker import rank
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution
from hybridsched.heuristics.gang import cplmt as cplmt_module
from hybridsched.heuristics.gang.baselines import OPTIONS, baseline_readings, make_baseline
from hybridsched.heuristics.gang.cplmt import make_cplmt
from hybridsched.heuristics.gang.simulation import DROP_RULES, Policy, simulate
from hybridsched.readings import check_choice
from hybridsched.result import Result, Status

FAMILY = "gang"

#: A policy factory: keyword options (readings) -> policy.
Factory = Callable[..., Policy]


def _split(options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The drop rule (validated) and the policy's own options."""
    rest = dict(options)
    drop = check_choice("drop", rest.pop("drop", DROP_RULES[0]), DROP_RULES)
    return drop, rest


def _online(name: str, factory: Factory, defaults: dict[str, Any],
            check: Callable[[dict[str, Any]], Any]) -> Callable[..., Result]:
    def method(instance: Instance, *, seed: int | None = None,
               time_limit: float | None = None, **options: Any) -> Result:
        drop, rest = _split(options)
        solution, stats = simulate(instance, factory(**rest), drop=drop)
        return Result(name, FAMILY, Status.FEASIBLE, solution=solution,
                      metrics=stats.metrics())

    def check_options(options: dict[str, Any]) -> None:
        check(_split(options)[1])

    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [inspect.Parameter("instance", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=Instance),
                  inspect.Parameter("seed", keyword, default=None),
                  inspect.Parameter("time_limit", keyword, default=None),
                  inspect.Parameter("drop", keyword, default=DROP_RULES[0])]
    parameters += [inspect.Parameter(option, keyword, default=value)
                   for option, value in defaults.items()]
    method.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    method.__name__ = name
    method.__doc__ = f"The online policy {name!r}, simulated (readings as options)."
    method.check_options = check_options  # type: ignore[attr-defined]
    return method


def _baseline(name: str) -> tuple[Factory, dict[str, Any], Callable[[dict[str, Any]], Any]]:
    defaults = {option: values[0] for option, values in OPTIONS[name].items()}
    return ((lambda **o: make_baseline(name, **o)), defaults,
            (lambda o: baseline_readings(name, o)))


#: The online policies, each with its factory, default readings and check; the exact
#: method starts from the best of them (default readings).
HEURISTICS: dict[str, tuple[Factory, dict[str, Any], Callable[[dict[str, Any]], Any]]] = {
    "cplmt": (make_cplmt, cplmt_module.DEFAULTS, cplmt_module.readings),
    "fifo": _baseline("fifo"),
    "fair": _baseline("fair"),
    "asjs": _baseline("asjs"),
    "cmms": _baseline("cmms"),
}

#: Each policy as a method, by name (the targets of :mod:`hybridsched.gang.methods`).
POLICIES = {name: _online(name, *spec) for name, spec in HEURISTICS.items()}


def best_heuristic(instance: Instance) -> tuple[str, Solution]:
    """The heuristic schedule with the fewest unfinished jobs, then the most instructions."""
    runs = {name: simulate(instance, factory())[0]
            for name, (factory, *_) in HEURISTICS.items()}
    name = min(runs, key=lambda name: rank(instance, runs[name]))
    return name, runs[name]


def exact(instance: Instance, *, seed: int | None = None,
          time_limit: float | None = None, backend: str = "highs", threads: int = 1) -> Result:
    """The offline optimum (all jobs known), or the best schedule found with its bound.

    ``backend`` chooses the solver: HiGHS on the MILP (:mod:`hybridsched.models.gang.milp`)
    or CP-SAT on the interval model (:mod:`hybridsched.models.gang.cpsat`, ``threads``
    search workers); both start from the best heuristic schedule.
    """
    from hybridsched.gang.bounds import lower_bound

    budget = TimeBudget(time_limit)
    name, incumbent = best_heuristic(instance)
    remaining = budget.remaining() if budget.limited else None
    source = f"the best heuristic schedule ({name})"
    if backend == "cpsat":
        from hybridsched.models.gang import cpsat

        return cpsat.solve(instance, remaining, incumbent, lower_bound(instance), source,
                                threads=threads, seed=seed or 0)
    from hybridsched.models.gang.milp import solve

    return solve(instance, remaining, incumbent, lower_bound(instance), source=source)
