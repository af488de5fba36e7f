"""Mutation test of the gang checker: every corruption a solution file allows is caught.

Valid schedules of every method (the five online policies and the exact
method) are written as files, corrupted one way at a time, and read back:
each corrupted file must be refused when read (a one-line input error) or
judged invalid by the checker. The file format gives one start per job, so
"tasks not starting together" cannot be written; every other class of the
issue is here.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from mutations import Doc, Mutation, assert_all_caught, caught_by

from hybridsched import run_method
from hybridsched.gang import files
from hybridsched.gang.checker import check, finish_times
from hybridsched.gang.generator import generate
from hybridsched.gang.instance import Instance

METHODS = ("cplmt", "fifo", "fair", "asjs", "cmms", "exact")


def _index(instance: Instance, job: str) -> int:
    return instance.job_ids.index(job)


def _each_started(change: Callable[[dict, Doc, Instance], bool], most: int = 6) -> Mutation:
    def mutate(doc: Doc, instance: Instance) -> Iterator[Doc]:
        for k in range(min(most, len(doc["started"]))):
            out = copy.deepcopy(doc)
            if change(out["started"][k], out, instance):
                yield out
    return mutate


def job_missing(doc: Doc, instance: Instance) -> Iterator[Doc]:
    for key in ("started", "dropped"):
        for k in range(min(3, len(doc[key]))):
            out = copy.deepcopy(doc)
            del out[key][k]
            yield out


def started_twice(doc: Doc, instance: Instance) -> Iterator[Doc]:
    if doc["started"]:
        out = copy.deepcopy(doc)
        out["started"].append(copy.deepcopy(out["started"][0]))
        yield out


def dropped_twice(doc: Doc, instance: Instance) -> Iterator[Doc]:
    if doc["dropped"]:
        out = copy.deepcopy(doc)
        out["dropped"].append({**out["dropped"][0], "reason": "again"})
        yield out


def started_and_dropped(doc: Doc, instance: Instance) -> Iterator[Doc]:
    for item in doc["started"][:3]:
        out = copy.deepcopy(doc)
        out["dropped"].append({"job": item["job"], "reason": "both"})
        yield out


def unknown_ids(doc: Doc, instance: Instance) -> Iterator[Doc]:
    for key, field in (("started", "job"), ("dropped", "job")):
        if doc[key]:
            out = copy.deepcopy(doc)
            out[key][0][field] = "ghost"
            yield out
    if doc["started"]:
        out = copy.deepcopy(doc)
        out["started"][0]["vms"][0] = "nowhere"
        yield out


def vm_too_few(item: dict, doc: Doc, instance: Instance) -> bool:
    item["vms"].pop()
    return True


def vm_too_many(item: dict, doc: Doc, instance: Instance) -> bool:
    spare = [v for v in instance.vm_ids if v not in item["vms"]]
    if not spare:
        return False
    item["vms"].append(spare[0])
    return True


def vm_twice(item: dict, doc: Doc, instance: Instance) -> bool:
    if len(item["vms"]) < 2:
        item["vms"].append(item["vms"][0])
    else:
        item["vms"][1] = item["vms"][0]
    return True


def vm_without_demands(item: dict, doc: Doc, instance: Instance) -> bool:
    j = _index(instance, item["job"])
    bad = np.flatnonzero(~instance.fits()[j])
    if not bad.size:
        return False
    item["vms"][0] = instance.vm_ids[bad[0]]
    return True


def before_arrival(item: dict, doc: Doc, instance: Instance) -> bool:
    arrival = float(instance.arrival[_index(instance, item["job"])])
    item["start"] = max(arrival - 1e-6, 0.0) if arrival > 1e-6 else -1e-6
    return True


def late(item: dict, doc: Doc, instance: Instance) -> bool:
    j = _index(instance, item["job"])
    vms = [instance.vm_ids.index(v) for v in item["vms"]]
    length = float(instance.task_time()[j, vms].max())
    item["start"] = float(instance.due[j]) - length + 1e-6
    return True


def overlap(doc: Doc, instance: Instance) -> Iterator[Doc]:
    """A started job moved onto a VM of another at that job's start (a busy VM)."""
    started = doc["started"]
    for a in range(min(4, len(started))):
        for b in range(len(started)):
            if a == b:
                continue
            out = copy.deepcopy(doc)
            first, second = out["started"][a], out["started"][b]
            if first["vms"][0] in second["vms"]:
                second["start"] = first["start"]
            else:
                second["vms"][0], second["start"] = first["vms"][0], first["start"]
            yield out
            break


def bad_number(value: float) -> Callable[[dict, Doc, Instance], bool]:
    def change(item: dict, doc: Doc, instance: Instance) -> bool:
        item["start"] = value
        return True
    return change


def _stated(name: str, factor: float, shift: float) -> Mutation:
    def mutate(doc: Doc, instance: Instance) -> Iterator[Doc]:
        if doc.get(name) is not None:
            out = copy.deepcopy(doc)
            out[name] = out[name] * factor + shift
            yield out
    return mutate


def _events(change: Callable[[list, Instance], bool]) -> Mutation:
    def mutate(doc: Doc, instance: Instance) -> Iterator[Doc]:
        if doc.get("events"):
            out = copy.deepcopy(doc)
            if change(out["events"], instance):
                yield out
    return mutate


def _records(kind: str, events: list) -> list[int]:
    return [k for k, e in enumerate(events) if e["event"] == kind]


def _shift(kind: str, by: float) -> Callable[[list, Instance], bool]:
    def change(events: list, instance: Instance) -> bool:
        found = _records(kind, events)
        if not found:
            return False
        events[found[-1]]["time"] = max(events[found[-1]]["time"] + by, 0.0)
        return True
    return change


