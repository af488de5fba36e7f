import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.bot_sites.checker import check, evaluate
from hybridsched.bot_sites.generator import table2_inconsistent
from hybridsched.heuristics.bot_sites.greedy import GREEDY

from .bot_helpers import random_instance
from .bot_naive import NAIVE, expand, same_schedule

NAMES = list(GREEDY)


def naive_rows(inst, name, objective):
    return sorted((j, s, k) for k, j, s in NAIVE[name](inst, objective))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("objective", ["makespan", "cost"])
def test_fast_equals_textbook_on_random_instances(name, objective):
    rng = np.random.default_rng(hash((name, objective)) % 2**32)
    for _ in range(25):
        inst = random_instance(rng)
        fast = GREEDY[name](inst, objective=objective)
        assert check(inst, fast) == []
        assert same_schedule(expand(inst, fast), naive_rows(inst, name, objective))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(NAMES),
       integer=st.booleans(), objective=st.sampled_from(["makespan", "cost"]))
def test_fast_equals_textbook_property(seed, name, integer, objective):
    inst = random_instance(np.random.default_rng(seed), integer_times=integer)
    fast = GREEDY[name](inst, objective=objective)
    assert same_schedule(expand(inst, fast), naive_rows(inst, name, objective))


@pytest.mark.parametrize("name", NAMES)
def test_same_input_same_schedule(name):
    inst = random_instance(np.random.default_rng(5), K=4, M=3)
    a, b = GREEDY[name](inst, seed=1), GREEDY[name](inst, seed=2)
    assert expand(inst, a) == expand(inst, b)


def test_table2_values():
    # Recorded values on the paper's Table 2 example (optimum 23).
    inst = table2_inconsistent()
    got = {n: evaluate(inst, f(inst)).objective for n, f in GREEDY.items()}
    assert got == {"g-met": 30.0, "g-mct": 23.0, "g-olb": 23.0, "g-min-min": 23.0,
                   "g-max-min": 23.0, "g-sufferage": 23.0}


def test_cost_variants_equal_time_variants_when_free():
    inst = random_instance(np.random.default_rng(9), K=3, M=3, prices=False)
    for f in GREEDY.values():
        assert expand(inst, f(inst, objective="cost")) == expand(inst, f(inst))


def test_cost_variant_lowers_cost():
    from hybridsched.bot_sites.checker import schedule_cost
    inst = random_instance(np.random.default_rng(3), K=4, M=3, dag=False)
    for name in ("g-mct", "g-min-min"):
        assert schedule_cost(inst, GREEDY[name](inst, objective="cost")) <= \
            schedule_cost(inst, GREEDY[name](inst))


def test_met_spreads_over_fastest_site():
    from hybridsched.bot_sites.instance import Instance
    inst = Instance("m", ("a",), ("s0", "s1"), [6], [3, 1], [0, 0], [[2.0, 1.0]])
    sol = GREEDY["g-met"](inst)
    assert set(sol.site.tolist()) == {1}          # fastest site only
    inst = Instance("m", ("a",), ("s0", "s1"), [6], [3, 1], [0, 0], [[1.0, 2.0]])
    sol = GREEDY["g-met"](inst)
    assert sorted(sol.count.tolist()) == [2, 2, 2]   # spread over the fastest site's processors


def test_unknown_objective():
    from hybridsched.errors import InputError
    with pytest.raises(InputError, match="objective"):
        GREEDY["g-mct"](table2_inconsistent(), objective="energy")
