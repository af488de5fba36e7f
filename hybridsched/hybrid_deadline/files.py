"""Conversion between hybrid-deadline JSON documents and domain objects."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hybridsched.errors import InputError
from hybridsched.family import CLAIM_ATOL, CLAIM_RTOL
from hybridsched.hybrid_deadline.checker import rent_cost, vm_billed_hours
from hybridsched.hybrid_deadline.instance import PM, Instance, VMType
from hybridsched.hybrid_deadline.schema import InstanceDoc, SolutionDoc
from hybridsched.hybrid_deadline.solution import Solution, vm_id
from hybridsched.io.jsonio import parse_model


def instance_from_dict(document: Any, source: str = "<instance>") -> Instance:
    """Validate an instance document and build the frozen :class:`Instance`."""
    doc = parse_model(InstanceDoc, document, source)
    task_ids = [t.id for j in doc.jobs for t in j.tasks]
    task_job = [j.id for j in doc.jobs for _ in j.tasks]
    work = [t.work for j in doc.jobs for t in j.tasks]
    deadline = [j.deadline for j in doc.jobs for _ in j.tasks]
    return Instance(
        name=doc.name,
        task_ids=tuple(task_ids),
        task_job=tuple(task_job),
        work=np.array(work, dtype=float),
        deadline=np.array(deadline, dtype=float),
        pms=tuple(PM(p.id, p.cores, p.capacity) for p in doc.pms),
        vm_types=tuple(VMType(v.id, v.cores, v.capacity, v.price) for v in doc.vm_types),
        max_vms=doc.max_vms,
        reference=doc.reference.model_dump(exclude_none=True) if doc.reference else None,
        provenance=dict(doc.provenance),
    )


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """Serialise an instance (tasks grouped by job, in first-appearance order)."""
    jobs: dict[str, dict[str, Any]] = {}
    for i, tid in enumerate(instance.task_ids):
        job = jobs.setdefault(
            instance.task_job[i],
            {"id": instance.task_job[i], "deadline": float(instance.deadline[i]), "tasks": []},
        )
        job["tasks"].append({"id": tid, "work": float(instance.work[i])})
    doc = InstanceDoc(
        name=instance.name,
        jobs=list(jobs.values()),
        pms=[{"id": p.id, "cores": p.cores, "capacity": p.capacity} for p in instance.pms],
        vm_types=[
            {"id": v.id, "cores": v.cores, "capacity": v.capacity, "price": v.price}
            for v in instance.vm_types
        ],
        max_vms=instance.max_vms,
        reference=instance.reference,
        provenance=instance.provenance,
    )
    return doc.model_dump(mode="json", exclude_none=True)


def solution_from_dict(document: Any, instance: Instance, source: str = "<solution>") -> Solution:
    """Validate a solution document against ``instance``'s identifiers.

    Structural problems (unknown task, machine or VM type, a task missing or
    given twice) raise :class:`InputError`; scheduling problems (overlaps,
    deadlines, costs) are left to the checker.
    """
    doc = parse_model(SolutionDoc, document, source)
    n_pm = len(instance.pms)
    machine_index = {pm.id: k for k, pm in enumerate(instance.pms)}
    type_index = {vm.id: t for t, vm in enumerate(instance.vm_types)}
    vm_types: list[int] = []
    for j, vm in enumerate(doc.vms):
        if vm.id in machine_index:
            raise InputError(f"{source}: field vms.{j}.id: {vm.id!r} is already a machine id")
        if vm.type not in type_index:
            raise InputError(f"{source}: field vms.{j}.type: unknown VM type {vm.type!r}")
        machine_index[vm.id] = n_pm + j
        vm_types.append(type_index[vm.type])
    task_index = {tid: i for i, tid in enumerate(instance.task_ids)}
    n = instance.n_tasks
    machine = np.full(n, -1, dtype=int)
    core = np.zeros(n, dtype=int)
    start = np.zeros(n)
    finish = np.zeros(n)
    seen = np.zeros(n, dtype=bool)
    for a, entry in enumerate(doc.assignments):
        where = f"{source}: field assignments.{a}"
        if entry.task not in task_index:
            raise InputError(f"{where}.task: unknown task {entry.task!r}")
        i = task_index[entry.task]
        if seen[i]:
            raise InputError(f"{where}.task: task {entry.task!r} is assigned twice")
        if entry.machine not in machine_index:
            raise InputError(f"{where}.machine: unknown machine {entry.machine!r}")
        seen[i] = True
        machine[i], core[i] = machine_index[entry.machine], entry.core
        start[i], finish[i] = entry.start, entry.finish
    if not seen.all():
        missing = [instance.task_ids[i] for i in np.flatnonzero(~seen)[:5]]
        raise InputError(f"{source}: field assignments: tasks not assigned: {', '.join(missing)}")
    leases = tuple(vm.lease_hours for vm in doc.vms)
    return Solution(
        tuple(vm_types),
        machine,
        core,
        start,
        finish,
        reported_lease_hours=leases if any(h is not None for h in leases) else None,
        reported_cost=_stated_cost(doc, source),
        reported_makespan=doc.makespan,
    )


def _stated_cost(doc: SolutionDoc, source: str) -> float | None:
    """The cost the file states, or ``None``.

    ``objective`` is the rent cost in this family, so a stated objective is
    read as a cost claim when ``cost`` itself is absent, and must agree with it
    when both are given.
    """
    if doc.objective is None:
        return doc.cost
    if doc.cost is None:
        return doc.objective
    if not math.isclose(doc.objective, doc.cost, rel_tol=CLAIM_RTOL, abs_tol=CLAIM_ATOL):
        raise InputError(f"{source}: field objective: {doc.objective} differs from the "
                         f"stated cost {doc.cost}")
    return doc.cost


def solution_to_dict(
    solution: Solution, instance: Instance, **summary: Any
) -> dict[str, Any]:
    """Serialise a solution; ``summary`` (method, status, ...) is stored alongside."""
    leases = vm_billed_hours(instance, solution)
    names = [pm.id for pm in instance.pms] + [vm_id(j) for j in range(len(solution.vm_types))]
    return {
        "format": "hybridsched-solution",
        "version": 1,
        "family": "hybrid-deadline",
        "instance": instance.name,
        **summary,
        "cost": rent_cost(instance, solution),
        "makespan": float(solution.finish.max()) if instance.n_tasks else 0.0,
        "vms": [
            {"id": vm_id(j), "type": instance.vm_types[t].id, "lease_hours": leases[j]}
            for j, t in enumerate(solution.vm_types)
        ],
        "assignments": [
            {
                "task": instance.task_ids[i],
                "machine": names[int(solution.machine[i])],
                "core": int(solution.core[i]),
                "start": float(solution.start[i]),
                "finish": float(solution.finish[i]),
            }
            for i in range(instance.n_tasks)
        ],
    }


def reference(instance: Instance) -> dict[str, float]:
    """Recorded optimum (``optimal_cost``) and lower bound, in the generic keys."""
    recorded = instance.reference or {}
    found = {}
    if recorded.get("optimal_cost") is not None:
        found["optimum"] = float(recorded["optimal_cost"])
    if recorded.get("lower_bound") is not None:
        found["lower_bound"] = float(recorded["lower_bound"])
    return found
