"""Mutation test of the malleable checker: every corruption a solution file allows is caught.

Valid schedules of every method (the online schedulers under both policies,
and the exact method) are written as files, corrupted one way at a time, and
read back: each corrupted file must be refused when read (a one-line input
error) or judged invalid by the checker. The counts per class are asserted.
"""

from __future__ import annotations

import copy
import tracemalloc
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from mutations import Doc, Mutation, assert_all_caught, caught_by

from hybridsched import run_method
from hybridsched.malleable import files
from hybridsched.malleable.checker import check
from hybridsched.malleable.generator import batch_platform, generate
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.solution import from_pieces


def _pieces(doc: Doc) -> Iterator[tuple[int, int]]:
    for p, placement in enumerate(doc["jobs"]):
        for k in range(len(placement["pieces"])):
            yield p, k


def _each_piece(change: Callable[[dict, Doc, Instance], bool]) -> Mutation:
    def mutate(doc: Doc, instance: Instance) -> Iterator[Doc]:
        for p, k in list(_pieces(doc))[:6]:
            out = copy.deepcopy(doc)
            if change(out["jobs"][p]["pieces"][k], out, instance):
                yield out
    return mutate


def _processors(doc: Doc, instance: Instance, p: int) -> int:
    resource = instance.resources[instance.resource_index()[doc["jobs"][p]["resource"]]]
    return resource.processors


def job_missing(doc: Doc, instance: Instance) -> Iterator[Doc]:
    for p in range(min(3, len(doc["jobs"]))):
        out = copy.deepcopy(doc)
        del out["jobs"][p]
        yield out


def job_twice(doc: Doc, instance: Instance) -> Iterator[Doc]:
    out = copy.deepcopy(doc)
    out["jobs"].append(copy.deepcopy(out["jobs"][0]))
    yield out


def piece_twice(doc: Doc, instance: Instance) -> Iterator[Doc]:
    out = copy.deepcopy(doc)
    out["jobs"][0]["pieces"].append(copy.deepcopy(out["jobs"][0]["pieces"][0]))
    yield out


def unknown_resource(doc: Doc, instance: Instance) -> Iterator[Doc]:
    out = copy.deepcopy(doc)
    out["jobs"][0]["resource"] = "nowhere"
    yield out


def unknown_job(doc: Doc, instance: Instance) -> Iterator[Doc]:
    out = copy.deepcopy(doc)
    out["jobs"][0]["job"] = "ghost"
    yield out


def other_resource(doc: Doc, instance: Instance) -> Iterator[Doc]:
    """The job moved to another resource with the same pieces: its work or processors differ."""
    for p in range(min(3, len(doc["jobs"]))):
        here = doc["jobs"][p]["resource"]
        for r in instance.resources:
            if r.id != here and (r.performance != instance.resources[
                    instance.resource_index()[here]].performance or r.processors
                    < max(q["cpu"] + q["count"] for q in doc["jobs"][p]["pieces"])):
                out = copy.deepcopy(doc)
                out["jobs"][p]["resource"] = r.id
                yield out
                break


def processors_beyond(piece: dict, doc: Doc, instance: Instance) -> bool:
    p = next(p for p, pl in enumerate(doc["jobs"]) if piece in pl["pieces"])
    piece["cpu"] = _processors(doc, instance, p) - piece["count"] + 1
    return True


def before_arrival(piece: dict, doc: Doc, instance: Instance) -> bool:
    p = next(p for p, pl in enumerate(doc["jobs"]) if piece in pl["pieces"])
    j = instance.job_ids.index(doc["jobs"][p]["job"])
    if instance.arrival[j] == 0:
        return False
    shift = piece["start"] - int(instance.arrival[j]) + 1
    piece["start"] -= shift
    piece["end"] -= shift
    return True


def empty_piece(piece: dict, doc: Doc, instance: Instance) -> bool:
    piece["end"] = piece["start"]
    return True


def backwards_piece(piece: dict, doc: Doc, instance: Instance) -> bool:
    piece["start"], piece["end"] = piece["end"], piece["start"]
    return True


def too_little_work(piece: dict, doc: Doc, instance: Instance) -> bool:
    if piece["end"] - piece["start"] >= 2:
        piece["end"] -= 1
    elif piece["count"] >= 2:
        piece["count"] -= 1
    else:
        return False
    return True


def too_much_work(doc: Doc, instance: Instance) -> Iterator[Doc]:
    """The last piece of a job one minute longer (where the processors are free then)."""
    for p in range(min(4, len(doc["jobs"]))):
        out = copy.deepcopy(doc)
        last = max(out["jobs"][p]["pieces"], key=lambda q: q["end"])
        last["end"] += 1
        yield out


def overlap(doc: Doc, instance: Instance) -> Iterator[Doc]:
    """A job's piece moved onto the processors and minutes of another job's piece."""
    placed = [(p, pl["resource"], pl["pieces"][0]) for p, pl in enumerate(doc["jobs"])]
    for (_, r, a), (q, _, b) in zip(placed, placed[1:], strict=False):
        out = copy.deepcopy(doc)
        out["jobs"][q]["resource"] = r
        moved = out["jobs"][q]["pieces"][0]
        moved.update(start=a["start"], end=a["start"] + (b["end"] - b["start"]), cpu=a["cpu"])
        yield out


def negative_or_nan(piece: dict, doc: Doc, instance: Instance) -> bool:
    piece["start"] = -1
    return True


def nan_time(piece: dict, doc: Doc, instance: Instance) -> bool:
    piece["end"] = float("nan")
    return True


