"""The fast online path chooses exactly what the straightforward one chooses.

Three pins (issue 21): the cloud scheduler on plain lists against its first,
numpy implementation (:mod:`.reference_leaves`); the clusters' candidates
against their first implementation; and the pruned simulation (only leaves
whose offers can be chosen are asked) against the exhaustive one (every leaf
asked through the tree), schedule, event log and counters alike.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hybridsched.heuristics.malleable.agent_tree import compile_agent_tree, compile_tree
from hybridsched.heuristics.malleable.cloud_scheduler import CloudScheduler
from hybridsched.heuristics.malleable.cluster_scheduler import ClusterScheduler
from hybridsched.heuristics.malleable.simulation import simulate
from hybridsched.malleable.checker import check
from hybridsched.malleable.generator import generate
from hybridsched.malleable.instance import Resource, ResourceType
from hybridsched.malleable.tree import build_tree, default_tree, star_tree, to_digraph
from hybridsched.malleable.tree_config import load_platform

from .reference_leaves import ReferenceCloud, reference_cluster_candidates

TREES = Path(__file__).parents[2] / "examples" / "trees"

#: Clouds of two kinds (several of each) beside a few clusters, so that clouds are
#: chosen, fill up, reuse paid hours and go idle again.
CLOUDY = (
    Resource("d1", ResourceType.DEDICATED, 4),
    Resource("d2", ResourceType.DEDICATED, 4),
    Resource("a1", ResourceType.ALLOCATED, 8, price=1.0),
    Resource("a2", ResourceType.ALLOCATED, 8, price=1.0),
    Resource("c1", ResourceType.CLOUD, 2, price=60.0, max_vms=6, spot_vms=2,
             on_demand_price=90.0),
    Resource("c2", ResourceType.CLOUD, 2, price=60.0, max_vms=6, spot_vms=2,
             on_demand_price=90.0),
    Resource("c3", ResourceType.CLOUD, 2, price=60.0, max_vms=6, spot_vms=2,
             on_demand_price=90.0),
    Resource("c4", ResourceType.CLOUD, 4, performance=1.5, price=100.0, max_vms=3),
    Resource("c5", ResourceType.CLOUD, 4, performance=1.5, price=100.0, max_vms=3),
)


def _same(fast, slow) -> None:  # noqa: ANN001 - two (Solution, OnlineStats) pairs
    (a, sa), (b, sb) = fast, slow
    for name in ("resource", "job", "start", "end", "cpu", "count"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.events == b.events
    ma, mb = sa.metrics(), sb.metrics()
    ma.pop("events_per_second"), mb.pop("events_per_second")
    assert ma == mb


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("mix", ["small", "big", "mixed"])
def test_the_cloud_on_lists_offers_and_bills_what_the_numpy_cloud_did(seed: int, mix: str
                                                                        ) -> None:
    instance = generate(150, mix, seed, resources=CLOUDY, serial_fraction=0.3)
    rng = np.random.default_rng(seed)
    for index in (4, 7):
        resource = instance.resources[index]
        fast, slow = CloudScheduler(index, resource, instance), ReferenceCloud(
            index, resource, instance)
        now = 0
        for job in rng.permutation(instance.n_jobs).tolist():
            now += int(rng.integers(0, 40))  # sometimes within an hour, sometimes across
            offers = fast.candidates(job, now)
            assert offers == slow.candidates(job, now)
            got, want = fast.options(job, now), slow.options(job, now)
            assert (got is None) == (want is None)
            if got is not None:
                for a, b in zip(got, want, strict=True):
                    assert a.tolist() == b.tolist()
            if offers:
                pick = offers[int(rng.integers(len(offers)))]
                assert fast.accept(pick) == slow.accept(pick)
            assert fast.free_at == slow.free_at.tolist()
            assert fast.all_free_at == max(fast.free_at)
            assert fast.next_free() == min(fast.free_at)
            assert fast.last_hour == slow.last_hour.tolist()
            assert fast.billed == slow.billed[: len(fast.billed)].tolist()
            assert not slow.billed[len(fast.billed):].any()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cluster_candidates_match_their_first_implementation(seed: int) -> None:
    instance = generate(60, "mixed", seed, resources=CLOUDY[:4])
    rng = np.random.default_rng(seed)
    for index in (0, 2):
        cluster = ClusterScheduler(index, instance.resources[index], instance)
        for _ in range(40):
            queued = rng.choice(instance.n_jobs, int(rng.integers(0, 8)), replace=False)
            cluster.queue = sorted(cluster.order[q] for q in queued.tolist())
            cluster.busy_until = int(rng.integers(0, 200))
            now = int(rng.integers(0, 200))
            for job in set(range(instance.n_jobs)) - set(queued.tolist()):
                for migrate in (True, False):
                    assert (cluster.candidates(job, now, migrate)
                            == reference_cluster_candidates(cluster, job, now, migrate))


@pytest.mark.parametrize("scheduler", ["tree", "flat"])
@pytest.mark.parametrize("policy", ["A", "B"])
@pytest.mark.parametrize(("jobs", "mix", "seed"), [(120, "small", 0), (200, "mixed", 1),
                                                   (300, "big", 2), (80, "big", 3)])
def test_pruned_offers_choose_what_every_leaf_through_the_tree_chooses(
        scheduler: str, policy: str, jobs: int, mix: str, seed: int) -> None:
    instance = generate(jobs, mix, seed, resources=CLOUDY, serial_fraction=0.2)
    fast = simulate(instance, scheduler, policy, seed)
    _same(fast, simulate(instance, scheduler, policy, seed, exhaustive=True))
    assert check(instance, fast[0]) == []


@pytest.mark.parametrize("policy", ["A", "B"])
@pytest.mark.parametrize(("mix", "seed"), [("mixed", 0), ("big", 1)])
def test_pruning_on_the_hundred_leaf_tree(policy: str, mix: str, seed: int) -> None:
    platform = load_platform(TREES / "hundred-leaves.toml")
    instance = generate(400, mix, seed, resources=platform.resources, tree=platform.tree)
    fast = simulate(instance, "tree", policy, seed)
    _same(fast, simulate(instance, "tree", policy, seed, exhaustive=True))
    assert check(instance, fast[0]) == []


@pytest.mark.parametrize("policy", ["A", "B"])
def test_pruning_when_clouds_fill_up_and_jobs_wait(policy: str) -> None:
    instance = generate(150, "big", 4, resources=CLOUDY[4:])  # clouds only: they fill up
    fast = simulate(instance, "tree", policy, 4)
    assert any(e["event"] == "wait" for e in fast[0].events)
    _same(fast, simulate(instance, "tree", policy, 4, exhaustive=True))
    assert check(instance, fast[0]) == []


@pytest.mark.parametrize("config", ["paper.toml", "hundred-leaves.toml"])
def test_trees_compile_without_networkx_as_through_it(config: str) -> None:
    platform = load_platform(TREES / config)
    resources = platform.resources
    ids = [r.id for r in resources]
    shuffled = build_tree(list(reversed(platform.tree.edges)), ids)  # another node order
    for tree in (platform.tree, default_tree(resources), star_tree(resources), shuffled):
        assert compile_agent_tree(tree) == compile_tree(to_digraph(tree, resources))
