"""Online simulation of the ``malleable`` family on the shared SimPy layer.

Jobs arrive at their arrival minute and are decided at once: the policy
asks the local schedulers for candidates (DCA, ACA, CCA) through the agent
tree, the flat broadcast or round robin, and the chosen leaf accepts the
job. Clusters run their queues as SimPy processes; clouds start jobs at once.
A job whose acceptance migrates queued jobs sends each of them back through
the tree, never to the leaf that gave them up.

*Readings.* When every leaf declines (each would reschedule as much work as
the job brings), the agents are asked again without rescheduling: clusters
then queue the job and delay lower-priority jobs. When nothing can take a
rescheduled job but the leaf that gave it up, it goes back there without
rescheduling. When all VMs of every cloud are busy and no cluster may take
the job, it is decided again when the first VM frees up.

*Speed.* Through any tree the decision is the least candidate of every
leaf's offers in the total orders of :mod:`hybridsched.malleable.candidates`
(the flat broadcast's choice, see :mod:`hybridsched.heuristics.malleable.agent_tree`).
So the simulation asks only the leaves whose offers can be chosen: of the
clusters of one kind (same processors, speed and price) with empty queues
only the one with the earliest start (then lowest index), and of the clouds
of one kind that are idle (nothing busy or billed from the current hour on)
only the lowest index; the others offer the same candidate later or under a
higher index, which no key ever prefers. Clusters of one kind with queued
jobs are skipped when even their earliest possible start (the running job's
end) comes after an offer of their kind, index breaking ties: their offer
would cost the same and end later, and an offer's migrations never make it
less good (a cluster declines rather than migrate as much work as the job
brings). The counters (messages, critical path) still count the whole
tree. ``exhaustive=True`` (implied by ``keep_choices``) asks every leaf
through the tree instead; tests check both choose the same.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from hybridsched.errors import InputError
from hybridsched.heuristics.malleable.agent_tree import (
    CompiledTree,
    compile_agent_tree,
    select,
    select_flat,
)
from hybridsched.heuristics.malleable.cloud_scheduler import CloudScheduler
from hybridsched.heuristics.malleable.cluster_scheduler import ClusterScheduler
from hybridsched.malleable.billing import HOUR
from hybridsched.malleable.candidates import Candidate
from hybridsched.malleable.instance import AgentTree, Instance
from hybridsched.malleable.limits import check_end
from hybridsched.malleable.solution import Solution, from_pieces
from hybridsched.malleable.tree import default_tree, star_tree
from hybridsched.seeding import RNGLike, resolve_rng
from hybridsched.sim import Simulation

Scheduler = Literal["tree", "flat", "round-robin"]
SCHEDULERS: tuple[str, ...] = ("tree", "flat", "round-robin")


@dataclass
class OnlineStats:
    """Counters of one simulation (the checker recomputes everything else)."""

    decisions: int = 0
    messages: int = 0
    reschedulings: int = 0
    second_rounds: int = 0
    events: int = 0
    wall_s: float = 0.0
    critical_path: int = 0
    #: With ``keep_choices``: ``(every leaf's candidates, the one selected)`` per decision
    #: made through the tree.
    choices: list[tuple[tuple[Candidate, ...], Candidate]] = field(default_factory=list)

    def metrics(self) -> dict[str, float]:
        """Metrics a method reports beside the checker's."""
        return {
            "decisions": self.decisions,
            "messages_per_decision": self.messages / self.decisions if self.decisions else 0.0,
            "critical_path": self.critical_path,
            "reschedulings": self.reschedulings,
            "events": self.events,
            "events_per_second": self.events / self.wall_s if self.wall_s > 0 else 0.0,
        }


def tree_for(instance: Instance, scheduler: Scheduler) -> AgentTree | None:
    """The tree a scheduler uses: the instance's (or the default one), the star, or none."""
    if scheduler == "tree":
        return instance.tree or default_tree(instance.resources)
    if scheduler == "flat":
        return star_tree(instance.resources)
    return None


