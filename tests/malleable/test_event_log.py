"""The malleable event log: every record is checked with the pieces and the instance.

Real logs of the three schedulers under both policies pass, among them runs
where clusters give queued jobs up (``reschedule``), where a job goes back to
the cluster that gave it up, and where jobs wait for a VM. Each rule of
:mod:`hybridsched.malleable.event_log` and each record shape of
:data:`~hybridsched.malleable.schema.EVENT_FIELDS` is then broken by one
mutation of such a log, which is refused: as bad input (``validate`` exits 2
with one line naming the record and its field) or as a violation the
checker lists.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hybridsched.heuristics.malleable.simulation import SCHEDULERS, simulate
from hybridsched.malleable import files
from hybridsched.malleable.checker import check
from hybridsched.malleable.event_log import log_problems
from hybridsched.malleable.generator import generate
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.schema import EVENT_FIELDS
from hybridsched.malleable.solution import from_pieces

Doc = dict[str, Any]
Events = list[dict[str, Any]]

#: Small clusters and a two-VM cloud: clusters give queued jobs up, clouds are chosen.
RESCHEDULING = generate(40, "mixed", 3, resources=(
    Resource("ded", ResourceType.DEDICATED, 16),
    Resource("alloc", ResourceType.ALLOCATED, 8, price=1.0),
    Resource("cloud", ResourceType.CLOUD, 2, price=60.0, max_vms=2)))
#: One cluster and a one-VM cloud: a job given up often has nowhere else to go, and
#: goes back to the cluster that gave it up.
GIVEN_BACK = generate(40, "mixed", 3, resources=(
    Resource("ded", ResourceType.DEDICATED, 16),
    Resource("cloud", ResourceType.CLOUD, 2, price=60.0, max_vms=1)))
#: Clouds only: they fill up, and jobs wait for a VM.
WAITING = generate(12, "mixed", 2, resources=(
    Resource("c1", ResourceType.CLOUD, 2, price=60.0, max_vms=2),
    Resource("c2", ResourceType.CLOUD, 4, price=100.0, max_vms=1, spot_vms=0,
             on_demand_price=130.0)))
CASES = {"rescheduling": RESCHEDULING, "given-back": GIVEN_BACK, "waiting": WAITING}


def through_json(document: Doc) -> Doc:
    return json.loads(json.dumps(document))


@pytest.fixture(scope="module")
def runs() -> dict[tuple[str, str, str], Doc]:
    """The solution document of every case, scheduler and policy."""
    out = {}
    for case, instance in CASES.items():
        for scheduler in SCHEDULERS:
            for policy in ("A", "B"):
                solution, _ = simulate(instance, scheduler, policy, 0)
                assert check(instance, solution) == []
                out[(case, scheduler, policy)] = through_json(
                    files.solution_to_dict(solution, instance, method=scheduler))
    return out


def read(document: Doc, instance: Instance) -> list[str]:
    """The checker's violations of a document (which must read as valid input)."""
    return check(instance, files.solution_from_dict(document, instance, "sol.json"))


def kinds(document: Doc) -> Counter[str]:
    return Counter(e["event"] for e in document["events"])


# -- real logs pass -------------------------------------------------------------------------

def test_real_logs_of_every_scheduler_and_policy_pass(runs) -> None:
    for (case, scheduler, policy), document in runs.items():
        assert read(document, CASES[case]) == [], (case, scheduler, policy)
        if case == "waiting":
            assert kinds(document)["wait"] > 0, (scheduler, policy)
        elif scheduler != "round-robin":  # round robin never reschedules
            assert kinds(document)["reschedule"] > 0, (case, scheduler, policy)


def test_the_logs_decide_again_migrated_jobs_elsewhere_and_on_the_same_cluster(runs) -> None:
    moves = Counter()
    for (case, scheduler, _), document in runs.items():
        if scheduler == "round-robin" or case == "waiting":
            continue
        left: dict[str, str] = {}
        for e in document["events"]:
            if e["event"] == "reschedule":
                left[e["job"]] = e["resource"]
            elif e["event"] == "decision" and e["job"] in left:
                moves["back" if left.pop(e["job"]) == e["resource"] else "away"] += 1
    assert moves["back"] > 0 and moves["away"] > 0


