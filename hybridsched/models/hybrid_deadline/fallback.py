"""What an exact hybrid-deadline solve returns when its model cannot be built or solved.

A model over the memory budget, one whose building would outlast the time
limit (:mod:`~hybridsched.models.hybrid_deadline.sizing`), or a ``MemoryError``
anywhere in building or solving: the method returns the warm start (the
best heuristic schedule, already checked) with the best bound it can still
afford (:func:`fallback_bound`), and says why in one line. Both backends
and the ``exact`` adapter fall back through here, so the message and the
status are the same everywhere.
"""

from __future__ import annotations

import gc

from hybridsched.budget import TimeBudget
from hybridsched.hybrid_deadline.bounds import lower_bound
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.models.hybrid_deadline.claims import finish
from hybridsched.result import Result

#: Seconds an exact run gives the strong bound at most (a quarter of what is left when
#: less): 0.5 s at 100 tasks, about 10 s at 400 (issue 32's measurements).
STRONG_BOUND_SECONDS = 30.0


def fallback_bound(instance: Instance, budget: TimeBudget, share: float = 0.9) -> float:
    """The best lower bound affordable within ``share`` of what is left of ``budget``.

    The certified strong bound (:mod:`hybridsched.models.hybrid_deadline.bound`,
    the energetic LP, which obeys its time limit and the memory budget and
    falls back to the cheap bound itself), never below the family's cheap
    bound (:func:`~hybridsched.hybrid_deadline.bounds.lower_bound`); only the
    cheap bound when less than :data:`MIN_SECONDS` is left.
    """
    cheap = lower_bound(instance)
    remaining = budget.remaining()
    seconds = (STRONG_BOUND_SECONDS if remaining is None
               else min(STRONG_BOUND_SECONDS, share * remaining))
    if seconds < MIN_SECONDS:
        return cheap
    from hybridsched.models.hybrid_deadline.bound import strong_bound

    return max(cheap, strong_bound(instance, time_limit=seconds).value)


#: Below this many seconds the strong bound is not tried (its set-up alone takes longer).
MIN_SECONDS = 0.2


def fall_back(instance: Instance, start: Solution | None, budget: TimeBudget, reason: str, *,
              known_bound: float | None = None, timed_out: bool = True,
              collect: bool = False) -> Result:
    """The warm start with the best affordable bound, and ``reason`` as the one-line message.

    Parameters
    ----------
    instance, start:
        The instance and its warm start (checked by the caller; ``None``
        when the heuristics failed: the result has no schedule then).
    budget:
        The method's budget (what :func:`fallback_bound` may still use).
    reason:
        Why no model was built or solved (one line).
    known_bound:
        A bound already proven by the caller (kept when larger).
    timed_out:
        Status ``time_limit`` (the limit decided) rather than ``feasible``
        (the memory budget decided), unless the bound proves the start optimal.
    collect:
        Run the garbage collector first (after a ``MemoryError``: the model
        given up on may still hold memory through reference cycles; a full
        collection takes about 0.1 s per 100,000 tasks, so not otherwise).
    """
    if collect:
        gc.collect()
    cheap = lower_bound(instance)
    # A known bound above the cheap one is the strong bound already computed by the
    # caller: not computed twice.
    bound = (known_bound if known_bound is not None and known_bound > cheap
             else max(fallback_bound(instance, budget), known_bound or 0.0))
    kept = "warm start returned" if start is not None else "no warm start (the heuristics failed)"
    return finish(instance, start, bound, timed_out,
                  f"{reason}; {kept}, with the best bound available")
