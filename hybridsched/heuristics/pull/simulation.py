"""Online simulation of the ``pull`` family on the shared SimPy layer (Algorithm 3).

Events, as in the paper's simulator:

``HJ``    a host joins (the start of one of its windows) and pulls a task;
``HLE``   a host leaves (the end of its window) and loses its running task;
``WKUA``  work units arrive; each gets a first task (replica) in the queue;
``SCH``   the scheduler sends a task to the pulling host;
``RET``   the host returns the result (or, for a *never* result, gives up)
          and pulls again;
``LOST``  the task a leaving host was running is lost.

**Replicas (XtremWeb).** The paper: "When a task t_{s,r} is scheduled, the
scheduler inserts into T a new replica, t_{s,r+1}. This r + 1 replica will
have a lower priority for scheduling whilst the scheduler still waits to
receive a result for the t_{s,r} task" (section 2.2). Scheduling a task of a
work unit thus queues a new replica of it, until a correct result arrives.
What "lower priority" orders is a reading (``replicas``):

``tiered`` (the default, the most literal: each replica ranks below the
    one it waits for, so ``r + 2`` below ``r + 1``): the tasks a pulling host
    is served from are those of the incomplete units with the fewest tasks
    in flight;
``two-level``: replicas of units still waiting for a result rank below
    the units with nothing in flight, but among themselves alike, however
    many of their tasks are in flight;
``pooled``: no priority at all, every incomplete unit's pending task alike
    (a policy drawing "a task" from the BoT T as the text describes it, one
    pending task per incomplete unit, whatever is in flight).

A task that fails (lost when its host leaves, never returned, or wrong)
stops being in flight, so its unit climbs back to the tier it had before.
A replica whose unit completes meanwhile runs on; its result is discarded
(counted in the instructions executed, not in the useful ones).

**Creation order.** A unit's pending task was created when the unit arrived,
or when its last task was scheduled (the new replica, inserted into the BoT
after every task already there); the simulation numbers the tasks in the
order they are created, and keeps each unit's pending task's number in
:attr:`PullPolicy.created` for policies that serve the oldest task first.

**Results.** Each task draws, from its host's own seeded stream (so every
method meets the same sequence of behaviours on a host): never returned
(probability ``never``; the host works for the ECT and returns nothing),
delayed by a factor uniform in ``(1, max_delay]`` (probability ``delayed``),
or in time; and wrong with the host's ``error`` probability
(:mod:`hybridsched.pull.behaviour` defines the draws, which the checker replays). Results are
verified on return: a wrong one lowers the host's reputation
(:mod:`hybridsched.pull.reputation`) and the unit stays queued.

A host whose task would end after its window ends loses it when it leaves
(one due by the window's end plus the checker's ``TIME_TOL`` returns, the
rule's one threshold; if the host's next window has started by then, it
pulls once, after that return). A host pulls only more than ``TIME_TOL``
before it leaves (the rule's threshold for a start).

**Times are real times** (:mod:`hybridsched.pull.checker`): every time
recorded (tasks and event log) is a data value (a window's start or end, an
arrival) or a task's start plus its ``ECT x delay``, computed as the checker
computes it, never SimPy's clock (which adds and subtracts along the way and
may drift by a rounding): so a start is exactly the task's ready time and an
end exactly its real end.

Idle hosts (nothing queued) pull again when new work units arrive. The
simulation stops when every unit has a correct result, or when nothing is
left to happen (units then stay incomplete); replicas still running when
the last unit completes are recorded as ``cancelled``.

**Limits (so that every schedule written is one the loader accepts).** The
run's horizon is :data:`~hybridsched.io.limits.MAX_PULL_SECONDS` (10^9 s,
the latest time a pull file may hold): a result due later is never awaited
(its task runs on until its host leaves, or is cancelled). A run stops after
:data:`~hybridsched.io.limits.MAX_PULL_TASKS` tasks, the most a schedule
file may hold: hosts that keep failing could otherwise pull forever. Both
leave units incomplete (:attr:`OnlineStats.stopped` says which limit).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from hybridsched.errors import InputError
from hybridsched.io.limits import MAX_PULL_SECONDS, MAX_PULL_TASKS
from hybridsched.pull.behaviour import Draws
from hybridsched.pull.instance import Instance
from hybridsched.pull.reputation import Reputation
from hybridsched.pull.solution import (
    CANCELLED,
    CORRECT,
    LOST,
    NEVER,
    Solution,
    from_records,
)
from hybridsched.pull.timeline import TIME_TOL
from hybridsched.sim import Simulation


class Decisions:
    """Counts and wall time of scheduling decisions."""

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0


#: Readings of the replicas' "lower priority" (module doc, "Replicas").
REPLICAS = ("tiered", "two-level", "pooled")


def check_replicas(replicas: object) -> None:
    """One-line :class:`InputError` for an unknown reading of the replicas' priority."""
    if replicas not in REPLICAS:
        raise InputError(f"option --replicas: unknown reading of the replicas' priority "
                         f"{replicas!r} (choose from: {', '.join(REPLICAS)})")


