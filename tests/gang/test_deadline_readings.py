"""The baselines' ``deadline`` reading (issue 34): aware, oblivious-kill, oblivious-complete.

Under ``"aware"`` (the default) a baseline starts only gangs that end by
their deadline; under the oblivious readings it may start one that cannot,
which is then stopped at its deadline (``"oblivious-kill"``: its VMs are
free from then on) or runs to its end (``"oblivious-complete"``: it holds
them); either way it is an unfinished job. Crafted tiny instances show each
effect by hand; generated ones show that every schedule passes the checker,
that the fast paths still match their references, and that a seed gives one
schedule.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from hybridsched.cli.app import app
from hybridsched.errors import InputError
from hybridsched.gang import event_log, files
from hybridsched.gang.checker import TIME_TOL, check, evaluate, timeline
from hybridsched.gang.generator import generate
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution
from hybridsched.heuristics.gang.baselines import (
    OPTIONS,
    asjs,
    asjs_scan,
    cmms,
    cmms_matrix,
    fair,
    fair_matrix,
    make_baseline,
)
from hybridsched.heuristics.gang.simulation import DEADLINE_RULES, simulate
from hybridsched.registry import check_options, run_method

#: Every baseline under every reading of its own (the deadline reading is added per test).
BASELINES: list[tuple[str, dict[str, str]]] = [
    (method, {option: value})
    for method, options in OPTIONS.items()
    for option, values in options.items() if option != "deadline" for value in values]
OBLIVIOUS = [rule for rule in DEADLINE_RULES if rule != "aware"]


def tiny(jobs: list[tuple[float, int, float, float]], speeds: list[float]) -> Instance:
    """Jobs ``(arrival, parallelism, instructions, deadline)`` on VMs of ``speeds``.

    Every VM meets every demand, so only speed and time decide.
    """
    n, m = len(jobs), len(speeds)
    column = np.array(jobs, dtype=float).reshape(n, 4)
    return Instance(
        "tiny", tuple(f"j{k}" for k in range(n)), arrival=column[:, 0],
        parallelism=column[:, 1].astype(np.int64), instructions=column[:, 2],
        memory=np.ones(n), bandwidth=np.ones(n), disk=np.zeros(n), deadline=column[:, 3],
        vm_ids=tuple(f"v{k}" for k in range(m)), speed=np.array(speeds, dtype=float),
        vm_memory=np.full(m, 2.0), vm_bandwidth=np.full(m, 2.0), vm_disk=np.full(m, np.inf))


#: j0 takes 4 time units on the only VM but has 2: no deadline-aware policy starts it.
#: j1 arrives at 1 and needs 1 time unit by 3.5.
HOPELESS_FIRST = tiny([(0.0, 1, 4.0, 2.0), (1.0, 1, 1.0, 2.5)], [1.0])


def _run(method: str, instance: Instance, deadline: str, **options: Any) -> Solution:
    result = run_method("gang", method, instance, deadline=deadline, **options)
    assert result.solution is not None
    assert check(instance, result.solution) == []
    return result.solution


@pytest.mark.parametrize(("method", "options"), BASELINES,
                         ids=[f"{m}-{next(iter(o.values()))}" for m, o in BASELINES])
def test_aware_refuses_the_hopeless_gang_and_runs_the_next(method: str,
                                                           options: dict[str, str]) -> None:
    solution = _run(method, HOPELESS_FIRST, "aware", **options)
    assert math.isnan(solution.start[0]) and 0 in solution.dropped
    assert solution.start[1] == 1.0 and solution.missed == {}
    metrics = evaluate(HOPELESS_FIRST, solution).metrics
    assert metrics["unfinished"] == 1 and metrics["sin"] == 1.0


@pytest.mark.parametrize(("method", "options"), BASELINES,
                         ids=[f"{m}-{next(iter(o.values()))}" for m, o in BASELINES])
def test_kill_starts_it_and_frees_the_vm_at_its_deadline(method: str,
                                                         options: dict[str, str]) -> None:
    solution = _run(method, HOPELESS_FIRST, "oblivious-kill", **options)
    assert solution.start[0] == 0.0 and solution.missed == {0: "killed"}
    assert solution.start[1] == 2.0  # j0's deadline: the VM is free from then on
    metrics = evaluate(HOPELESS_FIRST, solution).metrics
    assert metrics["unfinished"] == 1 and metrics["finished"] == 1
    assert metrics["sin"] == 1.0  # j0's partial work does not count
    assert metrics["utilisation"] == pytest.approx(1.0)  # busy 0-2 (j0) and 2-3 (j1) of 3
    assert [e["event"] for e in solution.events if e["job"] == "j0"] == [
        "arrival", "start", "kill"]
    assert timeline(HOPELESS_FIRST, solution).finish[0] == 2.0
    frame = solution.to_frame(HOPELESS_FIRST)
    assert frame["end"].tolist() == [2.0, 3.0]  # j0 cut at its deadline


@pytest.mark.parametrize(("method", "options"), BASELINES,
                         ids=[f"{m}-{next(iter(o.values()))}" for m, o in BASELINES])
def test_complete_holds_the_vm_to_the_end(method: str, options: dict[str, str]) -> None:
    solution = _run(method, HOPELESS_FIRST, "oblivious-complete", **options)
    assert solution.start[0] == 0.0 and solution.missed == {0: "late"}
    assert math.isnan(solution.start[1]) and 1 in solution.dropped  # the VM was busy to 4
    metrics = evaluate(HOPELESS_FIRST, solution).metrics
    assert metrics["unfinished"] == 2 and metrics["finished"] == 0 and metrics["sin"] == 0.0
    assert metrics["utilisation"] == pytest.approx(1.0)  # busy 0-4 of 4
    assert timeline(HOPELESS_FIRST, solution).finish[0] == 4.0


def test_a_gang_that_one_vm_makes_late() -> None:
    """p = 2 on a slow and a fast VM: only the fast one is in time, so aware never starts it."""
    instance = tiny([(0.0, 2, 4.0, 3.0), (0.5, 1, 1.0, 3.0)], [1.0, 2.0])
    aware = _run("cmms", instance, "aware")
    assert math.isnan(aware.start[0]) and aware.start[1] == 0.5
    killed = _run("cmms", instance, "oblivious-kill")
    assert killed.start[0] == 0.0 and sorted(killed.task_vm[killed.task_job == 0]) == [0, 1]
    assert killed.start[1] == 3.0 and killed.missed == {0: "killed"}  # both VMs held to 3
    late = _run("cmms", instance, "oblivious-complete")
    assert math.isnan(late.start[1])  # both VMs held to 4, past j1's deadline 3.5
    assert late.missed == {0: "late"} and evaluate(instance, late).objective == 2


@pytest.mark.parametrize("deadline", DEADLINE_RULES)
def test_a_waiting_job_leaves_the_queue_at_its_deadline(deadline: str) -> None:
    """Strict FIFO's head waits for a busy VM: it is dropped, never started after its deadline."""
    instance = tiny([(0.0, 1, 3.0, 5.0), (0.0, 1, 1.0, 1.5), (0.0, 1, 1.0, 9.0)], [1.0])
    solution = _run("fifo", instance, deadline)
    assert 1 in solution.dropped and solution.start[2] == 3.0
    starts = solution.start[~np.isnan(solution.start)]
    assert (starts <= instance.due[~np.isnan(solution.start)]).all()