def test_the_simulation_writes_exactly_the_fields_of_the_table(runs) -> None:
    types = {"resource": str, "end": int, "cpu": int, "count": int, "option": int,
             "good": bool, "cost": float, "until": int, "job": str, "time": int}
    seen = set()
    for document in runs.values():
        for e in document["events"]:
            assert set(e) == {"time", "event", "job", *EVENT_FIELDS[e["event"]]}, e
            assert all(type(e[f]) is types[f] for f in e if f != "event"), e
            seen.add(e["event"])
    assert seen == set(EVENT_FIELDS)


def test_validate_accepts_a_real_log_with_and_without_claims(tmp_path: Path, cli, runs) -> None:
    inst = write(tmp_path / "i.json", files.instance_to_dict(RESCHEDULING))
    document = runs[("rescheduling", "tree", "B")]
    assert cli("validate", inst, write(tmp_path / "s.json", document))[0] == 0
    bare = {k: v for k, v in document.items() if k not in ("cost", "total_delay")}
    assert cli("validate", inst, write(tmp_path / "b.json", bare))[0] == 0


def write(path: Path, document: Doc) -> Path:
    path.write_text(json.dumps(document))
    return path


# -- records the simulation could not have written: bad input --------------------------------

def _first(events: Events, kind: str, where: Callable[[dict], bool] = lambda e: True) -> int:
    return next(k for k, e in enumerate(events) if e["event"] == kind and where(e))


def _set(kind: str, field: str, value: object) -> Callable[[Events], tuple[int, str]]:
    def change(events: Events) -> tuple[int, str]:
        k = _first(events, kind)
        events[k][field] = value
        return k, field
    return change


def _drop(kind: str, field: str) -> Callable[[Events], tuple[int, str]]:
    def change(events: Events) -> tuple[int, str]:
        k = _first(events, kind)
        del events[k][field]
        return k, field
    return change


#: (case, change, fragments of the message besides ``field events.K.FIELD``).
BAD_RECORDS: dict[str, tuple[str, Callable[[Events], tuple[int, str]], tuple[str, ...]]] = {
    "decision without a resource": ("rescheduling", _drop("decision", "resource"),
                                    ("Field required",)),
    "decision on an unknown resource": ("rescheduling", _set("decision", "resource", "mars"),
                                        ("unknown resource 'mars'",)),
    "reschedule without a resource": ("rescheduling", _drop("reschedule", "resource"),
                                      ("Field required",)),
    "reschedule by an unknown resource": ("rescheduling",
                                          _set("reschedule", "resource", "mars"),
                                          ("unknown resource 'mars'",)),
    "start without a resource": ("rescheduling", _drop("start", "resource"), ()),
    "end on an unknown resource": ("rescheduling", _set("end", "resource", "mars"),
                                   ("unknown resource 'mars'",)),
    "decision of an unknown job": ("rescheduling", _set("decision", "job", "ghost"),
                                   ("unknown job 'ghost'",)),
    "wait of an unknown job": ("waiting", _set("wait", "job", "ghost"),
                               ("unknown job 'ghost'",)),
    "reschedule of an unknown job": ("rescheduling", _set("reschedule", "job", "ghost"),
                                     ("unknown job 'ghost'",)),
    "decision without an option": ("rescheduling", _drop("decision", "option"), ()),
    "decision without good": ("rescheduling", _drop("decision", "good"), ()),
    "decision without a cost": ("rescheduling", _drop("decision", "cost"), ()),
    "decision without an end": ("rescheduling", _drop("decision", "end"), ()),
    "wait without until": ("waiting", _drop("wait", "until"), ()),
    "start without processors": ("rescheduling", _drop("start", "count"), ()),
    "processor index not an integer": ("rescheduling", _set("start", "cpu", 1.5), ()),
    "processor count as a string": ("rescheduling", _set("start", "count", "2"), ("string",)),
    "option 2": ("rescheduling", _set("decision", "option", 2), ()),
    "option as a boolean": ("rescheduling", _set("decision", "option", True), ("boolean",)),
    "cost as a string": ("rescheduling", _set("decision", "cost", "0"), ("string",)),
    "negative cost": ("rescheduling", _set("decision", "cost", -1.0), ()),
    "decision end not a whole minute": ("rescheduling", _set("decision", "end", 2.5), ()),
    "good as a number": ("rescheduling", _set("decision", "good", 1), ()),
    "until not a whole minute": ("waiting", _set("wait", "until", 3.5), ()),
    "arrival with a resource": ("rescheduling", _set("arrival", "resource", "ded"),
                                ("an arrival record has no resource",)),
    "wait with a resource": ("waiting", _set("wait", "resource", "c1"),
                             ("a wait record has no resource",)),
    "decision with until": ("rescheduling", _set("decision", "until", 5),
                            ("a decision record has no until",)),
    "start with an option": ("rescheduling", _set("start", "option", 0),
                             ("a start record has no option",)),
    "reschedule with an end": ("rescheduling", _set("reschedule", "end", 9),
                               ("a reschedule record has no end",)),
    "end with processors": ("rescheduling", _set("end", "cpu", 0),
                            ("an end record has no cpu",)),
}


