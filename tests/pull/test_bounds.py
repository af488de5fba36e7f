"""The pull makespan lower bound from availability, by hand and against a brute simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.pull.bounds import capacity_bound, largest_unit_bound, makespan_lower_bound
from hybridsched.pull.instance import Instance


def make(noi, hosts) -> Instance:
    """``hosts``: ``(cpu, windows)`` pairs."""
    n = len(noi)
    return Instance("t", tuple(f"w{k}" for k in range(n)), np.array(noi, dtype=float),
                    np.zeros(n), tuple(f"h{k}" for k in range(len(hosts))),
                    ("idg",) * len(hosts), np.array([c for c, _ in hosts], dtype=float),
                    np.zeros(len(hosts)), np.zeros(len(hosts)),
                    tuple(tuple(w) for _, w in hosts))


def test_bounds_by_hand() -> None:
    # 300 instructions; host A 10/s during [0, 10), host B 20/s during [5, 100).
    instance = make([100, 200], [(10, [(0, 10)]), (20, [(5, 100)])])
    # Capacity: 50 by t=5, then 30/s until 10 (200 by then), then 20/s: 300 at t=15.
    assert capacity_bound(instance) == pytest.approx(15.0)
    # Largest unit (200): on A needs 20 s in one window (no); on B 10 s from 5: ends at 15.
    assert largest_unit_bound(instance) == pytest.approx(15.0)
    assert makespan_lower_bound(instance) == pytest.approx(15.0)
    never = make([500], [(10, [(0, 10)])])
    assert math.isinf(makespan_lower_bound(never))


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_no_sequential_schedule_beats_the_bound(data: st.DataObject) -> None:
    """Greedy list schedules (units in random order on the first host free) never beat it."""
    n_hosts = data.draw(st.integers(1, 3))
    hosts = []
    for _ in range(n_hosts):
        cpu = data.draw(st.sampled_from([1.0, 2.0, 4.0]))
        start = data.draw(st.integers(0, 5))
        hosts.append((cpu, [(float(start), float(start + data.draw(st.integers(5, 60))))]))
    noi = data.draw(st.lists(st.integers(1, 20), min_size=1, max_size=5))
    instance = make(noi, hosts)
    bound = makespan_lower_bound(instance)
    free = [w[0][0] for _, w in hosts]
    end = 0.0
    for j in data.draw(st.permutations(range(len(noi)))):
        options = []
        for h, (cpu, w) in enumerate(hosts):
            s = free[h]
            e = s + noi[j] / cpu
            if e <= w[0][1]:
                options.append((e, h))
        if not options:
            return  # this order does not finish: nothing to compare
        e, h = min(options)
        free[h] = e
        end = max(end, e)
    assert end >= bound - 1e-9
