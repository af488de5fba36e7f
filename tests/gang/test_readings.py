"""Every reading option of the gang family changes decisions, and a bad value is one line.

Each option value is compared with the default reading on seeded random
decision states (small, integer-valued, so that ties and scarcity occur) or,
for the drop rule and the generator, on small instances: it must change
something, and the schedules it makes pass the checker.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from hybridsched.cli.app import app
from hybridsched.errors import InputError
from hybridsched.gang.checker import TIME_TOL, check
from hybridsched.gang.generator import READINGS, generate
from hybridsched.gang.instance import Instance
from hybridsched.heuristics.gang.baselines import OPTIONS, make_baseline
from hybridsched.heuristics.gang.cplmt import make_cplmt
from hybridsched.heuristics.gang.simulation import DecisionState
from hybridsched.registry import check_options, run_method

#: Seeds tried before an option is declared to change nothing.
TRIES = 400


def random_state(seed: int) -> DecisionState:
    """A decision with <= 8 waiting jobs and <= 12 VMs, some busy (integer draws)."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 9)), int(rng.integers(1, 13))
    now = float(rng.integers(0, 4))
    arrival = np.minimum(rng.integers(0, 4, n), now).astype(float)

    def ints(lo: int, hi: int, size: int) -> np.ndarray:
        return rng.integers(lo, hi + 1, size).astype(float)

    instance = Instance(
        "state", tuple(f"j{k}" for k in range(n)), arrival=arrival,
        parallelism=rng.integers(1, 5, n), instructions=ints(1, 12, n), memory=ints(0, 4, n),
        bandwidth=ints(1, 4, n), disk=ints(0, 2, n), deadline=ints(1, 6, n) + (now - arrival),
        vm_ids=tuple(f"v{k}" for k in range(m)), speed=ints(1, 4, m), vm_memory=ints(1, 4, m),
        vm_bandwidth=ints(1, 4, m), vm_disk=np.where(rng.random(m) < 0.5, np.inf, ints(1, 2, m)))
    free = rng.random(m) < 0.7
    fits, task_time = instance.fits(), instance.task_time()
    in_time = now + task_time <= instance.due[:, None] + TIME_TOL
    ready = np.where(free, now, now + ints(1, 3, m))
    return DecisionState(now, np.arange(n), fits & in_time & free[None, :], instance,
                         task_time, fits, ready)


def _decisions(policy: Any, state: DecisionState) -> list[tuple[int, list[int]]]:
    return [(int(j), sorted(int(v) for v in vms)) for j, vms in policy(state)]


def _changes(default: Any, variant: Any) -> bool:
    return any(_decisions(default, s) != _decisions(variant, s)
               for s in map(random_state, range(TRIES)))


CPLMT_VARIANTS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    # (base readings, the variant's changes)
    ({}, {"tovload": "fractions"}),
    ({}, {"cpu_demand": "deadline"}),
    ({}, {"cpu_demand": "instructions"}),
    ({}, {"overload_at": "exceeded"}),
    ({}, {"k": 0.5}),
    ({}, {"k": 3.0}),
    ({}, {"epsilon": 0.0}),
    ({}, {"omega": 0.0}),
    ({}, {"eta": 0.0}),
    ({"omega": 0.3, "eta": 0.3, "k": 0.0}, {"one_ol": "printed"}),
    ({}, {"select_start": "zero"}),
    ({}, {"task_min": "distinct"}),
    ({}, {"mt_vms": "fitting"}),
    ({}, {"mt_vms": "free"}),
    ({"task_min": "distinct"}, {"standard": "min"}),
    ({"task_min": "distinct"}, {"standard_vms": "fitting"}),
    ({"task_min": "distinct"}, {"standard_vms": "free"}),
]


@pytest.mark.parametrize(("base", "change"), CPLMT_VARIANTS,
                         ids=[",".join(f"{k}={v}" for k, v in c.items())
                              for _, c in CPLMT_VARIANTS])
def test_each_cplmt_reading_changes_decisions(base: dict[str, Any],
                                              change: dict[str, Any]) -> None:
    assert _changes(make_cplmt(**base), make_cplmt(**base, **change))


