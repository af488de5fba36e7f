import numpy as np
import pytest

from hybridsched.hybrid_deadline import PM, Solution, check, evaluate
from hybridsched.hybrid_deadline.checker import billed_hours

from .helpers import make_instance


@pytest.fixture
def instance():
    # Two tasks of 1 h on a 1 GHz PM core, one task of 1.5 GHz-h with a 2 h deadline.
    return make_instance([1.0, 1.0, 1.5], [2.0, 2.0, 2.0], pms=[PM("p", 1, 1.0)])


def schedule(machine, core, start, finish, vms=(), **kw):
    return Solution(tuple(vms), machine, core, start, finish, **kw)


def test_valid_schedule_and_its_metrics(instance):
    sol = schedule([0, 0, 1], [0, 0, 0], [0, 1, 0], [1, 2, 1.5], vms=[0],
                   reported_lease_hours=(2,), reported_cost=2.0)
    assert check(instance, sol) == []
    ev = evaluate(instance, sol)
    assert ev.objective == 2.0
    assert ev.metrics["rented_vms"] == 1
    assert ev.metrics["billed_vm_hours"] == 2
    assert ev.metrics["makespan"] == 2.0
    # The other readings of RA's "task makespans": finishes 1, 2, 1.5; machines end 2, 1.5.
    assert ev.metrics["mean_finish"] == pytest.approx(1.5)
    assert ev.metrics["mean_machine_makespan"] == pytest.approx(1.75)
    assert ev.metrics["local_load"] == 2.0
    assert ev.metrics["pm_utilisation"] == 1.0
    # VM: 1.5 busy core-hours over 2 cores x 2 billed hours.
    assert ev.metrics["vm_utilisation"] == pytest.approx(1.5 / 4)
    # PM fully busy for 2 h: 110 W x 2 h.
    assert ev.metrics["pm_energy_wh"] == pytest.approx(220.0)


@pytest.mark.parametrize(
    ("sol", "fragment"),
    [
        (schedule([0, 0, 1], [0, 0, 0], [0, 0.5, 0], [1, 1.5, 1.5], vms=[0]), "overlap"),
        (schedule([0, 0, 1], [0, 0, 0], [0, 1, 1], [1, 2, 2.5], vms=[0]), "after its deadline"),
        (schedule([0, 0, 1], [0, 0, 0], [0, 1, 0], [1, 2, 1.0], vms=[0]), "!= real end"),
        (schedule([0, 0, 1], [0, 0, 5], [0, 1, 0], [1, 2, 1.5], vms=[0]), "core 5 does not"),
        (schedule([0, 0, 2], [0, 0, 0], [0, 1, 0], [1, 2, 1.5], vms=[0]), "machine 2 does not"),
        (schedule([0, 0, 1], [0, 0, 0], [-1, 1, 0], [0, 2, 1.5], vms=[0]), "< 0"),
        (schedule([0, 0, 1], [0, 0, 0], [0, 1, 0], [1, 2, 1.5], vms=[0],
                  reported_lease_hours=(1,)), "lease hours"),
        (schedule([0, 0, 1], [0, 0, 0], [0, 1, 0], [1, 2, 1.5], vms=[0],
                  reported_cost=1.0), "reported cost"),
        (schedule([0, 0, 1], [0, 0, 0], [0, 1, 0], [1, 2, 1.5], vms=[3]), "unknown type"),
    ],
)
def test_violations_are_named(instance, sol, fragment):
    problems = check(instance, sol)
    assert any(fragment in p for p in problems), problems


def test_vm_limit_is_enforced():
    inst = make_instance([1.0, 1.0], [1.0, 1.0], max_vms=0)
    sol = schedule([0, 0], [0, 1], [0, 0], [1, 1], vms=[0])
    assert any("limit" in p for p in check(inst, sol))


def test_billed_hours_counts_started_hours():
    assert [billed_hours(x) for x in (0.0, 0.2, 1.0, 1.0 + 1e-12, 1.01, 2.5)] == [0, 1, 1, 1, 2, 3]


def test_empty_instance_has_a_valid_empty_solution():
    inst = make_instance([], [])
    sol = schedule(np.zeros(0, int), np.zeros(0, int), np.zeros(0), np.zeros(0))
    assert check(inst, sol) == []
    assert evaluate(inst, sol).objective == 0.0
