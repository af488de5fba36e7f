"""The pull checker: each rule caught on a schedule broken on purpose, and the metrics."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from hybridsched.errors import InputError
from hybridsched.pull import check, evaluate
from hybridsched.pull.behaviour import replay
from hybridsched.pull.files import solution_from_dict, solution_to_dict
from hybridsched.pull.instance import Behaviour
from hybridsched.pull.solution import CANCELLED, CORRECT, LOST, NEVER, WRONG, from_records
from hybridsched.registry import run_method
from tests.pull.helpers import tiny

HOSTS = (("idg", 100.0, 0.0, 0.5, ((0.0, 15.0), (20.0, math.inf))),
         ("cloud", 100.0, 0.01, 0.0, ((0.0, math.inf),)))
#: Seed 13's draws: idg in time and correct, then delayed (x1.46), then in time; the
#: cloud host's first result delayed (x1.24).
SEEDED = Behaviour(0.5, 0.0, 1.5, 13)


def instance():
    return tiny((1000.0, 2000.0), HOSTS, behaviour=SEEDED)


def valid():
    # unit 0 on the idg host in time; unit 1 on the cloud host, delayed. Meanwhile the
    # idg host pulls replicas of unit 1: one lost when it leaves at 15, one cancelled.
    inst = instance()
    idg, _ = replay(inst, 0, 3)
    cloud, _ = replay(inst, 1, 1)
    assert idg[0] == 1 and idg[1] > 1.4 and idg[2] == 1 and cloud[0] > 1.2
    end = 20.0 * cloud[0]
    return [(0, 0, 0.0, 10.0, 1.0, CORRECT), (1, 0, 10.0, 15.0, idg[1], LOST),
            (1, 0, 20.0, end, 1.0, CANCELLED), (1, 1, 0.0, end, cloud[0], CORRECT)]


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
    assert m["makespan"] == sol.end[3]
    assert m["cost"] == 0.0  # the only cloud result is late
    assert m["efficiency"] == pytest.approx(3000 / 7000) and m["tasks_delayed"] == 2
    # idg ran 1000 + 500 (lost: 5 s of 20 x 1.46) + the cancelled part of 2000.
    lost = 2000 * 5 / (20 * sol.delay[1])
    assert m["instructions_idg"] == pytest.approx(1000 + lost + 2000 * (sol.end[2] - 20) / 20)


@pytest.mark.parametrize("change, words", [
    ({"start": 12.0, "end": 22.0}, "outside the host's availability windows"),
    ({"end": 11.0}, "lasts 11 s, not its 10 s"),
    ({"delay": 2.0, "end": 20.0}, "has delay factor 2.0, but its host's draw 0 gives 1.0"),
    ({"task": 1, "end": 14.0}, "is lost but does not end when its host leaves"),
    ({"outcome": WRONG}, "is wrong, but its host's draw 0 makes it correct"),
    ({"task": 3, "outcome": NEVER}, "has no correct result"),
    ({"task": 3, "outcome": CANCELLED, "end": 10.0}, "has no correct result"),
    ({"task": 2, "start": 22.0}, "'h0' is available and idle from 20 to 22 while work unit "
                                 "'w1' waits"),
    ({"task": 2, "end": 24.0}, "is cancelled at 24, not when the last unit completes"),
    ({"task": 2, "unit": 0}, "starts at 20, after its unit completed at 10"),
])
def test_each_rule(change, words) -> None:
    problems = check(instance(), broken(**change))
    assert any(words in p for p in problems), problems


def test_a_delay_forged_to_one_is_caught() -> None:
    """The issue's forgery: a late result said to be in time shortens the makespan."""
    records = valid()
    records[3] = (1, 1, 0.0, 20.0, 1.0, CORRECT)
    records[2] = (1, 0, 20.0, 20.0, 1.0, CANCELLED)
    problems = check(instance(), from_records(records))
    assert any("has delay factor 1.0, but its host's draw 0 gives 1.24" in p
               for p in problems), problems