@pytest.mark.parametrize("deadline", OBLIVIOUS)
@pytest.mark.parametrize("method", list(OPTIONS))
def test_each_oblivious_reading_changes_schedules_and_stays_valid(method: str,
                                                                  deadline: str) -> None:
    changed = False
    for seed in range(3):
        instance = generate(120, 15.0, "table1", seed=seed, vms=20)
        aware = _run(method, instance, "aware")
        other = _run(method, instance, deadline)
        assert aware.missed == {}
        assert other.missed and set(other.missed.values()) == {
            "killed" if deadline == "oblivious-kill" else "late"}
        line = timeline(instance, other)
        for j in other.missed:  # each one really could not end in time where it started
            vms = other.task_vm[other.task_job == j]
            end = other.start[j] + np.max(instance.instructions[j] / instance.speed[vms])
            assert end > instance.due[j] + TIME_TOL
            assert line.finish[j] == pytest.approx(
                instance.due[j] if deadline == "oblivious-kill" else end, abs=TIME_TOL)
        changed |= not np.array_equal(aware.start, other.start, equal_nan=True)
        assert evaluate(instance, other).metrics["unfinished"] == (
            instance.n_jobs - (~np.isnan(other.start)).sum() + len(other.missed))
    assert changed


@pytest.mark.parametrize("deadline", DEADLINE_RULES)
def test_the_same_seed_gives_the_same_schedule(deadline: str) -> None:
    instance = generate(200, 20.0, "table2", seed=11, vms=30)
    for method in OPTIONS:
        a, b = _run(method, instance, deadline), _run(method, instance, deadline)
        assert np.array_equal(a.start, b.start, equal_nan=True)
        assert np.array_equal(a.task_vm, b.task_vm) and a.missed == b.missed
        assert a.events == b.events


