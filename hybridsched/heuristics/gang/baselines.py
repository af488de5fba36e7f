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

*Reading* ``deadline`` (every baseline) = ``"aware"`` (default) |
``"oblivious-kill"`` | ``"oblivious-complete"``: whether a baseline starts
only gangs that can end by their deadline. The paper never says how its
baselines treat deadlines, nor what becomes of a job that misses one. Its
model lists the deadline among a task's requirements of a resource, beside
memory and bandwidth ("HD, MEM, BW and DL are the hard disk, memory,
bandwidth and the deadline to the requirement of the resource of the task",
Eq. 4), which every baseline meets, and explains CMMS's unfinished jobs by a
shortage of resources able to meet that requirement ("for the coming jobs,
they may have not enough resources to ensure that they can be finished as
request"): the default reads the deadline as a requirement every baseline
meets (``"aware"``, a job starts only on VMs that end it by its deadline).
Against it: "FIFO does not take account of the details of the VMs and the
job", ASJS "also brings the wasting of the resource", Fair is the Hadoop
fair scheduler [22], which has no deadlines, and only CPLMT's flow is said
to check them ("Check(ALL) checks whether there are more jobs can be
finished before their deadlines", Fig. 3). Read so, a baseline starts a gang
whether or not it can end in time (on the free VMs that meet its demands)
and the job, counted in "UFJ: the number of unfinished jobs", either is
stopped at its deadline, which frees its VMs then (``"oblivious-kill"``), or
runs to completion, holding them past it (``"oblivious-complete"``); its
instructions are not in "SIN: the total number of instructions of finished
jobs". A waiting job still leaves the queue at its deadline. The simulation
applies the reading (:mod:`hybridsched.heuristics.gang.simulation`; the
policy built by :func:`make_baseline` carries it as its ``deadline``
attribute); CPLMT has no such option, its text being deadline-aware.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from hybridsched.gang.checker import TIME_TOL
from hybridsched.heuristics.gang.simulation import (
    DEADLINE_RULES,
    DecisionState,
    LiveState,
    Policy,
    from_bits,
    lowest,
)
from hybridsched.readings import check_choice, check_known

#: The reading options of each baseline: name -> values, the default first.
OPTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "fifo": {"blocking": ("strict", "skip"), "deadline": DEADLINE_RULES},
    "fair": {"vms": ("first", "fastest"), "deadline": DEADLINE_RULES},
    "asjs": {"wait": ("best", "free"), "deadline": DEADLINE_RULES},
    "cmms": {"completion": ("free-now", "ready-times"), "deadline": DEADLINE_RULES},
}


def baseline_readings(method: str, options: Mapping[str, Any]) -> dict[str, str]:
    """Validated options of baseline ``method``, defaults filled (one-line InputError)."""
    choices = OPTIONS[method]
    check_known(options, tuple(choices), f"method {method!r}")
    return {name: check_choice(name, options.get(name, values[0]), values)
            for name, values in choices.items()}


def make_baseline(method: str, **options: Any) -> Policy:
    """The policy of baseline ``method`` under the given readings.

    The ``deadline`` reading is the simulation's: the policy carries it as its
    ``deadline`` attribute, which :func:`~hybridsched.heuristics.gang.simulation.simulate`
    reads; the policy itself reads :attr:`DecisionState.aware`.
    """
    r = baseline_readings(method, options)
    chosen: Policy
    if method == "fifo":
        chosen = partial(fifo, strict=r["blocking"] == "strict")
    elif method == "fair":
        chosen = partial(fair, fastest=r["vms"] == "fastest")
    elif method == "asjs":
        chosen = partial(asjs, wait=r["wait"] == "best")
    else:
        chosen = cmms_ready if r["completion"] == "ready-times" else cmms

    def policy(state: DecisionState) -> list[tuple[int, np.ndarray]]:
        return chosen(state)

    policy.__name__ = method
    policy.deadline = r["deadline"]  # type: ignore[attr-defined]
    return policy


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
        available = usable & ~taken
        if available.bit_count() < p:
            if strict:
                break
            continue
        vms = lowest(available, p)
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
    # Only a job with enough usable VMs now can start in any round (they only shrink);
    # every waiting job counts in the shares.
    able = [k for k, (_, bits) in enumerate(rows) if bits.bit_count() >= p[k]]
    taken = 0
    chosen = []
    while n_open:
        startable = [k for k in able
                     if open_jobs[k] and (rows[k][1] & ~taken).bit_count() >= p[k]]
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
    """Each job waits for its best-scored VMs (computing power and bandwidth), or not.

    In a simulation (``wait="best"``) only the jobs whose best VMs may have
    become free since the last decision are looked at (:class:`_AsjsWatch`);
    :func:`asjs_scan` looks at every waiting job and is the reference.
    """
    if wait and isinstance(state, LiveState):
        watch = state.memo.get("asjs watch")
        if watch is None:
            watch = state.memo["asjs watch"] = _AsjsWatch(state)
        return watch.decide(state)
    return asjs_scan(state, wait=wait)


def _asjs_rank(state: DecisionState) -> tuple[list[int], dict[tuple[int, int], int]]:
    """The VMs best-scored first, and the cache of each VM set's best VMs (one simulation)."""
    memo = state.memo
    if "asjs rank" not in memo:
        inst = state.instance
        score = (0.5 * inst.speed / inst.speed.max()
                 + 0.5 * inst.vm_bandwidth / inst.vm_bandwidth.max())
        memo["asjs rank"] = np.lexsort((np.arange(inst.n_vms), -score)).tolist()  # best first
        memo["asjs best"] = {}
    return memo["asjs rank"], memo["asjs best"]


def asjs_scan(state: DecisionState, *, wait: bool = True) -> list[tuple[int, np.ndarray]]:
    """:func:`asjs` looking at every waiting job at every decision."""
    rank, best_of = _asjs_rank(state)
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


class _AsjsWatch:
    """ASJS (``wait="best"``) over one simulation, looking only at jobs that may start.

    A waiting job starts when its best VMs (the ``p`` best-scored among those
    that fit it and end its task by the deadline, without tolerance: ``can``)
    are all free and not taken by a job before it at this decision. Its best
    VMs lie within its usable ones, so that is: ``best`` is within the free
    VMs, less those taken. A job that did not start at a decision has a best
    VM busy after it (or fewer than ``p`` VMs in ``can``: it never starts, as
    ``can`` only shrinks). Between decisions VMs are only freed, so the job
    can start at a later decision only if a VM of its best set was freed in
    between, or its best set changed, or it is new. ``can`` loses its
    slowest VMs as time passes; the best of a smaller ``can`` that still holds
    the best VMs are the same, so the set changes only once its slowest VM
    is out of time (watched on a heap of times, a little early, then checked,
    as the simulation watches its counts). Those jobs are looked at, in queue
    order, with :func:`asjs_scan`'s test; the others would not start.
    """

    def __init__(self, state: LiveState) -> None:
        self.rank, self.best_of = _asjs_rank(state)
        self.best: dict[int, int] = {}  # waiting job -> its best VMs as bits (-1: none)
        self.vms: dict[int, list[int]] = {}  # waiting job -> its best VMs
        self.check: dict[int, float] = {}  # waiting job -> its threshold in the heap
        self.heap: list[tuple[float, int]] = []
        self.holding: list[set[int]] = [set() for _ in range(state.instance.n_vms)]
        self.free_after = 0  # the free VMs after the last decision's starts
        self.last_rank = -1  # queue rank of the last job seen

    def look(self, run: Any, j: int, now: float) -> bool:
        """Compute (again) job ``j``'s best VMs at ``now``; return whether they changed."""
        p, limit = run.parallelism[j], run.due_plain[j] + 0.0
        # Deadline-oblivious: every VM that fits, a set that never changes (no threshold).
        can = (run.fit_bits[j] & run.fast[run.in_time(j, now, limit, run.count[j])]
               if run.aware else run.fit_bits[j])
        best = self.best_of.get((can, p))
        if best is None:
            best = self.best_of[can, p] = _best(self.rank, can, p)
        if self.best.get(j) == best:
            return False
        self.forget(j)
        self.best[j] = best
        if best >= 0:
            vms = self.vms[j] = lowest(best, p)
            for v in vms:
                self.holding[v].add(j)
            if not run.aware:
                return True
            # When the slowest of them may fall out of time (a little early: checked).
            check = (limit - run.instructions[j] / min(run.speed[v] for v in vms)
                     - 1e-9 * (1.0 + abs(limit)))
            self.check[j] = check
            heapq.heappush(self.heap, (check, j))
        return True

    def forget(self, j: int) -> None:
        self.best.pop(j, None)
        self.check.pop(j, None)
        for v in self.vms.pop(j, ()):
            self.holding[v].discard(j)

    def decide(self, state: LiveState) -> list[tuple[int, np.ndarray]]:
        run, now, free, jobs = state.run, state.now, state.free, state.jobs
        waiting, queue_rank = run.waiting, run.queue_rank
        looked: set[int] = set()
        k = len(jobs)  # the jobs new since the last decision end the queue
        while k and queue_rank[jobs[k - 1]] > self.last_rank:
            k -= 1
        for j in jobs[k:]:
            self.look(run, j, now)
            looked.add(j)
        if k < len(jobs):
            self.last_rank = queue_rank[jobs[-1]]
        heap, again = self.heap, []
        while heap and heap[0][0] <= now:
            check, j = heapq.heappop(heap)
            if j in waiting and self.check.get(j) == check:
                if self.look(run, j, now):
                    looked.add(j)
                else:  # within the margin: checked again at the next decision
                    again.append((check, j))
        for entry in again:
            heapq.heappush(heap, entry)
        freed = free & ~self.free_after
        while freed:
            low = freed & -freed
            freed ^= low
            holders = self.holding[low.bit_length() - 1]
            for j in [j for j in holders if j not in waiting]:  # dropped since
                self.forget(j)
            looked.update(holders)
        taken = 0
        chosen = []
        best = self.best
        for j in sorted(looked, key=queue_rank.__getitem__):
            b = best.get(j, -1)
            if b >= 0 and not b & ~free and not b & taken:
                taken |= b
                chosen.append((j, np.array(self.vms[j], dtype=np.int64)))
                self.forget(j)
        self.free_after = free & ~taken
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
    """Min-min: the job that can complete earliest starts first, on its fastest VMs.

    In a simulation, on VM sets as bits (:func:`_cmms_bits`); :func:`cmms_matrix`
    is the reference.
    """
    if isinstance(state, LiveState):
        return _cmms_bits(state)
    return cmms_matrix(state)


def _cmms_bits(state: LiveState) -> list[tuple[int, np.ndarray]]:
    """:func:`cmms_matrix` on the jobs that can start, their usable VMs as bits.

    A job's ``p``-th shortest task time on a VM set is its instructions over
    the ``p``-th highest speed in the set (a task's time only grows as the
    speed falls), so its minimum completion time comes from the smallest
    prefix ``fast[c]`` of the VMs by speed (fastest first, then by index)
    that holds ``p`` of its usable VMs, and those ``p`` VMs are its fastest
    (ties: lower index). The matrix orders VMs by task time, then index: the
    same order unless two VMs of different speeds give the job the same
    time, which :func:`_time_ties` finds (those jobs take the matrix's way).
    """
    rows = state.startable_rows()
    if not rows:
        return []
    run = state.run
    fast, speed_desc, instructions, parallelism = (run.fast, run.speed_desc,
                                                   run.instructions, run.parallelism)
    ties = state.memo.get("time ties")
    if ties is None:
        ties = state.memo["time ties"] = _time_ties(state.instance)
    n = len(speed_desc)
    taken = 0
    chosen = []
    while rows:
        least, pick, prefix = math.inf, -1, 0
        for k, (j, bits) in enumerate(rows):
            bits &= ~taken
            p = parallelism[j]
            if bits.bit_count() < p:
                continue
            low, high = p, n  # the smallest c with p usable VMs among fast[c]
            while low < high:
                middle = (low + high) // 2
                if (bits & fast[middle]).bit_count() >= p:
                    high = middle
                else:
                    low = middle + 1
            completion = instructions[j] / speed_desc[low - 1]
            if completion < least:
                least, pick, prefix = completion, k, low
        if pick < 0:
            break
        j, bits = rows.pop(pick)
        bits &= ~taken
        p = parallelism[j]
        if j in ties:
            row = np.where(from_bits(bits, n), state.task_time[j], np.inf)
            vms = np.sort(np.lexsort((np.arange(n), row))[:p])
        else:
            vms = np.array(lowest(bits & fast[prefix], p), dtype=np.int64)
        for v in vms.tolist():
            taken |= 1 << v
        chosen.append((j, vms))
    return chosen


def _time_ties(instance: Any) -> set[int]:
    """The jobs that two VMs of different speeds give the same task time (by rounding)."""
    speeds = np.unique(instance.speed)[::-1]  # distinct, fastest first
    x = np.asarray(instance.instructions, dtype=float)
    if len(speeds) < 2 or not x.size:
        return set()
    # Times x / s and x / s' (s > s') can only round to one value when s and s' are
    # within a few ulps of each other, or when the times are subnormal.
    close = speeds[:-1] <= speeds[1:] * (1 + 1e-12)
    if not close.any() and float(x.min()) / float(speeds[0]) > 1e-250:
        return set()
    times = x[:, None] / speeds[None, :]
    return set(np.flatnonzero((times[:, 1:] == times[:, :-1]).any(axis=1)).tolist())


def cmms_matrix(state: DecisionState) -> list[tuple[int, np.ndarray]]:
    """:func:`cmms` on the usable matrix."""
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
        # Deadline-oblivious (not state.aware): every VM that fits, in time or not.
        ok = (state.fits & ((completion <= due + TIME_TOL) if state.aware else True)
              & open_jobs[:, None])
        masked = np.sort(np.where(ok, completion, np.inf), axis=1)
        mct = masked[np.arange(len(waiting)), np.minimum(p, masked.shape[1]) - 1]
        # Fewer than p such VMs (p above the VM count included): no p-th smallest, not mapped.
        mct[ok.sum(axis=1) < p] = np.inf
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