def test_overlap_early_start_tasks_after_the_run_and_claims() -> None:
    inst = tiny((1000.0, 1000.0), HOSTS[1:], arrival=(0.0, 5.0))
    clash = from_records([(0, 0, 0.0, 10.0, 1.0, CORRECT), (1, 0, 5.0, 15.0, 1.0, CORRECT)])
    assert any("runs task 0 until 10 and task 1 from 5" in p for p in check(inst, clash))
    early = from_records([(0, 0, 0.0, 10.0, 1.0, CORRECT), (1, 0, 3.0, 13.0, 1.0, CORRECT)])
    assert any("before its unit arrives (5)" in p for p in check(inst, early))
    good = from_records([(0, 0, 0.0, 10.0, 1.0, CORRECT), (1, 0, 10.0, 20.0, 1.0, CORRECT)])
    assert check(inst, good) == []
    after = from_records([(1, 0, 10.0, 20.0, 1.0, CORRECT), (0, 0, 0.0, 10.0, 1.0, CORRECT),
                          (0, 0, 20.0, 30.0, 1.0, CORRECT)])
    assert any("ends at 30, after the run ended" in p for p in check(inst, after))
    good.reported.update(makespan=14.0, objective=20.0, tasks_correct=3.0)
    assert check(inst, good) == ["reported makespan 14.0 != recomputed 20.0",
                                 "reported tasks_correct 3.0 != recomputed 2"]
    good.reported.clear()
    good.reported["efficiency_idg"] = 1.0
    assert check(inst, good) == ["reported efficiency_idg 1.0, which the schedule does not "
                                 "have (no task ran on that DCI)"]


def test_a_schedule_for_another_instance_is_refused() -> None:
    sol = from_records([(5, 0, 0.0, 1.0, 1.0, CORRECT)])
    assert check(instance(), sol) == ["the schedule does not match the instance's units and "
                                      "hosts"]


def test_non_finite_and_negative_numbers_are_refused() -> None:
    for k, value in ((2, math.nan), (3, -1.0), (3, math.inf)):
        record = list(valid()[0])
        record[k] = value
        problems = check(instance(), from_records([tuple(record), *valid()[1:]]))
        assert problems and all("not a time" in p for p in problems), problems
    record = list(valid()[0])
    record[4] = math.nan
    assert check(instance(), from_records([tuple(record), *valid()[1:]])) == [
        "task 0 (unit 'w0' on host 'h0') has delay factor nan"]


def test_makespan_counts_from_the_first_schedule() -> None:
    hosts = (("cloud", 100.0, 0.0, 0.0, ((40.0, math.inf),)),)
    inst = tiny((1000.0,), hosts)
    assert inst.first_schedule() == 40.0
    sol = from_records([(0, 0, 40.0, 50.0, 1.0, CORRECT)])
    assert check(inst, sol) == [] and evaluate(inst, sol).objective == 10.0
    assert dataclasses.replace(inst, noi=np.zeros(0), unit_ids=(),
                               arrival=np.zeros(0)).first_schedule() == 0.0


def test_a_window_starting_when_the_last_ends() -> None:
    """A host rejoining at the instant it leaves, with a result due then, pulls once."""
    inst = tiny((500.0, 500.0), (("idg", 100.0, 0.0, 0.0, ((0.0, 10.0), (10.0, math.inf))),),
                arrival=(5.0, 5.0))
    result = run_method("pull", "fcfs", inst)  # ran the second task over the first: invalid
    s = result.solution
    assert s.start.tolist() == [5.0, 10.0] and s.end.tolist() == [10.0, 15.0]
    assert check(inst, s) == []


def test_solution_files_state_counts_and_carry_a_checked_log() -> None:
    inst = instance()
    solution = run_method("pull", "fcfs", inst).solution
    document = json.loads(json.dumps(solution_to_dict(solution, inst)))
    assert document["tasks_lost"] == evaluate(inst, solution).metrics["tasks_lost"]
    assert {e["event"] for e in document["events"]} >= {"HJ", "WKUA", "SCH", "RET"}
    read = solution_from_dict(document, inst, "s.json")
    assert read.events == solution.events and check(inst, read) == []
    k = next(k for k, e in enumerate(document["events"]) if e["event"] == "HJ")
    for change, words in [
        (lambda d: d["events"][k].update(unit="w0"), f"field events.{k}.unit: a HJ event has "
                                                     "no unit"),
        (lambda d: d["events"][k].pop("host"), f"field events.{k}.host: Field required"),
        (lambda d: d.update(completed=True), "field completed: a stated completed must be"),
        (lambda d: d.update(tasks_wrong=-1), "field tasks_wrong"),
    ]:
        bad = json.loads(json.dumps(document))
        change(bad)
        with pytest.raises(InputError, match=words):
            solution_from_dict(bad, inst, "s.json")
    del document["events"]  # a file without a log: nothing to cross-check
    assert check(inst, solution_from_dict(document, inst, "s.json")) == []
