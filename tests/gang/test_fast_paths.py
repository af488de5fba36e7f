"""The fast paths of issue 35 against the code they replace, decision by decision.

In a simulation the policies take shortcuts that a plain
:class:`DecisionState` does not allow: ASJS looks only at the jobs whose best
VMs may have become free (:class:`_AsjsWatch`), CMMS and CPLMT work on the
jobs that can start, their VM sets as bits. The matrix code they replace is
kept (:func:`asjs_scan`, :func:`cmms_matrix`, :func:`_cplmt_matrix`, which
plain states still use) and is the reference here: every schedule, drop and
logged event must be identical, on many seeds of both scenarios, under both
drop rules. The event-log check on whole arrays (:func:`_agrees`) must
accept exactly the logs the record-by-record loop accepts, and the schedule
writer must write what it wrote before.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest

from hybridsched import run_method
from hybridsched.gang import event_log, files
from hybridsched.gang.checker import TIME_TOL, check, timeline
from hybridsched.gang.generator import generate
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution
from hybridsched.heuristics.gang.baselines import _time_ties, asjs, asjs_scan, cmms, cmms_matrix
from hybridsched.heuristics.gang.cplmt import _cplmt_matrix, make_cplmt, readings
from hybridsched.heuristics.gang.simulation import simulate

#: (scenario, rate, jobs, vms, integers): busy and quiet, real and integer draws.
SETTINGS = [("table1", 10.0, 300, 120, "stated"), ("table2", 40.0, 300, 120, "stated"),
            ("table1", 4.0, 200, 30, "all"), ("table2", 12.0, 200, 40, "all"),
            ("table2", 60.0, 250, 16, "stated")]
SEEDS = range(4)
CPLMT_READINGS: list[dict[str, Any]] = [
    {}, {"task_min": "distinct"}, {"cpu_demand": "deadline", "tovload": "fractions"},
    {"cpu_demand": "instructions"}, {"overload_at": "exceeded", "k": 0.5},
    {"mt_vms": "fitting", "standard_vms": "fitting", "standard": "min"},
    {"task_min": "distinct", "standard_vms": "fitting"},
    {"omega": 0.3, "eta": 0.3, "k": 0.0, "one_ol": "printed"}, {"epsilon": 0.0, "k": 3.0}]


def same(a: Solution, b: Solution) -> bool:
    return (np.array_equal(a.start, b.start, equal_nan=True)
            and np.array_equal(a.task_job, b.task_job) and np.array_equal(a.task_vm, b.task_vm)
            and list(a.dropped.items()) == list(b.dropped.items()) and a.events == b.events)


def _instances() -> list[tuple[str, Instance]]:
    return [(f"{scenario}-{rate:g}-{vms}-{integers}-s{seed}",
             generate(jobs, rate, scenario, seed, vms=vms, integers=integers))
            for scenario, rate, jobs, vms, integers in SETTINGS for seed in SEEDS]


INSTANCES = _instances()


@pytest.mark.parametrize("drop", ["latest-start", "deadline"])
@pytest.mark.parametrize(("name", "instance"), INSTANCES, ids=[n for n, _ in INSTANCES])
def test_baselines_match_their_reference(name: str, instance: Instance, drop: str) -> None:
    for fast, reference in ((asjs, asjs_scan), (cmms, cmms_matrix)):
        ours = simulate(instance, fast, drop=drop)[0]
        assert same(ours, simulate(instance, reference, drop=drop)[0]), (name, fast.__name__)
    assert check(instance, ours) == []


@pytest.mark.parametrize("drop", ["latest-start", "deadline"])
@pytest.mark.parametrize(("name", "instance"), INSTANCES[::2], ids=[n for n, _ in INSTANCES[::2]])
def test_cplmt_matches_its_reference(name: str, instance: Instance, drop: str) -> None:
    for options in CPLMT_READINGS:
        r = readings(options)
        ours = simulate(instance, make_cplmt(**options), drop=drop)[0]
        theirs = simulate(instance, lambda state, r=r: _cplmt_matrix(state, r), drop=drop)[0]
        assert same(ours, theirs), (name, options)


@pytest.mark.parametrize("scenario", ["table1", "table2"])
def test_ten_thousand_jobs_match(scenario: str) -> None:
    """The benchmark's size: long queues, many threshold crossings."""
    instance = generate(3000, None, scenario, 7)
    pairs = [(asjs, asjs_scan), (cmms, cmms_matrix),
             (make_cplmt(), lambda state: _cplmt_matrix(state, readings({})))]
    for fast, reference in pairs:
        assert same(simulate(instance, fast)[0], simulate(instance, reference)[0])


def _tied_instance() -> Instance:
    """Two VMs of different speeds (one ulp apart) that give some jobs the same task time.

    The faster VM has the higher index: by speed it comes first, by (time, index) second.
    """
    slow = 3.0
    fast = math.nextafter(slow, 4.0)
    rng = np.random.default_rng(0)
    x = rng.uniform(1.0, 2.0, 400)
    x = x[(x / slow) == (x / fast)][:6]  # times that round to one value
    n = len(x)
    assert n >= 3
    return Instance(
        "ties", tuple(f"j{k}" for k in range(n)), arrival=np.arange(n) * 0.1,
        parallelism=np.ones(n, dtype=np.int64), instructions=x, memory=np.ones(n),
        bandwidth=np.ones(n), disk=np.zeros(n), deadline=np.full(n, 10.0),
        vm_ids=("v0", "v1", "v2"), speed=np.array([1.0, slow, fast]), vm_memory=np.ones(3),
        vm_bandwidth=np.ones(3), vm_disk=np.full(3, np.inf))


