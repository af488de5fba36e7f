"""The exact bot-sites model never proves something false (issue 6 items 1, 2, 10, 11, 14).

Cross-checked against an independent brute force (:mod:`.bot_brute`) on tiny
instances with DAGs and hard limits, and on the generated instances that
exposed the bugs.
"""

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.bot_sites import infeasible_items
from hybridsched.bot_sites.adapters import best_start
from hybridsched.bot_sites.bounds import lower_bound, min_cost
from hybridsched.bot_sites.checker import check, completion_times, schedule_cost
from hybridsched.bot_sites.generator import generate
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import allowed_pairs, cheapest_schedule, repair, retime
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.heuristics.bot_sites.greedy import GREEDY
from hybridsched.models.bot_sites import milp
from hybridsched.models.bot_sites.dag import block_bound, normalise
from hybridsched.models.bot_sites.milp_build import build, horizon_for
from hybridsched.models.bot_sites.milp_schedule import warm_start
from hybridsched.result import Status

from .bot_brute import brute_force, one_block_optimum
from .bot_helpers import random_instance

REL = 1e-9


def close(a, b):
    return abs(a - b) <= REL * max(1.0, abs(b))


def split_around_critical_task() -> Instance:
    """Every optimal schedule splits BoT C around X on processor s0 (see below)."""
    # A -> X -> Y is a chain alternating between the two processors; C fills s0 before
    # and after X. Optimum 5: s1 runs A [0, 2] and Y [3, 5]; s0 runs C C, X [2, 3], C C.
    return Instance("split", ("A", "X", "Y", "C"), ("s0", "s1"), [1, 1, 1, 4], [1, 1],
                    [0.0, 0.0], [[100.0, 2.0], [1.0, 100.0], [100.0, 2.0], [1.0, 100.0]],
                    edges=[[0, 1], [1, 2]])


def tiny_instance(rng: np.random.Generator, *, limits: bool) -> Instance:
    """At most 5 tasks on at most 3 processors, with a random DAG (and hard limits)."""
    K, M = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    tasks = rng.integers(1, 3, K)
    while tasks.sum() > 5:
        tasks[np.argmax(tasks)] -= 1
    procs = rng.integers(1, 3, M)
    while procs.sum() > 3:
        procs[np.argmax(procs)] -= 1
    if rng.random() < 0.5:
        etc = rng.integers(1, 6, (K, M)).astype(float)
    else:
        etc = rng.uniform(1, 10, (K, M)).round(3)
    edges = [(a, b) for a in range(K) for b in range(a + 1, K) if rng.random() < 0.4]
    extra = {}
    if limits:
        data = rng.uniform(1, 10, (K, M)).round(3)
        bandwidth = rng.uniform(0.5, 3, (K, M)).round(3)
        rate = data / np.maximum(etc, data / bandwidth)
        storage = rng.uniform(1, 5, K).round(3)
        extra = dict(data=data, bandwidth=bandwidth, storage=storage, hard_limits=True,
                     site_bandwidth=(rate.max(axis=0) * rng.uniform(0.6, 2.0, M)).round(4),
                     storage_limit=(storage.max() * rng.uniform(0.8, 2.5, M)).round(3))
    return Instance("tiny", tuple(f"b{k}" for k in range(K)), tuple(f"s{i}" for i in range(M)),
                    tasks, procs, rng.choice([0.0, 1.0, 2.0], M), etc,
                    edges=np.array(edges, dtype=int).reshape(-1, 2), **extra)


# --- item 1: the DAG model ------------------------------------------------------------

def test_one_block_per_processor_is_not_exact():
    inst = split_around_critical_task()
    assert brute_force(inst).makespan == 5.0
    assert one_block_optimum(inst) == 7.0          # the old model's restriction
    # Before the fix: "infeasible" (the horizon was the 5 of G-Min-min's schedule).
    result = run_method("bot-sites", "exact", inst)
    assert result.status is Status.OPTIMAL and result.objective == 5.0 == result.bound
    assert block_bound(inst).tolist() == [1, 1, 1, 4]


