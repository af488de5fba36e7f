"""FIFO and CMMS, two of the gang family's baselines (policies of :mod:`hybridsched.gang.online`).

FIFO (first in, first out; [6, 23] of the paper): jobs start in arrival
order, each on the first (lowest-index) ``parallelism`` usable VMs. *Reading*:
strict FIFO, the head of the queue blocks the jobs behind it while it waits
(the drop rule removes it once its latest start has passed).

CMMS (cloud Min-min, [24]): among the waiting jobs that can start now,
the one with the smallest minimum completion time (on its ``parallelism``
fastest usable VMs) starts first, on those VMs; repeat until none can start.
Ties: earlier arrival, then job index; among VMs, faster first, then index.
"""

from __future__ import annotations

import numpy as np

from hybridsched.gang.online import DecisionState


def fifo(state: DecisionState) -> list[tuple[int, np.ndarray]]:
    """Start jobs in arrival order while the head of the queue can start."""
    usable = state.usable.copy()
    chosen = []
    for k, j in enumerate(state.waiting):  # waiting is in arrival order
        p = int(state.instance.parallelism[j])
        vms = np.flatnonzero(usable[k])
        if len(vms) < p:
            break
        vms = vms[:p]
        usable[:, vms] = False
        chosen.append((int(j), vms))
    return chosen


def cmms(state: DecisionState) -> list[tuple[int, np.ndarray]]:
    """Min-min: the job that can complete earliest starts first, on its fastest VMs."""
    usable = state.usable.copy()
    waiting = state.waiting
    p = state.instance.parallelism[waiting]
    times = state.task_time[waiting]
    open_jobs = np.ones(len(waiting), dtype=bool)
    chosen = []
    while open_jobs.any():
        # The p-th shortest usable task time of each job = its minimum completion time.
        masked = np.where(usable, times, np.inf)
        masked.sort(axis=1)
        mct = masked[np.arange(len(waiting)), np.minimum(p, masked.shape[1]) - 1]
        mct[~open_jobs | (usable.sum(axis=1) < p)] = np.inf
        k = int(np.argmin(mct))
        if not np.isfinite(mct[k]):
            break
        row = np.where(usable[k], times[k], np.inf)
        vms = np.lexsort((np.arange(len(row)), row))[: int(p[k])]
        usable[:, vms] = False
        open_jobs[k] = False
        chosen.append((int(waiting[k]), np.sort(vms)))
    return chosen
