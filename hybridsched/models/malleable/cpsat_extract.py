"""Schedules out of (and hints into) the CP-SAT malleable model.

:func:`extract` reads a solution as pieces in real units: on a cluster the
jobs of each minute are laid side by side from processor 0; on a cloud each
VM's users side by side inside the VM, so a job touches exactly the VMs the
model counts. Minutes after a job has its work (by the checker's float
rates) are dropped, which can only lower every term of the objective, so the
schedule's checker value is at most the model's. :func:`hint` turns a
schedule (the warm start) into values of the model's widths.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hybridsched.malleable.solution import Solution, from_pieces
from hybridsched.malleable.speedup import rate, required_work
from hybridsched.models.malleable.cpsat_build import CpsatMalleable

#: ``(job, resource, minute) -> [(first processor, count), ...]``.
Uses = dict[tuple[int, int, int], list[tuple[int, int]]]


def _uses(built: CpsatMalleable, solver: Any, resource: np.ndarray) -> Uses:
    """Processor ranges of every job and minute, laid out as the module docstring says."""
    instance = built.instance
    offset: dict[tuple[int, int, int], int] = {}  # (resource, VM or -1, minute) -> next free
    uses: Uses = {}
    for (j, i, t), n in sorted(built.width.items()):
        if i != resource[j] or instance.resources[i].is_cloud:
            continue
        count = int(solver.value(n))
        if count > 0:
            cpu = offset.get((i, -1, t), 0)
            offset[i, -1, t] = cpu + count
            uses.setdefault((j, i, t), []).append((cpu, count))
    for (j, i, v, t), x in sorted(built.vm.items()):
        if i != resource[j]:
            continue
        count = int(solver.value(x))
        if count > 0:
            cpus = instance.resources[i].cpus
            cpu = v * cpus + offset.get((i, v, t), 0)
            offset[i, v, t] = offset.get((i, v, t), 0) + count
            uses.setdefault((j, i, t), []).append((cpu, count))
    return uses


def _trimmed(built: CpsatMalleable, uses: Uses) -> Uses:
    """``uses`` without the minutes after each job has its work (the checker's rule)."""
    instance = built.instance
    out: Uses = {}
    done: dict[int, float] = {}
    for (j, i, t), ranges in sorted(uses.items(), key=lambda kv: (kv[0][0], kv[0][2])):
        need = float(required_work(instance.size[j]))
        if done.get(j, 0.0) >= need:
            continue
        out[j, i, t] = ranges
        width = sum(count for _, count in ranges)
        done[j] = done.get(j, 0.0) + float(rate(width, instance.resources[i].performance,
                                                float(instance.serial_fraction[j])))
    return out


def extract(built: CpsatMalleable, solver: Any) -> Solution:
    """The schedule of the solver's incumbent (module docstring)."""
    instance = built.instance
    resource = np.full(instance.n_jobs, -1, dtype=np.int64)
    for (j, i), z in built.place.items():
        if solver.boolean_value(z):
            resource[j] = i
    uses = _trimmed(built, _uses(built, solver, resource))
    # Consecutive minutes on the same processors make one piece.
    runs: dict[tuple[int, int, int], list[int]] = {}
    for (j, _, t), ranges in uses.items():
        for cpu, count in ranges:
            runs.setdefault((j, cpu, count), []).append(t)
    pieces = []
    for (j, cpu, count), minutes in runs.items():
        minutes.sort()
        start = last = minutes[0]
        for t in minutes[1:]:
            if t != last + 1:
                pieces.append((j, start, last + 1, cpu, count))
                start = t
            last = t
        pieces.append((j, start, last + 1, cpu, count))
    return from_pieces(instance.n_jobs, resource, sorted(pieces))


def hint(built: CpsatMalleable, solution: Solution) -> int:
    """Hint the model with ``solution`` (its widths per minute, per VM on clouds).

    Returns the number of hinted variables; a schedule outside the windows is
    hinted only where it fits (CP-SAT repairs the rest or ignores it).
    """
    instance, model = built.instance, built.model
    widths: dict[int, int] = {}  # variable index -> processors
    for k in range(solution.n_pieces):
        j = int(solution.job[k])
        i = int(solution.resource[j])
        r = instance.resources[i]
        cpu, count = int(solution.cpu[k]), int(solution.count[k])
        for t in range(int(solution.start[k]), int(solution.end[k])):
            if r.is_cloud:
                for v in range(cpu // r.cpus, (cpu + count - 1) // r.cpus + 1):
                    inside = min(cpu + count, (v + 1) * r.cpus) - max(cpu, v * r.cpus)
                    var = built.vm.get((j, i, v, t))
                    if var is not None:
                        widths[var.index] = widths.get(var.index, 0) + inside
            var = built.width.get((j, i, t))
            if var is not None:
                widths[var.index] = widths.get(var.index, 0) + count
    hinted = 0
    for (j, i), z in built.place.items():
        model.add_hint(z, int(int(solution.resource[j]) == i))
        hinted += 1
    for var in [*built.width.values(), *built.vm.values()]:
        model.add_hint(var, widths.get(var.index, 0))
        hinted += 1
    return hinted
