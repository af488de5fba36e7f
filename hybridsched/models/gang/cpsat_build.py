"""The gang CP-SAT model, written from the problem's definition (interval variables).

Per job ``j`` a presence literal ``run[j]`` and a start ``start[j]`` in
``[release_j, max latest_j]`` (integer times of :mod:`.cpsat_times`). The
VMs are grouped into *classes* of interchangeable VMs (same speed, and the
same jobs may use them, :func:`vm_classes`); per (job, class) the job may
use, ``count[j, c]`` tasks in that class, ``used[j, c]`` (``count >= 1``) and
an optional interval of fixed size ``size[j, v]`` starting at ``start[j]``,
present with ``used``. Rules:

* a job that runs has exactly ``parallelism`` tasks: ``sum_c count[j, c] =
  parallelism_j run[j]`` (on distinct VMs: at most the class's VMs per class);
* it ends by its deadline on every VM it uses: ``used[j, c] => start[j] <=
  latest[j, v]``;
* a VM runs one task at a time: a class of one VM is an ``add_no_overlap``
  of its intervals; a class of ``k`` identical VMs an ``add_cumulative`` of
  capacity ``k`` with demands ``count``. The two are the same rule: tasks
  that never overlap more than ``k`` at once on identical VMs can be given
  VMs one at a time in start order (intervals on a line: a point covered by
  at most ``k`` of them is all it takes; :func:`hybridsched.models.gang.cpsat_extract.assign`).
  Grouping removes the VM permutations that would otherwise make proofs
  slow (table2's 120 VMs are 2 classes).

The objective is set by the solve (:mod:`.cpsat`): fewest unfinished
jobs, then (second solve) most instructions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hybridsched.budget import TimeBudget
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution
from hybridsched.models.gang.cpsat_times import Times
from hybridsched.models.solvers.cpsat import require_ortools


@dataclass
class GangCpsat:
    """The CP-SAT model, its variables and the data it was built from."""

    instance: Instance
    times: Times
    classes: list[np.ndarray]
    model: Any
    run: dict[int, Any] = field(default_factory=dict)
    start: dict[int, Any] = field(default_factory=dict)
    count: dict[tuple[int, int], Any] = field(default_factory=dict)
    used: dict[tuple[int, int], Any] = field(default_factory=dict)
    picks: dict[tuple[int, int], list[Any]] = field(default_factory=dict)

    def unfinished(self) -> Any:
        """The number of unfinished jobs, as a linear expression."""
        return self.instance.n_jobs - sum(self.run.values())


def vm_classes(instance: Instance, ok: np.ndarray) -> list[np.ndarray]:
    """VMs grouped by speed and by which jobs may use them (``ok`` columns), in VM order."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for v in range(instance.n_vms):
        key = (float(instance.speed[v]), ok[:, v].tobytes())
        groups.setdefault(key, []).append(v)
    return [np.array(vms, dtype=np.int64) for vms in groups.values()]


