"""Documents <-> instances and schedules of ``toy-makespan``: one-line errors naming the field."""

from __future__ import annotations

from typing import Any

from hybridsched.errors import InputError
from hybridsched.io.documents import first_duplicate
from hybridsched.io.jsonio import parse_model
from hybridsched_example.toy_makespan.instance import Instance
from hybridsched_example.toy_makespan.schema import FAMILY, InstanceDoc, SolutionDoc
from hybridsched_example.toy_makespan.solution import Schedule


def instance_from_dict(document: Any, source: str = "<instance>") -> Instance:
    """Validate an instance document; one-line :class:`InputError` naming the field."""
    doc = parse_model(InstanceDoc, document, source)
    ids = [task.id for task in doc.tasks]
    duplicate = first_duplicate(ids)
    if duplicate is not None:
        raise InputError(f"{source}: field tasks: duplicate id {duplicate!r}")
    reference = doc.reference.model_dump(exclude_none=True) if doc.reference else {}
    return Instance(doc.name, doc.machines, tuple(t.duration for t in doc.tasks), tuple(ids),
                    reference)


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """The inverse of :func:`instance_from_dict`."""
    document: dict[str, Any] = {
        "format": "hybridsched-instance", "version": 1, "family": FAMILY,
        "name": instance.name, "machines": instance.machines,
        "tasks": [{"id": i, "duration": d}
                  for i, d in zip(instance.task_ids, instance.durations, strict=True)]}
    if instance.reference:
        document["reference"] = dict(instance.reference)
    return document


def solution_from_dict(document: Any, instance: Instance, source: str = "<solution>"
                       ) -> Schedule:
    """Validate a solution document against its instance (every task placed once)."""
    doc = parse_model(SolutionDoc, document, source)
    missing = [i for i in instance.task_ids if i not in doc.machine_of]
    unknown = [i for i in doc.machine_of if i not in instance.task_ids]
    if missing or unknown:
        what = f"task {missing[0]!r} is not placed" if missing else f"unknown task {unknown[0]!r}"
        raise InputError(f"{source}: field machine_of: {what}")
    return Schedule(tuple(doc.machine_of[i] for i in instance.task_ids), doc.makespan)


def solution_to_dict(schedule: Schedule, instance: Instance, **summary: Any) -> dict[str, Any]:
    """The inverse of :func:`solution_from_dict`; ``summary`` (method, status, ...) goes along.

    The makespan is stated, so that the checker can compare it with its own.
    """
    from hybridsched_example.toy_makespan.checker import makespan

    return {"format": "hybridsched-solution", "version": 1, "family": FAMILY,
            "instance": instance.name, **summary, "makespan": makespan(instance, schedule),
            "machine_of": dict(zip(instance.task_ids, schedule.machine_of, strict=True))}