@pytest.fixture(scope="module")
def instance_files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("instances")
    return {case: write(folder / f"{case}.json", files.instance_to_dict(instance))
            for case, instance in CASES.items()}


@pytest.mark.parametrize("name", list(BAD_RECORDS))
def test_a_record_the_simulation_cannot_write_is_bad_input(name: str, tmp_path: Path, cli,
                                                           runs, instance_files) -> None:
    case, change, fragments = BAD_RECORDS[name]
    document = copy.deepcopy(runs[(case, "tree", "A")])
    k, field = change(document["events"])
    code, _, err = cli("validate", instance_files[case], write(tmp_path / "s.json", document))
    assert code == 2, err
    line = err.strip()
    assert "\n" not in line and "s.json: field " in line, err
    for fragment in (f"field events.{k}.{field}:", *fragments):
        assert fragment in line, (fragment, line)


def _rotate(document: Doc, instance: Instance) -> None:
    """Every decision names the next resource of the instance (a real id)."""
    ids = [r.id for r in instance.resources]
    for e in document["events"]:
        if e["event"] == "decision":
            e["resource"] = ids[(ids.index(e["resource"]) + 1) % len(ids)]


@pytest.mark.parametrize("claims", [True, False])
def test_decisions_naming_other_resources_are_refused_with_or_without_claims(
        claims: bool, tmp_path: Path, cli, runs, instance_files) -> None:
    document = copy.deepcopy(runs[("rescheduling", "tree", "A")])
    if not claims:
        del document["cost"], document["total_delay"]
    inst = instance_files["rescheduling"]
    renamed = copy.deepcopy(document)
    _rotate(renamed, RESCHEDULING)
    code, out, err = cli("validate", inst, write(tmp_path / "renamed.json", renamed))
    assert code == 1 and "names" in out, (out, err)
    for change in (lambda e: e.__setitem__("resource", "mars"), lambda e: e.pop("resource")):
        broken = copy.deepcopy(document)
        for e in broken["events"]:
            if e["event"] == "decision":
                change(e)
        code, _, err = cli("validate", inst, write(tmp_path / "broken.json", broken))
        assert code == 2 and "field events.1.resource" in err, err


# -- records that disagree with the schedule: violations -------------------------------------

def _decisions(events: Events, job: str) -> list[int]:
    return [k for k, e in enumerate(events) if e["event"] == "decision" and e["job"] == job]