def build(instance: Instance, times: Times, budget: TimeBudget | None = None) -> GangCpsat:
    """The model of ``instance`` at ``times`` (its kind decides what a solution proves)."""
    cp = require_ortools()
    model = cp.CpModel()
    ok = times.ok
    classes = vm_classes(instance, ok)
    built = GangCpsat(instance, times, classes, model)
    # Per class: the intervals and demands of the jobs that may use it.
    tasks: list[list[tuple[Any, Any]]] = [[] for _ in classes]
    for j in range(instance.n_jobs):
        if budget is not None and j % 16 == 0:
            budget.check("building the CP-SAT model")
        p = int(instance.parallelism[j])
        usable = [(c, vms) for c, vms in enumerate(classes)
                  if ok[j, vms[0]] and times.latest[j, vms[0]] >= times.release[j]]
        if sum(len(vms) for _, vms in usable) < p:
            continue  # never runs: unfinished in every schedule
        lo = int(times.release[j])
        hi = max(int(times.latest[j, vms[0]]) for _, vms in usable)
        run = built.run[j] = model.new_bool_var(f"run_{j}")
        start = built.start[j] = model.new_int_var(lo, hi, f"start_{j}")
        counts = []
        for c, vms in usable:
            v = int(vms[0])
            most = min(len(vms), p)
            used = built.used[j, c] = model.new_bool_var(f"used_{j}_{c}")
            model.add_implication(used, run)
            model.add(start <= int(times.latest[j, v])).only_enforce_if(used)
            size = int(times.size[j, v])
            if most == 1:
                count = built.count[j, c] = used
                intervals = [(model.new_optional_fixed_size_interval_var(
                    start, size, used, f"task_{j}_{c}"), 1)]
            else:
                # One literal per number of tasks: fixed demands propagate (variable ones don't).
                picks = built.picks[j, c] = [model.new_bool_var(f"tasks_{j}_{c}_{k}")
                                             for k in range(1, most + 1)]
                model.add(sum(picks) == used)
                count = built.count[j, c] = sum(k * pick for k, pick in enumerate(picks, 1))
                intervals = [(model.new_optional_fixed_size_interval_var(
                    start, size, pick, f"task_{j}_{c}_{k}"), k)
                    for k, pick in enumerate(picks, 1)]
            tasks[c] += intervals
            counts.append(count)
        model.add(sum(counts) == p * run)
    for c, vms in enumerate(classes):
        if not tasks[c]:
            continue
        intervals = [interval for interval, _ in tasks[c]]
        if len(vms) == 1:
            model.add_no_overlap(intervals)
        else:
            model.add_cumulative(intervals, [count for _, count in tasks[c]], len(vms))
    return built


def integer_pass(built: GangCpsat, order: list[int], vms: dict[int, list[int]]
                 ) -> dict[int, int]:
    """Earliest integer starts of ``order`` (jobs and their VMs); late jobs left out.

    The model's own rows: a job starts at ``max(release, VMs free)`` and is
    left out when that is after its latest start on one of its VMs.
    """
    times = built.times
    free = np.full(built.instance.n_vms, np.iinfo(np.int64).min, dtype=np.int64)
    starts: dict[int, int] = {}
    for j in order:
        placed = vms[j]
        if j not in built.run or not times.ok[j, placed].all():
            continue
        s = max(int(times.release[j]), int(free[placed].max()))
        if s > int(times.latest[j, placed].min()):
            continue
        starts[j] = s
        free[placed] = s + times.size[j, placed]
    return starts


def class_of(built: GangCpsat) -> np.ndarray:
    """The class index of every VM."""
    index = np.zeros(built.instance.n_vms, dtype=np.int64)
    for c, vms in enumerate(built.classes):
        index[vms] = c
    return index


def add_hint(built: GangCpsat, solution: Solution) -> None:
    """Hint a checked schedule: its jobs, VM classes and earliest integer starts.

    The integer pass in the schedule's start order keeps every job that fits
    the model's rows (all of them in the exact and relaxed models), so the
    hint is a complete model solution.
    """
    order = [int(j) for j in np.argsort(solution.start, kind="stable")
             if not np.isnan(solution.start[j])]
    vms = {j: solution.task_vm[solution.task_job == j].tolist() for j in order}
    starts = integer_pass(built, order, vms)
    hint_values(built, starts, vms)


def hint_values(built: GangCpsat, starts: dict[int, int], vms: dict[int, list[int]]) -> None:
    """Hint the jobs of ``starts`` on ``vms`` (every other job does not run)."""
    model = built.model
    model.clear_hints()
    index = class_of(built)
    per_class = {j: np.bincount(index[vms[j]], minlength=len(built.classes)) for j in starts}
    for j, run in built.run.items():
        model.add_hint(run, int(j in starts))
        model.add_hint(built.start[j], starts.get(j, int(built.times.release[j])))
    for (j, c), used in built.used.items():
        n = int(per_class[j][c]) if j in per_class else 0
        model.add_hint(used, int(n > 0))
        for k, pick in enumerate(built.picks.get((j, c), ()), 1):
            model.add_hint(pick, int(n == k))
