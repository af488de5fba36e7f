"""Conversion between ``malleable`` JSON documents and domain objects."""

from __future__ import annotations

import re
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from hybridsched.errors import InputError
from hybridsched.io.documents import compact_number, first_duplicate
from hybridsched.io.jsonio import parse_model
from hybridsched.malleable.bounds import WEIGHTS
from hybridsched.malleable.instance import AgentTree, Instance, Resource, ResourceType
from hybridsched.malleable.limits import check_size, check_time_range
from hybridsched.malleable.schema import (
    EVENT_FIELDS,
    EventDoc,
    InstanceDoc,
    PlatformDoc,
    ReferenceDoc,
    ResourceDoc,
    SolutionDoc,
    TreeDoc,
)
from hybridsched.malleable.solution import Solution
from hybridsched.malleable.tree import build_tree

M = TypeVar("M", bound=BaseModel)


def resource_from_doc(doc: ResourceDoc) -> Resource:
    """The frozen :class:`Resource` of a validated resource document."""
    kind = ResourceType(doc.type)
    if kind is not ResourceType.CLOUD:
        return Resource(doc.id, kind, doc.cpus, doc.performance, doc.price)
    assert doc.max_vms is not None
    return Resource(doc.id, kind, doc.cpus, doc.performance, doc.price, doc.max_vms,
                    doc.max_vms if doc.spot_vms is None else doc.spot_vms,
                    doc.price if doc.on_demand_price is None else doc.on_demand_price)


def resource_to_doc(r: Resource) -> dict[str, Any]:
    """JSON-ready document of one resource (cloud fields only on clouds)."""
    doc: dict[str, Any] = {"id": r.id, "type": r.type.value, "cpus": r.cpus}
    if r.performance != 1.0:
        doc["performance"] = r.performance
    if r.type is not ResourceType.DEDICATED:
        doc["price"] = compact_number(r.price)
    if r.is_cloud:
        doc.update(max_vms=r.max_vms, spot_vms=r.spot_vms,
                   on_demand_price=compact_number(r.on_demand_price))
    return doc


#: The lists of a document whose items have ids, and the word naming one item.
_ITEMS = {"jobs": "job", "resources": "resource"}


def _parse(model: type[M], document: Any, source: str) -> M:
    """Validate with pydantic; an error in ``jobs.N`` or ``resources.N`` also names its id."""
    try:
        return parse_model(model, document, source)
    except InputError as exc:
        message = str(exc)
        found = re.match(rf"{re.escape(source)}: field (jobs|resources)\.(\d+)[.:]", message)
        if found is None or not isinstance(document, dict):
            raise
        items = document.get(found.group(1))
        k = int(found.group(2))
        item = items[k] if isinstance(items, list) and k < len(items) else None
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) \
                or repr(item["id"]) in message:
            raise
        raise InputError(f"{message} ({_ITEMS[found.group(1)]} {item['id']!r})") from None


def _unique(what: str, ids: list[str], source: str) -> None:
    dup = first_duplicate(ids)
    if dup is not None:
        raise InputError(f"{source}: field {what}: duplicate id {dup!r}")


def _platform(resource_docs: list[ResourceDoc], tree: TreeDoc | None, source: str
              ) -> tuple[tuple[Resource, ...], AgentTree | None]:
    """Resources and tree of a validated document: unique ids, a valid tree over them."""
    _unique("resources", [r.id for r in resource_docs], source)
    resources = tuple(resource_from_doc(r) for r in resource_docs)
    if tree is None:
        return resources, None
    return resources, build_tree(tree.edges, [r.id for r in resources], f"{source}: field tree")


