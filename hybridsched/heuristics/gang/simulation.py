"""Online simulation of the ``gang`` family on the shared SimPy layer.

Decisions are made at events (arrivals, job ends). At each decision:

1. *Dropping* (the paper's metrics count unfinished jobs as not run). With
   ``drop="latest-start"`` (the default), a job is dropped at arrival when
   fewer than ``parallelism`` VMs meet its memory, bandwidth and disk demands
   (it could never run), and at any decision once fewer than ``parallelism``
   such VMs could finish a task by its deadline if started now, even all
   free (its latest start has passed). With ``drop="deadline"`` a job stays
   in the queue (seen by the policy, with no usable VM once too late) until
   the first decision at or after its deadline.
2. The policy chooses jobs to start now, each on ``parallelism`` free VMs
   that meet its demands and are fast enough to end by its deadline (the
   CPU requirement read through the deadline).

*Reading* ``drop``: the paper never says when a job leaves the queue. It
counts "UFJ: the number of unfinished jobs" and "Check(ALL) checks whether
there are more jobs can be finished before their deadlines" (Fig. 3, lost
in the text); a job that cannot finish by its deadline is unfinished either
way, so the reading only matters to a policy a waiting job can hold up
(strict FIFO's head of the queue). The default keeps the rule of the
checker's problem (a job is either run by its deadline or not run) and
drops a job as soon as it can no longer be run. Decisions happen at events
(arrivals, job ends) under both readings.

*Reading* ``deadline`` (the baselines' option, :mod:`hybridsched.heuristics.gang.baselines`
quotes the paper): ``"aware"`` (the default) is the rule above, a policy
starts only gangs that end by their deadline. Under ``"oblivious-kill"`` and
``"oblivious-complete"`` the VMs usable for a job are the free ones that meet
its memory, bandwidth and disk demands, fast enough or not: a policy may
start a gang that cannot end by its deadline. Such a job is *missed*
(:attr:`Solution.missed <hybridsched.gang.solution.Solution.missed>`), an
unfinished job that holds its VMs: ``"oblivious-kill"`` stops it at its
deadline, which frees its VMs then (an event, a decision: a later job may
start on them at that time); ``"oblivious-complete"`` runs it to its end.
Under both, a waiting job leaves the queue at the first decision at or after
its deadline (it could only be unfinished once started; killed at once under
``"oblivious-kill"``), and ``drop="latest-start"`` keeps its arrival rule (a
job fewer than ``parallelism`` VMs fit could never run); there is no latest
start without a deadline test.

The simulation checks every choice against these rules, so a policy can
only start valid gangs; the family checker re-checks the realised schedule.

*Times*: a decision happens at its event's own time, an arrival or the end
of a job as :meth:`_Run.start` computed it (``start + instructions /
speed`` of the slowest task), never at the time SimPy recomputes from a
delay (``now + (end - now)``, which may round an ulp away), and never before
the decision before it. So a job starts at or after its arrival and the real
ends of the tasks before it on its VMs (their job's end, the latest of
them): at the earliest start of the checker's real times
(:mod:`hybridsched.gang.checker`), or after it, when a VM it takes was freed
with a slower task of the same job; the checker then rounds the start down
to that earliest start (within ``TIME_TOL``) or keeps it (the job waited).
Either way its real start is at most the stated one, so its tasks really end
no later than the simulation's deadline test (``start + instructions /
speed <= due + TIME_TOL``, the checker's expressions) found.

*Speed*: the simulation keeps, per waiting job, how many of the fastest VMs
still end its task by its deadline (a count that only falls as time passes:
task times are ``instructions / speed``, so the VMs in time are always the
fastest ones), and the free VMs, as Python integers used as bit sets (bit
``v`` is VM ``v``). Drops, the check that some waiting job has enough usable
VMs (without which the policy could only start nothing, so it is not
called) and the check of every start are then a few integer operations per
job instead of numpy calls on arrays of at most a few thousand elements. The
policy sees the same :class:`DecisionState`; its numpy matrices are built
only when the policy reads them, and :meth:`DecisionState.usable_bits` and
:meth:`DecisionState.eligible_bits` give the same sets as bits (a list of
integers, one per waiting job). In a simulation the state is a
:class:`LiveState`, which also shows the simulation's own bits: ASJS, CMMS
and CPLMT then look only at the jobs that can start
(:meth:`LiveState.startable_rows`) or, for ASJS, whose best VMs may have
been freed, with the same decisions as their matrix code (issue 35; the
matrix code stays for plain states and is the reference of the tests).
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from hybridsched.gang.checker import TIME_TOL
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts
from hybridsched.sim import Simulation


def to_bits(mask: np.ndarray) -> int:
    """The indices where the 1-D boolean ``mask`` is true, as the bits of an integer."""
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


def rows_to_bits(mask: np.ndarray) -> list[int]:
    """:func:`to_bits` of every row of the 2-D boolean ``mask``."""
    packed = np.packbits(mask, axis=1, bitorder="little")
    width, data = packed.shape[1], packed.tobytes()
    return [int.from_bytes(data[i:i + width], "little") for i in range(0, len(data), width)]


def from_bits(bits: int, n: int) -> np.ndarray:
    """The boolean mask of length ``n`` whose true indices are the bits of ``bits``."""
    raw = np.frombuffer(bits.to_bytes((n + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n].astype(bool)


def lowest(bits: int, p: int) -> list[int]:
    """The ``p`` lowest indices set in ``bits``, ascending (fewer if it has fewer)."""
    found = []
    while bits and len(found) < p:
        low = bits & -bits
        found.append(low.bit_length() - 1)
        bits ^= low
    return found


@dataclass
class DecisionState:
    """What a policy sees at a decision: the waiting jobs and the usable VMs.

    ``usable[k, v]``: free VM ``v`` meets the demands of ``waiting[k]`` and
    ends its task by the job's deadline if started ``now``; ``fits[k, v]``: VM
    ``v`` (free or busy) meets its memory, bandwidth and disk demands;
    ``task_time`` is the instance's full job-by-VM matrix; ``ready[v]`` is
    when VM ``v`` is free (``now`` when it is). ``memo`` is a cache a policy
    may keep values of the instance in; it lasts one simulation. ``aware``:
    the simulation's ``deadline`` reading is ``"aware"``; when false (a
    deadline-oblivious reading) ``usable`` holds the free VMs that meet the
    job's demands, in time or not, and a policy must not test deadlines.
    """

    now: float
    waiting: np.ndarray
    usable: np.ndarray
    instance: Instance
    task_time: np.ndarray
    fits: np.ndarray
    ready: np.ndarray | None = None
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    aware: bool = True

    def usable_bits(self) -> Iterator[tuple[int, int]]:
        """Each waiting job (in queue order) with its row of ``usable`` as bits.

        Bit ``v`` of the integer is VM ``v``.
        """
        return zip(self.waiting.tolist(), rows_to_bits(self.usable), strict=True)

    def eligible_bits(self, tol: float = TIME_TOL) -> Iterator[tuple[int, int]]:
        """Each waiting job with the VMs that fit it and end its task by its deadline.

        Free or busy VMs, as bits; the deadline is extended by ``tol``, the
        task started now. Not :attr:`aware`: the VMs that fit it, whatever the deadline.
        """
        rows = self.waiting
        if not self.aware:
            return zip(rows.tolist(), rows_to_bits(self.fits), strict=True)
        in_time = self.now + self.task_time[rows] <= self.instance.due[rows, None] + tol
        return zip(rows.tolist(), rows_to_bits(self.fits & in_time), strict=True)


class LiveState(DecisionState):
    """A decision of :func:`simulate`: the numpy arrays are built when first read.

    Beside what every :class:`DecisionState` gives, a policy may read the
    simulation's own state (:attr:`run`, the free VMs :attr:`free` as bits,
    :meth:`startable_rows`): the fast paths of the policies do, and keep the
    matrix code for plain states.
    """

    def __init__(self, run: _Run, now: float, jobs: list[int]) -> None:
        # No dataclass __init__: task_time, waiting, usable, fits and ready are properties.
        self.now = now
        self.instance = run.instance
        self.memo = run.memo
        self.run, self.jobs = run, jobs  # the waiting jobs in queue order, as a list
        self.free = run.free_bits  # an int: later starts do not change it
        self.aware = run.aware

    @property
    def task_time(self) -> np.ndarray:  # type: ignore[override]
        """The instance's task times (the matrix is made when first read)."""
        return self.run.task_time

    @cached_property
    def waiting(self) -> np.ndarray:  # type: ignore[override]
        """The waiting jobs in queue order."""
        return np.array(self.jobs, dtype=np.int64)

    @cached_property
    def fits(self) -> np.ndarray:  # type: ignore[override]
        """The rows of the waiting jobs in the instance's ``fits``."""
        return self.run.fits[self.waiting]

    @cached_property
    def usable(self) -> np.ndarray:  # type: ignore[override]
        """The free VMs that fit each waiting job and end its task by its deadline (if aware)."""
        rows = self.waiting
        if not self.aware:
            return self.fits & from_bits(self.free, self.instance.n_vms)[None, :]
        in_time = self.now + self.task_time[rows] <= self.run.due[rows, None] + TIME_TOL
        return self.fits & in_time & from_bits(self.free, self.instance.n_vms)[None, :]

    @cached_property
    def ready(self) -> np.ndarray:  # type: ignore[override]
        """When each VM is free (``now`` when it is)."""
        free = from_bits(self.free, self.instance.n_vms)
        return np.where(free, self.now, np.array(self.run.busy_until))

    def usable_bits(self) -> Iterator[tuple[int, int]]:
        """As :meth:`DecisionState.usable_bits`, from the simulation's bits."""
        # A generator: strict FIFO reads only the head of a long queue.
        free, eligible = self.free, self.run.eligible
        return ((j, eligible[j] & free) for j in self.jobs)

    def startable_rows(self) -> list[tuple[int, int]]:
        """The waiting jobs with at least ``parallelism`` usable VMs, with those VMs as bits.

        In queue order. No other job can start at this decision (the usable
        VMs only shrink as the policy takes some), so a policy that starts
        only jobs with enough usable VMs may look at these alone. They are
        all in the simulation's set ``startable`` (:class:`_Run`), which may
        hold others too.
        """
        run = self.run
        free, eligible, parallelism = self.free, run.eligible, run.parallelism
        return [(j, bits) for j in sorted(run.startable, key=run.queue_rank.__getitem__)
                if (bits := eligible[j] & free).bit_count() >= parallelism[j]]

    def eligible_bits(self, tol: float = TIME_TOL) -> Iterator[tuple[int, int]]:
        """As :meth:`DecisionState.eligible_bits`, from the simulation's counts."""
        run = self.run
        if tol == TIME_TOL or not self.aware:  # oblivious: eligible are the fitting VMs
            return ((j, run.eligible[j]) for j in self.jobs)
        return ((j, run.fit_bits[j] & run.fast[run.in_time(
            j, self.now, run.due_plain[j] + tol,
            run.count[j] if tol < TIME_TOL else len(run.speed_desc))]) for j in self.jobs)


