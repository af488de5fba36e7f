"""The pull checker: each rule caught on a schedule broken on purpose, and the metrics."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from hybridsched.pull import check, evaluate
from hybridsched.pull.solution import CANCELLED, CORRECT, LOST, NEVER, WRONG, from_records
from tests.pull.helpers import tiny

HOSTS = (("idg", 100.0, 0.0, 0.5, ((0.0, 15.0), (20.0, math.inf))),
         ("cloud", 100.0, 0.01, 0.0, ((0.0, math.inf),)))


def instance():
    return tiny((1000.0, 2000.0), HOSTS)


def valid():
    # unit 0 on the idg host in time; unit 1 on the cloud host, delayed x1.5.
    return [(0, 0, 0.0, 10.0, 1.0, CORRECT), (1, 1, 0.0, 30.0, 1.5, CORRECT)]


def broken(**change):
    records = valid()
    k = change.pop("task", 0)
    fields = list(records[k])
    for key, value in change.items():
        fields[["unit", "host", "start", "end", "delay", "outcome"].index(key)] = value
    records[k] = tuple(fields)
    return from_records(records)


def test_the_valid_schedule_and_its_metrics() -> None:
    inst, sol = instance(), from_records(valid())
    assert check(inst, sol) == []
    m = evaluate(inst, sol).metrics
    assert m["makespan"] == 30.0
    assert m["cost"] == 0.0  # the only cloud result is late
    assert m["efficiency"] == 1.0 and m["tasks_delayed"] == 1


@pytest.mark.parametrize("change, words", [
    ({"start": 12.0, "end": 22.0}, "outside the host's availability windows"),
    ({"end": 11.0}, "lasts 11 s, not its 10 s"),
    ({"delay": 2.0, "end": 20.0}, "outside [1, 1.5]"),
    ({"outcome": LOST, "end": 5.0}, "is lost but does not end when its host leaves"),
    ({"task": 1, "outcome": WRONG}, "is wrong, but its host never errs"),
    ({"task": 1, "outcome": NEVER}, "has no correct result"),
    ({"task": 1, "outcome": CANCELLED, "end": 10.0}, "has no correct result"),
])
def test_each_rule(change, words) -> None:
    problems = check(instance(), broken(**change))
    assert any(words in p for p in problems), problems


def test_overlap_early_start_and_claims() -> None:
    inst = tiny((1000.0, 1000.0), HOSTS, arrival=(0.0, 5.0))
    clash = from_records([(0, 1, 0.0, 10.0, 1.0, CORRECT), (1, 1, 5.0, 15.0, 1.0, CORRECT)])
    assert any("runs task 0 until 10 and task 1 from 5" in p for p in check(inst, clash))
    early = from_records([(0, 1, 0.0, 10.0, 1.0, CORRECT), (1, 0, 0.0, 10.0, 1.0, CORRECT)])
    assert any("before its unit arrives (5)" in p for p in check(inst, early))
    good = from_records([(0, 1, 0.0, 10.0, 1.0, CORRECT), (1, 0, 5.0, 15.0, 1.0, CORRECT)])
    assert check(inst, good) == []
    good.reported["makespan"] = 14.0
    assert check(inst, good) == ["reported makespan 14.0 != recomputed 15.0"]


def test_a_lost_task_at_its_window_end_and_a_cancelled_one_at_the_end() -> None:
    inst = instance()
    records = [(0, 0, 10.0, 15.0, 1.0, LOST), (0, 1, 0.0, 10.0, 1.0, CORRECT),
               (1, 1, 10.0, 30.0, 1.0, CORRECT), (1, 0, 20.0, 30.0, 1.0, CANCELLED)]
    sol = from_records(records)
    assert check(inst, sol) == []
    m = evaluate(inst, sol).metrics
    assert m["cost"] == pytest.approx(0.3)  # both cloud results in time
    assert m["efficiency"] == pytest.approx(3000 / 6000)
    # idg ran 500 (lost) + 1000 (cancelled, half of its 2000): no unit completed there.
    assert m["instructions_idg"] == pytest.approx(1500) and m["efficiency_idg"] == 0.0
    late_cancel = from_records(records[:3] + [(1, 0, 20.0, 25.0, 1.0, CANCELLED)])
    assert any("not when the last unit completes" in p for p in check(inst, late_cancel))


def test_a_schedule_for_another_instance_is_refused() -> None:
    sol = from_records([(5, 0, 0.0, 1.0, 1.0, CORRECT)])
    assert check(instance(), sol) == ["the schedule does not match the instance's units and "
                                      "hosts"]


def test_makespan_counts_from_the_first_schedule() -> None:
    hosts = (("cloud", 100.0, 0.0, 0.0, ((40.0, math.inf),)),)
    inst = tiny((1000.0,), hosts)
    assert inst.first_schedule() == 40.0
    sol = from_records([(0, 0, 40.0, 50.0, 1.0, CORRECT)])
    assert check(inst, sol) == [] and evaluate(inst, sol).objective == 10.0
    assert dataclasses.replace(inst, noi=np.zeros(0), unit_ids=(),
                               arrival=np.zeros(0)).first_schedule() == 0.0