def _rescheduled(events: Events) -> tuple[int, int, int]:
    """``(decision, reschedule, next decision)`` of the first job a cluster gives up."""
    r = _first(events, "reschedule")
    job = events[r]["job"]
    decisions = _decisions(events, job)
    return max(k for k in decisions if k < r), r, min(k for k in decisions if k > r)


def _settled(events: Events, instance: Instance, cloud: bool) -> tuple[int, int]:
    """``(decision, first start)`` of a job's last decision, on a cloud or on a cluster.

    On a cluster, a job decided once that starts after its decision's minute,
    with no decision naming the cluster at its start minute.
    """
    clouds = {r.id for r in instance.resources if r.is_cloud}
    given_up = {e["job"] for e in events if e["event"] == "reschedule"}
    for d, e in enumerate(events):
        if e["event"] != "decision" or (e["resource"] in clouds) != cloud or (
                not cloud and e["job"] in given_up):
            continue
        s = _first(events, "start", lambda x, job=e["job"]: x["job"] == job)
        if cloud:
            return d, s
        when = events[s]["time"]
        if when > e["time"] and not any(
                x["event"] == "decision" and x["resource"] == e["resource"]
                and x["time"] == when for x in events):
            return d, s
    raise AssertionError("no such job in the log")


def _allocated(events: Events) -> int:
    return _first(events, "decision", lambda e: e["resource"] == "alloc")


def given_up_decision_elsewhere(events: Events) -> tuple[str, ...]:
    d, r, _ = _rescheduled(events)
    events[d]["resource"] = "alloc" if events[d]["resource"] == "ded" else "ded"
    return (f"event {r}: ", f"gives job {events[r]['job']!r} up, but its decision "
            f"(event {d}) names")


def last_decision_elsewhere(events: Events) -> tuple[str, ...]:
    d, _ = _settled(events, RESCHEDULING, cloud=False)
    events[d]["resource"] = "alloc" if events[d]["resource"] == "ded" else "ded"
    return (f"its last decision (event {d}) names {events[d]['resource']!r}",)


def decision_again_dropped(events: Events) -> tuple[str, ...]:
    _, r, again = _rescheduled(events)
    del events[again]
    return (f"of job {events[r]['job']!r} while it is undecided (since event {r})",)


def reschedule_dropped(events: Events) -> tuple[str, ...]:
    d, r, again = _rescheduled(events)
    del events[r]
    return (f"event {again - 1}: decision of job {events[d]['job']!r} while its decision "
            f"(event {d})", "no reschedule gave it up")


def reschedule_by_another_cluster(events: Events) -> tuple[str, ...]:
    d, r, _ = _rescheduled(events)
    events[r]["resource"] = "alloc" if events[r]["resource"] == "ded" else "ded"
    return (f"event {r}: ", f"but its decision (event {d}) names")


def cloud_gives_up(events: Events) -> tuple[str, ...]:
    d, _ = _settled(events, RESCHEDULING, cloud=True)
    e = events[d]
    events[d + 1:d + 1] = [{"time": e["time"], "event": "reschedule", "job": e["job"],
                            "resource": e["resource"]}, dict(e)]
    return (f"event {d + 1}: cloud {e['resource']!r} gives job {e['job']!r} up",)


def reschedule_at_a_minute_without_decision(events: Events) -> tuple[str, ...]:
    d, s = _settled(events, RESCHEDULING, cloud=False)
    e = events[d]
    events[s:s] = [{"time": events[s]["time"], "event": "reschedule", "job": e["job"],
                    "resource": e["resource"]}, {**e, "time": events[s]["time"]}]
    return (f"event {s}: {e['resource']!r} gives job {e['job']!r} up at "
            f"{events[s]['time']:g}, not at the minute of a decision naming it",)


def wait_while_decided(events: Events) -> tuple[str, ...]:
    d, _ = _settled(events, RESCHEDULING, cloud=False)
    e = events[d]
    events.insert(d + 1, {"time": e["time"], "event": "wait", "job": e["job"],
                          "until": e["time"] + 1})
    return (f"event {d + 1}: wait of job {e['job']!r} while its decision (event {d})",)


