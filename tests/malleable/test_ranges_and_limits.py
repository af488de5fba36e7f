"""Checks that scale with the schedule, not with processors; limits found before a run.

The checker finds overlaps per range of processors used alike and bills clouds
per range of VMs, so a job on 10^6 processors costs one row, not 10^6; the
results must equal the per-processor and per-VM definitions, which the naive
functions below spell out. Limits (VM-count tables, the time range, tree
names and sizes) are refused when the instance is read, with one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.errors import InputError
from hybridsched.malleable import billing, checker, files, generator, tree
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.limits import MAX_JOB_VM_COUNTS, check_size
from hybridsched.malleable.solution import from_pieces

DED = Resource("ded", ResourceType.DEDICATED, 6)
CLOUD = Resource("sky", ResourceType.CLOUD, 2, price=60.0, max_vms=4, spot_vms=1,
                 on_demand_price=90.0)


def instance_of(n: int, resources: tuple[Resource, ...]) -> Instance:
    return Instance("t", tuple(f"j{k}" for k in range(n)), np.full(n, 10.0),
                    np.ones(n, np.int64), np.full(n, 10**6, np.int64), np.full(n, 1e9),
                    np.zeros(n, np.int64), np.zeros(n), resources)


def naive_clashes(solution, n_resources: int) -> int:
    """Processors that serve two pieces at once, counted per (processor, pair of pieces)."""
    clashes = 0
    for a in range(solution.n_pieces):
        for b in range(a + 1, solution.n_pieces):
            same = solution.resource[solution.job[a]] == solution.resource[solution.job[b]]
            cpus = set(range(solution.cpu[a], solution.cpu[a] + solution.count[a])) & set(
                range(solution.cpu[b], solution.cpu[b] + solution.count[b]))
            if same and cpus and solution.start[a] < solution.end[b] \
                    and solution.start[b] < solution.end[a]:
                clashes += 1
    return clashes


def naive_vms_per_hour(vm_first, vm_stop, start, end) -> dict[int, int]:
    used: dict[int, set[int]] = {}
    for f, s, a, b in zip(vm_first, vm_stop, start, end, strict=True):
        for hour in range(a // billing.HOUR, (b - 1) // billing.HOUR + 1):
            used.setdefault(hour, set()).update(range(f, s))
    return {h: len(v) for h, v in sorted(used.items())}


pieces_on_one_cluster = st.lists(st.tuples(st.integers(0, 30), st.integers(1, 8),
                                           st.integers(0, 5), st.integers(1, 6)),
                                 min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(pieces_on_one_cluster)
def test_overlaps_by_ranges_find_exactly_the_per_processor_clashes(raw) -> None:
    pieces = [(k, s, s + d, min(c, 5), min(n, 6 - min(c, 5))) for k, (s, d, c, n)
              in enumerate(raw)]
    instance = instance_of(len(pieces), (DED,))
    solution = from_pieces(len(pieces), [0] * len(pieces), pieces)
    problems, count = checker._overlaps(instance, solution)
    assert (count == 0) == (naive_clashes(solution, 1) == 0)
    assert len(problems) == min(count, checker.MAX_LISTED)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(1, 6), st.integers(0, 200),
                          st.integers(1, 150)), min_size=0, max_size=10))
def test_vms_per_hour_by_ranges_equals_the_per_vm_count(uses) -> None:
    first = [f for f, _, _, _ in uses]
    stop = [f + n for f, n, _, _ in uses]
    start = [s for _, _, s, _ in uses]
    end = [s + d for _, _, s, d in uses]
    expected = naive_vms_per_hour(first, stop, start, end)
    # one row per VM (the old way), and one row per range with its VM count (the new one)
    per_vm = [(v, s, e) for f, top, s, e in zip(first, stop, start, end, strict=True)
              for v in range(f, top)]
    vm, s, e = (np.array(column, dtype=np.int64) for column in zip(*per_vm, strict=True)) \
        if per_vm else (np.zeros(0, np.int64),) * 3
    assert billing.vms_per_hour(vm, 1, s, e) == expected
    if uses:
        rows, segment, cuts = checker.split_ranges(np.array(first), np.array(stop), "VMs")
        got = billing.vms_per_hour(segment, np.diff(cuts)[segment], np.array(start)[rows],
                                   np.array(end)[rows])
        assert got == expected


def test_a_cloud_bill_by_ranges_by_hand() -> None:
    # j0 on VMs 0-3 (CPUs 0-7) 0..70, j1 on VMs 1-2 (CPUs 2-5) 70..130: hour 0 bills 4 VMs
    # (1 spot + 3 on demand), hour 1 bills 4 (j0 until 70, then j1), hour 2 bills 2.
    instance = instance_of(2, (CLOUD,))
    solution = from_pieces(2, [0, 0], [(0, 0, 70, 0, 8), (1, 70, 130, 2, 4)])
    total, bill, share = checker.costs(instance, solution)
    assert total == pytest.approx((60 + 3 * 90) * 2 + 60 + 90)
    assert share == pytest.approx([4 * 70 * 1.0, 2 * 60 * 1.0])


def test_a_schedule_too_fragmented_to_check_is_one_line(monkeypatch) -> None:
    monkeypatch.setattr(checker, "MAX_SPLIT_ROWS", 5)
    instance = instance_of(4, (DED,))
    solution = from_pieces(4, [0] * 4, [(k, 10 * k, 10 * k + 5, k, 6 - k) for k in range(4)])
    with pytest.raises(InputError, match="too fragmented to check"):
        checker.check(instance, solution)


# -- the implicit trees and tree validation ---------------------------------------------------
@pytest.mark.parametrize("build", [tree.default_tree, tree.star_tree])
def test_implicit_trees_avoid_resource_names(build) -> None:
    resources = [Resource(rid, ResourceType.DEDICATED, 2)
                 for rid in ("root", "root_", "dedicated-agent", "dedicated-agent_")]
    made = build(resources)
    assert made.root not in {r.id for r in resources}
    assert sorted(name for name, _ in made.leaves) == sorted(r.id for r in resources)


def test_a_deep_chain_is_validated_in_linear_time() -> None:
    """Each node is walked once: a 20,000-agent chain (the old walk was quadratic per node)."""
    n = 20_000
    edges = [(f"a{k}", f"a{k + 1}") for k in range(n)] + [(f"a{n}", "r")]
    made = tree.build_tree(edges, ["r"])
    assert made.root == "a0" and made.leaves == (("r", 0),)
    with pytest.raises(InputError, match="cycle a0 -> "):
        tree.build_tree([*edges, ("r2", "a0"), ("a0", "r2")], ["r"])


def test_cycle_messages_do_not_depend_on_hashing() -> None:
    """The same file gives the same message in every process (string hashing is salted)."""
    code = ("from hybridsched.malleable.tree import build_tree\n"
            "try:\n"
            "    build_tree([('root', 'r'), ('a', 'b'), ('b', 'c'), ('c', 'a')], ['r'])\n"
            "except ValueError as exc:\n"
            "    print(exc)\n")
    messages = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               env={**os.environ, "PYTHONHASHSEED": str(seed)},
                               check=True).stdout.strip() for seed in (1, 2, 3, 4)}
    assert messages == {"tree: cycle a -> b -> c -> a"}


# -- limits --------------------------------------------------------------------------------
def test_vm_count_tables_are_limited_per_distinct_cloud_type() -> None:
    cloud = Resource("c", ResourceType.CLOUD, 1, price=1.0, max_vms=10**6)
    twins = (cloud, Resource("c2", ResourceType.CLOUD, 1, price=2.0, max_vms=10**6))
    check_size(MAX_JOB_VM_COUNTS // 10**6, twins, "x")  # one table serves both
    with pytest.raises(InputError, match=r"x: 51 jobs x 1000000 VM counts"):
        check_size(51, (cloud,), "x")
    with pytest.raises(InputError, match="VM count"):
        generator.generate(60, resources=(cloud,))


def test_the_generator_refuses_duplicate_or_no_resources() -> None:
    with pytest.raises(InputError, match="duplicate id 'ded'"):
        generator.generate(2, resources=(DED, DED))
    with pytest.raises(InputError, match="at least one resource"):
        generator.generate(2, resources=())


def test_a_slow_platform_gets_deadlines_it_can_meet() -> None:
    slow = Resource("s", ResourceType.ALLOCATED, 1, performance=1e-3, price=1.0)
    instance = generator.generate(20, "small", 3, resources=(slow,))
    assert (instance.deadline - instance.arrival >= instance.size / 1e-3).all()
    files.instance_from_dict(json.loads(json.dumps(files.instance_to_dict(instance))))


def test_a_job_that_cannot_end_in_the_time_range_is_refused_when_read() -> None:
    document = files.instance_to_dict(generator.generate(3, "small", 1))
    document["jobs"][1].update(arrival=10**7 - 1, deadline=10**7)
    document["jobs"][1]["size"] = 10**7 * 1.0  # needs more than one minute on 64 CPUs
    with pytest.raises(InputError, match=r"i.json: field jobs.1.arrival: job 'j1' arrives "
                                         r"at minute 9999999 and cannot end"):
        files.instance_from_dict(document, "i.json")
    document["jobs"][1]["size"] = 60.0  # one minute on the 64-CPU cluster: ends at 10^7
    assert files.instance_from_dict(document, "i.json").n_jobs == 3


def test_a_campaign_spec_checks_the_vm_count_limit_before_any_run(tmp_path) -> None:
    from hybridsched.experiments.source_options import check_generator_options

    config = tmp_path / "sky.toml"
    config.write_text('fanout = [1]\n[[leaves]]\ntype = "cloud"\ncpus = 1\nprice = 60\n'
                      'max_vms = 1000000\n')
    check_generator_options("malleable", {"jobs": 50, "tree": str(config)})
    with pytest.raises(InputError, match="VM count"):
        check_generator_options("malleable", {"jobs": 51, "tree": str(config)})


def test_a_wide_tree_is_drawn_with_a_few_artists() -> None:
    """One artist per kind of node and one for the edges, whatever the tree's size.

    An artist per node and per edge took about four minutes for 10^4 leaves.
    """
    from hybridsched.plots.tree import plot_tree

    resources = [Resource(f"r{k}", ResourceType.DEDICATED if k % 2 else ResourceType.ALLOCATED,
                          2, price=0.0 if k % 2 else 1.0) for k in range(3000)]
    made = tree.default_tree(resources)
    axes = plot_tree(made, resources).axes[0]
    assert len(axes.collections) == 4  # edges, agents, two kinds of local schedulers
    assert len(axes.lines) == 0 and len(axes.texts) <= 1