#: A policy: ``policy(state) -> [(job, vms), ...]`` to start now, in order.
Policy = Callable[[DecisionState], list[tuple[int, np.ndarray]]]


@dataclass
class OnlineStats:
    """Counters of one simulation."""

    decisions: int = 0
    events: int = 0
    wall_s: float = 0.0

    def metrics(self) -> dict[str, float]:
        """Metrics a method reports beside the checker's."""
        return {"decisions": self.decisions, "events": self.events,
                "events_per_second": self.events / self.wall_s if self.wall_s > 0 else 0.0}


#: When a waiting job is dropped (module docstring), the default first.
DROP_RULES = ("latest-start", "deadline")
#: Whether a policy may start a gang that cannot end by its deadline, and what happens to
#: it (module docstring), the default first.
DEADLINE_RULES = ("aware", "oblivious-kill", "oblivious-complete")


class _Run:
    """The state of one simulation: waiting jobs, free VMs (bits), the realised schedule.

    Work per event is kept to the jobs it can change: a job's count of VMs in
    time changes only once ``now`` passes a threshold (a heap of them, each a
    little early, then checked exactly), and whether a job has enough usable
    VMs (the set ``startable``) only when its count changes, VMs are taken
    (jobs in the set) or freed (jobs out of it). So at a decision every
    waiting job with enough usable VMs is in ``startable`` (jobs that lost
    VMs to starts since may be too): a review adds or removes its job, the
    end of a job adds the jobs it makes startable, a job joins the queue
    through a review, and nothing else makes a job startable.
    """

    def __init__(self, instance: Instance, policy: Policy, drop: str,
                 deadline: str = "aware") -> None:
        self.sim = Simulation()
        self.instance, self.policy, self.latest = instance, policy, drop == "latest-start"
        # Oblivious: the VMs in time are all the VMs (count stays n), a job is late at its
        # deadline only; kill: a started job that would end after it stops there.
        self.aware, self.kill = deadline == "aware", deadline == "oblivious-kill"
        self.clock = -math.inf  # time of the last decision (module docstring, *Times*)
        self.fits, self.due = instance.fits(), instance.due
        n = instance.n_vms
        speed = np.asarray(instance.speed, dtype=float)
        order = np.argsort(-speed, kind="stable").tolist()
        # Task times are instructions / speed: the VMs that end a task by a deadline
        # are always the fastest ones, fast[c] being the c fastest.
        self.speed_desc = speed[order].tolist()
        self.fast = [0]
        for v in order:
            self.fast.append(self.fast[-1] | 1 << v)
        self.fit_bits = rows_to_bits(self.fits)
        self.speed = speed.tolist()
        self.instructions = np.asarray(instance.instructions, dtype=float).tolist()
        self.parallelism = instance.parallelism.tolist()
        self.due_plain = self.due.tolist()
        self.arrival_time = np.asarray(instance.arrival, dtype=float).tolist()
        self.due_tol = (self.due + TIME_TOL).tolist()
        self.due_early = (self.due - TIME_TOL).tolist()
        arrival_order = np.argsort(instance.arrival, kind="stable")
        self.queue_rank = np.empty(instance.n_jobs, dtype=np.int64)
        self.queue_rank[arrival_order] = np.arange(instance.n_jobs)
        self.queue_rank = self.queue_rank.tolist()  # the order jobs join the queue
        self.count = [n] * instance.n_jobs  # of the fastest VMs, how many are in time
        self.eligible = [0] * instance.n_jobs  # fitting VMs in time (count's), as bits
        self.due_check = [0.0] * instance.n_jobs  # the job's threshold in the heap
        self.heap: list[tuple[float, int]] = []
        self.reviewed: list[tuple[float, int]] = []  # to push once the reviews are done
        self.free_bits = (1 << n) - 1
        self.busy_until = [0.0] * n
        self.waiting: dict[int, None] = {}  # in arrival order
        self.startable: set[int] = set()  # waiting jobs with enough usable VMs
        self.starts: dict[int, tuple[float, list[int]]] = {}
        self.dropped: dict[int, str] = {}
        self.missed: dict[int, str] = {}  # started jobs that miss their deadline
        self.stats = OnlineStats()
        self.memo: dict[Any, Any] = {}

    @cached_property
    def task_time(self) -> np.ndarray:
        """The instance's job-by-VM task times, made when a policy first reads them."""
        return self.instance.task_time()

    def in_time(self, j: int, now: float, limit: float, c: int) -> int:
        """How many of the fastest VMs end a task of ``j`` by ``limit`` (at most ``c``).

        The same float operations as ``now + task_time[j, v] <= limit``, a
        test true for the fastest VMs and false from some point on.
        """
        x, speed = self.instructions[j], self.speed_desc
        if not c or now + x / speed[c - 1] <= limit:
            return c
        low, high = 0, c - 1  # the first VM out of time is in [low, high]
        while low < high:
            middle = (low + high) // 2
            if now + x / speed[middle] <= limit:
                low = middle + 1
            else:
                high = middle
        return low

    def drop_job(self, j: int, reason: str, when: float) -> None:
        self.dropped[j] = reason
        self.sim.log.record(when, "drop", job=self.instance.job_ids[j], reason=reason)

    def review(self, j: int, now: float) -> bool:
        """Update job ``j``'s VMs in time at ``now``; return whether it is late (to drop)."""
        c = self.count[j]
        if (self.aware and c
                and now + self.instructions[j] / self.speed_desc[c - 1] > self.due_tol[j]):
            c = self.count[j] = self.in_time(j, now, self.due_tol[j], c)
        bits = self.eligible[j] = self.fit_bits[j] & self.fast[c]
        if ((self.latest and bits.bit_count() < self.parallelism[j])
                or ((not self.latest or not self.aware) and now >= self.due_early[j])):
            return True
        if (bits & self.free_bits).bit_count() >= self.parallelism[j]:
            self.startable.add(j)
        else:
            self.startable.discard(j)
        # When the next VM may fall out of time (a little early: the test is exact).
        limit = self.due_tol[j]
        check = (limit - self.instructions[j] / self.speed_desc[c - 1]
                 - 1e-9 * (1.0 + abs(limit))) if c and self.aware else math.inf
        if not self.latest or not self.aware:
            check = min(check, self.due_early[j])
        self.due_check[j] = check
        # Pushed after this decision's reviews: a job within the margin at ``now``
        # is checked again at the next event, not again and again now.
        self.reviewed.append((check, j))
        return False

    def decide(self, when: float) -> None:
        """A decision at the time of the event that calls it (not before the last one)."""
        now = self.clock = max(when, self.clock)
        self.stats.decisions += 1
        heap, waiting, due_check = self.heap, self.waiting, self.due_check
        late = []
        while heap and heap[0][0] <= now:  # only the jobs whose threshold has passed
            check, j = heapq.heappop(heap)
            if j in waiting and due_check[j] == check and self.review(j, now):
                late.append(j)
        for entry in self.reviewed:
            heapq.heappush(heap, entry)
        self.reviewed.clear()
        if late:  # dropped in queue order, as a scan of the queue would
            late.sort(key=self.queue_rank.__getitem__)
            reason = ("no longer enough VMs fast enough for its deadline"
                      if self.latest and self.aware else "its deadline has passed")
            for j in late:
                del waiting[j]
                self.startable.discard(j)
                self.drop_job(j, reason, now)
        # A policy can only start a job with enough usable VMs: without one, skip it.
        # (startable may hold jobs that lost VMs to starts since: forget them now.)
        startable, eligible, parallelism, free = (self.startable, self.eligible,
                                                  self.parallelism, self.free_bits)
        while startable:
            j = next(iter(startable))
            if (eligible[j] & free).bit_count() >= parallelism[j]:
                break
            startable.discard(j)
        else:
            return
        chosen = list(self.policy(LiveState(self, now, list(waiting))))
        for j, vms in chosen:
            self.start(now, int(j), np.asarray(vms, dtype=np.int64).tolist())

    def start(self, now: float, j: int, vms: list[int]) -> None:
        """Start waiting job ``j`` on ``vms`` now, once checked."""
        bits = 0
        for v in vms:
            bits |= 1 << v if 0 <= v < self.instance.n_vms else -1
        if (j not in self.waiting or bits < 0 or len(vms) != self.parallelism[j]
                or bits.bit_count() != len(vms) or bits & ~(self.eligible[j] & self.free_bits)):
            raise RuntimeError(f"policy started job {self.instance.job_ids[j]!r} on invalid "
                               "VMs")
        self.free_bits &= ~bits
        del self.waiting[j]
        self.startable.discard(j)  # the others are checked when next needed
        x, speed = self.instructions[j], self.speed
        end = now + max(x / speed[v] for v in vms)
        killed = False
        if not self.aware and end > self.due_tol[j]:  # oblivious: it misses its deadline
            killed = self.kill
            self.missed[j] = "killed" if killed else "late"
            if killed:  # stopped at its deadline (after now: it would be dropped otherwise)
                end = self.due_plain[j]
        for v in vms:
            self.busy_until[v] = end
        self.starts[j] = (now, vms)
        vm_ids = self.instance.vm_ids
        self.sim.log.record(now, "start", job=self.instance.job_ids[j],
                            vms=[vm_ids[v] for v in vms], end=end)
        self.sim.after(end - now, lambda: self.finish(j, bits, end, killed))

    def finish(self, j: int, bits: int, end: float, killed: bool = False) -> None:
        free = self.free_bits = self.free_bits | bits
        eligible, parallelism, startable = self.eligible, self.parallelism, self.startable
        for k in self.waiting:
            if k not in startable and (eligible[k] & free).bit_count() >= parallelism[k]:
                startable.add(k)
        self.sim.log.record(end, "kill" if killed else "end", job=self.instance.job_ids[j])
        self.decide(end)

    def arrive(self, batch: list[int]) -> None:
        # The batch's own arrival time (SimPy's clock may be an ulp away from it).
        now, ids = self.arrival_time[batch[0]], self.instance.job_ids
        for j in batch:
            self.sim.log.record(now, "arrival", job=ids[j])
            fitting = self.fit_bits[j].bit_count()
            if self.latest and fitting < self.parallelism[j]:
                self.drop_job(j, f"only {fitting} VMs meet its demands, it needs "
                              f"{int(self.parallelism[j])}", now)
            else:
                self.waiting[j] = None
                self.due_check[j] = -math.inf  # reviewed at the decision below
                heapq.heappush(self.heap, (-math.inf, j))
        self.decide(now)