def _stated(key: str, factor: float, offset: float) -> Mutation:
    def mutate(doc: Doc, instance: Instance) -> Iterator[Doc]:
        out = copy.deepcopy(doc)
        out[key] = out[key] * factor + offset
        yield out
    return mutate


def objective_of_another_metric(doc: Doc, instance: Instance) -> Iterator[Doc]:
    out = copy.deepcopy(doc)
    out["optimised"] = "total_time" if doc.get("optimised") != "total_time" else "cost"
    if out["objective"] != doc["cost"] or out["optimised"] != "cost":
        yield out


def _events(change: Callable[[list], bool]) -> Mutation:
    def mutate(doc: Doc, instance: Instance) -> Iterator[Doc]:
        if not doc.get("events"):
            return
        out = copy.deepcopy(doc)
        if change(out["events"]):
            yield out
    return mutate


def _first(events: list, kind: str) -> int:
    return next(k for k, e in enumerate(events) if e["event"] == kind)


def _last(events: list, kind: str) -> int:
    return max(k for k, e in enumerate(events) if e["event"] == kind)


def _other_resources(events: list, instance: Instance) -> bool:
    """Every decision names the next resource of the instance (a real id, not its own)."""
    ids = [r.id for r in instance.resources]
    for e in events:
        if e["event"] == "decision":
            e["resource"] = ids[(ids.index(e["resource"]) + 1) % len(ids)]
    return True


MUTATIONS: dict[str, Mutation] = {
    "job missing": job_missing,
    "job placed twice": job_twice,
    "piece twice": piece_twice,
    "unknown resource": unknown_resource,
    "unknown job": unknown_job,
    "job moved to another resource": other_resource,
    "processors beyond the resource": _each_piece(processors_beyond),
    "start before arrival": _each_piece(before_arrival),
    "empty piece": _each_piece(empty_piece),
    "piece ending before it starts": _each_piece(backwards_piece),
    "too little work": _each_piece(too_little_work),
    "a whole minute too much work": too_much_work,
    "two jobs on the same processors": overlap,
    "negative time": _each_piece(negative_or_nan),
    "NaN time": _each_piece(nan_time),
    "cost misstated": _stated("cost", 1.0, 1.0),
    "total delay misstated": _stated("total_delay", 1.0, 1.0),
    "objective misstated": _stated("objective", 1.01, 0.5),
    "objective of another metric": objective_of_another_metric,
    "event log truncated": _events(lambda ev: ev.pop() is not None),
    "start record dropped": _events(lambda ev: ev.pop(_first(ev, "start")) is not None),
    "start record shifted": _events(lambda ev: ev[_last(ev, "start")].update(
        time=ev[_last(ev, "start")]["time"] + 1) is None),
    "arrival shifted": _events(lambda ev: ev[_last(ev, "arrival")].update(
        time=ev[_last(ev, "arrival")]["time"] + 1) is None),
    "end record shifted": _events(lambda ev: ev[_last(ev, "end")].update(
        time=ev[_last(ev, "end")]["time"] - 1) is None),
    "records out of order": _events(lambda ev: len(ev) > 2 and ev[0]["time"] != ev[-1]["time"]
                                    and ev.insert(0, ev.pop()) is None),
    "record of an unknown job": _events(lambda ev: ev.append(
        {"time": ev[-1]["time"], "event": "decision", "job": "ghost"}) is None),
    "decisions naming another resource": lambda doc, instance: _events(
        lambda ev: _other_resources(ev, instance))(doc, instance),
    "decision record dropped": _events(lambda ev: ev.pop(_first(ev, "decision")) is not None),
    "decision without its resource": _events(
        lambda ev: ev[_last(ev, "decision")].pop("resource") is not None),
}


caught = caught_by(files.solution_from_dict, check)


def _valid_documents() -> Iterator[tuple[str, Instance, Doc]]:
    for seed in (1, 2):
        instance = generate(6, "small", seed, resources=batch_platform())
        for method, policy in [("tree", "A"), ("tree", "B"), ("flat", "A"), ("flat", "B"),
                               ("round-robin", "A"), ("round-robin", "B"), ("exact", "B")]:
            time_limit = 0 if method == "exact" else None
            result = run_method("malleable", method, instance, seed=seed, policy=policy,
                                time_limit=time_limit)
            assert check(instance, result.solution) == []
            doc = files.solution_to_dict(result.solution, instance, method=method,
                                         objective=result.objective,
                                         optimised=result.metrics["optimised"])
            yield f"{method}-{policy}-{seed}", instance, doc


@pytest.fixture(scope="module")
def documents() -> list[tuple[str, Instance, Doc]]:
    return list(_valid_documents())


def test_every_corruption_is_caught(documents) -> None:
    assert_all_caught(documents, MUTATIONS, caught, at_least=400)


def test_checking_a_huge_platform_stays_proportional_to_the_file() -> None:
    # 200 pieces, each on 10^6 processors: checked per range of processors, not per processor.
    big = Resource("big", ResourceType.DEDICATED, 10**6)
    cloud = Resource("cl", ResourceType.CLOUD, 4, price=1.0, max_vms=250_000)
    n = 200
    instance = Instance("huge", tuple(f"j{k}" for k in range(n)), np.full(n, 1e6),
                        np.ones(n, np.int64), np.full(n, 1000), np.full(n, 1e12),
                        np.zeros(n, np.int64), np.zeros(n), (big, cloud))
    solution = from_pieces(n, [k % 2 for k in range(n)],
                           [(k, k, k + 1, 0, 10**6) for k in range(n)])
    tracemalloc.start()
    try:
        assert check(instance, solution) == []
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20