def simulate(instance: Instance, scheduler: Scheduler = "tree", policy: str = "A",
             seed: int | None = None, *, rng: RNGLike = None, keep_choices: bool = False,
             exhaustive: bool = False) -> tuple[Solution, OnlineStats]:
    """Simulate the instance online; return the realised schedule and the counters.

    ``rng`` draws round robin's resources (the other schedulers draw
    nothing): an integer seed (``seed`` is its older name, kept for existing
    code: give one or the other), ``None`` (seed 0) or a
    ``numpy.random.Generator``, used as it is, so its state advances with
    every draw (see :mod:`hybridsched.seeding`). ``keep_choices`` keeps every
    selected candidate in ``stats.choices`` (for tests that replay
    decisions). ``exhaustive`` asks every leaf at every decision, through the
    tree (the same choices, slower; see the module docstring).
    """
    if scheduler not in SCHEDULERS:
        raise InputError(f"scheduler: must be one of {', '.join(SCHEDULERS)}, got "
                         f"{scheduler!r}")
    if policy not in ("A", "B"):
        raise InputError(f"policy: must be A or B, got {policy!r}")
    return _Run(instance, scheduler, policy, resolve_rng(rng, seed), keep_choices,
                exhaustive).run()


class _Run:
    """One simulation: the leaves, the policy and the record of what ran."""

    def __init__(self, instance: Instance, scheduler: Scheduler, policy: str,
                 rng: np.random.Generator, keep_choices: bool, exhaustive: bool = False) -> None:
        self.instance = instance
        self.policy = policy
        self.scheduler = scheduler
        self.keep_choices = keep_choices
        self.rng = rng
        self.sim = Simulation()
        tables: dict = {}  # per-job tables shared by the leaves of one kind
        self.leaves: list[ClusterScheduler | CloudScheduler] = [
            CloudScheduler(i, r, instance, tables) if r.is_cloud
            else ClusterScheduler(i, r, instance, tables)
            for i, r in enumerate(instance.resources)]
        tree = tree_for(instance, scheduler)
        self.tree: CompiledTree | None = None if tree is None else compile_agent_tree(tree)
        self.exhaustive = exhaustive or keep_choices
        # Leaves of one kind (every field but the id), in index order, clusters then clouds.
        kinds: dict[tuple, list] = {}
        for leaf, r in zip(self.leaves, instance.resources, strict=True):
            kinds.setdefault((r.type, r.cpus, r.performance, r.price, r.max_vms, r.spot_vms,
                              r.on_demand_price), []).append(leaf)
        self.cluster_kinds: list[list[ClusterScheduler]] = [
            g for g in kinds.values() if isinstance(g[0], ClusterScheduler)]
        self.cloud_kinds: list[list[CloudScheduler]] = [
            g for g in kinds.values() if isinstance(g[0], CloudScheduler)]
        self.stats = OnlineStats(critical_path=0 if self.tree is None
                                 else self.tree.critical_path)
        self.pieces: list[tuple[int, int, int, int, int]] = []
        self.resource = [-1] * instance.n_jobs
        self.ids = instance.job_ids
        self.rids = [r.id for r in instance.resources]

    def run(self) -> tuple[Solution, OnlineStats]:
        start = time.perf_counter()
        env = self.sim.env
        for leaf in self.leaves:
            if isinstance(leaf, ClusterScheduler):
                env.process(leaf.process(env, self._started, self._ended))
        self.sim.arrivals(self.instance.arrival, self._arrive)
        self.sim.run()
        self.stats.wall_s = time.perf_counter() - start
        self.stats.events = len(self.sim.log)
        solution = from_pieces(self.instance.n_jobs, self.resource, self.pieces,
                               self.sim.log.records())
        return solution, self.stats

    # -- events ------------------------------------------------------------------------
    def _arrive(self, jobs: list[int]) -> None:
        for job in jobs:
            self.sim.log.record(int(self.sim.now), "arrival", job=self.ids[job])
            self._decide(job)

    def _started(self, job: int, resource: int, start: int, end: int, cpu: int, count: int
                 ) -> None:
        check_end(self.instance.name, self.ids[job], end)
        self.pieces.append((job, start, end, cpu, count))
        self.resource[job] = resource
        self.sim.log.record(start, "start", job=self.ids[job], resource=self.rids[resource],
                            end=end, cpu=cpu, count=count)

    def _ended(self, job: int, resource: int, when: int) -> None:
        self.sim.log.record(when, "end", job=self.ids[job], resource=self.rids[resource])

    # -- decisions ---------------------------------------------------------------------
    def _decide(self, job: int, exclude: int = -1) -> None:
        now = int(self.sim.now)
        self.stats.decisions += 1
        chosen = (self._round_robin(job, now, exclude) if self.tree is None
                  else self._through_tree(job, now, exclude))
        if chosen is None:
            self._wait(job, exclude)
            return
        self.sim.log.record(now, "decision", job=self.ids[job],
                            resource=self.rids[chosen.resource], option=chosen.option,
                            good=chosen.good, cost=chosen.cost, end=chosen.end)
        self._commit(chosen)

    def _through_tree(self, job: int, now: int, exclude: int) -> Candidate | None:
        assert self.tree is not None
        inst = self.instance
        budget, deadline = float(inst.budget[job]), int(inst.deadline[job])
        for migrate in (True, False):
            if not self.exhaustive:
                self.stats.messages += self.tree.messages_per_decision
                chosen = select_flat(self._offers(job, now, migrate, exclude), self.policy,
                                     budget, deadline)
                if chosen is not None:
                    return chosen
                self.stats.second_rounds += 1
                continue
            seen: list[Candidate] = []

            def offers(r: int, migrate: bool = migrate, seen: list = seen) -> list[Candidate]:
                found = [] if r == exclude else self.leaves[r].candidates(job, now, migrate)
                if self.keep_choices:
                    seen.extend(found)
                return found

            self.stats.messages += self.tree.messages_per_decision
            chosen = select(self.tree, offers, self.policy, budget, deadline)
            if chosen is not None:
                if self.keep_choices:
                    self.stats.choices.append((tuple(seen), chosen))
                return chosen
            self.stats.second_rounds += 1
        if exclude >= 0 and not self.instance.resources[exclude].is_cloud:
            return self.leaves[exclude].candidates(job, now, False)[0]
        return None

    def _offers(self, job: int, now: int, migrate: bool, exclude: int) -> list[Candidate]:
        """The offers that can be chosen (see the module docstring), in no useful order."""
        found: list[Candidate] = []
        for kind in self.cluster_kinds:
            best, best_start = None, 0
            queued = []
            for leaf in kind:
                if leaf.index == exclude:
                    continue
                if leaf.queue:
                    queued.append(leaf)
                    continue
                # An empty queue: the job would start at once or when the running job ends.
                start = leaf.busy_until if leaf.busy_until > now else now
                if best is None or start < best_start:
                    best, best_start = leaf, start
            bound = None  # (start, index) of the least offer of this kind so far
            if best is not None:
                found += best.candidates(job, now, migrate)
                bound = (best_start, best.index)
            for leaf in queued:
                # The job starts no earlier than the running job's end: a cluster whose
                # (earliest start, index) is above an offer of its kind offers worse.
                earliest = leaf.busy_until if leaf.busy_until > now else now
                if bound is not None and (earliest, leaf.index) > bound:
                    continue
                offer = leaf.candidates(job, now, migrate)
                if offer:
                    found += offer
                    if bound is None or (offer[0].start, leaf.index) < bound:
                        bound = (offer[0].start, leaf.index)
        hour_start = now // HOUR * HOUR
        for clouds in self.cloud_kinds:
            idle = None
            for cloud in clouds:
                if cloud.index == exclude:
                    continue
                if cloud.all_free_at > hour_start:  # not idle
                    found += cloud.candidates(job, now, migrate)
                elif idle is None:
                    idle = cloud
            if idle is not None:
                found += idle.candidates(job, now, migrate)
        return found

    def _round_robin(self, job: int, now: int, exclude: int) -> Candidate | None:
        order = [r for r in self.rng.permutation(len(self.leaves)).tolist() if r != exclude]
        for r in order:  # the first draw, or redraws while a drawn cloud is full
            self.stats.messages += 2
            offers = self.leaves[r].candidates(job, now, False)
            if offers:
                return offers[0]
        return None

    def _wait(self, job: int, exclude: int) -> None:
        clouds = [leaf for leaf in self.leaves if isinstance(leaf, CloudScheduler)]
        now = int(self.sim.now)
        wake = min(leaf.next_free() for leaf in clouds)
        self.sim.log.record(now, "wait", job=self.ids[job], until=wake)
        self.sim.after(wake - now, lambda: self._decide(job, exclude))

    def _commit(self, chosen: Candidate) -> None:
        leaf = self.leaves[chosen.resource]
        job = chosen.job
        if isinstance(leaf, CloudScheduler):
            for cpu, count in leaf.accept(chosen):
                self._started(job, chosen.resource, chosen.start, chosen.end, cpu, count)
            self.sim.after(chosen.end - chosen.start,
                           lambda: self._ended(job, chosen.resource, chosen.end))
        else:
            leaf.accept(chosen)
        moved = sorted(chosen.migrate, key=lambda q: leaf.order[q]) if chosen.migrate else []
        for q in moved:
            self.stats.reschedulings += 1
            self.sim.log.record(int(self.sim.now), "reschedule", job=self.ids[q],
                                resource=self.rids[chosen.resource])
            self._decide(q, exclude=chosen.resource)
