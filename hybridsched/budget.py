"""A wall-clock budget that bounds a whole method: warm start, model building, solve, extraction.

A method's ``time_limit`` is a promise about the *whole* run, not about the
solver call alone: building a large Pyomo model can take longer than solving
it. Exact methods create one :class:`TimeBudget` at entry, check it while
they build, and hand what remains to the solver.

Example
-------
>>> budget = TimeBudget(5.0)
>>> budget.check("building the model")   # raises BudgetExpired once 5 s have passed
>>> budget.remaining() <= 5.0
True
"""

from __future__ import annotations

import math
import time


class BudgetExpired(Exception):  # noqa: N818 (it is a signal, not an error)
    """The time budget ran out; ``stage`` says what was running then."""

    def __init__(self, stage: str, seconds: float):
        super().__init__(f"time limit ({seconds:g} s) reached while {stage}")
        self.stage = stage
        self.seconds = seconds


class TimeBudget:
    """Seconds left for one method run, measured from construction.

    Parameters
    ----------
    seconds:
        The limit; ``None`` means unlimited and ``0`` means "warm start
        only" (no model is built). Negative or NaN limits are rejected.
    """

    def __init__(self, seconds: float | None):
        if seconds is not None and (math.isnan(seconds) or seconds < 0):
            raise ValueError(f"time limit must be >= 0 seconds, got {seconds}")
        self.seconds = None if seconds is None or math.isinf(seconds) else float(seconds)
        self._start = time.perf_counter()

    @property
    def limited(self) -> bool:
        """Whether there is a limit at all."""
        return self.seconds is not None

    @property
    def warm_start_only(self) -> bool:
        """Whether the limit is 0: return the warm start without building a model."""
        return self.seconds == 0

    def elapsed(self) -> float:
        """Seconds since the budget was created."""
        return time.perf_counter() - self._start

    def remaining(self) -> float | None:
        """Seconds left (never negative), or ``None`` when unlimited."""
        if self.seconds is None:
            return None
        return max(0.0, self.seconds - self.elapsed())

    def expired(self) -> bool:
        """Whether the limit has been reached."""
        return self.seconds is not None and self.elapsed() >= self.seconds

    def check(self, stage: str) -> None:
        """Raise :class:`BudgetExpired` naming ``stage`` when the limit is reached."""
        if self.expired():
            raise BudgetExpired(stage, float(self.seconds or 0.0))
