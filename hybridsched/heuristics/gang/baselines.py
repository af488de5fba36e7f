"""FIFO, Fair, ASJS and CMMS: the gang family's baselines.

Each is a policy of :mod:`hybridsched.heuristics.gang.simulation`.

FIFO (first in, first out; [6, 23] of the paper): jobs start in arrival
order, each on the first (lowest-index) ``parallelism`` usable VMs. *Reading*
``blocking`` = ``"strict"`` (default) | ``"skip"``: "FIFO (First in First
out)" and "FIFO does not take account of the details of the VMs and the
job": strictly, the head of the queue blocks the jobs behind it while it
waits (the drop rule removes it once its latest start has passed);
``"skip"`` lets a job behind a head that cannot start go first (backfilling,
which the name does not say).

Fair (the Hadoop fair scheduler, [22, 23]): the free VMs are shared fairly
among the waiting jobs. *Reading* (max-min fair sharing, gang tasks being
unsplittable): each round, every waiting job's share is the number of free
VMs divided by the number of waiting jobs; the jobs whose parallelism fits
within their share start (arrival order); when none fits, the job with the
smallest parallelism that can start gets its VMs (the one furthest below its
share relative to its demand); repeat until no job can start. VMs: the first
usable. (The paper's remark that Fair lends a job more VMs than its
parallelism does not fit identical gang tasks, which cannot be split.)
*Reading* ``vms`` = ``"first"`` (default) | ``"fastest"``: the paper does not
say which VMs Fair gives a job; the Hadoop fair scheduler shares slots,
not speeds, so by default the first usable ones, or the fastest usable.

ASJS (adaptive scoring job scheduling, [23]): every VM gets a score from its
computing power and bandwidth, ``0.5 speed / max speed + 0.5 bandwidth / max
bandwidth``. *Reading*: a job waits for the ``parallelism`` best-scored VMs
among those that meet its demands and are fast enough for its deadline,
busy or not, and starts when they are all free ("ASJS always tries to find
the best resource, so it always longs the waiting time"); jobs in arrival
order, none blocking another. *Reading* ``wait`` = ``"best"`` (default, the
paper's words above) | ``"free"``: the best-scored VMs among the free ones,
so a job never waits for a busy VM.

CMMS (cloud Min-min, [24]): among the waiting jobs that can start now,
the one with the smallest minimum completion time (on its ``parallelism``
fastest usable VMs) starts first, on those VMs; repeat until none can start.
Ties: earlier arrival, then job index; among VMs, faster first, then index.
*Reading* ``completion`` = ``"free-now"`` (default) | ``"ready-times"``: the
paper says only "CMMS always scheduling the fast resource from the computing
speed" and "the target of CMMS is to short the execution time", which the
default reads on the VMs free now. Min-min as [24] and grid schedulers
define it takes the completion time on every VM from when it is free
(``"ready-times"``): a job's completion is the ``parallelism``-th smallest
``max(ready, now) + time`` among the VMs that fit it and end it by its
deadline; the job of least completion takes those VMs (starting now if all
are free, else waiting for them, which holds them from the jobs after it in
this decision: their ready time becomes its completion); repeat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hybridsched.gang.checker import TIME_TOL
from hybridsched.heuristics.gang.simulation import DecisionState, Policy, lowest
from hybridsched.readings import check_choice, check_known

#: The reading options of each baseline: name -> values, the default first.
OPTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "fifo": {"blocking": ("strict", "skip")},
    "fair": {"vms": ("first", "fastest")},
    "asjs": {"wait": ("best", "free")},
    "cmms": {"completion": ("free-now", "ready-times")},
}


def baseline_readings(method: str, options: Mapping[str, Any]) -> dict[str, str]:
    """Validated options of baseline ``method``, defaults filled (one-line InputError)."""
    choices = OPTIONS[method]
    check_known(options, tuple(choices), f"method {method!r}")
    return {name: check_choice(name, options.get(name, values[0]), values)
            for name, values in choices.items()}


def make_baseline(method: str, **options: Any) -> Policy:
    """The policy of baseline ``method`` under the given readings."""
    r = baseline_readings(method, options)
    if method == "fifo":
        strict = r["blocking"] == "strict"
        return lambda state: fifo(state, strict=strict)
    if method == "fair":
        fastest = r["vms"] == "fastest"
        return lambda state: fair(state, fastest=fastest)
    if method == "asjs":
        wait = r["wait"] == "best"
        return lambda state: asjs(state, wait=wait)
    if r["completion"] == "ready-times":
        return cmms_ready
    return cmms


def _first(state: DecisionState, k: int, usable: np.ndarray, p: int, fastest: bool
           ) -> np.ndarray:
    """The first ``p`` usable VMs of row ``k`` (by index, or fastest first)."""
    vms = np.flatnonzero(usable[k])
    if fastest:
        vms = vms[np.lexsort((vms, state.task_time[state.waiting[k], vms]))]
    return np.sort(vms[:p])


def fifo(state: DecisionState, *, strict: bool = True) -> list[tuple[int, np.ndarray]]:
    """Start jobs in arrival order while the head of the queue can start (or skip it)."""
    # VM sets as the bits of integers: a decision looks at a few jobs of <= 120 VMs,
    # where one numpy call costs more than the whole decision in integers.
    parallelism = state.instance.parallelism
    taken = 0
    chosen = []
    for j, usable in state.usable_bits():  # in arrival order
        p = int(parallelism[j])
        vms = lowest(usable & ~taken, p)
        if len(vms) < p:
            if strict:
                break
            continue
        for v in vms:
            taken |= 1 << v
        chosen.append((j, np.array(vms, dtype=np.int64)))
    return chosen


def fair(state: DecisionState, *, fastest: bool = False) -> list[tuple[int, np.ndarray]]:
    """Max-min fair sharing of the free VMs among the waiting jobs (see above)."""
    if fastest:
        return fair_matrix(state)
    # The lowest-index VMs: the same decisions as fair_matrix(state, fastest=False),
    # on VM sets as the bits of integers (see fifo).
    parallelism = state.instance.parallelism
    rows = list(state.usable_bits())  # (job, usable VMs) in waiting order
    p = [int(parallelism[j]) for j, _ in rows]
    union = 0
    for _, bits in rows:
        union |= bits
    free = union.bit_count()
    open_jobs = [True] * len(rows)
    n_open = len(rows)
    taken = 0
    chosen = []
    while n_open:
        startable = [k for k, (_, bits) in enumerate(rows)
                     if open_jobs[k] and (bits & ~taken).bit_count() >= p[k]]
        if not startable:
            break
        share = free / n_open
        picks = [k for k in startable if p[k] <= share]
        if not picks:  # none fits its share: the smallest startable job (earliest on ties)
            picks = [min(startable, key=lambda k: (p[k], k))]
        for k in picks:
            available = rows[k][1] & ~taken
            if available.bit_count() < p[k]:
                continue
            vms = lowest(available, p[k])
            for v in vms:
                taken |= 1 << v
            open_jobs[k] = False
            n_open -= 1
            free -= len(vms)
            chosen.append((rows[k][0], np.array(vms, dtype=np.int64)))
    return chosen


def fair_matrix(state: DecisionState, fastest: bool = True) -> list[tuple[int, np.ndarray]]:
    """:func:`fair` on the usable matrix (each job takes its fastest VMs).

    With ``fastest=False`` (the lowest-index VMs) it is the reference the
    bit-set path of :func:`fair` is tested against.
    """
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
            if usable[k].sum() < p[k]:
                continue
            vms = _first(state, int(k), usable, int(p[k]), fastest)
            usable[:, vms] = False
            open_jobs[k] = False
            free -= len(vms)
            chosen.append((int(state.waiting[k]), vms))
    return chosen


def asjs(state: DecisionState, *, wait: bool = True) -> list[tuple[int, np.ndarray]]:
    """Each job waits for its best-scored VMs (computing power and bandwidth), or not."""
    memo = state.memo  # the ranking, and each VM set's best VMs, last one simulation
    if "asjs rank" not in memo:
        inst = state.instance
        score = (0.5 * inst.speed / inst.speed.max()
                 + 0.5 * inst.vm_bandwidth / inst.vm_bandwidth.max())
        memo["asjs rank"] = np.lexsort((np.arange(inst.n_vms), -score)).tolist()  # best first
        memo["asjs best"] = {}
    rank, best_of = memo["asjs rank"], memo["asjs best"]
    parallelism = state.instance.parallelism
    taken = 0
    chosen = []
    # Eligible: without the simulation's tolerance on the deadline (as it always was).
    eligible = state.eligible_bits(0.0) if wait else state.usable_bits()
    for (j, free), (_, can) in zip(state.usable_bits(), eligible, strict=True):
        p = int(parallelism[j])
        best = best_of.get((can, p))
        if best is None:  # the p best-scored VMs of the set (-1: it has fewer)
            best = best_of[can, p] = _best(rank, can, p)
        if best >= 0 and not best & ~free and not best & taken:
            taken |= best
            chosen.append((j, np.array(lowest(best, p), dtype=np.int64)))
    return chosen


def _best(rank: list[int], bits: int, p: int) -> int:
    """The first ``p`` VMs of ``rank`` set in ``bits``, as bits (-1 when fewer than ``p``)."""
    best, found = 0, 0
    for v in rank:
        if found == p:
            break
        if bits >> v & 1:
            best |= 1 << v
            found += 1
    return best if found == p else -1


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


def cmms_ready(state: DecisionState) -> list[tuple[int, np.ndarray]]:
    """Min-min on completion times from the VMs' ready times (``completion="ready-times"``)."""
    inst, waiting, now = state.instance, state.waiting, state.now
    ready = np.full(inst.n_vms, now) if state.ready is None else np.maximum(state.ready, now)
    p = inst.parallelism[waiting]
    times = state.task_time[waiting]
    due = inst.due[waiting, None]
    free = ready <= now
    open_jobs = np.ones(len(waiting), dtype=bool)
    chosen = []
    while open_jobs.any():
        completion = ready[None, :] + times
        ok = state.fits & (completion <= due + TIME_TOL) & open_jobs[:, None]
        masked = np.sort(np.where(ok, completion, np.inf), axis=1)
        mct = masked[np.arange(len(waiting)), np.minimum(p, masked.shape[1]) - 1]
        k = int(np.argmin(mct))
        if not np.isfinite(mct[k]):
            break
        row = np.where(ok[k], completion[k], np.inf)
        vms = np.lexsort((np.arange(len(row)), row))[: int(p[k])]
        open_jobs[k] = False
        if free[vms].all() and state.usable[k, vms].all():
            chosen.append((int(waiting[k]), np.sort(vms)))
        ready[vms] = mct[k]  # held by job k (running or waiting for them)
        free[vms] = False
    return chosen
