"""Conversion between ``pull`` JSON documents and domain objects."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hybridsched.errors import InputError
from hybridsched.io.documents import compact_number, first_duplicate
from hybridsched.io.jsonio import parse_model
from hybridsched.pull.instance import DCIS, Behaviour, Instance
from hybridsched.pull.schema import EVENT_FIELDS, EventDoc, InstanceDoc, SolutionDoc
from hybridsched.pull.solution import OUTCOMES, Solution, from_records

#: Counts every solution file states (the checker compares them, like any other claim);
#: the number of tasks is the length of the task list.
STATED_COUNTS = ("completed", *(f"tasks_{o}" for o in OUTCOMES), "tasks_delayed")


def _windows(spans: list[tuple[float, float | None]] | None, where: str
             ) -> tuple[tuple[float, float], ...]:
    """Windows with ``inf`` for open ends, checked sorted, non-empty and disjoint."""
    if spans is None:
        return ((0.0, math.inf),)
    found = []
    for k, (start, end) in enumerate(spans):
        stop = math.inf if end is None else float(end)
        if stop <= start:
            raise InputError(f"{where}.{k}: the window ends at {stop:g}, not after its start "
                             f"{start:g}")
        if found and start < found[-1][1]:
            raise InputError(f"{where}.{k}: the window starts at {start:g}, before the "
                             f"previous one ends ({found[-1][1]:g}); windows must be sorted "
                             "and disjoint")
        found.append((float(start), stop))
    return tuple(found)


def instance_from_dict(document: Any, source: str = "<instance>") -> Instance:
    """Validate an instance document and build the frozen :class:`Instance`.

    Raises
    ------
    InputError
        One line naming ``source`` and the field path: schema errors, duplicate
        ids, windows out of order.
    """
    doc = parse_model(InstanceDoc, document, source)
    for what, ids in (("work_units", [u.id for u in doc.work_units]),
                      ("hosts", [h.id for h in doc.hosts])):
        dup = first_duplicate(ids)
        if dup is not None:
            raise InputError(f"{source}: field {what}: duplicate id {dup!r}")
    windows = tuple(_windows(h.windows, f"{source}: field hosts.{k}.windows")
                    for k, h in enumerate(doc.hosts))
    b = doc.behaviour
    if b.delayed + b.never > 1:
        raise InputError(f"{source}: field behaviour: delayed + never must be at most 1, got "
                         f"{b.delayed + b.never:g}")
    return Instance(
        name=doc.name,
        unit_ids=tuple(u.id for u in doc.work_units),
        noi=np.array([u.noi for u in doc.work_units], dtype=float),
        arrival=np.array([u.arrival for u in doc.work_units], dtype=float),
        host_ids=tuple(h.id for h in doc.hosts), dci=tuple(h.dci for h in doc.hosts),
        cpu=np.array([h.cpu for h in doc.hosts], dtype=float),
        price=np.array([h.price for h in doc.hosts], dtype=float),
        error=np.array([h.error for h in doc.hosts], dtype=float),
        windows=windows, seed=doc.seed,
        behaviour=Behaviour(b.delayed, b.never, b.max_delay, b.seed),
        provenance=dict(doc.provenance),
        reference=doc.reference.model_dump(exclude_none=True) if doc.reference else None,
    )


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """Serialise an instance (the inverse of :func:`instance_from_dict`)."""
    hosts = []
    for h, hid in enumerate(instance.host_ids):
        host: dict[str, Any] = {"id": hid, "dci": instance.dci[h],
                                "cpu": compact_number(instance.cpu[h]),
                                "price": compact_number(instance.price[h]),
                                "error": compact_number(instance.error[h])}
        if instance.windows[h] != ((0.0, math.inf),):
            host["windows"] = [[compact_number(a), None if math.isinf(b) else compact_number(b)]
                               for a, b in instance.windows[h]]
        hosts.append(host)
    b = instance.behaviour
    return {
        "format": "hybridsched-instance", "version": 1, "family": "pull",
        "name": instance.name,
        "units": InstanceDoc.model_fields["units"].default_factory(),
        "work_units": [{"id": uid, "noi": compact_number(instance.noi[k]),
                        "arrival": compact_number(instance.arrival[k])}
                       for k, uid in enumerate(instance.unit_ids)],
        "hosts": hosts,
        "behaviour": {"delayed": b.delayed, "never": b.never, "max_delay": b.max_delay,
                      "seed": b.seed},
        "seed": instance.seed,
        "provenance": instance.provenance,
        **({"reference": instance.reference} if instance.reference else {}),
    }


def solution_from_dict(document: Any, instance: Instance, source: str = "<solution>"
                       ) -> Solution:
    """Validate a solution document against the instance's unit and host ids."""
    doc = parse_model(SolutionDoc, document, source)
    units = {u: k for k, u in enumerate(instance.unit_ids)}
    hosts = {h: k for k, h in enumerate(instance.host_ids)}
    records = []
    for k, task in enumerate(doc.tasks):
        if task.unit not in units:
            raise InputError(f"{source}: field tasks.{k}.unit: unknown work unit {task.unit!r}")
        if task.host not in hosts:
            raise InputError(f"{source}: field tasks.{k}.host: unknown host {task.host!r}")
        records.append((units[task.unit], hosts[task.host], task.start, task.end, task.delay,
                        OUTCOMES.index(task.outcome)))
    events = None if doc.events is None else _events(doc.events, units, hosts, source)
    solution = from_records(records, events)
    for key in ("objective", "makespan", "cost", "efficiency"):
        if getattr(doc, key) is not None:
            solution.reported[key] = float(getattr(doc, key))
    solution.reported.update(_stated_counts(doc.model_extra or {}, source))
    return solution


