"""The batch MILP's greedy schedules: warm start, fallback incumbent and placements realised.

Two greedy schedules (:func:`greedy_placements`) place the jobs in arrival
order, each on the option ending earliest or adding least to the objective;
the better one (:func:`warm_start`) is always valid, gives the default
horizon its upper bound, starts HiGHS and is the incumbent when HiGHS finds
nothing better (:mod:`hybridsched.models.malleable.milp_batch`).

:func:`realise` turns placements ``(job, option, start)`` into a family
schedule, for the greedy and for the model's solution alike. It assigns VM
ids greedily in start order (ties by job index), reusing a VM already billed
in the current hour first, else the lowest free id, which bills exactly
``sum_h (max VMs busy in h)``: the hourly bill the model counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hybridsched.budget import TimeBudget
from hybridsched.heuristics.malleable.cloud_scheduler import CloudScheduler
from hybridsched.malleable.billing import HOUR, hour_cost
from hybridsched.malleable.bounds import weights
from hybridsched.malleable.candidates import Candidate
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.instance import Instance
from hybridsched.malleable.solution import Solution, from_pieces
from hybridsched.models.malleable.batch_grid import Option, Placement, coefficient


def realise(instance: Instance, options: Sequence[Sequence[Option]],
            placements: Sequence[Placement]) -> Solution:
    """The schedule of ``placements`` (one per job), with VM ids assigned greedily.

    Clusters: one piece on processors ``0 .. cpus - 1``. Clouds: jobs in start
    order (ties by job index) take VMs already billed in the start's clock
    hour and free, lowest id first, then the lowest free ids; runs of
    consecutive VM ids make one piece each. Raises ``ValueError`` when a cloud
    runs out of VMs (the placements break the VM limit).
    """
    n = instance.n_jobs
    resource = np.full(n, -1, dtype=np.int64)
    pieces: list[tuple[int, int, int, int, int]] = []
    cloud_jobs: dict[int, list[tuple[int, int, int]]] = {}
    for j, o, s in placements:
        opt = options[j][o]
        resource[j] = opt.resource
        r = instance.resources[opt.resource]
        if r.is_cloud:
            cloud_jobs.setdefault(opt.resource, []).append((s, j, o))
        else:
            pieces.append((j, s, s + opt.minutes, 0, r.cpus))
    for i, jobs in cloud_jobs.items():
        cloud = CloudScheduler(i, instance.resources[i], instance)
        for s, j, o in sorted(jobs):
            opt = options[j][o]
            end = s + opt.minutes
            ranges = cloud.accept(Candidate(j, i, 0, s, end, 0.0, opt.width, False))
            pieces += [(j, s, end, cpu, count) for cpu, count in ranges]
    pieces.sort(key=lambda p: (p[0], p[1], p[3]))
    return from_pieces(n, resource, pieces)


def greedy_placements(instance: Instance, objective: str,
                      options: Sequence[Sequence[Option]], rule: str = "earliest_end",
                      budget: TimeBudget | None = None) -> list[Placement]:
    """A valid schedule built job by job in arrival order (ties by index).

    Each job takes, among its options at their earliest start given the jobs
    already placed (a cluster after its last job, a cloud at the first minute
    with enough idle VMs for the whole run), the one ending earliest
    (``rule="earliest_end"``) or the one adding least to the objective
    (``rule="marginal"``, the cloud's hourly bill included); ties go to the
    other criterion, then to the option order.
    """
    w_cost = weights(objective)[0]
    cluster_free: dict[int, int] = {}
    busy: dict[int, list[int]] = {}          # cloud -> VMs busy per minute
    hour_max: dict[int, dict[int, int]] = {}  # cloud -> hour -> max VMs busy
    out: list[Placement] = []
    has_cluster = any(not r.is_cloud for r in instance.resources)
    hurried = False
    for j in sorted(range(instance.n_jobs), key=lambda k: (int(instance.arrival[k]), k)):
        a = int(instance.arrival[j])
        best: tuple[tuple[float, float, int], Placement] | None = None
        hurried = hurried or (budget is not None and has_cluster and budget.expired())
        for o, opt in enumerate(options[j]):
            r = instance.resources[opt.resource]
            if hurried and r.is_cloud and any(not instance.resources[p.resource].is_cloud
                                              for p in options[j]):
                continue
            d = opt.minutes
            extra = 0.0
            if r.is_cloud:
                profile = busy.setdefault(opt.resource, [])
                s = a
                while True:
                    clash = [t for t in range(s, s + d)
                             if t < len(profile) and profile[t] + opt.vms > r.max_vms]
                    if not clash:
                        break
                    s = clash[-1] + 1
                if w_cost:
                    maxima = hour_max.get(opt.resource, {})
                    for h in range(s // HOUR, (s + d - 1) // HOUR + 1):
                        lo, hi = max(s, h * HOUR), min(s + d, (h + 1) * HOUR)
                        peak = max((profile[t] if t < len(profile) else 0)
                                   for t in range(lo, hi)) + opt.vms
                        old = maxima.get(h, 0)
                        if peak > old:
                            extra += float(hour_cost(r, peak) - hour_cost(r, old))
            else:
                s = max(a, cluster_free.get(opt.resource, 0))
            value = coefficient(instance, objective, j, opt, s) + w_cost * extra
            key = (s + d, value, o) if rule == "earliest_end" else (value, s + d, o)
            if best is None or key < best[0]:
                best = (key, (j, o, s))
        if best is None:
            raise ValueError(f"job {instance.job_ids[j]!r} has no resource to run on")
        _, (_, o, s) = best
        opt = options[j][o]
        out.append((j, o, s))
        r = instance.resources[opt.resource]
        if r.is_cloud:
            profile = busy[opt.resource]
            if len(profile) < s + opt.minutes:
                profile.extend([0] * (s + opt.minutes - len(profile)))
            for t in range(s, s + opt.minutes):
                profile[t] += opt.vms
            maxima = hour_max.setdefault(opt.resource, {})
            for h in range(s // HOUR, (s + opt.minutes - 1) // HOUR + 1):
                maxima[h] = max(profile[h * HOUR:(h + 1) * HOUR])
        else:
            cluster_free[opt.resource] = s + opt.minutes
    return out


def objective_value(instance: Instance, solution: Solution, objective: str) -> float:
    """The checker's value of ``objective`` for ``solution``."""
    return float(evaluate(instance, solution).metrics[objective])


def warm_start(instance: Instance, objective: str, options: Sequence[Sequence[Option]],
               budget: TimeBudget | None = None) -> tuple[list[Placement], Solution, float]:
    """The better of the two greedy schedules: placements, schedule and checked objective.

    ``budget``: the second rule is skipped once it has expired, and each rule
    hurries when it expires (:func:`greedy_placements`).
    """
    best: tuple[list[Placement], Solution, float] | None = None
    for rule in ("earliest_end", "marginal"):
        if best is not None and budget is not None and budget.expired():
            break
        placements = greedy_placements(instance, objective, options, rule, budget)
        solution = realise(instance, options, placements)
        problems = check(instance, solution)
        if problems:  # pragma: no cover - a bug in the greedy, not in the instance
            raise RuntimeError(f"greedy schedule ({rule}) is invalid: {problems[:3]}")
        value = objective_value(instance, solution, objective)
        if best is None or value < best[2] - 1e-12:
            best = (placements, solution, value)
    assert best is not None
    return best