@pytest.mark.parametrize("seed", [174, 269, 371])
def test_generated_dag_instances_are_solved_not_infeasible(seed):
    # `generate bot-sites --sites 2 --bots 4 --tasks-per-bot 2:4 --procs-per-site 1:2
    #  --dependency 0.5 --seed N`: the old model said "infeasible" on these seeds.
    inst = generate(sites=2, bots=4, tasks_per_bot=(2, 4), procs_per_site=(1, 2),
                    dependency=0.5, seed=seed)
    result = run_method("bot-sites", "exact", inst)
    assert result.status is Status.OPTIMAL
    assert lower_bound(inst) <= result.objective * (1 + REL)
    for name in GREEDY:
        assert run_method("bot-sites", name, inst).objective >= result.objective * (1 - REL)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_exact_equals_brute_force_with_dags(seed):
    inst = tiny_instance(np.random.default_rng(seed), limits=False)
    truth = brute_force(inst)
    span = run_method("bot-sites", "exact", inst)
    assert span.status is Status.OPTIMAL and close(span.objective, truth.makespan)
    assert span.bound <= truth.makespan * (1 + REL)
    cost = run_method("bot-sites", "exact", inst, objective="cost")
    assert cost.status is Status.OPTIMAL and close(cost.objective, truth.cost)
    assert cost.bound <= truth.cost + REL
    assert cost.metrics["makespan_proven_minimal"]
    assert close(cost.metrics["makespan"], truth.makespan_at_min_cost)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_exact_with_hard_limits_claims_only_what_is_true(seed):
    inst = tiny_instance(np.random.default_rng(seed), limits=True)
    truth = brute_force(inst)
    span = run_method("bot-sites", "exact", inst)
    cost = run_method("bot-sites", "exact", inst, objective="cost")
    if truth is None:
        assert span.status is Status.INFEASIBLE and cost.status is Status.INFEASIBLE
        return
    assert span.status in (Status.OPTIMAL, Status.FEASIBLE)     # never "infeasible"
    assert span.objective >= truth.makespan * (1 - REL)
    assert span.bound <= truth.makespan * (1 + REL)
    if span.status is Status.OPTIMAL:
        assert close(span.objective, truth.makespan)
    # Minimum cost is known exactly (cheapest allowed sites), so always proven.
    assert cost.status is Status.OPTIMAL and close(cost.objective, truth.cost)
    assert cost.metrics["makespan"] >= truth.makespan_at_min_cost * (1 - REL)
    assert cost.metrics["makespan_bound"] <= truth.makespan_at_min_cost * (1 + REL)
    if cost.metrics["makespan_proven_minimal"]:
        assert close(cost.metrics["makespan"], truth.makespan_at_min_cost)


def list_schedule(inst, rng):
    """A random valid schedule: random processors, BoTs in a random topological order."""
    order = inst.topological_order()
    free = np.zeros(inst.n_procs)
    finish = np.zeros(inst.n_bots)
    bots, procs, starts = [], [], []
    for k in order:
        release = max((finish[a] for a in inst.predecessors[k]), default=0.0)
        for _ in range(int(inst.tasks[k])):
            q = int(rng.integers(inst.n_procs))
            s = max(free[q], release) + float(rng.choice([0.0, 0.0, 1.5]))
            free[q] = s + inst.p[k, inst.proc_site[q]]
            finish[k] = max(finish[k], free[q])
            bots.append(k)
            procs.append(q)
            starts.append(s)
    off = inst.proc_offset
    site = inst.proc_site[procs]
    return Solution(bots, site, np.array(procs) - off[site], np.ones(len(bots), int), starts)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_normalise_is_the_proof_construction(seed):
    """normalise keeps schedules valid, finishes no BoT later, and needs <= B_k runs."""
    rng = np.random.default_rng(seed)
    inst = random_instance(rng, dag=True, max_tasks=6, max_procs=3)
    bound = block_bound(inst)
    schedules = [list_schedule(inst, rng) for _ in range(3)]
    schedules += [f(inst) for f in GREEDY.values()]
    for sol in schedules:
        assert check(inst, sol) == []
        norm = normalise(inst, sol)
        assert check(inst, norm) == []
        assert np.all(completion_times(inst, norm) <= completion_times(inst, sol) * (1 + REL))
        glob = inst.proc_offset[norm.site] + norm.proc
        pairs, runs = np.unique(np.stack([norm.bot, glob]), axis=1, return_counts=True)
        assert np.all(runs <= bound[pairs[0]])
        bm = build(inst, horizon=horizon_for(inst, sol))
        assert warm_start(bm, sol)


