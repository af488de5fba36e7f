"""The pull simulation: hand-checked runs, the checker on every run, seeds, the bound."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.pull import check, evaluate, lower_bound
from hybridsched.pull.generator import generate
from hybridsched.pull.instance import Behaviour
from hybridsched.pull.solution import CANCELLED, CORRECT, LOST, OUTCOMES
from hybridsched.registry import run_method
from tests.pull.helpers import instances, tiny

METHODS = [("fcfs", {}), ("promethee", {}),
           ("promethee", {"targets": "min,min,min", "weights": "0.5,0.3,0.2"}),
           ("promethee", {"preference": "level"}), ("promethee", {"preference": "gaussian"}),
           ("promethee", {"window": 0.5})]


def run(instance, method="promethee", seed=0, **options):
    result = run_method("pull", method, instance, seed=seed, **options)
    assert result.solution is not None, result.message
    assert check(instance, result.solution) == []
    return result


def test_one_reliable_host_runs_the_units_back_to_back() -> None:
    instance = tiny()
    result = run(instance, targets="max,max,max")
    s = result.solution
    assert s.unit.tolist() == [1, 0]  # largest first (ECT max)
    assert s.start.tolist() == [0.0, 20.0] and s.end.tolist() == [20.0, 30.0]
    m = result.metrics
    assert m["makespan"] == 30.0 and m["cost"] == pytest.approx(0.3)
    assert m["efficiency"] == 1.0 and m["efficiency_cloud"] == 1.0
    assert run(instance, targets="min,min,min").solution.unit.tolist() == [0, 1]


def test_a_leaving_host_loses_its_task_and_a_replica_completes_the_unit() -> None:
    hosts = (("idg", 100.0, 0.0, 0.0, ((0.0, 5.0), (50.0, math.inf))),
             ("cloud", 10.0, 0.01, 0.0, ((0.0, math.inf),)))
    instance = tiny((1000.0,), hosts)
    s = run(instance, "fcfs").solution
    outcomes = [OUTCOMES[o] for o in s.outcome]
    assert outcomes.count("lost") == 1 and outcomes.count("correct") == 1
    lost = int(np.flatnonzero(s.outcome == LOST)[0])
    assert s.end[lost] == 5.0
    # The idg host rejoins at 50 and replicates the unit still running on the slow host.
    assert s.completion(1)[0] == 60.0
    assert (s.outcome == CANCELLED).sum() == 1
    m = evaluate(instance, s).metrics
    assert m["makespan"] == 60.0
    assert m["efficiency"] == pytest.approx(1000 / 3000)
    # idg ran 500 (lost) + 1000 (completing); the cloud host ran 600 of its replica.
    assert m["efficiency_idg"] == pytest.approx(1000 / 1500)
    assert m["efficiency_cloud"] == 0.0 and m["instructions_cloud"] == pytest.approx(600)
    assert m["cost"] == 0.0  # the cancelled cloud task is not charged


def test_wrong_results_are_rejected_and_lower_the_reputation() -> None:
    hosts = (("idg", 100.0, 0.0, 1.0, ((0.0, math.inf),)),
             ("cloud", 50.0, 0.0, 0.0, ((30.0, math.inf),)))
    instance = tiny((1000.0, 1000.0), hosts)
    s = run(instance, "fcfs").solution
    assert set(s.outcome[s.host == 0].tolist()) <= {1, CANCELLED}  # host 0 always errs
    assert (s.outcome[s.host == 1] == CORRECT).sum() == 2


def test_late_results_are_not_charged() -> None:
    instance = tiny(behaviour=Behaviour(1.0, 0.0, 1.5, 3))
    m = run(instance).metrics
    assert m["tasks_delayed"] == 2 and m["cost"] == 0.0 and m["makespan"] > 30.0


def test_never_results_are_redone() -> None:
    instance = tiny(behaviour=Behaviour(0.0, 0.9, 1.5, 1))
    result = run(instance)
    assert result.metrics["tasks_never"] >= 1
    assert result.metrics["completed"] == 2


def test_a_unit_no_window_can_hold_is_reported_incomplete() -> None:
    from hybridsched.pull import infeasible_items

    instance = tiny((1000.0, 100.0), (("idg", 10.0, 0.0, 0.0, ((0.0, 50.0),)),))
    assert infeasible_items(instance) == [
        "work unit(s) 'w0' fit in no availability window of any host after their arrival "
        "(and before the horizon, 1e+09 s)"]
    result = run_method("pull", "promethee", instance)
    assert result.status.value == "infeasible" and "'w0'" in result.message
    # Each unit fits alone, but not both: the run ends incomplete, with no schedule.
    instance = tiny((1000.0, 1000.0), (("idg", 100.0, 0.0, 0.0, ((0.0, 15.0),)),))
    assert infeasible_items(instance) == []
    result = run_method("pull", "promethee", instance)
    assert result.solution is None and "availability ends" in result.message


@pytest.mark.parametrize("method, options", METHODS)
def test_every_method_passes_the_checker_and_is_seeded(method, options) -> None:
    instance = generate(120, seed=5)
    first = run(instance, method, seed=2, **options)
    again = run(instance, method, seed=2, **options)
    assert first.solution.events == again.solution.events
    assert first.objective >= lower_bound(instance) - 1e-6
    assert first.metrics["completed"] == 120


def test_behaviour_draws_do_not_depend_on_the_method_seed() -> None:
    instance = generate(60, ("cloud",), seed=1, behaviour="intime")
    a = run(instance, "fcfs", seed=1).solution
    b = run(instance, "fcfs", seed=2).solution
    assert not np.array_equal(a.unit, b.unit)  # FCFS picks differ
    # In-time, error-free cloud hosts: no other outcome than correct or cancelled.
    assert set(a.outcome.tolist()) | set(b.outcome.tolist()) <= {0, 1, CANCELLED}


@settings(max_examples=60, deadline=None)
@given(instance=instances(), method=st.sampled_from(METHODS), seed=st.integers(0, 5))
def test_random_instances_every_schedule_is_valid_and_above_the_bound(instance, method,
                                                                      seed) -> None:
    name, options = method
    result = run(instance, name, seed=seed, **options)
    bound = lower_bound(instance)
    assert result.objective >= bound - 1e-6, (result.objective, bound)
    again = run_method("pull", name, instance, seed=seed, **options)
    assert again.solution.events == result.solution.events


def test_the_bound_is_tight_on_one_host_and_one_unit() -> None:
    instance = tiny((1000.0,))
    assert lower_bound(instance) == 10.0 == run(instance).objective


def test_no_units_is_an_empty_schedule() -> None:
    instance = tiny(())
    result = run(instance)
    assert result.objective == 0.0 and result.solution.n_tasks == 0
    assert math.isclose(lower_bound(instance), 0.0)