# ``deadline`` is the simulation's reading (a state's ``aware``): test_deadline_readings.py.
@pytest.mark.parametrize(("method", "option", "value"),
                         [(m, o, v) for m, opts in OPTIONS.items() for o, vs in opts.items()
                          if o != "deadline" for v in vs[1:]])
def test_each_baseline_reading_changes_decisions(method: str, option: str, value: str) -> None:
    assert _changes(make_baseline(method), make_baseline(method, **{option: value}))


def test_the_literal_zero_start_selects_nothing() -> None:
    zero = make_cplmt(select_start="zero")
    assert all(zero(random_state(s)) == [] for s in range(50))
    assert any(make_cplmt()(random_state(s)) for s in range(50))


def test_drop_at_the_deadline_holds_up_strict_fifo_and_stays_valid() -> None:
    changed = False
    for seed in range(20):
        instance = generate(60, 20.0, "table1", seed=seed, vms=10)
        early = run_method("gang", "fifo", instance)
        late = run_method("gang", "fifo", instance, drop="deadline")
        assert check(instance, late.solution) == []
        assert late.objective >= early.objective  # the head blocks longer, never shorter
        changed |= late.objective > early.objective
    assert changed


@pytest.mark.parametrize(("method", "options"), [
    ("cplmt", {"tovload": "sum"}), ("cplmt", {"k": -1}), ("cplmt", {"epsilon": 1.5}),
    ("cplmt", {"k": "1.5"}), ("cplmt", {"task_min": None}), ("cplmt", {"colour": "red"}),
    ("fifo", {"blocking": "maybe"}), ("fair", {"vms": "slowest"}), ("asjs", {"wait": 1}),
    ("cmms", {"completion": "later"}), ("cmms", {"drop": "never"}),
])
def test_bad_option_values_are_one_line_input_errors(method: str,
                                                     options: dict[str, Any]) -> None:
    with pytest.raises(InputError) as caught:
        check_options("gang", method, options)
    message = str(caught.value)
    assert "\n" not in message and next(iter(options)).replace("_", "-") in message


def test_options_reach_the_method() -> None:
    instance = generate(80, 15.0, "table1", seed=1, vms=16)
    literal = run_method("gang", "cplmt", instance)
    nothing = run_method("gang", "cplmt", instance, select_start="zero")
    assert check(instance, literal.solution) == [] and check(instance, nothing.solution) == []
    assert nothing.objective == instance.n_jobs > literal.objective


@pytest.mark.parametrize(("option", "value"),
                         [(o, v) for o, vs in READINGS.items() for v in vs[1:]])
def test_each_generator_reading_changes_the_instance(option: str, value: str) -> None:
    plain = generate(200, 10.0, "table1", seed=5)
    other = generate(200, 10.0, "table1", seed=5, **{option: value})
    assert other.n_jobs == 200 and option != "" and other.name != plain.name
    if option == "instructions":
        assert np.allclose(other.instructions * other.parallelism, plain.instructions,
                           atol=1e-5)
    elif value == "even":
        assert np.allclose(np.diff(other.arrival), 0.1)
    elif value == "batches":
        assert np.array_equal(other.arrival, np.floor(other.arrival))
        assert (np.diff(other.arrival) >= 0).all()
    else:
        for field in ("instructions", "memory", "bandwidth", "speed", "vm_memory"):
            values = getattr(other, field)
            assert np.array_equal(values, np.round(values)), field
        assert not np.array_equal(plain.memory, np.round(plain.memory))


def test_per_job_instructions_lower_the_share_no_schedule_can_finish() -> None:
    from hybridsched.gang.checker import could_finish

    def floor(instance: Instance) -> float:
        return float((could_finish(instance).sum(axis=1) < instance.parallelism).mean())

    for scenario in ("table1", "table2"):
        per_task = generate(2000, None, scenario, seed=0)
        per_job = generate(2000, None, scenario, seed=0, instructions="per-job")
        assert floor(per_job) < floor(per_task) - 0.2


def test_bad_generator_readings_are_refused() -> None:
    with pytest.raises(InputError, match="instructions"):
        generate(5, 1.0, "table1", 0, instructions="per-vm")
    result = CliRunner().invoke(app, ["generate", "gang", "-o", "x.json", "--arrivals",
                                      "sometimes"])
    assert result.exit_code == 2