# --- item 2: hard limits --------------------------------------------------------------

@pytest.mark.parametrize("tightness", [0.01, 0.3, 1.0])
def test_generated_limits_fit_one_task(tightness):
    # The generator used to round a site's bandwidth to 6 decimals, below what one task
    # needs (every one of these seeds failed before).
    for seed in range(20):
        inst = generate(sites=3, bots=4, tasks_per_bot=(3, 6), procs_per_site=(1, 3),
                        communication=True, storage=True, hard_limits=True,
                        tightness=tightness, seed=seed)
        assert np.all(inst.rate <= inst.site_bandwidth[None, :])
        assert np.all(inst.storage[:, None] <= inst.storage_limit[None, :])
        assert allowed_pairs(inst).all() and infeasible_items(inst) == []


@pytest.mark.parametrize("seed", [7, 14, 3])
def test_hard_limits_exact_is_valid_and_cost_not_infeasible(seed):
    # `--communication --storage --hard-limits --tightness 0.3`: `--objective cost` said
    # "infeasible" on seeds 7 and 14 while GMO's cost variant finds a valid schedule.
    inst = generate(sites=3, bots=4, tasks_per_bot=(3, 6), procs_per_site=(1, 3),
                    communication=True, storage=True, hard_limits=True, tightness=0.3,
                    seed=seed)
    span = run_method("bot-sites", "exact", inst)       # the checker ran inside run_method
    assert span.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert span.bound <= span.objective
    gmo = run_method("bot-sites", "gmo", inst, objective="cost")
    cost = run_method("bot-sites", "exact", inst, objective="cost")
    assert cost.status is Status.OPTIMAL
    assert cost.objective == pytest.approx(min_cost(inst), abs=1e-9)
    assert cost.bound == pytest.approx(cost.objective, abs=1e-9)
    if gmo.status.has_solution:
        assert cost.objective <= gmo.objective + 1e-9


def test_min_cost_respects_hard_limits():
    # One BoT, two sites: the free site is too narrow for one task, so the minimum cost is
    # the paid site's (the old closed form said 0 and the model, capped at 0, was infeasible).
    inst = Instance("l", ("a",), ("free", "paid"), [2], [1, 1], [0.0, 1.0], [[1.0, 2.0]],
                    data=[[4.0, 4.0]], bandwidth=[[4.0, 4.0]], site_bandwidth=[1.0, 10.0],
                    hard_limits=True)
    assert allowed_pairs(inst).tolist() == [[False, True]]
    assert min_cost(inst) == 4.0
    result = run_method("bot-sites", "exact", inst, objective="cost")
    assert result.status is Status.OPTIMAL and result.objective == 4.0


def test_schedules_breaking_limits_by_a_hair_are_repaired():
    # Two tasks whose rates sum to the limit plus 1e-8: the checker rejects them running
    # together, so they are re-timed one after the other.
    inst = Instance("h", ("a", "b"), ("s",), [1, 1], [2], [0.0], [[1.0], [1.0]],
                    data=[[0.5], [0.5 + 1e-8]], bandwidth=[[1.0], [1.0]],
                    site_bandwidth=[1.0], hard_limits=True)
    together = Solution([0, 1], [0, 0], [0, 1], [1, 1], [0.0, 0.0])
    assert any("peak bandwidth" in p for p in check(inst, together))
    fixed = repair(inst, together)
    assert check(inst, fixed) == [] and completion_times(inst, fixed).max() == 2.0
    cheap = cheapest_schedule(inst)
    assert check(inst, cheap) == [] and schedule_cost(inst, cheap) == 0.0


# --- items 10, 11, 14: time budget and reported objective -----------------------------

def medium():
    return generate(sites=3, bots=6, tasks_per_bot=(20, 40), procs_per_site=(20, 40), seed=2,
                    dependency=0.0)


