"""Conversion between ``gang`` JSON documents and domain objects."""

from __future__ import annotations

from typing import Any

import numpy as np

from hybridsched.errors import InputError
from hybridsched.gang.instance import Instance
from hybridsched.gang.schema import CLAIMS, InstanceDoc, ReferenceDoc, SolutionDoc
from hybridsched.gang.solution import from_starts
from hybridsched.io.documents import compact_number, first_duplicate
from hybridsched.io.jsonio import parse_model
from hybridsched.io.limits import check_pairs


def instance_from_dict(document: Any, source: str = "<instance>") -> Instance:
    """Validate an instance document and build the frozen :class:`Instance`.

    Raises
    ------
    InputError
        One line naming ``source`` and the field path: schema errors, duplicate ids.
    """
    doc = parse_model(InstanceDoc, document, source)
    for what, ids in (("jobs", [j.id for j in doc.jobs]), ("vms", [v.id for v in doc.vms])):
        dup = first_duplicate(ids)
        if dup is not None:
            raise InputError(f"{source}: field {what}: duplicate id {dup!r}")
    jobs, vms = doc.jobs, doc.vms
    check_pairs(len(jobs), len(vms), "VMs", source)
    return Instance(
        name=doc.name,
        job_ids=tuple(j.id for j in jobs),
        arrival=np.array([j.arrival for j in jobs], dtype=float),
        parallelism=np.array([j.parallelism for j in jobs], dtype=np.int64),
        instructions=np.array([j.instructions for j in jobs], dtype=float),
        memory=np.array([j.memory for j in jobs], dtype=float),
        bandwidth=np.array([j.bandwidth for j in jobs], dtype=float),
        disk=np.array([j.disk for j in jobs], dtype=float),
        deadline=np.array([j.deadline for j in jobs], dtype=float),
        vm_ids=tuple(v.id for v in vms),
        speed=np.array([v.speed for v in vms], dtype=float),
        vm_memory=np.array([v.memory for v in vms], dtype=float),
        vm_bandwidth=np.array([v.bandwidth for v in vms], dtype=float),
        vm_disk=np.array([np.inf if v.disk is None else v.disk for v in vms], dtype=float),
        reference=doc.reference.model_dump(exclude_none=True) if doc.reference else None,
        provenance=dict(doc.provenance),
    )


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """Serialise an instance (the inverse of :func:`instance_from_dict`)."""
    jobs = []
    for j, jid in enumerate(instance.job_ids):
        job: dict[str, Any] = {
            "id": jid, "arrival": float(instance.arrival[j]),
            "parallelism": int(instance.parallelism[j]),
            "instructions": compact_number(instance.instructions[j]),
            "memory": compact_number(instance.memory[j]),
            "bandwidth": compact_number(instance.bandwidth[j]),
            "deadline": compact_number(instance.deadline[j])}
        if instance.disk[j]:
            job["disk"] = compact_number(instance.disk[j])
        jobs.append(job)
    vms = []
    for v, vid in enumerate(instance.vm_ids):
        vm: dict[str, Any] = {"id": vid, "speed": compact_number(instance.speed[v]),
                              "memory": compact_number(instance.vm_memory[v]),
                              "bandwidth": compact_number(instance.vm_bandwidth[v])}
        if np.isfinite(instance.vm_disk[v]):
            vm["disk"] = compact_number(instance.vm_disk[v])
        vms.append(vm)
    doc = InstanceDoc(name=instance.name, jobs=jobs, vms=vms,
                      reference=ReferenceDoc(**instance.reference) if instance.reference
                      else None, provenance=instance.provenance)
    return doc.model_dump(mode="json", exclude_none=True)


def solution_from_dict(document: Any, instance: Instance, source: str = "<solution>") -> Any:
    """Validate a solution document against the instance's job and VM ids."""
    doc = parse_model(SolutionDoc, document, source)
    jobs = {j: k for k, j in enumerate(instance.job_ids)}
    vms = {v: k for k, v in enumerate(instance.vm_ids)}
    starts: dict[int, tuple[float, list[int]]] = {}
    dropped: dict[int, str] = {}
    missed: dict[int, str] = {}
    for k, item in enumerate(doc.started):
        if item.job not in jobs:
            raise InputError(f"{source}: field started.{k}.job: unknown job {item.job!r}")
        unknown = [v for v in item.vms if v not in vms]
        if unknown:
            raise InputError(f"{source}: field started.{k}.vms: unknown VM {unknown[0]!r}")
        if jobs[item.job] in starts:
            raise InputError(f"{source}: field started.{k}.job: job {item.job!r} is started "
                             "twice")
        starts[jobs[item.job]] = (item.start, [vms[v] for v in item.vms])
        if item.missed is not None:
            missed[jobs[item.job]] = item.missed
    for k, item in enumerate(doc.dropped):
        if item.job not in jobs:
            raise InputError(f"{source}: field dropped.{k}.job: unknown job {item.job!r}")
        if jobs[item.job] in dropped:
            raise InputError(f"{source}: field dropped.{k}.job: job {item.job!r} is dropped "
                             "twice")
        dropped[jobs[item.job]] = item.reason
    events = tuple(e.model_dump(exclude_none=True) for e in doc.events or ())
    solution = from_starts(instance.n_jobs, starts, dropped, events, missed)
    for name in ("objective", *CLAIMS):
        if getattr(doc, name) is not None:
            solution.reported[name] = float(getattr(doc, name))
    return solution


def solution_to_dict(solution: Any, instance: Instance, **summary: Any) -> dict[str, Any]:
    """Serialise a solution; ``summary`` (method, status, ...) is stored alongside."""
    from hybridsched.gang.checker import evaluate

    metrics = evaluate(instance, solution).metrics
    job_ids, vm_ids, start = instance.job_ids, instance.vm_ids, solution.start.tolist()
    vms_of: dict[int, list[str]] = {}  # each job's VMs, in the order of its tasks
    for j, v in zip(solution.task_job.tolist(), solution.task_vm.tolist(), strict=True):
        vms_of.setdefault(j, []).append(vm_ids[v])
    missed = solution.missed
    started = [{"job": job_ids[j], "start": start[j], "vms": vms_of.get(j, []),
                **({"missed": missed[j]} if j in missed else {})}
               for j in solution.started.tolist()]
    document: dict[str, Any] = {
        "format": "hybridsched-solution", "version": 1, "family": "gang",
        "instance": instance.name, **summary,
        **{name: metrics[name] for name in CLAIMS},
        "started": started,
        "dropped": [{"job": instance.job_ids[j], "reason": reason}
                    for j, reason in sorted(solution.dropped.items())],
    }
    if solution.events:
        document["events"] = list(solution.events)
    return document