def platform_from_dict(document: Any, source: str
                       ) -> tuple[str | None, tuple[Resource, ...], AgentTree | None]:
    """Name, resources and tree (``None``: none given) of a platform document.

    A platform document is ``{"name", "resources", "tree"}``; a ``malleable``
    instance document is read whole (its jobs are validated too) and gives
    its platform. Any other key is an error.
    """
    if not isinstance(document, dict):
        raise InputError(f"{source}: expected a JSON object with 'resources' (and optionally "
                         "'name' and 'tree')")
    if "family" in document or "format" in document:
        if document.get("family") != "malleable":
            raise InputError(f"{source}: field family: a platform file is a malleable "
                             f"instance or {{name, resources, tree}}, got family "
                             f"{document.get('family')!r}")
        instance = instance_from_dict(document, source)
        return instance.name, instance.resources, instance.tree
    doc = _parse(PlatformDoc, document, source)
    return (doc.name, *_platform(doc.resources, doc.tree, source))


def instance_from_dict(document: Any, source: str = "<instance>") -> Instance:
    """Validate an instance document and build the frozen :class:`Instance`.

    Raises
    ------
    InputError
        One line naming ``source`` and the field path or the item: schema
        errors, duplicate ids, a malformed tree, sizes beyond the limits, a job
        that cannot end within the time range.
    """
    doc = _parse(InstanceDoc, document, source)
    _unique("jobs", [j.id for j in doc.jobs], source)
    resources, tree = _platform(doc.resources, doc.tree, source)
    check_size(len(doc.jobs), resources, source)
    jobs = doc.jobs
    size = np.array([j.size for j in jobs], dtype=float)
    arrival = np.array([j.arrival for j in jobs], dtype=np.int64)
    serial_fraction = np.array([j.serial_fraction for j in jobs], dtype=float)
    job_ids = tuple(j.id for j in jobs)
    check_time_range(arrival, size, serial_fraction, resources, f"{source}: field jobs",
                     job_ids)
    return Instance(
        name=doc.name,
        job_ids=job_ids,
        size=size,
        priority=np.array([j.priority for j in jobs], dtype=np.int64),
        deadline=np.array([j.deadline for j in jobs], dtype=np.int64),
        budget=np.array([j.budget for j in jobs], dtype=float),
        arrival=arrival,
        serial_fraction=serial_fraction,
        resources=resources,
        tree=tree,
        reference=doc.reference.model_dump(exclude_none=True) if doc.reference else None,
        provenance=dict(doc.provenance),
    )


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """Serialise an instance (the inverse of :func:`instance_from_dict`)."""
    jobs = []
    for j, jid in enumerate(instance.job_ids):
        job: dict[str, Any] = {
            "id": jid, "size": compact_number(instance.size[j]),
            "priority": int(instance.priority[j]), "deadline": int(instance.deadline[j]),
            "budget": compact_number(instance.budget[j]),
            "arrival": int(instance.arrival[j])}
        if instance.serial_fraction[j] != 0:
            job["serial_fraction"] = float(instance.serial_fraction[j])
        jobs.append(job)
    doc = InstanceDoc(
        name=instance.name,
        jobs=jobs,
        resources=[resource_to_doc(r) for r in instance.resources],
        tree=None if instance.tree is None else TreeDoc(edges=list(instance.tree.edges)),
        reference=ReferenceDoc(**instance.reference) if instance.reference else None,
        provenance=instance.provenance,
    )
    return doc.model_dump(mode="json", exclude_none=True)


