"""The exact method solves the malleable problem the checker judges, not a restriction of it.

- the issue's example: two jobs sharing a 2-CPU cluster on one CPU each beat any
  schedule of the rigid model (whole cluster, one job at a time);
- an independent brute force over per-minute processor counts on tiny cluster
  instances: no schedule it finds beats a proven optimum, and the bound never
  exceeds it;
- random schedules the checker accepts (clouds included) never beat the bound;
- objective, bound and gap measure the policy's objective (policy B).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.malleable.billing import POLICY_WEIGHTS
from hybridsched.malleable.bounds import lower_bound
from hybridsched.malleable.checker import check, evaluate
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.solution import from_pieces
from hybridsched.malleable.speedup import rate
from hybridsched.models.malleable import milp_batch
from hybridsched.result import Status

TOL = 1e-6


def make(jobs: list[tuple[float, int, int, float, float]], resources: tuple[Resource, ...]
         ) -> Instance:
    """Jobs as ``(size, arrival, deadline, budget, serial fraction)``."""
    arr = np.array(jobs, dtype=float).reshape(-1, 5)
    n = len(jobs)
    return Instance("tiny", tuple(f"j{k}" for k in range(n)), arr[:, 0],
                    np.ones(n, np.int64), arr[:, 2].astype(np.int64), arr[:, 3],
                    arr[:, 1].astype(np.int64), arr[:, 4], resources)


def test_two_jobs_sharing_a_cluster_beat_the_rigid_model() -> None:
    cluster = Resource("c", ResourceType.DEDICATED, 2)
    # Size 3 each: alone on 2 CPUs in 2 minutes, on 1 CPU in 3 minutes; deadline 3.
    instance = make([(3, 0, 3, 0, 0), (3, 0, 3, 0, 0)], (cluster,))
    rigid = milp_batch.solve(instance, "penalised_a")
    assert rigid.objective == pytest.approx(POLICY_WEIGHTS["A"][0])  # one job a minute late
    shared = from_pieces(2, [0, 0], [(0, 0, 3, 0, 1), (1, 0, 3, 1, 1)])
    assert check(instance, shared) == []
    assert evaluate(instance, shared).objective == 0
    result = run_method("malleable", "exact", instance)
    assert result.status is Status.OPTIMAL
    assert result.objective == 0 and result.bound == 0


def _profiles(size: float, fraction: float, resource: Resource, first: int, horizon: int
              ) -> list[tuple[int, ...]]:
    """Widths per minute ``first .. horizon - 1`` whose work reaches ``size`` at the last one.

    Written from the rule's words, not from the checker's code: each running
    minute adds ``rate(width)``; the job is complete once the sum reaches
    ``size * (1 - 1e-9)``, and not one whole minute earlier.
    """
    need = size * (1 - 1e-9)
    out = []
    for widths in itertools.product(range(resource.processors + 1), repeat=horizon - first):
        done, finished = 0.0, None
        for k, w in enumerate(widths):
            if w:
                done += float(rate(w, resource.performance, fraction))
            if done >= need and finished is None:
                finished = k
        if finished is not None and widths[finished] and not any(widths[finished + 1:]):
            out.append((0,) * first + widths)
    return out


def brute_force(instance: Instance, objective: str, horizon: int) -> float:
    """Least objective over every per-minute width profile ending by ``horizon`` (clusters)."""
    w_cost, w_delay, w_over, w_time = {
        "penalised_a": (1.0, *POLICY_WEIGHTS["A"], 0.0),
        "penalised_b": (1.0, *POLICY_WEIGHTS["B"], 0.0),
        "total_time": (0.0, 0.0, 0.0, 1.0), "cost": (1.0, 0.0, 0.0, 0.0)}[objective]
    options = []  # per job: (resource, widths, value of the job alone)
    for j in range(instance.n_jobs):
        mine = []
        for i, r in enumerate(instance.resources):
            for widths in _profiles(float(instance.size[j]), float(instance.serial_fraction[j]),
                                    r, int(instance.arrival[j]), horizon):
                end = max(t for t, w in enumerate(widths) if w) + 1
                spend = r.price * sum(widths) if r.type is ResourceType.ALLOCATED else 0.0
                value = (w_cost * spend + w_delay * max(0, end - int(instance.deadline[j]))
                         + w_over * max(0.0, spend - float(instance.budget[j]))
                         + w_time * (end - int(instance.arrival[j])))
                mine.append((i, widths, value))
        options.append(mine)
    best = math.inf
    for combo in itertools.product(*options):
        value = sum(v for _, _, v in combo)
        if value >= best:
            continue
        used = np.zeros((instance.n_resources, horizon), dtype=int)
        for i, widths, _ in combo:
            used[i] += widths
        if all((used[i] <= r.processors).all() for i, r in enumerate(instance.resources)):
            best = value
    return best


CLUSTERS = st.builds(
    lambda kind, cpus, perf, price: Resource(
        "c", kind, cpus, performance=perf,
        price=price if kind is ResourceType.ALLOCATED else 0.0),
    st.sampled_from([ResourceType.DEDICATED, ResourceType.ALLOCATED]), st.integers(1, 2),
    st.sampled_from([1.0, 2.0]), st.sampled_from([0.5, 1.0]))


@settings(max_examples=25, deadline=None)
@given(jobs=st.lists(st.tuples(st.sampled_from([1.0, 2.0, 3.0, 3.0000001, 4.0]),
                               st.integers(0, 1), st.integers(0, 3),
                               st.sampled_from([0.0, 1.0, 2.5]), st.sampled_from([0.0, 0.5])),
                     min_size=1, max_size=2),
       clusters=st.lists(CLUSTERS, min_size=1, max_size=2),
       objective=st.sampled_from(["penalised_a", "penalised_b", "total_time", "cost"]))
def test_exact_agrees_with_a_brute_force_on_tiny_clusters(jobs, clusters, objective) -> None:
    resources = tuple(Resource(f"c{k}", r.type, r.cpus, r.performance, r.price)
                      for k, r in enumerate(clusters))
    instance = make([(s, a, a + d, b, f) for s, a, d, b, f in jobs], resources)
    horizon = 6
    best = brute_force(instance, objective, horizon)
    result = run_method("malleable", "exact", instance, objective=objective, time_limit=30)
    assert result.status.has_solution and check(instance, result.solution) == []
    assert result.objective == pytest.approx(evaluate(instance, result.solution).metrics[
        objective])
    assert result.bound <= best + TOL  # no valid schedule lies below the bound
    assert lower_bound(instance, objective) <= best + TOL
    if result.status is Status.OPTIMAL:
        assert result.objective <= best + TOL  # nothing the brute force finds beats it
        if result.solution.end.max() <= horizon:
            assert result.objective == pytest.approx(best, abs=TOL)


def _random_schedule(instance: Instance, draw) -> object:
    """A random schedule of per-minute pieces: each job on one resource, random widths."""
    pieces, resource = [], []
    busy: dict[tuple[int, int], int] = {}
    for j in range(instance.n_jobs):
        i = draw(st.integers(0, instance.n_resources - 1))
        r = instance.resources[i]
        resource.append(i)
        need = float(instance.size[j]) * (1 - 1e-9)
        done, t = 0.0, int(instance.arrival[j]) + draw(st.integers(0, 2))
        while done < need and t < 200:
            free = r.processors - busy.get((i, t), 0)
            width = draw(st.integers(0, free)) if free else 0
            if width:
                first = busy.get((i, t), 0) + draw(st.integers(0, free - width))
                # Processors first .. first + width - 1 may clash with a later job's: the
                # checker rejects those, and the test keeps only what it accepts.
                pieces.append((j, t, t + 1, first, width))
                busy[i, t] = busy.get((i, t), 0) + width
                done += float(rate(width, r.performance, float(instance.serial_fraction[j])))
            t += 1
    return from_pieces(instance.n_jobs, resource, pieces)


CLOUD = Resource("v", ResourceType.CLOUD, 2, price=30.0, max_vms=2, spot_vms=1,
                 on_demand_price=45.0)


@settings(max_examples=12, deadline=None)  # CI time; the nightly profile multiplies it
@given(data=st.data(),
       jobs=st.lists(st.tuples(st.sampled_from([1.0, 2.0, 3.0, 5.0]), st.integers(0, 2),
                               st.integers(0, 4), st.sampled_from([0.0, 0.5, 3.0]),
                               st.sampled_from([0.0, 0.25])), min_size=1, max_size=3),
       objective=st.sampled_from(["penalised_a", "penalised_b", "cost", "total_delay"]))
def test_no_accepted_schedule_beats_the_bound(data, jobs, objective) -> None:
    resources = (Resource("a", ResourceType.ALLOCATED, 2, price=0.5), CLOUD)
    instance = make([(s, a, a + d, b, f) for s, a, d, b, f in jobs], resources)
    result = run_method("malleable", "exact", instance, objective=objective, time_limit=20)
    assert result.status.has_solution and result.bound <= result.objective + TOL
    for _ in range(5):
        schedule = _random_schedule(instance, data.draw)
        if check(instance, schedule):
            continue
        value = evaluate(instance, schedule).metrics[objective]
        assert value >= result.bound - TOL
        if result.status is Status.OPTIMAL:
            assert value >= result.objective - TOL


@pytest.mark.parametrize("policy", ["A", "B"])
def test_objective_and_bound_measure_the_policy_objective(policy: str) -> None:
    cluster = Resource("c", ResourceType.ALLOCATED, 2, price=1.0)
    instance = make([(3, 0, 2, 1.0, 0), (3, 0, 2, 1.0, 0)], (cluster,))
    name = f"penalised_{policy.lower()}"
    result = run_method("malleable", "exact", instance, policy=policy)
    assert result.metrics["optimised"] == name
    assert result.objective == pytest.approx(result.metrics[name])
    assert result.bound <= result.objective + TOL
    for method in ("tree", "flat", "round-robin"):
        online = run_method("malleable", method, instance, policy=policy)
        assert online.metrics["optimised"] == name
        assert online.objective == pytest.approx(online.metrics[name])
        assert online.objective >= result.bound - TOL
