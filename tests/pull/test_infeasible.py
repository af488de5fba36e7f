"""Which work units no host can complete, and checking schedules on never-available hosts."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.pull.family import _room, infeasible_items
from hybridsched.pull.instance import Behaviour

from .helpers import tiny, windows


@settings(max_examples=200, deadline=None, derandomize=True)
@given(windows(), st.lists(st.integers(0, 250).map(float), min_size=1, max_size=8))
def test_room_is_the_longest_rest_of_a_window_from_each_time(spans, times) -> None:
    brute = [max(min(b, 1e9) - max(a, t) for a, b in spans) for t in times]
    assert _room(spans, np.array(times)).tolist() == brute


def test_hosts_that_never_return_a_correct_result_serve_nobody() -> None:
    always = ((0.0, math.inf),)
    erring = tiny(hosts=(("idg", 100.0, 0.0, 1.0, always),))
    assert infeasible_items(erring) == ["work unit(s) 'w0', 'w1': no host ever returns a "
                                        "correct result"]
    assert infeasible_items(tiny(behaviour=Behaviour(0.0, 1.0, 1.5, 0))) != []
    many = tiny(noi=[1e9] * 8, hosts=(("cloud", 1.0, 0.0, 0.0, ((0.0, 10.0),)),))
    assert infeasible_items(many) == [
        "work unit(s) 'w0', 'w1', 'w2', 'w3', 'w4' and 3 more fit in no availability window "
        "of any host after their arrival (and before the horizon, 1e+09 s)"]


def test_a_task_on_a_never_available_host_is_invalid_not_a_crash(tmp_path, cli) -> None:
    from hybridsched.catalogue import get_family

    family = get_family("pull")
    instance = tiny(hosts=(("cloud", 100.0, 0.01, 0.0, ((0.0, math.inf),)),
                           ("beg", 50.0, 0.0, 0.0, ())))
    inst, sol = tmp_path / "i.json", tmp_path / "s.json"
    inst.write_text(json.dumps(family.instance_to_dict(instance)))
    code, _, err = cli("simulate", "pull", inst, "-o", sol)
    assert code == 0, err
    document = json.loads(sol.read_text())
    document["tasks"][0]["host"] = "h1"  # the host with no window
    sol.write_text(json.dumps(document))
    code, out, err = cli("validate", inst, sol)
    assert code == 1 and "outside the host's availability windows" in out, err
