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
    """The heuristic schedule with the fewest unfinished jobs, then the most instructions.

    All five policies always run, whatever the time limit (the exact method promises
    never to return worse than their best): each takes under half a second on
    10,000 jobs (table 1 and 2, measured), so the time limit holds at paper scale.
    """
    runs = {name: simulate(instance, factory())[0]
            for name, (factory, *_) in HEURISTICS.items()}
    name = min(runs, key=lambda name: rank(instance, runs[name]))
    return name, runs[name]


#: Bytes per element of the exact models, measured once as the peak RSS growth of
#: ``exact`` with a 20 s limit: the MILP on medium-80-s1 grew 641 MB for about 95,000
#: ordering binaries and assignment columns (PuLP objects and HiGHS's copy: about
#: 7 KB each); CP-SAT grew about 100 MB on medium-80-s1 (4,240 optional intervals) and
#: on large-200-s1 (10,000), nearly all of it OR-Tools itself (118 MB for an empty model).
#: Margins added to both.
MILP_BYTES_PER_ELEMENT = 10_000
CPSAT_BASE_BYTES = 150 * 2**20
CPSAT_BYTES_PER_INTERVAL = 5_000


def exact_model_bytes(instance: Instance, backend: str) -> float:
    """The estimated size of the exact model of ``backend`` for ``instance``.

    The MILP has an ordering binary and two rows per pair of jobs and VM they
    may share; CP-SAT an optional interval per job and VM it may use, and a
    no-overlap term per VM for each.
    """
    from hybridsched.gang.checker import could_finish

    ok = could_finish(instance)
    if backend == "cpsat":
        return CPSAT_BASE_BYTES + float(ok.sum()) * CPSAT_BYTES_PER_INTERVAL
    from hybridsched.models.gang.milp import order_binaries

    return float(order_binaries(instance) + ok.sum()) * MILP_BYTES_PER_ELEMENT


def _fallback(instance: Instance, incumbent: Solution, source: str, budget: TimeBudget,
              reason: str, seed: int | None) -> Result:
    """The warm start with the best bound the time left allows, ``reason`` first in the message."""
    from hybridsched.bound_proof import bounded_result

    unfinished = rank(instance, incumbent)[0]
    certificate = _strong_or_cheap(instance, budget, seed, unfinished)
    result = bounded_result(FAMILY, incumbent, unfinished, certificate,
                            f"{reason}; returned {source}; bound: {certificate.method}",
                            method="exact")
    if result.status is not Status.OPTIMAL and budget.expired():
        result.status = Status.TIME_LIMIT
    return result


def _strong_or_cheap(instance: Instance, budget: TimeBudget, seed: int | None,
                     upper: float | None = None) -> Any:
    """The strong bound in the time left (its own memory guard), else the cheap one."""
    from hybridsched.models.gang.bound import cheap_certificate, strong_bound

    if budget.expired():
        return cheap_certificate(instance, "no time left")
    try:
        return strong_bound(instance, time_limit=budget.remaining(), seed=seed or 0,
                            upper=upper)
    except MemoryError:
        return cheap_certificate(instance, "out of memory")


def exact(instance: Instance, *, seed: int | None = None,
          time_limit: float | None = None, backend: str = "highs", threads: int = 1) -> Result:
    """The offline optimum (all jobs known), or the best schedule found with its bound.

    ``backend`` chooses the solver: HiGHS on the MILP (:mod:`hybridsched.models.gang.milp`)
    or CP-SAT on the interval model (:mod:`hybridsched.models.gang.cpsat`, ``threads``
    search workers); both start from the best heuristic schedule. The model's size is
    estimated first (:func:`exact_model_bytes`): when it exceeds the memory budget
    (:mod:`hybridsched.memory`), or building it runs out of memory, the warm start comes
    back with the strong bound (:mod:`hybridsched.models.gang.bound`) in the time left.
    """
    from hybridsched.gang.bounds import lower_bound
    from hybridsched.memory import ModelTooLarge, require

    budget = TimeBudget(time_limit)
    name, incumbent = best_heuristic(instance)
    remaining = budget.remaining() if budget.limited else None
    source = f"the best heuristic schedule ({name})"
    solver = "CP-SAT" if backend == "cpsat" else "MILP"
    try:
        if not budget.warm_start_only and lower_bound(instance) < rank(instance, incumbent)[0]:
            require(f"the gang {solver} model", exact_model_bytes(instance, backend))
        if backend == "cpsat":
            from hybridsched.models.gang import cpsat

            return cpsat.solve(instance, remaining, incumbent, lower_bound(instance), source,
                               threads=threads, seed=seed or 0)
        from hybridsched.models.gang.milp import solve

        return solve(instance, remaining, incumbent, lower_bound(instance), source=source)
    except ModelTooLarge as error:
        return _fallback(instance, incumbent, source, budget, str(error), seed)
    except MemoryError:
        return _fallback(instance, incumbent, source, budget,
                         f"the gang {solver} model ran out of memory", seed)