def wait_until_shifted(events: Events) -> tuple[str, ...]:
    w = _first(events, "wait")
    events[w]["until"] += 1
    return (f"as event {w} (wait) asks",)


def wait_until_now(events: Events) -> tuple[str, ...]:
    w = _first(events, "wait")
    events[w]["until"] = events[w]["time"]
    return (f"event {w}: job {events[w]['job']!r} waits until {events[w]['time']}, not after",)


def decision_after_its_minute(events: Events) -> tuple[str, ...]:
    d, s = _settled(events, RESCHEDULING, cloud=False)
    later = next(k for k in range(d + 1, len(events)) if events[k]["time"] > events[d]["time"])
    a = _first(events, "arrival", lambda x: x["job"] == events[d]["job"])
    e = events.pop(d)
    e["time"] = events[later - 1]["time"]
    events.insert(later - 1, e)
    return (f"event {later - 1}: decision of job {e['job']!r} at {e['time']:g}, not at ",
            f"as event {a} (arrival) asks")


def good_flipped(events: Events) -> tuple[str, ...]:
    d = _first(events, "decision")
    events[d]["good"] = not events[d]["good"]
    return (f"event {d}: decision of job {events[d]['job']!r} says good=",)


def cluster_option_1(events: Events) -> tuple[str, ...]:
    d = _allocated(events)
    events[d]["option"] = 1
    return (f"event {d}: decision of job {events[d]['job']!r} on cluster 'alloc' with option 1",)


def cluster_cost_off(events: Events) -> tuple[str, ...]:
    d = _allocated(events)
    events[d]["cost"] += 1
    return (f"event {d}: decision of job {events[d]['job']!r} on 'alloc' costs",)


def dedicated_cost(events: Events) -> tuple[str, ...]:
    d = _first(events, "decision", lambda e: e["resource"] == "ded")
    events[d]["cost"] = 1.0
    return (f"event {d}: ", "a dedicated cluster is free")


def cluster_end_too_early(events: Events) -> tuple[str, ...]:
    d = _allocated(events)
    events[d]["end"] = events[d]["time"]
    return (f"event {d}: decision of job {events[d]['job']!r} on 'alloc' ends at",
            "minutes the job needs there")


def cloud_end_off(events: Events) -> tuple[str, ...]:
    d, _ = _settled(events, RESCHEDULING, cloud=True)
    events[d]["end"] += 1
    return (f"not at the end {events[d]['end']} its decision (event {d}) states",)


def cloud_decision_earlier(events: Events) -> tuple[str, ...]:
    d, _ = _settled(events, RESCHEDULING, cloud=True)
    events[d]["time"] -= 1
    return (f"not at its decision (event {d}) at {events[d]['time']:g}",)


def start_before_decision(events: Events) -> tuple[str, ...]:
    d, s = _settled(events, RESCHEDULING, cloud=True)
    assert s == d + 1  # a cloud starts the job at once
    events[d], events[s] = events[s], events[d]
    return (f"event {d}: start of job {events[d]['job']!r} while it is undecided",)


def decision_before_arrival(events: Events) -> tuple[str, ...]:
    d = _first(events, "decision")
    a = _first(events, "arrival", lambda e: e["job"] == events[d]["job"])
    assert events[a]["time"] == events[d]["time"]
    e = events.pop(d)
    events.insert(a, e)
    return (f"event {a}: decision of job {e['job']!r} before its arrival record",)


def decisions_dropped(events: Events) -> tuple[str, ...]:
    d, _ = _settled(events, RESCHEDULING, cloud=False)
    job = events[d]["job"]
    del events[d]
    return (f"job {job!r} runs on ", "but the log never decides it",)


def second_start_later(events: Events) -> tuple[str, ...]:
    d, s = _settled(events, RESCHEDULING, cloud=False)
    events.insert(s + 1, {**events[s], "time": events[s]["time"] + 1})
    return (f"event {s + 1}: job {events[s]['job']!r} starts again at",)


