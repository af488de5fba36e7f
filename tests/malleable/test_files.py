"""Malleable instance and solution files: round trips, and one-line errors for bad documents.

Every bad document raises :class:`InputError` with a single line that starts with the
source name and names the field path, the item (job or resource id) or the tree node.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hybridsched.errors import InputError
from hybridsched.heuristics.malleable import simulation as online
from hybridsched.malleable import checker, files, generator, tree_config
from hybridsched.malleable.instance import Instance

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "examples" / "trees" / "paper.toml"
SOURCE = "inst.json"


def through_json(document: dict[str, Any]) -> dict[str, Any]:
    """The document as a file would give it back (JSON text and back)."""
    return json.loads(json.dumps(document))


def assert_same_instance(a: Instance, b: Instance) -> None:
    assert a.name == b.name and a.job_ids == b.job_ids
    for field in ("size", "priority", "deadline", "budget", "arrival", "serial_fraction"):
        x, y = getattr(a, field), getattr(b, field)
        assert x.dtype.kind == y.dtype.kind, field
        assert np.array_equal(x, y), field
    assert a.resources == b.resources
    assert a.tree == b.tree
    assert a.provenance == b.provenance


# -- round trips ------------------------------------------------------------------------

@pytest.mark.parametrize("mix, fraction", [("small", 0.0), ("big", 0.4), ("mixed", 0.25)])
def test_instance_round_trip_on_the_default_platform(mix: str, fraction: float) -> None:
    instance = generator.generate(25, mix, seed=7, serial_fraction=fraction)
    again = files.instance_from_dict(through_json(files.instance_to_dict(instance)))
    assert_same_instance(instance, again)
    assert again.tree is None
    # A second trip gives the same document.
    assert files.instance_to_dict(again) == files.instance_to_dict(instance)


def test_instance_round_trip_with_the_paper_tree() -> None:
    platform = tree_config.load_platform(PAPER)
    instance = generator.generate(20, "mixed", seed=1, resources=platform.resources,
                                  tree=platform.tree, serial_fraction=0.1)
    document = files.instance_to_dict(instance)
    assert document["tree"]["edges"] == [list(e) for e in platform.tree.edges]
    again = files.instance_from_dict(through_json(document))
    assert_same_instance(instance, again)
    assert again.tree == platform.tree
    assert again.tree.root == "root" and len(again.tree.leaves) == 4


def test_instance_round_trip_of_a_batch_platform_with_performance() -> None:
    instance = generator.generate(8, "small", seed=4, resources=generator.batch_platform())
    again = files.instance_from_dict(through_json(files.instance_to_dict(instance)))
    assert_same_instance(instance, again)
    assert again.resources[2].performance == 2.0


def test_instance_without_jobs_round_trips() -> None:
    instance = generator.generate(0, "small", seed=0)
    again = files.instance_from_dict(through_json(files.instance_to_dict(instance)))
    assert again.n_jobs == 0 and again.resources == instance.resources


@pytest.mark.parametrize("scheduler", ["tree", "flat", "round-robin"])
def test_solution_round_trip(scheduler: str) -> None:
    instance = generator.generate(30, "mixed", seed=2, serial_fraction=0.2)
    solution, _ = online.simulate(instance, scheduler, "A", 0)
    assert checker.check(instance, solution) == []
    document = through_json(files.solution_to_dict(solution, instance, method=scheduler))
    assert document["family"] == "malleable" and document["method"] == scheduler
    again = files.solution_from_dict(document, instance, "sol.json")
    assert checker.check(instance, again) == []
    assert np.array_equal(again.resource, solution.resource)
    assert checker.evaluate(instance, again) == checker.evaluate(instance, solution)
    assert again.reported["cost"] == pytest.approx(
        checker.evaluate(instance, solution).metrics["cost"])


def test_the_simulator_of_the_brief_round_trips_with_the_paper_tree() -> None:
    platform = tree_config.load_platform(PAPER)
    instance = generator.generate(30, "big", seed=9, resources=platform.resources,
                                  tree=platform.tree)
    instance = files.instance_from_dict(through_json(files.instance_to_dict(instance)))
    solution, _ = online.simulate(instance, "tree", "A", 0)
    again = files.solution_from_dict(through_json(files.solution_to_dict(solution, instance)),
                                     instance)
    assert checker.check(instance, again) == []
    assert checker.evaluate(instance, again).metrics == \
        checker.evaluate(instance, solution).metrics


# -- bad instance documents ---------------------------------------------------------------

GOOD = files.instance_to_dict(generator.generate(5, "mixed", seed=2))
IDS = [r["id"] for r in GOOD["resources"]]  # dedicated, alloc-1, alloc-2, cloud
STAR = [("root", r) for r in IDS]


def tree(*edges: tuple[str, str]) -> Callable[[dict], object]:
    return lambda d: d.__setitem__("tree", {"edges": [list(e) for e in edges]})


def job(field: str, value: object, k: int = 2) -> Callable[[dict], object]:
    return lambda d: d["jobs"][k].__setitem__(field, value)


def resource(k: int, field: str, value: object) -> Callable[[dict], object]:
    return lambda d: d["resources"][k].__setitem__(field, value)


BAD_INSTANCES: dict[str, tuple[Callable[[dict], object], tuple[str, ...]]] = {
    "two-node cycle": (tree(*STAR, ("a", "b"), ("b", "a")), ("field tree", "cycle", " -> ")),
    "self loop": (tree(*STAR, ("a", "a")), ("field tree", "cycle", "'a'")),
    "cycle hanging off the root": (tree(*STAR, ("root", "a"), ("a", "b"), ("b", "c"),
                                        ("c", "a")), ("field tree", "'a'")),
    "leaf that is not a resource": (tree(*STAR, ("root", "lonely")),
                                    ("field tree", "'lonely'", "not a resource")),
    "agent without children": (tree(*STAR, ("root", "agent"), ("agent", "empty")),
                               ("field tree", "'empty'")),
    "resource with children": (tree(*STAR, ("cloud", "x")),
                               ("field tree", "'cloud'", "cannot have children")),
    "resource under a resource": (tree(*STAR[:3], ("alloc-2", "cloud")),
                                  ("field tree", "'alloc-2'")),
    "two roots": (tree(*STAR[:2], ("other", "alloc-2"), ("other", "cloud")),
                  ("field tree", "one root", "'other'", "'root'")),
    "resource missing from the tree": (tree(*STAR[:3]), ("field tree", "'cloud'")),
    "two parents": (tree(*STAR, ("root", "a"), ("a", "cloud")), ("field tree", "'cloud'")),
    "empty tree": (tree(), ("field tree.edges",)),
    "unknown resource type": (resource(1, "type", "gpu"), ("field resources.1.type",)),
    "size 0": (job("size", 0), ("field jobs.2.size", "'j2'")),
    "negative size": (job("size", -5), ("field jobs.2.size", "'j2'")),
    "size 1e300": (job("size", 1e300), ("field jobs.2.size", "'j2'")),
    "size NaN": (job("size", float("nan")), ("field jobs.2.size", "finite")),
    "size infinite": (job("size", float("inf")), ("field jobs.2.size", "finite")),
    "size as a string": (job("size", "90"), ("field jobs.2.size", "string")),
    "size as a boolean": (job("size", True), ("field jobs.2.size", "boolean")),
    "cpus 0": (resource(1, "cpus", 0), ("field resources.1.cpus", "'alloc-1'")),
    "cpus 10**12": (resource(1, "cpus", 10**12), ("field resources.1.cpus", "'alloc-1'")),
    "cpus as a string": (resource(1, "cpus", "32"), ("field resources.1.cpus", "string")),
    "cpus as a boolean": (resource(1, "cpus", True), ("field resources.1.cpus", "boolean")),
    "cpus fractional": (resource(1, "cpus", 2.5), ("field resources.1.cpus",)),
    "max_vms 10**12": (resource(3, "max_vms", 10**12), ("field resources.3.max_vms",)),
    "negative budget": (job("budget", -1), ("field jobs.2.budget", "'j2'")),
    "budget as a string": (job("budget", "10"), ("field jobs.2.budget", "string")),
    "deadline before arrival": (lambda d: d["jobs"][2].update(arrival=50, deadline=10),
                                ("field jobs.2", "'j2'", "before its arrival")),
    "negative arrival": (job("arrival", -1), ("field jobs.2.arrival",)),
    "fractional deadline": (job("deadline", 10.5), ("field jobs.2.deadline",)),
    "huge deadline": (job("deadline", 10**30), ("field jobs.2.deadline",)),
    "priority as a boolean": (job("priority", False), ("field jobs.2.priority", "boolean")),
    "serial_fraction 1.0": (job("serial_fraction", 1.0), ("field jobs.2.serial_fraction",
                                                          "'j2'")),
    "serial_fraction -0.1": (job("serial_fraction", -0.1), ("field jobs.2.serial_fraction",
                                                            "'j2'")),
    "serial_fraction NaN": (job("serial_fraction", float("nan")),
                            ("field jobs.2.serial_fraction",)),
    "serial_fraction infinite": (job("serial_fraction", float("-inf")),
                                 ("field jobs.2.serial_fraction",)),
    "serial_fraction as 'nan'": (job("serial_fraction", "nan"),
                                 ("field jobs.2.serial_fraction", "string")),
    "serial_fraction null": (job("serial_fraction", None), ("field jobs.2.serial_fraction",)),
    "serial_fraction as a boolean": (job("serial_fraction", True),
                                     ("field jobs.2.serial_fraction", "boolean")),
    "dedicated cluster with a price": (resource(0, "price", 3),
                                       ("field resources.0", "'dedicated'", "price")),
    "cloud field on a cluster": (resource(1, "max_vms", 2),
                                 ("field resources.1", "'alloc-1'", "max_vms")),
    "cloud without max_vms": (lambda d: d["resources"][3].pop("max_vms"),
                              ("field resources.3", "'cloud'", "max_vms")),
    "spot_vms > max_vms": (resource(3, "spot_vms", 33),
                           ("field resources.3", "'cloud'", "spot_vms 33 > max_vms 32")),
    "duplicate job ids": (job("id", "j0"), ("field jobs", "duplicate", "'j0'")),
    "duplicate resource ids": (resource(2, "id", "alloc-1"),
                               ("field resources", "duplicate", "'alloc-1'")),
    "no resources": (lambda d: d.__setitem__("resources", []), ("field resources",)),
    "unknown job field": (job("colour", "red"), ("field jobs.2.colour", "'j2'")),
    "another family": (lambda d: d.__setitem__("family", "bot-sites"), ("field family",)),
    "jobs not a list": (lambda d: d.__setitem__("jobs", {"j0": 1}), ("field jobs",)),
}


@pytest.mark.parametrize("case", list(BAD_INSTANCES))
def test_bad_instance_document_is_one_line_naming_the_item(case: str) -> None:
    change, fragments = BAD_INSTANCES[case]
    document = copy.deepcopy(GOOD)
    change(document)
    with pytest.raises(InputError) as caught:
        files.instance_from_dict(document, SOURCE)
    message = str(caught.value)
    assert "\n" not in message, message
    assert message.startswith(f"{SOURCE}: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_the_good_document_of_the_bad_cases_is_valid() -> None:
    document = copy.deepcopy(GOOD)
    tree(*STAR)(document)
    instance = files.instance_from_dict(document, SOURCE)
    assert instance.tree is not None and instance.tree.root == "root"
    assert sorted(n for n, _ in instance.tree.leaves) == sorted(IDS)


def test_a_nan_token_in_an_instance_file_is_refused(tmp_path: Path) -> None:
    from hybridsched.storage import load_instance

    text = json.dumps(GOOD).replace('"budget": ', '"budget": NaN, "x": ', 1)
    path = tmp_path / "nan.json"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_instance(path)
    message = str(caught.value)
    assert "\n" not in message and "nan.json" in message and "NaN" in message


# -- bad solution documents ---------------------------------------------------------------

INSTANCE = generator.generate(6, "small", seed=5)
SOLUTION = files.solution_to_dict(online.simulate(INSTANCE, "tree", "A", 0)[0], INSTANCE)


BAD_SOLUTIONS: dict[str, tuple[Callable[[dict], object], tuple[str, ...]]] = {
    "unknown job": (lambda d: d["jobs"][1].__setitem__("job", "ghost"),
                    ("field jobs.1.job", "unknown job 'ghost'")),
    "unknown resource": (lambda d: d["jobs"][1].__setitem__("resource", "mars"),
                         ("field jobs.1.resource", "unknown resource 'mars'")),
    "a job placed twice": (lambda d: d["jobs"].append(copy.deepcopy(d["jobs"][0])),
                           ("field jobs.6.job", "'j0'", "twice")),
    "placed twice on another resource": (
        lambda d: d["jobs"].append({**copy.deepcopy(d["jobs"][0]), "resource": "alloc-1"}),
        ("field jobs.6.job", "'j0'", "twice")),
    "no pieces": (lambda d: d["jobs"][0].__setitem__("pieces", []), ("field jobs.0.pieces",)),
    "zero processors": (lambda d: d["jobs"][0]["pieces"][0].__setitem__("count", 0),
                        ("field jobs.0.pieces.0.count",)),
    "negative start": (lambda d: d["jobs"][0]["pieces"][0].__setitem__("start", -1),
                       ("field jobs.0.pieces.0.start",)),
    "start as a string": (lambda d: d["jobs"][0]["pieces"][0].__setitem__("start", "1"),
                          ("field jobs.0.pieces.0.start", "string")),
    "another family": (lambda d: d.__setitem__("family", "bot-sites"), ("field family",)),
    "log time as a string": (lambda d: d["events"][0].__setitem__("time", "x"),
                             ("field events.0.time", "string")),
    "log time missing": (lambda d: d["events"][1].pop("time"), ("field events.1.time",)),
    "log time negative": (lambda d: d["events"][0].__setitem__("time", -1),
                          ("field events.0.time",)),
    "unknown log event": (lambda d: d["events"][0].__setitem__("event", "boom"),
                          ("field events.0.event",)),
    "log record without a job": (lambda d: d["events"][0].pop("job"), ("field events.0.job",)),
    "unknown log field": (lambda d: d["events"][0].__setitem__("colour", 1),
                          ("field events.0.colour",)),
    "log processors negative": (
        lambda d: next(e for e in d["events"] if e["event"] == "start").__setitem__("cpu", -1),
        ("field events.", ".cpu")),
    "log not a list": (lambda d: d.__setitem__("events", "abc"), ("field events",)),
    "unknown policy": (lambda d: d.__setitem__("policy", "Z"), ("field policy",)),
    "unknown objective optimised": (lambda d: d.__setitem__("optimised", "makespan"),
                                    ("field optimised", "'makespan'")),
}


@pytest.mark.parametrize("case", list(BAD_SOLUTIONS))
def test_bad_solution_document_is_one_line_naming_the_item(case: str) -> None:
    change, fragments = BAD_SOLUTIONS[case]
    document = through_json(SOLUTION)
    change(document)
    with pytest.raises(InputError) as caught:
        files.solution_from_dict(document, INSTANCE, "sol.json")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("sol.json: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_a_missing_job_is_left_to_the_checker() -> None:
    document = through_json(SOLUTION)
    del document["jobs"][3]
    solution = files.solution_from_dict(document, INSTANCE, "sol.json")
    problems = checker.check(INSTANCE, solution)
    assert problems and "'j3'" in problems[0] and "not scheduled" in problems[0]