@pytest.mark.parametrize("objective", ["makespan", "cost"])
def test_time_limit_zero_is_warm_start_with_a_bound(objective, monkeypatch):
    inst = medium()
    monkeypatch.setattr(milp, "build", lambda *a, **k: pytest.fail("model built"))
    result = run_method("bot-sites", "exact", inst, time_limit=0, objective=objective)
    assert result.status.has_solution and result.bound is not None and result.gap is not None
    assert "warm start only" in result.message
    if objective == "makespan":
        assert result.status is Status.TIME_LIMIT
        assert result.bound == pytest.approx(lower_bound(inst))
    else:   # the cheapest-site schedule reaches the exact minimum cost
        assert result.status is Status.OPTIMAL and result.bound == result.objective
        assert result.objective == pytest.approx(min_cost(inst))


def test_budget_expiring_while_building_returns_the_warm_start():
    inst = medium()
    start = best_start(inst)
    budget = TimeBudget(0.02)
    time.sleep(0.03)  # expired before the call: deterministic, whatever the machine's load
    result = milp.solve(inst, start=start, budget=budget)
    # The message says where it stopped (no wall-clock bound here: issue 17).
    assert result.status is Status.TIME_LIMIT and result.solution is start
    assert "time limit expired while building the model" in result.message
    assert result.bound == pytest.approx(lower_bound(inst))


def test_building_checks_the_budget():
    inst = medium()
    budget = TimeBudget(1e-6)
    time.sleep(0.01)
    with pytest.raises(BudgetExpired, match="building the model"):
        build(inst, horizon=1e6, budget=budget)


def test_time_limited_cost_mode_carries_a_cost_bound():
    inst = generate(sites=3, bots=4, tasks_per_bot=(30, 40), procs_per_site=(3, 5), seed=1,
                    private_share=0.0)
    result = run_method("bot-sites", "exact", inst, time_limit=1.0, objective="cost")
    assert result.objective == result.metrics["cost"]
    assert result.bound is not None and result.bound <= result.objective * (1 + REL)
    assert result.status is Status.OPTIMAL      # the minimum cost is known exactly
    assert result.metrics["makespan_bound"] <= result.metrics["makespan"]


#: Seconds past a time limit that only a hang or an ignored limit reaches. How close the
#: method stays to its limit (issue 6's target: 1.5 x the limit + 1 s) is measured by
#: benchmarks/bench_time_limits.py: a wall-clock margin in a test fails under load.
HANG_S = 60.0


@pytest.mark.slow
def test_large_instance_respects_the_time_limit():
    # Issue 6 item 10: a 5 s limit took 20 s, mostly building the model (the benchmark's
    # "10 sites x 50 BoTs" lines); the margin here only catches a hang.
    inst = generate(sites=10, bots=50, tasks_per_bot=(100, 200), procs_per_site=(100, 200),
                    seed=1, dependency=0.0)
    for limit in (1.0, 5.0):
        result = run_method("bot-sites", "exact", inst, time_limit=limit)
        assert result.status is Status.TIME_LIMIT and result.bound is not None
        assert result.runtime_s < limit + HANG_S


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_retime_always_meets_the_limits(seed):
    """Any assignment to allowed sites, in any order, is re-timed into a valid schedule."""
    rng = np.random.default_rng(seed)
    inst = generate(sites=2, bots=4, tasks_per_bot=(1, 4), procs_per_site=(1, 3),
                    communication=True, storage=True, hard_limits=True,
                    tightness=float(rng.uniform(0.05, 1.0)), dependency=0.3,
                    seed=int(rng.integers(2**31)))
    allowed = allowed_pairs(inst)
    bots, procs, counts = [], [], []
    for k in range(inst.n_bots):
        left = int(inst.tasks[k])
        while left:
            q = int(rng.choice(np.flatnonzero(allowed[k, inst.proc_site])))
            c = int(rng.integers(1, left + 1))
            bots.append(k)
            procs.append(q)
            counts.append(c)
            left -= c
    sol = retime(inst, np.array(bots), np.array(procs), np.array(counts),
                 rng.random(len(bots)))
    assert check(inst, sol) == []
