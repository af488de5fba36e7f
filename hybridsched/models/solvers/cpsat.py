"""Solving OR-Tools CP-SAT models: the second, independent exact backend.

CP-SAT is optional (``pip install 'hybridsched[cpsat]'``); :func:`require_ortools`
turns its absence into a one-line input error. Each family writes its own
CP-SAT model from the problem's definition (not a translation of its MILP);
this module only runs a model and reads what the solver proved:

* **Time.** The limit is the *remaining* time of the whole method
  (:class:`~hybridsched.budget.TimeBudget`), given to CP-SAT as
  ``max_time_in_seconds`` and enforced here as well (the search is stopped
  at the deadline if CP-SAT's presolve overruns it).
* **Ctrl-C.** CP-SAT catches SIGINT itself by default and then returns an
  ordinary-looking result; that is switched off (``catch_sigint_signal``).
  The search runs in a worker thread while the main thread waits in short
  joins, so Python's SIGINT handler runs; it only records the interrupt
  (:func:`hybridsched.interrupt.deferred`), the search is stopped, and
  leaving the block raises ``KeyboardInterrupt``: an interrupted solve is
  never a result.
* **stdout.** The search log is off unless asked for; CP-SAT writes it to
  file descriptor 1, which the command line owns (:mod:`hybridsched.stdio`).
* **Threads.** One search worker by default, like HiGHS's one thread: a
  campaign runs one run per core, and one worker with a fixed seed repeats
  its search exactly. ``threads`` > 1 runs CP-SAT's portfolio (faster on
  hard instances, not repeatable run to run).
* **Integers.** CP-SAT takes integer data only. :func:`decimal_scale` finds
  the power of ten at which every number of an instance is an integer
  *exactly*; a family model scales by it, so its optimum is the real
  problem's. Where no such scale exists (below :data:`MAX_DECIMALS`), a
  model must round so that its feasible set contains every schedule the
  checker accepts (a relaxation) and may then claim only a bound, never
  ``optimal`` or ``infeasible``; see :class:`Scaling`.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from hybridsched import interrupt
from hybridsched.budget import TimeBudget
from hybridsched.errors import InputError
from hybridsched.progress import current_reporter, record_solver_statistics
from hybridsched.result import Status

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

#: The extra that installs the backend (named in the error when it is missing).
INSTALL_HINT = "pip install 'hybridsched[cpsat]'"

#: The most decimal places :func:`decimal_scale` tries before data counts as not decimal.
MAX_DECIMALS = 6

#: Largest magnitude CP-SAT variables and coefficients may take (its int64 domain with
#: room for sums): scaled data above it is refused instead of overflowing.
MAX_INTEGER = 2**53

#: Seconds between two checks of Ctrl-C and of the deadline while CP-SAT searches.
POLL_S = 0.05

#: Seconds between two progress reports to the active reporter.
REPORT_EVERY_S = 0.25


def require_ortools() -> Any:
    """Return ``ortools.sat.python.cp_model``, or raise a one-line :class:`InputError`."""
    try:
        from ortools.sat.python import cp_model
    except ImportError as error:  # the optional extra is not installed
        raise InputError(f"the cpsat backend needs OR-Tools ({error}): {INSTALL_HINT}") from None
    return cp_model


@dataclass(frozen=True)
class Scaling:
    """How a family's numbers became CP-SAT integers.

    ``factor`` multiplies every number of the instance; ``exact`` says
    whether they all became integers exactly (then the model's optimum is
    the real problem's); otherwise the model rounded in the direction that
    keeps every real schedule feasible, and only its bound may be claimed.
    """

    factor: int
    exact: bool

    def up(self, value: float) -> int:
        """``value`` scaled and rounded up (exact when the scaling is)."""
        return _checked(math.ceil(_scaled(value, self.factor) - 1e-9))

    def down(self, value: float) -> int:
        """``value`` scaled and rounded down (exact when the scaling is)."""
        return _checked(math.floor(_scaled(value, self.factor) + 1e-9))

    def real(self, value: float) -> float:
        """A scaled integer (or bound) back in the instance's units."""
        return float(value) / self.factor

    def describe(self) -> str:
        """One phrase for messages: how the data was scaled."""
        kind = "exactly" if self.exact else "rounded, bound only"
        return f"data scaled by {self.factor} ({kind})"


def decimal_scale(values: Any, *, max_decimals: int = MAX_DECIMALS,
                  largest: int = MAX_INTEGER) -> Scaling:
    """The smallest power of ten that makes every value an integer, if one exists.

    A value counts as having ``k`` decimals when its shortest decimal
    representation (``repr``) has ``k`` digits after the point: ``0.1`` has
    one, even though the binary float is not exactly one tenth. When some
    value needs more than ``max_decimals`` digits (or the scaled values would
    exceed ``largest``), the result is the largest factor that stays in range,
    marked inexact.
    """
    numbers = [float(v) for v in values]
    for value in numbers:
        if not math.isfinite(value):
            raise ValueError(f"cannot scale a non-finite number ({value}) to an integer")
    decimals = max((_decimals(v) for v in numbers), default=0)
    biggest = max((abs(v) for v in numbers), default=0.0)
    exact = decimals <= max_decimals
    factor = 10 ** min(decimals, max_decimals)
    while factor > 1 and biggest * factor > largest:
        factor //= 10
        exact = False
    if biggest * factor > largest:
        raise ValueError(f"numbers up to {biggest:g} are too large for CP-SAT's integers")
    return Scaling(factor, exact and _all_integral(numbers, factor))


def _decimals(value: float) -> int:
    text = repr(abs(value))
    if "e" in text or "E" in text:
        # Exponent notation: count the exact decimal digits of the float's shortest form.
        fraction = Fraction(text)
        digits = 0
        while fraction.denominator != 1 and digits <= MAX_DECIMALS + 1:
            fraction *= 10
            digits += 1
        return digits
    return len(text.partition(".")[2].rstrip("0"))


def _all_integral(numbers: list[float], factor: int) -> bool:
    return all(abs(_scaled(v, factor) - round(_scaled(v, factor))) <= 1e-6 for v in numbers)


def _scaled(value: float, factor: int) -> float:
    # Through the decimal text so that 0.1 * 10 is 1 exactly, not 1.0000000000000002.
    return float(Fraction(repr(float(value))) * factor)


def _checked(value: int) -> int:
    if abs(value) > MAX_INTEGER:
        raise ValueError(f"scaled value {value} is too large for CP-SAT")
    return int(value)


@dataclass(frozen=True)
class CpsatOutcome:
    """What CP-SAT reported, in the model's (integer) objective units.

    ``status`` is ``OPTIMAL``, ``INFEASIBLE`` or ``TIME_LIMIT`` (with or
    without an incumbent: ``has_incumbent``). ``solver`` holds the values
    of the incumbent (``solver.value(var)``) when there is one.
    """

    status: Status
    objective: float | None
    bound: float | None
    has_incumbent: bool
    solver: Any
    seconds: float
    message: str = ""


def solve_with_cpsat(model: cp_model.CpModel, *, time_limit: float | None = None,
                     budget: TimeBudget | None = None, threads: int = 1, seed: int = 0,
                     verbose: bool = False,
                     parameters: dict[str, Any] | None = None) -> CpsatOutcome:
    """Solve ``model`` (its own objective, or feasibility) with CP-SAT.

    Parameters
    ----------
    model:
        A ``CpModel``; a hint set on it (``add_hint``) is used as a start.
    time_limit:
        Seconds for this call; ``None`` for no limit.
    budget:
        The method's time budget: the search gets what remains of it (and
        at most ``time_limit``).
    threads:
        CP-SAT search workers (module docstring).
    seed:
        CP-SAT's random seed; CP-SAT takes a 32-bit signed one, so a larger
        seed is reduced modulo 2**31 (``--seed`` and drawn seeds go up to 2**63 - 1).
    verbose:
        Print CP-SAT's search log (to file descriptor 1).
    parameters:
        Further ``SatParameters`` fields, overriding the ones set here.

    Raises
    ------
    KeyboardInterrupt
        When Ctrl-C arrived during the search.
    RuntimeError
        When CP-SAT finds the model invalid (a bug in the model, not the data).
    """
    cp = require_ortools()
    limits = [t for t in (time_limit, budget.remaining() if budget else None) if t is not None]
    limit = min(limits) if limits else None
    solver = cp.CpSolver()
    params = solver.parameters
    params.catch_sigint_signal = False
    params.log_search_progress = verbose
    params.num_workers = max(1, int(threads))
    params.random_seed = int(seed) % 2**31  # CP-SAT refuses seeds past 32 bits (TypeError)
    if limit is not None:
        params.max_time_in_seconds = max(limit, 1e-3)
    for key, value in (parameters or {}).items():
        setattr(params, key, value)
    callback = _progress_callback(cp, current_reporter())
    started = time.perf_counter()
    status = _run(solver, model, callback, None if limit is None else started + limit)
    seconds = time.perf_counter() - started
    record_solver_statistics(solves=1, solver_s=seconds,
                             mip_nodes=max(0, int(solver.num_branches)))
    return _outcome(cp, solver, status, seconds)


def _run(solver: Any, model: Any, callback: Any, deadline: float | None) -> Any:
    """Search in a worker thread; stop it at Ctrl-C or the deadline."""
    box: dict[str, Any] = {}

    def search() -> None:
        try:
            box["status"] = solver.solve(model, callback)
        except BaseException as error:  # noqa: BLE001 (handed to the caller below)
            box["error"] = error

    with interrupt.deferred():
        worker = threading.Thread(target=search, name="cpsat-search", daemon=True)
        worker.start()
        stopped = False
        while worker.is_alive():
            worker.join(POLL_S)
            late = deadline is not None and time.perf_counter() > deadline + POLL_S
            if not stopped and (interrupt.requested() or late):
                solver.stop_search()
                stopped = True
    if "error" in box:
        raise box["error"]
    return box["status"]


def _outcome(cp: Any, solver: Any, status: Any, seconds: float) -> CpsatOutcome:
    if status == cp.MODEL_INVALID:
        raise RuntimeError("CP-SAT found the model invalid (a model bug)")
    if status == cp.OPTIMAL:
        value = _objective(solver)
        return CpsatOutcome(Status.OPTIMAL, value, value, True, solver, seconds)
    if status == cp.INFEASIBLE:
        return CpsatOutcome(Status.INFEASIBLE, None, None, False, solver, seconds)
    bound = _bound(solver)
    if status == cp.FEASIBLE:
        return CpsatOutcome(Status.TIME_LIMIT, _objective(solver), bound, True, solver, seconds,
                            "CP-SAT stopped at the time limit")
    return CpsatOutcome(Status.TIME_LIMIT, None, bound, False, solver, seconds,
                        "CP-SAT found no solution within the time limit")


def _objective(solver: Any) -> float | None:
    value = float(solver.objective_value)
    return value if math.isfinite(value) else None


def _bound(solver: Any) -> float | None:
    value = float(solver.best_objective_bound)
    return value if math.isfinite(value) and abs(value) < 1e30 else None


def _progress_callback(cp: Any, reporter: Any) -> Any:
    """A solution callback forwarding incumbents and bounds to ``reporter``, or ``None``."""
    if reporter is None:
        return None

    class Progress(cp.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.started = time.perf_counter()
            self.last = -math.inf

        def on_solution_callback(self) -> None:
            now = time.perf_counter()
            if now - self.last < REPORT_EVERY_S:
                return
            self.last = now
            reporter(now - self.started, float(self.objective_value),
                     float(self.best_objective_bound))

    return Progress()