def candidates_of(queued: np.ndarray, inflight: np.ndarray, replicas: str = "tiered"
                  ) -> np.ndarray:
    """The units whose pending task a pulling host is served from (module doc, "Replicas").

    ``queued``: incomplete units that have arrived (at least one);
    ``inflight``: tasks of each unit running.
    """
    if replicas == "tiered":
        return np.flatnonzero(queued & (inflight == inflight[queued].min()))
    if replicas == "pooled":
        return np.flatnonzero(queued)
    fresh = queued & (inflight == 0)
    return np.flatnonzero(fresh if fresh.any() else queued)


class PullPolicy:
    """A pull policy: :meth:`choose` a queued unit for the pulling host; calls are timed."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.decisions = Decisions()
        #: Creation order of each unit's pending task, kept by :func:`simulate` during a run.
        self.created: np.ndarray | None = None

    def choose(self, candidates: np.ndarray, noi: np.ndarray, cpu: float, price: float,
               noi_max: float, reputation: float) -> int:
        """The unit (from ``candidates``) to send to the pulling host."""
        raise NotImplementedError

    def __call__(self, candidates: np.ndarray, noi: np.ndarray, cpu: float, price: float,
                 noi_max: float, reputation: float) -> int:
        """:meth:`choose`, counted and timed in :attr:`decisions`."""
        started = time.perf_counter()
        unit = self.choose(candidates, noi, cpu, price, noi_max, reputation)
        self.decisions.count += 1
        self.decisions.seconds += time.perf_counter() - started
        return unit


@dataclass
class OnlineStats:
    """Counters of one simulation."""

    decisions: int = 0
    decision_s: float = 0.0
    events: int = 0
    wall_s: float = 0.0
    #: Why the run stopped before every unit completed ("" when it did not).
    stopped: str = ""

    def metrics(self) -> dict[str, float]:
        """Metrics a method reports beside the checker's."""
        return {"decisions": self.decisions,
                "decisions_per_second": self.decisions / self.decision_s
                if self.decision_s > 0 else 0.0,
                "events": self.events,
                "events_per_second": self.events / self.wall_s if self.wall_s > 0 else 0.0}


@dataclass
class _Running:
    unit: int
    start: float
    end: float
    delay: float
    outcome: int  # what happens if the host stays until ``end``
    awaited: bool  # its return is scheduled (it ends by its window's end + TIME_TOL)