def bound(instance: Instance, *, seed: int | None = None,
          time_limit: float | None = None) -> Result:
    """The exact method's warm start with the strong bound (registered as ``bound``).

    The schedule is the best heuristic's (:func:`best_heuristic`); the bound is
    :func:`hybridsched.models.gang.bound.strong_bound` in the time left (its own
    memory guard). ``optimal`` only when the schedule's unfinished jobs meet it.
    """
    import time

    from hybridsched.bound_proof import bounded_result
    from hybridsched.gang.checker import evaluate

    wall, cpu = time.perf_counter(), time.process_time()
    budget = TimeBudget(time_limit)
    name, incumbent = best_heuristic(instance)
    unfinished = rank(instance, incumbent)[0]
    certificate = _strong_or_cheap(instance, budget, seed, unfinished)
    result = bounded_result(FAMILY, incumbent, unfinished, certificate,
                            f"schedule from {name}; bound: {certificate.method}")
    result.runtime_s = time.perf_counter() - wall
    result.cpu_s = time.process_time() - cpu
    result.metrics.update(evaluate(instance, incumbent).metrics)
    return result


#: Share of the ``grid`` method's time limit given to the bound before the grid MIP.
BOUND_SHARE = 0.25


def grid(instance: Instance, *, seed: int | None = None,
         time_limit: float | None = None) -> Result:
    """Grid-start MIP schedule from the best heuristic, with the strong bound (``grid``).

    The bound (:func:`hybridsched.models.gang.bound.strong_bound`, a quarter of the
    time) comes first; then, unless the best heuristic schedule already meets it, the
    grid MIP (:mod:`hybridsched.models.gang.grid_schedule`) in the time left. Returns
    the better checked schedule; ``optimal`` only when it meets the bound.
    """
    import time

    from hybridsched.bound_proof import bounded_result
    from hybridsched.gang.checker import evaluate
    from hybridsched.memory import ModelTooLarge
    from hybridsched.models.gang import grid_schedule

    wall, cpu = time.perf_counter(), time.process_time()
    budget = TimeBudget(time_limit)
    name, best = best_heuristic(instance)
    source = f"the best heuristic schedule ({name})"
    unfinished = rank(instance, best)[0]
    share = None if not budget.limited else BOUND_SHARE * (budget.remaining() or 0.0)
    certificate = _strong_or_cheap(instance, TimeBudget(share), seed, unfinished)
    notes = []
    if certificate.value < unfinished and not budget.expired():
        try:
            found, what = grid_schedule.solve(instance, budget, seed or 0)
        except ModelTooLarge as error:
            found, what = None, str(error)
        except MemoryError:
            found, what = None, "grid MIP: out of memory"
        notes.append(what)
        if grid_schedule.better(instance, best, found):
            best, source = found, "the grid MIP's schedule"
    result = bounded_result(FAMILY, best, rank(instance, best)[0], certificate,
                            "; ".join([*notes, f"returned {source}",
                                       f"bound: {certificate.method}"]), method="grid")
    if result.status is Status.FEASIBLE and budget.expired():
        result.status = Status.TIME_LIMIT
    result.runtime_s = time.perf_counter() - wall
    result.cpu_s = time.process_time() - cpu
    result.metrics.update(evaluate(instance, best).metrics)
    return result
