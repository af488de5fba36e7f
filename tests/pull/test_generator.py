"""Pull instances: Table 3 hosts, balanced DCIs, valid availability windows, seeds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hybridsched.errors import InputError
from hybridsched.pull.bounds import makespan_lower_bound
from hybridsched.pull.generator import generate


def test_hosts_follow_table_3_and_the_dcis_are_balanced() -> None:
    instance = generate(200, seed=4)
    dci = np.array(instance.dci)
    for name in ("idg", "cloud", "beg"):
        total = instance.cpu[dci == name].sum()
        assert 10_000 <= total < 10_400  # reached, overshooting by at most one host
    assert set(instance.cpu[dci == "beg"]) <= {50, 100, 150}
    assert (instance.price[dci != "cloud"] == 0).all()
    cloud = dict(zip(instance.cpu[dci == "cloud"], instance.price[dci == "cloud"], strict=True))
    assert all(cloud[c] == p for c, p in {250: 0.001, 300: 0.005, 350: 0.0075,
                                          400: 0.01}.items() if c in cloud)
    assert (instance.error[dci == "cloud"] <= 0.05).all()
    assert (instance.noi >= 1e6).all() and (instance.noi <= 1e7).all()


def test_windows_are_sorted_disjoint_and_seeded() -> None:
    instance = generate(50, ("idg", "beg"), seed=9)
    for windows in instance.windows:
        assert windows and all(a < b for a, b in windows)
        assert all(windows[k][1] <= windows[k + 1][0] for k in range(len(windows) - 1))
    again = generate(50, ("idg", "beg"), seed=9)
    assert again.windows == instance.windows and np.array_equal(again.noi, instance.noi)
    assert generate(50, ("idg", "beg"), seed=10).windows != instance.windows


def test_the_bound_is_finite_and_positive() -> None:
    bound = makespan_lower_bound(generate(2000, seed=1))
    assert 0 < bound < math.inf


@pytest.mark.parametrize("kwargs, words", [
    ({"dcis": ()}, "an infrastructure is needed"),
    ({"dcis": ("idg", "grid")}, "choose among"),
    ({"dcis": ("idg", "idg")}, "twice"),
    ({"units": -1}, "units"),
    ({"capacity": 0}, "capacity"),
])
def test_bad_options_are_one_line_errors(kwargs, words) -> None:
    with pytest.raises(InputError, match=words) as caught:
        generate(**kwargs)
    assert "\n" not in str(caught.value)