def simulate(instance: Instance, policy: PullPolicy, *, horizon: float = MAX_PULL_SECONDS,
             max_tasks: int = MAX_PULL_TASKS, replicas: str = "tiered"
             ) -> tuple[Solution, OnlineStats]:
    """Run ``policy`` on ``instance``; return the realised schedule and counters.

    ``horizon`` and ``max_tasks`` are the limits of the module docstring;
    ``replicas`` the reading of the replicas' priority (module doc, "Replicas").
    """
    check_replicas(replicas)
    started_at = time.perf_counter()
    sim = Simulation()
    log = sim.log
    n, noi, cpu, price = instance.n_units, instance.noi, instance.cpu, instance.price
    noi_max = float(noi.max()) if n else 1.0
    queued = np.zeros(n, dtype=bool)  # arrived and not completed
    inflight = np.zeros(n, dtype=np.int64)
    created = policy.created = np.zeros(n, dtype=np.int64)  # module doc, "Creation order"
    tasks_created = [0]
    remaining = [n]
    available = np.zeros(instance.n_hosts, dtype=bool)
    window = np.full(instance.n_hosts, -1)
    running: dict[int, _Running] = {}
    idle: set[int] = set()
    draws = Draws(instance)
    reputation = Reputation(instance.n_hosts)
    records: list[tuple[int, int, float, float, float, int]] = []
    done = sim.env.event()  # every unit complete, or a limit reached
    stopped = [""]
    run_end = [0.0]  # the real time of the last completion
    units, hosts = instance.unit_ids, instance.host_ids

    def window_end(h: int) -> float:
        return instance.windows[h][window[h]][1]

    def pull(h: int, now: float) -> None:
        """Host ``h`` pulls at the real time ``now`` (its ready time).

        Not within ``TIME_TOL`` of its leaving (the checker's rule: a task starts
        more than ``TIME_TOL`` before its window ends).
        """
        if not remaining[0] or now >= window_end(h) - TIME_TOL:
            return
        if not queued.any():
            idle.add(h)
            return
        if policy.decisions.count >= max_tasks:
            if not done.triggered:
                stopped[0] = f"the run stopped after {max_tasks:,} tasks"
                done.succeed()
            return
        candidates = candidates_of(queued, inflight, replicas)
        u = policy(candidates, noi, float(cpu[h]), float(price[h]), noi_max, reputation.of(h))
        inflight[u] += 1
        created[u] = tasks_created[0]  # the new replica t_{u, r+1}
        tasks_created[0] += 1
        delay, outcome = draws.next(h)
        end = now + float(noi[u] / cpu[h]) * delay
        awaited = end <= window_end(h) + TIME_TOL and end <= horizon
        running[h] = _Running(u, now, end, delay, outcome, awaited)
        log.record(now, "SCH", unit=units[u], host=hosts[h], replica=int(inflight[u]))
        if awaited:
            sim.after(max(0.0, end - float(sim.now)), lambda: finish(h))

    def finish(h: int) -> None:
        task = running.pop(h)
        now = task.end
        u = task.unit
        inflight[u] -= 1
        records.append((u, h, task.start, now, task.delay, task.outcome))
        if task.outcome == NEVER:
            log.record(now, "RET", unit=units[u], host=hosts[h], result="none")
        else:
            correct = task.outcome == CORRECT
            reputation.record(h, noi[u], correct)
            log.record(now, "RET", unit=units[u], host=hosts[h],
                       result="correct" if correct else "wrong")
            if correct and queued[u]:
                queued[u] = False
                remaining[0] -= 1
                if not remaining[0]:
                    run_end[0] = now
                    done.succeed()
                    return
        if available[h]:
            pull(h, now)

    def join(h: int) -> None:
        window[h] += 1
        available[h] = True
        now = float(instance.windows[h][window[h]][0])
        log.record(now, "HJ", host=hosts[h])
        # A window that starts when (or just after) the previous one ends can find the host
        # still holding a task that returns then: it pulls when that result is returned.
        if h not in running:
            pull(h, now)

    def leave(h: int) -> None:
        now = float(window_end(h))
        available[h] = False
        idle.discard(h)
        log.record(now, "HLE", host=hosts[h])
        task = running.get(h)
        if task is not None and not task.awaited:  # one due by now + TIME_TOL still returns
            del running[h]
            inflight[task.unit] -= 1
            records.append((task.unit, h, task.start, now, task.delay, LOST))
            log.record(now, "LOST", unit=units[task.unit], host=hosts[h])

    def arrive(batch: list[int]) -> None:
        now = float(instance.arrival[batch[0]])
        for u in batch:
            log.record(now, "WKUA", unit=units[u])
        queued[batch] = True
        created[batch] = tasks_created[0] + np.arange(len(batch))
        tasks_created[0] += len(batch)
        for h in sorted(idle):
            idle.discard(h)
            pull(h, now)

    if n == 0:
        done.succeed()
    sim.arrivals(instance.arrival, arrive)
    for h in range(instance.n_hosts):
        sim.availability(instance.windows[h], lambda h=h: join(h), lambda h=h: leave(h))
    if sim.run_until(done) and not stopped[0]:
        for h, task in sorted(running.items()):  # replicas still running: abandoned
            records.append((task.unit, h, task.start, run_end[0], task.delay, CANCELLED))
    elif remaining[0] and not stopped[0]:
        stopped[0] = f"the hosts' availability ends first (or the horizon, {horizon:.0e} s)"
    stats = OnlineStats(decisions=policy.decisions.count, decision_s=policy.decisions.seconds,
                        events=len(log), wall_s=time.perf_counter() - started_at,
                        stopped=stopped[0])
    return from_records(records, log.records()), stats