@pytest.mark.parametrize("drop", ["latest-start", "deadline"])
@pytest.mark.parametrize("deadline", OBLIVIOUS)
def test_fast_paths_match_their_references_when_oblivious(deadline: str, drop: str) -> None:
    for seed, scenario in ((0, "table1"), (1, "table2")):
        instance = generate(250, 20.0, scenario, seed, vms=40)
        for fast, reference in ((asjs, asjs_scan), (cmms, cmms_matrix),
                                (fair, lambda s: fair_matrix(s, fastest=False))):
            ours = simulate(instance, fast, drop=drop, deadline=deadline)[0]
            theirs = simulate(instance, reference, drop=drop, deadline=deadline)[0]
            assert np.array_equal(ours.start, theirs.start, equal_nan=True)
            assert np.array_equal(ours.task_vm, theirs.task_vm)
            assert ours.missed == theirs.missed and ours.events == theirs.events
            assert check(instance, ours) == []


def test_the_policy_carries_its_reading_into_the_simulation() -> None:
    policy = make_baseline("fifo", deadline="oblivious-kill")
    assert policy.deadline == "oblivious-kill"  # type: ignore[attr-defined]
    by_policy = simulate(HOPELESS_FIRST, policy)[0]
    assert by_policy.missed == {0: "killed"} and check(HOPELESS_FIRST, by_policy) == []
    # An explicit reading wins over the policy's.
    explicit = simulate(HOPELESS_FIRST, policy, deadline="aware")[0]
    assert explicit.missed == {} and check(HOPELESS_FIRST, explicit) == []
    with pytest.raises(ValueError, match="deadline"):
        simulate(HOPELESS_FIRST, policy, deadline="sometimes")


def test_bad_values_and_cplmt_are_refused_in_one_line() -> None:
    for method, options in (("fifo", {"deadline": "kill"}), ("cmms", {"deadline": 1}),
                            ("cplmt", {"deadline": "oblivious-kill"})):
        with pytest.raises(InputError) as caught:
            check_options("gang", method, options)
        assert "\n" not in str(caught.value) and "deadline" in str(caught.value)


def test_the_option_is_listed_with_the_papers_words() -> None:
    result = CliRunner().invoke(app, ["methods", "gang", "--options"])
    assert result.exit_code == 0
    out = result.output
    for method in OPTIONS:
        block = out.split(f"gang  {method}", 1)[1].split("\ngang  ", 1)[0]
        assert "deadline=aware" in block
        assert "oblivious-kill" in block and "oblivious-complete" in block
        assert "the deadline to the requirement of the resource of the task" in block
    cplmt = out.split("gang  cplmt", 1)[1].split("\ngang  ", 1)[0]
    assert "deadline" not in cplmt