def claim_names() -> set[str]:
    """Extra solution fields that are claims: the checker's counts and per-DCI metrics."""
    names = set(STATED_COUNTS)
    return names | {f"{metric}_{dci}" for metric in ("efficiency", "instructions", "completed")
                    for dci in DCIS}


def _stated_counts(extra: dict[str, Any], source: str) -> dict[str, float]:
    """The claims among a solution's extra fields, checked to be numbers."""
    stated = {}
    for key in sorted(claim_names() & set(extra)):
        value = extra[key]
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not math.isfinite(value) or value < 0):
            raise InputError(f"{source}: field {key}: a stated {key} must be a finite number "
                             f">= 0, got {value!r}")
        stated[key] = float(value)
    return stated


def _events(events: list[EventDoc], units: dict[str, int], hosts: dict[str, int],
            source: str) -> tuple[dict[str, Any], ...]:
    """The event log as the simulator records it, each event with exactly its kind's fields."""
    known = {"unit": (units, "work unit"), "host": (hosts, "host")}
    log = []
    for k, event in enumerate(events):
        fields = EVENT_FIELDS[event.event]
        record: dict[str, Any] = {"time": float(event.time), "event": event.event}
        for name in ("unit", "host", "replica", "result"):
            value = getattr(event, name)
            where = f"{source}: field events.{k}.{name}"
            if value is None and name in fields:
                raise InputError(f"{where}: Field required (a {event.event} event names it)")
            if value is not None and name not in fields:
                raise InputError(f"{where}: a {event.event} event has no {name}")
            if value is not None and name in known and value not in known[name][0]:
                raise InputError(f"{where}: unknown {known[name][1]} {value!r}")
            if value is not None:
                record[name] = value
        log.append(record)
    return tuple(log)


def solution_to_dict(solution: Solution, instance: Instance, **summary: Any) -> dict[str, Any]:
    """Serialise a solution; ``summary`` (method, status, ...) is stored alongside."""
    from hybridsched.pull.checker import evaluate

    metrics = evaluate(instance, solution).metrics
    document: dict[str, Any] = {
        "format": "hybridsched-solution", "version": 1, "family": "pull",
        "instance": instance.name, **summary,
        "makespan": metrics["makespan"], "cost": metrics["cost"],
        "efficiency": metrics["efficiency"],
        **{key: metrics[key] for key in STATED_COUNTS},
        "tasks": [{"unit": instance.unit_ids[u], "host": instance.host_ids[h],
                   "start": float(s), "end": float(e), "delay": float(d),
                   "outcome": OUTCOMES[o]}
                  for u, h, s, e, d, o in zip(solution.unit, solution.host, solution.start,
                                              solution.end, solution.delay, solution.outcome,
                                              strict=True)],
    }
    if solution.events is not None:
        document["events"] = list(solution.events)
    return document