def end_twice(events: Events) -> tuple[str, ...]:
    k = _first(events, "end")
    events.insert(k + 1, dict(events[k]))
    return (f"event {k + 1}: end of job {events[k]['job']!r} after its end",)


def end_before_start(events: Events) -> tuple[str, ...]:
    d, s = _settled(events, RESCHEDULING, cloud=True)
    events.insert(s, {"time": events[s]["time"], "event": "end", "job": events[d]["job"],
                      "resource": events[d]["resource"]})
    return (f"event {s}: end of job {events[d]['job']!r} before its start",)


#: (case, change returning fragments one of the violations must contain).
VIOLATIONS: dict[str, tuple[str, Callable[[Events], tuple[str, ...]]]] = {
    "a decision given up names another resource": ("rescheduling", given_up_decision_elsewhere),
    "the last decision names another resource": ("rescheduling", last_decision_elsewhere),
    "the decision after a reschedule dropped": ("rescheduling", decision_again_dropped),
    "the same after a job went back": ("given-back", decision_again_dropped),
    "a reschedule dropped": ("rescheduling", reschedule_dropped),
    "a reschedule by another cluster": ("rescheduling", reschedule_by_another_cluster),
    "a cloud gives a job up": ("rescheduling", cloud_gives_up),
    "a reschedule at a minute no decision takes its place":
        ("rescheduling", reschedule_at_a_minute_without_decision),
    "a wait while a decision stands": ("rescheduling", wait_while_decided),
    "a wait until another minute": ("waiting", wait_until_shifted),
    "a wait until its own minute": ("waiting", wait_until_now),
    "a decision after the minute it is due": ("rescheduling", decision_after_its_minute),
    "good flipped": ("rescheduling", good_flipped),
    "a cluster decision with option 1": ("rescheduling", cluster_option_1),
    "a cluster decision costing more": ("rescheduling", cluster_cost_off),
    "a dedicated cluster decision costing something": ("rescheduling", dedicated_cost),
    "a cluster decision ending too early": ("rescheduling", cluster_end_too_early),
    "a cloud decision stating another end": ("rescheduling", cloud_end_off),
    "a cloud decision a minute before the start": ("rescheduling", cloud_decision_earlier),
    "a start before the decision": ("rescheduling", start_before_decision),
    "a decision before the arrival record": ("rescheduling", decision_before_arrival),
    "a job's only decision dropped": ("rescheduling", decisions_dropped),
    "a start a minute after the job's other start": ("rescheduling", second_start_later),
    "an end twice": ("rescheduling", end_twice),
    "an end before the start": ("rescheduling", end_before_start),
}


@pytest.mark.parametrize("name", list(VIOLATIONS))
@pytest.mark.parametrize("policy", ["A", "B"])
def test_a_record_that_disagrees_with_the_schedule_is_a_violation(name: str, policy: str,
                                                                  runs) -> None:
    case, change = VIOLATIONS[name]
    document = copy.deepcopy(runs[(case, "tree", policy)])
    fragments = change(document["events"])
    problems = read(document, CASES[case])
    assert any(all(f in p for f in fragments) for p in problems), (fragments, problems)


def test_the_checker_lists_malformed_records_of_a_log_built_in_memory() -> None:
    instance = RESCHEDULING
    solution, _ = simulate(instance, "tree", "A", 0)
    events = [dict(e) for e in solution.events]
    d = _first(events, "decision")
    del events[d]["resource"]
    s = _first(events, "start")
    events[s]["cpu"] = "0"
    broken = from_pieces(instance.n_jobs, solution.resource,
                         list(zip(*(getattr(solution, f).tolist() for f in (
                             "job", "start", "end", "cpu", "count")), strict=True)),
                         tuple(events))
    problems = log_problems(instance, broken, limit=1000)
    assert any(p.startswith(f"event {d}: decision of job ") and "fields" in p for p in problems)
    assert any(p.startswith(f"event {s}: start of job ") and "fields" in p for p in problems)
