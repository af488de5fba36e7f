"""Stopping HiGHS from Python: at a wall-clock deadline, and at Ctrl-C.

Both HiGHS drivers (Pyomo's APPSI, :mod:`~hybridsched.models.solvers.highs`, and
PuLP's, :mod:`~hybridsched.models.solvers.pulp_highs`) subscribe :func:`watch` to the
solver's interrupt callbacks, which HiGHS calls throughout the simplex, the
interior point method and the branch and bound. The solve then ends with
HiGHS's "interrupted" status, which the drivers read as the time limit when
the deadline has passed and as ``KeyboardInterrupt`` otherwise: nothing
else interrupts HiGHS, and an interrupted solve is never a result.
"""

from __future__ import annotations

import math
import time
from typing import Any

from hybridsched import interrupt


class Deadline:
    """A wall-clock deadline (``perf_counter`` seconds) that a driver resets per run."""

    def __init__(self) -> None:
        self.at = math.inf

    def set(self, seconds: float | None) -> None:
        """Expire ``seconds`` from now (never with ``None``)."""
        self.at = math.inf if seconds is None else time.perf_counter() + seconds

    def passed(self) -> bool:
        """Whether the deadline has passed."""
        return time.perf_counter() >= self.at


def watch(highs: Any, deadline: Deadline | None = None) -> None:
    """Interrupt ``highs`` (a ``highspy.Highs``) at Ctrl-C and past ``deadline``.

    HiGHS 1.15 checks its own time limit too rarely inside root cut rounds
    (3-10 s over a 4 s limit on a 75k-variable bot-sites model), hence the
    deadline here as well.
    """

    def on_interrupt(event: Any) -> None:
        if interrupt.requested() or (deadline is not None and deadline.passed()):
            event.interrupt()

    for callback in (highs.cbSimplexInterrupt, highs.cbIpmInterrupt, highs.cbMipInterrupt):
        callback.subscribe(on_interrupt)

