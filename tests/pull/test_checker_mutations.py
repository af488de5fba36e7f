"""Mutation test of the pull checker: valid schedules of every method, corrupted every way.

Schedules of ``promethee`` (linear, level and gaussian preferences) and
``fcfs`` on small generated and hand-made instances are corrupted, class by
class (see :data:`CLASSES`). A forged schedule states claims recomputed from
the forgery itself (so no stale claim gives it away) and, unless the class
is about the log, carries no event log: the rule the class targets must
catch it, and its message is asserted. Files are corrupted as documents:
loading them fails with one-line bad input, or the checker refuses them.
The counts of corruptions tried and caught, per class, are printed by the
last test (``pytest -s``).
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hybridsched.errors import InputError
from hybridsched.pull import check, evaluate
from hybridsched.pull.behaviour import Draws, replay, stream
from hybridsched.pull.files import STATED_COUNTS, solution_from_dict, solution_to_dict
from hybridsched.pull.generator import generate
from hybridsched.pull.instance import Behaviour, Instance
from hybridsched.pull.solution import (
    CANCELLED,
    CORRECT,
    LOST,
    NEVER,
    WRONG,
    Solution,
    from_records,
)
from hybridsched.registry import run_method
from tests.pull.helpers import tiny

METHODS = [("promethee", {"preference": "linear"}), ("promethee", {"preference": "level"}),
           ("promethee", {"preference": "gaussian"}), ("fcfs", {})]
#: Corruptions of one kind tried per schedule at most (picked at random, seeded).
PER_SCHEDULE = 3
TRIED: Counter = Counter()
CAUGHT: Counter = Counter()


def _arrivals_instance(seed: int) -> Instance:
    """Units arriving over time, erring and intermittent hosts, late and lost results."""
    rng = np.random.default_rng(seed)
    n = 7
    hosts = [("cloud", 100.0, 0.01, 0.0, ((0.0, math.inf),))]
    for k in range(3):
        cuts = np.sort(rng.choice(np.arange(5, 200, 5), size=4, replace=False)).astype(float)
        spans = ((0.0, cuts[0]), (cuts[1], cuts[2]), (cuts[3], math.inf))
        hosts.append(("idg", float(rng.choice([50, 100, 250])), 0.0, (0.3, 0.6, 0.0)[k], spans))
    return tiny(tuple(float(x) for x in rng.integers(5, 40, n) * 100), tuple(hosts),
                Behaviour(0.3, 0.15, 1.5, seed), arrival=tuple(float(x) for x in
                                                               rng.integers(0, 60, n)))


INSTANCES = [generate(8, seed=1, capacity=600), generate(6, ("idg", "beg"), seed=2,
                                                         capacity=400),
             _arrivals_instance(3), _arrivals_instance(4)]


def _schedules() -> list[tuple[str, Instance, Solution]]:
    found = []
    for k, instance in enumerate(INSTANCES):
        for method, options in METHODS:
            result = run_method("pull", method, instance, **options)
            assert result.solution is not None, result.message
            found.append((f"{k}-{method}-{options.get('preference', '')}", instance,
                          result.solution))
    return found


SCHEDULES = _schedules()


# -- forging -------------------------------------------------------------------------------

Record = list  # [unit, host, start, end, delay, outcome]


def records_of(solution: Solution) -> list[Record]:
    return [[int(u), int(h), float(s), float(e), float(d), int(o)] for u, h, s, e, d, o in
            zip(solution.unit, solution.host, solution.start, solution.end, solution.delay,
                solution.outcome, strict=True)]


def claims(instance: Instance, solution: Solution) -> dict[str, float]:
    """Everything a solution file states, recomputed from ``solution`` itself."""
    metrics = evaluate(instance, solution).metrics
    stated = {key: float(metrics[key]) for key in ("makespan", "cost", "efficiency",
                                                   *STATED_COUNTS)}
    return {"objective": stated["makespan"], **stated}


def forge(instance: Instance, records: list[Record], events: Any = None) -> Solution:
    """A schedule from ``records`` stating its own (recomputed) claims."""
    solution = from_records([tuple(r) for r in records], events)
    # A forgery evaluate cannot compute (a host out of range, NaN times) states nothing.
    with contextlib.suppress(IndexError, ValueError), np.errstate(invalid="ignore"):
        solution.reported.update(claims(instance, solution))
    return solution


def ect(instance: Instance, record: Record) -> float:
    return float(instance.noi[record[0]] / instance.cpu[record[1]])


def windows_of(instance: Instance, host: int) -> np.ndarray:
    return np.array(instance.windows[host], dtype=float).reshape(-1, 2)


def pick(rng: np.random.Generator, items: list, n: int = PER_SCHEDULE) -> list:
    if len(items) <= n:
        return list(items)
    return [items[k] for k in sorted(rng.choice(len(items), size=n, replace=False))]


Mutant = tuple[Any, str | None]  # (forged Solution or solution document, message fragment)
Generator = Callable[[Instance, Solution, np.random.Generator], Iterator[Mutant]]


def outcome_relabelled(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    ran = [k for k, r in enumerate(records) if r[5] in (CORRECT, WRONG, NEVER)]
    for k in pick(rng, ran, 2 * PER_SCHEDULE):
        for new in (CORRECT, WRONG, NEVER):
            if new != records[k][5]:
                changed = copy.deepcopy(records)
                changed[k][5] = new
                yield forge(instance, changed), "draw"
    for k in pick(rng, [k for k, r in enumerate(records) if r[5] in (LOST, CANCELLED)]):
        changed = copy.deepcopy(records)
        changed[k][5] = CORRECT  # a cut-short task said to have returned
        yield forge(instance, changed), None


def delay_changed(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    for k in pick(rng, list(range(len(records))), 2 * PER_SCHEDULE):
        changed = copy.deepcopy(records)
        r = changed[k]
        r[4] = 1.0 if r[4] > 1 else 1.25  # the forgery of the issue: a delay said to be 1
        if r[5] in (CORRECT, WRONG, NEVER):
            r[3] = r[2] + ect(instance, r) * r[4]
        yield forge(instance, changed), "has delay factor"


def replica_after_completion(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    completion = solution.completion(instance.n_units)
    found = []
    for k, r in enumerate(records):
        if r[5] in (LOST, CANCELLED):
            found += [(k, v) for v in np.flatnonzero(completion < r[2] - 1e-3) if v != r[0]]
    for k, v in pick(rng, found):
        changed = copy.deepcopy(records)
        changed[k][0] = int(v)
        yield forge(instance, changed), "after its unit completed"


def host_idle(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    end = float(solution.completion(instance.n_units).max())
    completing = set(np.flatnonzero(_completing(instance, solution)))
    last = {}
    for k in np.lexsort((solution.start, solution.host)):
        last[int(solution.host[k])] = int(k)
    dropped = [k for k in last.values() if k not in completing and records[k][2] < end - 1e-3]
    for k in pick(rng, dropped):  # the host's last task never happened
        yield forge(instance, [r for j, r in enumerate(records) if j != k]), "idle"
    late = [k for k in last.values() if records[k][5] == CANCELLED
            and records[k][3] - records[k][2] > 1e-3]
    for k in pick(rng, late):  # the host pulled its last task late
        changed = copy.deepcopy(records)
        changed[k][2] += (changed[k][3] - changed[k][2]) / 2
        yield forge(instance, changed), "idle"


def _completing(instance: Instance, solution: Solution) -> np.ndarray:
    from hybridsched.pull.checker import completing_tasks

    mask = np.zeros(solution.n_tasks, dtype=bool)
    first = completing_tasks(instance, solution)
    mask[first[first >= 0]] = True
    return mask


def unit_missing(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    for u in pick(rng, list(range(instance.n_units))):
        yield forge(instance, [r for r in records if r[0] != u]), "has no correct result"


def unit_twice(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    for k in pick(rng, list(range(len(records)))):
        yield forge(instance, [*records, copy.copy(records[k])]), "runs task"


def unknown_host(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    for k in pick(rng, list(range(len(records)))):
        changed = copy.deepcopy(records)
        changed[k][1] = instance.n_hosts
        yield forge(instance, changed), "does not match the instance"
        document = json.loads(json.dumps(solution_to_dict(solution, instance)))
        document["tasks"][k]["host"] = "no-such-host"
        yield document, "unknown host"


def absent_or_busy_host(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    for k in pick(rng, list(range(len(records)))):
        r = records[k]
        for h in range(instance.n_hosts):
            if h == r[1]:
                continue
            spans = windows_of(instance, h)
            inside = np.any((spans[:, 0] <= r[2]) & (r[3] <= spans[:, 1]))
            changed = copy.deepcopy(records)
            changed[k][1] = h
            if not inside:  # moved to a host that is away then
                yield forge(instance, changed), "outside the host's availability windows"
                break
        busy = [h for h in set(solution.host.tolist()) - {r[1]}
                if any(q[1] == h and q[2] < r[3] and r[2] < q[3] for q in records)]
        if busy:  # moved onto a host that runs another task then
            changed = copy.deepcopy(records)
            changed[k][1] = busy[0]
            yield forge(instance, changed), None


def outside_window(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    for k in pick(rng, list(range(len(records)))):
        r = records[k]
        spans = windows_of(instance, r[1])
        w = int(np.searchsorted(spans[:, 0], r[2] + 1e-6, side="right") - 1)
        if math.isfinite(spans[w, 1]):  # runs on after its host left
            changed = copy.deepcopy(records)
            changed[k][3] = spans[w, 1] + 5.0
            yield forge(instance, changed), "outside the host's availability windows"
        if spans[w, 0] >= 5.0:  # starts before its host joined
            changed = copy.deepcopy(records)
            changed[k][2] = spans[w, 0] - 5.0
            yield forge(instance, changed), "outside the host's availability windows"


def start_before_arrival(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    late = [k for k, r in enumerate(records) if instance.arrival[r[0]] >= 1.0]
    for k in pick(rng, late):
        changed = copy.deepcopy(records)
        changed[k][2] = float(instance.arrival[changed[k][0]]) - 0.5
        yield forge(instance, changed), "before its unit arrives"


def claims_misstated(instance, solution, rng) -> Iterator[Mutant]:
    stated = claims(instance, solution)
    for key in stated:
        value = stated[key]
        if key == "efficiency":
            wrong = value - 0.01 if value > 0.5 else value + 0.01
        elif key in STATED_COUNTS:
            wrong = value + 1
        else:
            wrong = value * (1 + 1e-6) + 1e-3
        forged = forge(instance, records_of(solution))
        forged.reported[key] = wrong
        yield forged, f"reported {key}"
        document = json.loads(json.dumps(solution_to_dict(solution, instance)))
        document[key] = wrong
        yield document, f"reported {key}"
    for key in ("completed_idg", "instructions_cloud", "efficiency_beg"):  # optional claims
        document = json.loads(json.dumps(solution_to_dict(solution, instance)))
        document[key] = 10**6
        yield document, f"reported {key}"


def _end(instance: Instance, solution: Solution) -> float:
    return float(solution.completion(instance.n_units).max())


def log_truncated(instance, solution, rng) -> Iterator[Mutant]:
    events = list(solution.events)
    records = records_of(solution)
    yield forge(instance, records, events[:-1]), "event log"
    yield forge(instance, records, events[:len(events) // 2]), "event log"
    yield forge(instance, records, []), "event log"
    end = _end(instance, solution)
    for kind in ("HJ", "HLE", "WKUA", "SCH", "RET", "LOST"):
        rows = [k for k, e in enumerate(events) if e["event"] == kind and e["time"] < end - 1e-3]
        for k in pick(rng, rows, 1):
            yield forge(instance, records, events[:k] + events[k + 1:]), "event log"


def log_shifted(instance, solution, rng) -> Iterator[Mutant]:
    events = list(solution.events)
    records = records_of(solution)
    yield forge(instance, records, [{**e, "time": e["time"] + 1.0} for e in events]), \
        "event log"
    for kind in ("HJ", "HLE", "WKUA", "SCH", "RET", "LOST"):
        rows = [k for k, e in enumerate(events) if e["event"] == kind]
        for k in pick(rng, rows, 1):
            for shift in (0.5, -0.5):
                changed = copy.deepcopy(events)
                changed[k]["time"] = max(0.0, changed[k]["time"] + shift)
                if changed[k]["time"] != events[k]["time"]:
                    yield forge(instance, records, changed), "event log"
    sch = [k for k, e in enumerate(events) if e["event"] == "SCH"]
    for k in pick(rng, sch, 1):
        changed = copy.deepcopy(events)
        changed[k]["replica"] += 1
        yield forge(instance, records, changed), "event log"
    ret = [k for k, e in enumerate(events) if e["event"] == "RET"]
    for k in pick(rng, ret, 1):
        changed = copy.deepcopy(events)
        changed[k]["result"] = "wrong" if changed[k]["result"] == "correct" else "correct"
        yield forge(instance, records, changed), "event log"
    for k in pick(rng, list(range(len(events))), 1):  # a record twice
        yield forge(instance, records, events[:k + 1] + events[k:]), "event log"
    later = [k for k in range(len(events) - 1) if events[k + 1]["time"] > events[k]["time"]]
    for k in pick(rng, later, 1):  # two records out of order
        changed = events[:k] + [events[k + 1], events[k]] + events[k + 2:]
        yield forge(instance, records, changed), "event log"


def log_malformed(instance, solution, rng) -> Iterator[Mutant]:
    base = json.loads(json.dumps(solution_to_dict(solution, instance)))
    for kind, change, words in [
        ("SCH", lambda e: e.pop("replica"), "replica"),
        ("RET", lambda e: e.update(result="late"), "result"),
        ("HJ", lambda e: e.update(unit="w0"), "has no unit"),
        ("WKUA", lambda e: e.update(unit="no-such-unit"), "unknown work unit"),
        ("HJ", lambda e: e.update(event="HOP"), "event"),
        ("SCH", lambda e: e.update(note="x"), "note"),
    ]:
        document = copy.deepcopy(base)
        k = next(k for k, e in enumerate(document["events"]) if e["event"] == kind)
        change(document["events"][k])
        yield document, words


def nan_and_negative(instance, solution, rng) -> Iterator[Mutant]:
    records = records_of(solution)
    k = int(rng.integers(len(records)))
    for field, value, words in [(2, math.nan, "not a time"), (3, math.nan, "not a time"),
                                (2, -1.0, "not a time"), (3, -1.0, "not a time"),
                                (3, math.inf, "not a time"), (4, math.nan, "delay factor"),
                                (4, -1.0, "delay factor")]:
        changed = copy.deepcopy(records)
        changed[k][field] = value
        yield forge(instance, changed), words
        document = json.loads(json.dumps(solution_to_dict(solution, instance)))
        document["tasks"][k][("start", "end", "delay")[field - 2]] = value
        yield document, ("start", "end", "delay")[field - 2]
    for value in (math.nan, -1.0):
        events = copy.deepcopy(list(solution.events))
        events[k % len(events)]["time"] = value
        yield forge(instance, records, events), "event log"
        document = json.loads(json.dumps(solution_to_dict(solution, instance)))
        document["events"][k % len(events)]["time"] = value
        yield document, "time"


#: Corruption classes: name -> generator of forged schedules or documents.
CLASSES: dict[str, Generator] = {
    "outcome relabelled": outcome_relabelled,
    "delay changed": delay_changed,
    "replica after completion": replica_after_completion,
    "host idle while units wait": host_idle,
    "unit missing": unit_missing,
    "unit twice": unit_twice,
    "unknown host": unknown_host,
    "absent or busy host": absent_or_busy_host,
    "task outside its host window": outside_window,
    "start before arrival": start_before_arrival,
    "claims misstated (objective, makespan, cost, E, counts)": claims_misstated,
    "event log truncated": log_truncated,
    "event log shifted or altered": log_shifted,
    "event log malformed": log_malformed,
    "NaN and negative times": nan_and_negative,
}


def verdict(instance: Instance, mutant: Any) -> list[str]:
    """The checker's problems with ``mutant``, or the loader's one-line error."""
    if isinstance(mutant, dict):
        try:
            mutant = solution_from_dict(mutant, instance, "s.json")
        except InputError as error:
            message = str(error)
            assert "\n" not in message and message.startswith("s.json")
            return [message]
    return check(instance, mutant)


@pytest.mark.parametrize("name", list(CLASSES))
def test_every_corruption_is_caught(name: str) -> None:
    rng = np.random.default_rng(sorted(CLASSES).index(name))
    for label, instance, solution in SCHEDULES:
        assert check(instance, solution) == []
        for mutant, words in CLASSES[name](instance, solution, rng):
            TRIED[name] += 1
            problems = verdict(instance, mutant)
            assert problems, (name, label, words)
            assert words is None or any(words in p for p in problems), (name, label, problems)
            CAUGHT[name] += 1
    assert TRIED[name] > 0, f"{name}: no corruption of this class could be made"


def test_forged_claims_alone_pass() -> None:
    """The forging is honest: an unchanged schedule with its own claims, or as a file, passes."""
    for _, instance, solution in SCHEDULES:
        forged = forge(instance, records_of(solution), solution.events)
        assert check(instance, forged) == []
        document = json.loads(json.dumps(solution_to_dict(solution, instance)))
        assert check(instance, solution_from_dict(document, instance, "s.json")) == []


def test_draws_in_blocks_equal_draws_one_by_one() -> None:
    """The simulator draws ahead in blocks; the checker replays a host in one call."""
    instance = _arrivals_instance(5)
    draws = Draws(instance)
    for host in range(instance.n_hosts):
        delay, outcome = replay(instance, host, 40)
        assert [draws.next(host) for _ in range(40)] == list(zip(delay.tolist(),
                                                                outcome.tolist(),
                                                                strict=True))
        rows = stream(instance.behaviour, host)
        one_by_one = np.array([rows.random(3) for _ in range(40)])
        assert np.array_equal(one_by_one, stream(instance.behaviour, host).random((40, 3)))
    assert set(outcome.tolist()) <= {CORRECT, WRONG, NEVER}


def test_validate_exit_codes(tmp_path: Path, cli) -> None:
    """A corrupted schedule is invalid (exit 1); a malformed file is bad input (exit 2)."""
    from hybridsched.pull.files import instance_to_dict

    _, instance, solution = SCHEDULES[-1]
    inst = tmp_path / "i.json"
    inst.write_text(json.dumps(instance_to_dict(instance)))
    document = json.loads(json.dumps(solution_to_dict(solution, instance)))
    wrong = [k for k, t in enumerate(document["tasks"]) if t["outcome"] == "wrong"]
    relabelled = copy.deepcopy(document)
    relabelled["tasks"][wrong[0] if wrong else 0]["outcome"] = "correct"
    truncated = copy.deepcopy(document)
    del truncated["events"][-1]
    bad_event = copy.deepcopy(document)
    bad_event["events"][0]["time"] = -1
    bad_count = copy.deepcopy(document)
    bad_count["tasks_wrong"] = "two"
    for name, doc, code in [("relabelled", relabelled, 1), ("truncated", truncated, 1),
                            ("bad-event", bad_event, 2), ("bad-count", bad_count, 2)]:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc))
        got, out, err = cli("validate", inst, path)
        assert got == code, (name, out, err)
        assert "Traceback" not in out + err
        if code == 2:
            assert len(err.strip().splitlines()) == 1, err


def test_zz_report_counts() -> None:
    """Print the corruptions tried and caught per class (run after the others: ``-s``)."""
    if not TRIED:
        pytest.skip("run with the corruption tests to count them")
    width = max(map(len, TRIED))
    for name in CLASSES:
        print(f"{name:<{width}}  tried {TRIED[name]:>5}  caught {CAUGHT[name]:>5}")
    print(f"{'total':<{width}}  tried {sum(TRIED.values()):>5}  "
          f"caught {sum(CAUGHT.values()):>5}")
    assert TRIED == CAUGHT
