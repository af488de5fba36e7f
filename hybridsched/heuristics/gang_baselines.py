"""FIFO, Fair, ASJS and CMMS: the gang family's baselines.

Each is a policy of :mod:`hybridsched.gang.online`.

FIFO (first in, first out; [6, 23] of the paper): jobs start in arrival
order, each on the first (lowest-index) ``parallelism`` usable VMs. *Reading*:
strict FIFO, the head of the queue blocks the jobs behind it while it waits
(the drop rule removes it once its latest start has passed).

Fair (the Hadoop fair scheduler, [22, 23]): the free VMs are shared fairly
among the waiting jobs. *Reading* (max-min fair sharing, gang tasks being
unsplittable): each round, every waiting job's share is the number of free
VMs divided by the number of waiting jobs; the jobs whose parallelism fits
within their share start (arrival order); when none fits, the job with the
smallest parallelism that can start gets its VMs (the one furthest below its
share relative to its demand); repeat until no job can start. VMs: the first
usable. (The paper's remark that Fair lends a job more VMs than its
parallelism does not fit identical gang tasks, which cannot be split.)

ASJS (adaptive scoring job scheduling, [23]): every VM gets a score from its
computing power and bandwidth, ``0.5 speed / max speed + 0.5 bandwidth / max
bandwidth``. *Reading*: a job waits for the ``parallelism`` best-scored VMs
among those that meet its demands and are fast enough for its deadline,
busy or not, and starts when they are all free ("ASJS always tries to find
the best resource, so it lengthens the waiting time"); jobs in arrival
order, none blocking another.

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


def fair(state: DecisionState) -> list[tuple[int, np.ndarray]]:
    """Max-min fair sharing of the free VMs among the waiting jobs (see above)."""
    usable = state.usable.copy()
    p = state.instance.parallelism[state.waiting]
    open_jobs = np.ones(len(state.waiting), dtype=bool)
    free = int(usable.any(axis=0).sum())
    chosen = []
    while open_jobs.any():
        startable = open_jobs & (usable.sum(axis=1) >= p)
        if not startable.any():
            break
        share = free / int(open_jobs.sum())
        picks = np.flatnonzero(startable & (p <= share))
        if not picks.size:  # none fits its share: the smallest startable job (earliest on ties)
            candidates = np.flatnonzero(startable)
            picks = candidates[[int(np.argmin(p[candidates]))]]
        for k in picks:
            vms = np.flatnonzero(usable[k])
            if len(vms) < p[k]:
                continue
            vms = vms[: int(p[k])]
            usable[:, vms] = False
            open_jobs[k] = False
            free -= len(vms)
            chosen.append((int(state.waiting[k]), vms))
    return chosen


def asjs(state: DecisionState) -> list[tuple[int, np.ndarray]]:
    """Each job waits for its best-scored VMs (computing power and bandwidth)."""
    inst = state.instance
    score = 0.5 * inst.speed / inst.speed.max() + 0.5 * inst.vm_bandwidth / inst.vm_bandwidth.max()
    in_time = state.now + state.task_time[state.waiting] <= inst.due[state.waiting, None]
    rank = np.lexsort((np.arange(inst.n_vms), -score))  # best score first, then index
    eligible = (state.fits & in_time)[:, rank]
    taken = np.zeros(inst.n_vms, dtype=bool)
    chosen = []
    for k, j in enumerate(state.waiting):
        p = int(inst.parallelism[j])
        best = rank[np.flatnonzero(eligible[k])[:p]]
        if len(best) == p and state.usable[k, best].all() and not taken[best].any():
            taken[best] = True
            chosen.append((int(j), np.sort(best)))
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
