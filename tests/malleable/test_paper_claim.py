"""Paper 000's claim on big jobs stays true: the agent tree beats round robin on every metric.

"In the case of big jobs, our algorithm shows better performance considering all metrics"
(section 5; the metrics: total execution time, total cost, delay). The fidelity campaign
(examples/campaigns/fidelity-malleable-tree.toml, 10 paired seeds per size) finds it under the
time-saving policy B from 200 jobs on: B wins on every seed and every metric at 200-1,600 jobs.
Under the money-saving policy A the tree is cheaper but slower, and at 100 jobs B is slower than
round robin (the README's reproduction table gives the intervals). This test keeps the claim's
core from regressing on three seeds.
"""

from __future__ import annotations

import pytest

from hybridsched.malleable.checker import check
from hybridsched.malleable.generator import generate
from hybridsched.registry import run_method

METRICS = ("total_time", "cost", "total_delay")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tree_under_policy_b_beats_round_robin_on_big_jobs_on_every_metric(seed: int) -> None:
    instance = generate(200, "big", seed=seed)
    tree = run_method("malleable", "tree", instance, seed=0, policy="B")
    baseline = run_method("malleable", "round-robin", instance, seed=0)
    for result in (tree, baseline):
        assert check(instance, result.solution) == []
    for metric in METRICS:
        assert tree.metrics[metric] < baseline.metrics[metric], metric