@pytest.mark.parametrize("deadline", OBLIVIOUS)
def test_missed_jobs_survive_the_file_round_trip(deadline: str) -> None:
    instance = generate(80, 15.0, "table1", seed=2, vms=12)
    solution = _run("fair", instance, deadline)
    assert solution.missed
    document = files.solution_to_dict(solution, instance, method="fair")
    marked = [item for item in document["started"] if "missed" in item]
    assert len(marked) == len(solution.missed)
    back = files.solution_from_dict(document, instance)
    assert back.missed == solution.missed and check(instance, back) == []
    assert evaluate(instance, back).metrics == evaluate(instance, solution).metrics


def _unmarked(solution: Solution, **changes: Any) -> Solution:
    fields = {"start": solution.start, "task_job": solution.task_job,
              "task_vm": solution.task_vm, "dropped": solution.dropped,
              "events": solution.events, "missed": solution.missed, **changes}
    return Solution(**fields)


def test_the_checker_holds_missed_jobs_to_their_rules() -> None:
    killed = _run("fifo", HOPELESS_FIRST, "oblivious-kill")
    late = _run("fifo", HOPELESS_FIRST, "oblivious-complete")
    # Without its mark, a job that ends after its deadline is a violation.
    problems = check(HOPELESS_FIRST, _unmarked(late, missed={}, events=()))
    assert any("after its deadline" in p for p in problems)
    # Marked late instead of killed, the VM is busy when j1 starts.
    problems = check(HOPELESS_FIRST, _unmarked(killed, missed={0: "late"}, events=()))
    assert any("runs job 'j0' until 4" in p for p in problems)
    # A killed job must start before its deadline.
    start = killed.start.copy()
    start[0] = 2.5
    start[1] = 3.0
    problems = check(HOPELESS_FIRST, _unmarked(killed, start=start, events=()))
    assert any("killed at its deadline" in p for p in problems)
    # Only a started job can be marked, with one of the two marks.
    problems = check(HOPELESS_FIRST, _unmarked(late, missed={0: "late", 1: "late"}))
    assert any("is marked 'late'" in p for p in problems)
    problems = check(HOPELESS_FIRST, _unmarked(late, missed={0: "stopped"}))
    assert any("is marked 'stopped'" in p for p in problems)


def _log_mutants(solution: Solution) -> list[tuple[str, tuple[dict[str, Any], ...]]]:
    events = list(solution.events)
    kills = [k for k, e in enumerate(events) if e["event"] == "kill"]
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for k in kills[:2]:
        for name, fields in (("kill later", {"time": events[k]["time"] + 1e-6}),
                             ("kill as end", {"event": "end"})):
            copied = copy.deepcopy(events)
            copied[k].update(fields)
            out.append((name, copied))
        out.append(("kill missing", events[:k] + events[k + 1:]))
        out.append(("kill twice", events[:k + 1] + events[k:]))
    ends = [k for k, e in enumerate(events) if e["event"] == "end"]
    for k in ends[:2]:
        copied = copy.deepcopy(events)
        copied[k]["event"] = "kill"
        out.append(("end as kill", copied))
    return [(name, tuple(mutant)) for name, mutant in out]


def test_kill_records_are_checked_by_both_log_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    instance = generate(120, 15.0, "table1", seed=4, vms=16)
    solution = _run("cmms", instance, "oblivious-kill")
    line = timeline(instance, solution)
    assert event_log.log_problems(instance, solution, line.start, line.finish, TIME_TOL) == []
    mutants = _log_mutants(solution)
    names = {name for name, _ in mutants}
    assert {"kill later", "kill as end", "kill missing", "end as kill"} <= names
    for name, events in mutants:
        mutant = _unmarked(solution, events=events)
        fast = event_log.log_problems(instance, mutant, line.start, line.finish, TIME_TOL)
        with monkeypatch.context() as patch:  # the record-by-record loop alone
            patch.setattr(event_log, "_agrees", lambda *args: False)
            loop = event_log.log_problems(instance, mutant, line.start, line.finish,
                                          TIME_TOL)
        assert fast == loop and loop, name