def test_cmms_takes_the_matrix_order_where_speeds_tie_in_time() -> None:
    instance = _tied_instance()
    assert _time_ties(instance) == set(range(instance.n_jobs))
    ours = simulate(instance, cmms)[0]
    assert same(ours, simulate(instance, cmms_matrix)[0])
    assert ours.task_vm[0] == 1  # the lower index of the two equal times
    assert _time_ties(generate(500, None, "table1", 0)) == set()


def _loop_only(monkeypatch: pytest.MonkeyPatch, instance: Instance,
               solution: Solution) -> list[str]:
    line = timeline(instance, solution)
    with monkeypatch.context() as patch:
        patch.setattr(event_log, "_agrees", lambda *args: False)
        return event_log.log_problems(instance, solution, line.start, line.finish, TIME_TOL)


def _mutants(solution: Solution, instance: Instance) -> list[tuple[str, tuple[dict, ...]]]:
    events = list(solution.events)
    kinds = {kind: [k for k, e in enumerate(events) if e["event"] == kind]
             for kind in ("arrival", "start", "end", "drop")}
    out: list[tuple[str, list[dict[str, Any]]]] = []

    def changed(name: str, k: int, **fields: Any) -> None:
        copied = copy.deepcopy(events)
        copied[k].update(fields)
        out.append((name, copied))

    for kind, found in kinds.items():
        for k in found[:2] + found[-1:]:
            changed(f"{kind} later", k, time=events[k]["time"] + 1e-6)
            changed(f"{kind} within", k, time=events[k]["time"] + 0.5e-9)
            out.append((f"{kind} missing", events[:k] + events[k + 1:]))
            out.append((f"{kind} twice", events[:k + 1] + events[k:]))
            other = (instance.job_ids.index(events[k]["job"]) + 1) % instance.n_jobs
            changed(f"{kind} of another job", k, job=instance.job_ids[other])
            changed(f"{kind} unknown job", k, job="nobody")
    for k in kinds["start"][:3]:
        elsewhere = [v for v in instance.vm_ids if v not in events[k]["vms"]]
        changed("start on other VMs", k, vms=elsewhere[:len(events[k]["vms"])])
        changed("start end off", k, end=events[k]["end"] + 1e-3)
        changed("start without end", k, end=None)
        copied = copy.deepcopy(events)
        del copied[k]["end"]
        out.append(("start end missing", copied))
    for k in kinds["drop"][:3]:
        changed("drop before arrival", k, time=events[k]["time"] - 1.0)
    out += [("unknown kind", [dict(events[0], event="pause")] + events[1:]),
            ("nan time", [dict(events[0], time=math.nan)] + events[1:]),
            ("out of order", events[-1:] + events[:-1]), ("empty", [])]
    return [(name, tuple(mutant)) for name, mutant in out]


def test_the_log_check_on_arrays_accepts_what_the_loop_accepts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for method, scenario in (("cplmt", "table2"), ("asjs", "table1"), ("fifo", "table1")):
        instance = generate(150, None, scenario, 3)
        solution = run_method("gang", method, instance).solution
        assert solution is not None
        line = timeline(instance, solution)
        assert event_log.log_problems(instance, solution, line.start, line.finish,
                                      TIME_TOL) == []
        for name, events in _mutants(solution, instance):
            mutant = Solution(solution.start, solution.task_job, solution.task_vm,
                              solution.dropped, events)
            try:
                loop = _loop_only(monkeypatch, instance, mutant)
            except (TypeError, ValueError) as exc:  # a record the loop cannot read
                with pytest.raises(type(exc)):
                    event_log.log_problems(instance, mutant, line.start, line.finish,
                                           TIME_TOL)
                continue
            assert event_log.log_problems(instance, mutant, line.start, line.finish,
                                          TIME_TOL) == loop, (method, name)
            if name.endswith("within") or name in ("empty", "drop later"):
                continue  # allowed: within the tolerance, or a drop logged late
            assert loop, (method, name)  # every other mutant breaks a rule


def _old_started(solution: Solution, instance: Instance) -> list[dict[str, Any]]:
    """The schedule writer's started list as it was written before issue 35."""
    started = []
    for j in solution.started:
        vms = solution.task_vm[solution.task_job == j]
        started.append({"job": instance.job_ids[j], "start": float(solution.start[j]),
                        "vms": [instance.vm_ids[v] for v in vms]})
    return started


def test_the_schedule_writer_writes_what_it_wrote() -> None:
    for method in ("cplmt", "cmms", "exact"):
        instance = generate(60 if method != "exact" else 8, 5.0, "table1", 2, vms=10)
        solution = run_method("gang", method, instance, time_limit=20).solution
        assert solution is not None
        document = files.solution_to_dict(solution, instance, method=method)
        assert document["started"] == _old_started(solution, instance)
        assert [type(item["start"]) for item in document["started"]] == [
            float] * len(document["started"])