def simulate(instance: Instance, policy: Policy, *, drop: str = "latest-start",
             deadline: str | None = None) -> tuple[Solution, OnlineStats]:
    """Run ``policy`` online on ``instance``; return the realised schedule and counters.

    ``deadline``: the reading of the module docstring; by default the policy's own
    (its ``deadline`` attribute, which
    :func:`~hybridsched.heuristics.gang.baselines.make_baseline` sets), else ``"aware"``.
    """
    if drop not in DROP_RULES:
        raise ValueError(f"drop: must be one of {', '.join(DROP_RULES)}, got {drop!r}")
    if deadline is None:
        deadline = getattr(policy, "deadline", DEADLINE_RULES[0])
    if deadline not in DEADLINE_RULES:
        raise ValueError(f"deadline: must be one of {', '.join(DEADLINE_RULES)}, "
                         f"got {deadline!r}")
    started_at = time.perf_counter()
    run = _Run(instance, policy, drop, deadline)
    run.sim.arrivals(instance.arrival, run.arrive)
    run.sim.run()
    for j in run.waiting:  # only under drop="deadline": queued past the last event
        run.drop_job(j, "never started", max(run.clock, float(run.sim.now)))
    run.stats.wall_s = time.perf_counter() - started_at
    run.stats.events = len(run.sim.log)
    return (from_starts(instance.n_jobs, run.starts, run.dropped, run.sim.log.records(),
                        run.missed), run.stats)