def _drop_record(kind: str) -> Callable[[list, Instance], bool]:
    def change(events: list, instance: Instance) -> bool:
        found = _records(kind, events)
        return bool(found) and events.pop(found[0]) is not None
    return change


def drop_before_arrival(events: list, instance: Instance) -> bool:
    for record in events:
        arrival = float(instance.arrival[_index(instance, record["job"])])
        if record["event"] == "drop" and arrival > 1e-6:
            record["time"] = arrival / 2
            return True
    return False


def start_elsewhere(events: list, instance: Instance) -> bool:
    found = _records("start", events)
    if not found:
        return False
    record = events[found[0]]
    record["vms"] = [v for v in instance.vm_ids if v not in record["vms"]][:len(record["vms"])]
    return True


def logged_end_changed(events: list, instance: Instance) -> bool:
    found = _records("start", events)
    if not found:
        return False
    events[found[0]]["end"] += 0.25
    return True


def start_of_a_dropped_job(events: list, instance: Instance) -> bool:
    found = _records("drop", events)
    if not found:
        return False
    record = events[found[0]]
    events.append({"time": events[-1]["time"], "event": "start", "job": record["job"],
                   "vms": [instance.vm_ids[0]], "end": events[-1]["time"] + 1})
    return True


def out_of_order(events: list, instance: Instance) -> bool:
    if len(events) < 3 or events[0]["time"] == events[-1]["time"]:
        return False
    events.insert(0, events.pop())
    return True


def malformed_record(doc: Doc, instance: Instance) -> Iterator[Doc]:
    if not doc.get("events"):
        return
    for change in ({"time": "1"}, {"time": math.nan}, {"time": -1.0}, {"event": "boom"},
                   {"job": 3}, {"colour": "red"}, {"vms": []}):
        out = copy.deepcopy(doc)
        out["events"][0].update(change)
        yield out
    out = copy.deepcopy(doc)
    del out["events"][0]["time"]
    yield out


MUTATIONS: dict[str, Mutation] = {
    "job missing (neither started nor dropped)": job_missing,
    "job started twice": started_twice,
    "job dropped twice": dropped_twice,
    "job both started and dropped": started_and_dropped,
    "unknown job or VM": unknown_ids,
    "one VM too few": _each_started(vm_too_few),
    "one VM too many": _each_started(vm_too_many),
    "the same VM twice": _each_started(vm_twice),
    "VM without the demands": _each_started(vm_without_demands),
    "start before arrival": _each_started(before_arrival),
    "deadline missed": _each_started(late),
    "busy VM (two tasks overlap)": overlap,
    "negative start": _each_started(bad_number(-1.0), 3),
    "NaN start": _each_started(bad_number(math.nan), 3),
    "huge start": _each_started(bad_number(1e300), 3),
    "objective misstated": _stated("objective", 1.0, 1.0),
    "unfinished misstated": _stated("unfinished", 1.0, -1.0),
    "finished misstated": _stated("finished", 1.0, 1.0),
    "awt misstated": _stated("awt", 1.01, 0.1),
    "ave misstated": _stated("ave", 1.01, 0.1),
    "sin misstated": _stated("sin", 1.01, 1.0),
    "utilisation misstated": _stated("utilisation", 1.01, 0.01),
    "log truncated": _events(lambda ev, _: ev.pop() is not None),
    "arrival record dropped": _events(_drop_record("arrival")),
    "start record dropped": _events(_drop_record("start")),
    "end record dropped": _events(_drop_record("end")),
    "drop record dropped": _events(_drop_record("drop")),
    "arrival shifted": _events(_shift("arrival", 0.5)),
    "start shifted": _events(_shift("start", 0.5)),
    "end shifted": _events(_shift("end", -0.5)),
    "drop before arrival": _events(drop_before_arrival),
    "start logged on other VMs": _events(start_elsewhere),
    "logged end changed": _events(logged_end_changed),
    "start record of a dropped job": _events(start_of_a_dropped_job),
    "records out of order": _events(out_of_order),
    "malformed log record": malformed_record,
    "record of an unknown job": _events(lambda ev, _: ev.append(
        {"time": ev[-1]["time"], "event": "end", "job": "ghost"}) is None),
}


caught = caught_by(files.solution_from_dict, check)


def _valid_documents() -> Iterator[tuple[str, Instance, Doc]]:
    for seed in (1, 2):
        drawn = generate(15, scenario="table2", seed=seed, vms=8)
        # One VM too small for any job, so that "VM without the demands" can be written.
        instance = dataclasses.replace(drawn, vm_memory=np.append(drawn.vm_memory[:-1], 1e-9))
        for method in METHODS:
            result = run_method("gang", method, instance, time_limit=5)
            assert check(instance, result.solution) == [] and result.solution.started.size
            doc = files.solution_to_dict(result.solution, instance, method=method,
                                         objective=result.objective)
            yield f"{method}-{seed}", instance, doc


@pytest.fixture(scope="module")
def documents() -> list[tuple[str, Instance, Doc]]:
    return list(_valid_documents())


def test_every_corruption_is_caught(documents) -> None:
    assert_all_caught(documents, MUTATIONS, caught, at_least=400)


def test_finish_times_follow_the_slowest_task(documents) -> None:
    _, instance, doc = documents[0]
    solution = files.solution_from_dict(doc, instance)
    finish = finish_times(instance, solution)
    for j in solution.started:
        vms = solution.task_vm[solution.task_job == j]
        assert finish[j] == pytest.approx(solution.start[j]
                                          + float(instance.task_time()[j, vms].max()))
