"""Workflow bookkeeping shared by the bot-sites heuristics (GMO, greedy family)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def release_successors(
    done: int,
    succs: Sequence[Sequence[int]],
    preds: Sequence[Sequence[int]],
    waiting: np.ndarray,
    finish: np.ndarray,
    release: np.ndarray,
) -> list[int]:
    """Record that BoT ``done`` is complete; return the BoTs that become ready.

    ``waiting[b]`` counts the unfinished predecessors of ``b``; a BoT whose
    count drops to zero may start at ``release[b]``, the latest completion
    time ``finish`` of its predecessors.
    """
    ready = []
    for b in succs[done]:
        waiting[b] -= 1
        if waiting[b] == 0:
            release[b] = max(finish[a] for a in preds[b])
            ready.append(b)
    return ready