def solution_from_dict(document: Any, instance: Instance, source: str = "<solution>"
                       ) -> Solution:
    """Validate a solution document against ``instance``'s job and resource ids.

    Unknown ids, a job placed twice, an ``optimised`` that is not an
    objective of the family and an event record the simulation could not have
    written (see :func:`_events`) raise :class:`InputError`; scheduling
    problems (missing jobs, overlaps, work) and the values the file states,
    the event log's agreement with the pieces included, are left to the
    checker.
    """
    doc = parse_model(SolutionDoc, document, source)
    jobs = {j: k for k, j in enumerate(instance.job_ids)}
    resources = instance.resource_index()
    resource = np.full(instance.n_jobs, -1, dtype=np.int64)
    pieces: list[tuple[int, int, int, int, int]] = []
    for p, placement in enumerate(doc.jobs):
        where = f"{source}: field jobs.{p}"
        if placement.job not in jobs:
            raise InputError(f"{where}.job: unknown job {placement.job!r}")
        if placement.resource not in resources:
            raise InputError(f"{where}.resource: unknown resource {placement.resource!r}")
        j = jobs[placement.job]
        if resource[j] >= 0:
            raise InputError(f"{where}.job: job {placement.job!r} is placed twice (a job runs "
                             "on one resource)")
        resource[j] = resources[placement.resource]
        pieces += [(j, q.start, q.end, q.cpu, q.count) for q in placement.pieces]
    arr = np.array(pieces, dtype=np.int64).reshape(-1, 5)
    reported = {k: float(v) for k, v in (("cost", doc.cost), ("total_delay", doc.total_delay),
                                         ("objective", doc.objective)) if v is not None}
    optimised = (doc.model_extra or {}).get("optimised", "penalised_a")
    if optimised not in WEIGHTS:
        raise InputError(f"{source}: field optimised: must be one of {', '.join(WEIGHTS)}, "
                         f"got {optimised!r}")
    return Solution(resource, arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], arr[:, 4],
                    events=_events(doc.events or [], jobs, resources, source),
                    reported=reported, optimised=optimised)


#: The optional fields of an event record, in the order they are checked.
_EVENT_OPTIONAL = tuple(dict.fromkeys(f for fields in EVENT_FIELDS.values() for f in fields))
#: The optional fields each kind of record carries, as sets.
_CARRIES = {kind: frozenset(fields) for kind, fields in EVENT_FIELDS.items()}


def _events(events: list[EventDoc], jobs: dict[str, int], resources: dict[str, int],
            source: str) -> tuple[dict[str, Any], ...]:
    """The event log's records as the simulation writes them.

    Each record names a job of the instance and has exactly the fields of its
    kind (:data:`~hybridsched.malleable.schema.EVENT_FIELDS`), a ``resource``
    being a resource id of the instance; otherwise a one-line
    :class:`InputError` names the record and the field. (The field types are
    the schema's.)
    """
    log = []
    for k, event in enumerate(events):
        record = event.model_dump(exclude_none=True)
        if event.job not in jobs:
            raise InputError(f"{source}: field events.{k}.job: unknown job {event.job!r}")
        carries = _CARRIES[event.event]
        if len(record) != len(carries) + 3 or not carries.issubset(record):
            kind = event.event
            what = f"{'an' if kind[0] in 'ae' else 'a'} {kind} record"
            fields = ", ".join(EVENT_FIELDS[kind]) or "nothing besides time, event and job"
            for name in _EVENT_OPTIONAL:
                where = f"{source}: field events.{k}.{name}"
                if name in carries and name not in record:
                    raise InputError(f"{where}: Field required ({what} carries {fields})")
                if name in record and name not in carries:
                    raise InputError(f"{where}: {what} has no {name} (it carries {fields})")
        if event.resource is not None and event.resource not in resources:
            raise InputError(f"{source}: field events.{k}.resource: unknown resource "
                             f"{event.resource!r}")
        log.append(record)
    return tuple(log)


def solution_to_dict(solution: Solution, instance: Instance, **summary: Any) -> dict[str, Any]:
    """Serialise a solution; ``summary`` (method, status, ...) is stored alongside."""
    from hybridsched.malleable.checker import evaluate

    metrics = evaluate(instance, solution).metrics
    order = np.lexsort((solution.cpu, solution.start, solution.job))
    placements: dict[int, list[dict[str, int]]] = {}
    for k in order:
        placements.setdefault(int(solution.job[k]), []).append(
            {"start": int(solution.start[k]), "end": int(solution.end[k]),
             "cpu": int(solution.cpu[k]), "count": int(solution.count[k])})
    document: dict[str, Any] = {
        "format": "hybridsched-solution", "version": 1, "family": "malleable",
        "instance": instance.name, **summary,
        "cost": metrics["cost"], "total_delay": metrics["total_delay"],
        "jobs": [{"job": instance.job_ids[j], "resource": instance.resources[
            int(solution.resource[j])].id, "pieces": placements[j]}
            for j in sorted(placements)],
    }
    if solution.events:
        document["events"] = list(solution.events)
    return document
