"""Independent checker for hybrid-deadline schedules.

It shares no code with the heuristics or the exact models: it rebuilds every
core's real timeline from the stated starts and the tasks' work (never from
the stated finishes, which are claims), in exact arithmetic where binary64
cannot decide (:mod:`hybridsched.hybrid_deadline.timeline`, the family's one
definition of feasibility), and recomputes lease hours, rent cost and every
metric from the real ends.
"""

from __future__ import annotations

import math

import numpy as np

from hybridsched.family import Evaluation, wrong_claims
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.hybrid_deadline.timeline import Timeline, timeline

#: Most violations listed.
MAX_LISTED = 50
#: Linear PM power model of the paper (after Baliga et al.): watts idle / full.
IDLE_WATTS = 70.0
FULL_WATTS = 110.0


def billed_hours(lease: float) -> int:
    """Started hours of a lease of ``lease`` hours, in binary64 (an estimate for heuristics).

    The checker bills the exact real ends (:func:`vm_billed_hours`).
    """
    return int(math.ceil(lease - TIME_TOL)) if lease > TIME_TOL else 0


def _machine_shape(instance: Instance, solution: Solution, m: int) -> tuple[int, float] | None:
    """Cores and per-core capacity of machine ``m``, or ``None`` if it does not exist."""
    n_pm = len(instance.pms)
    if 0 <= m < n_pm:
        pm = instance.pms[m]
        return pm.cores, pm.capacity
    j = m - n_pm
    if 0 <= j < len(solution.vm_types):
        t = solution.vm_types[j]
        if 0 <= t < len(instance.vm_types):
            vm = instance.vm_types[t]
            return vm.cores, vm.capacity
    return None


def check(instance: Instance, solution: Solution) -> list[str]:
    """Return every violation of ``solution`` against ``instance`` (empty: valid)."""
    problems: list[str] = []
    n = instance.n_tasks
    for name in ("machine", "core", "start", "finish"):
        if len(getattr(solution, name)) != n:
            return [f"solution has {len(getattr(solution, name))} {name} entries for {n} tasks"]
    for j, t in enumerate(solution.vm_types):
        if not 0 <= t < len(instance.vm_types):
            problems.append(f"VM {j} has unknown type index {t}")
    placed = not problems
    for i in range(n):
        tid = instance.task_ids[i]
        m, c = int(solution.machine[i]), int(solution.core[i])
        shape = _machine_shape(instance, solution, m)
        if shape is None:
            problems.append(f"task {tid}: machine {m} does not exist")
            placed = False
            continue
        if not 0 <= c < shape[0]:
            problems.append(f"task {tid}: core {c} does not exist on machine {m}")
            placed = False
            continue
        if not (math.isfinite(solution.start[i]) and math.isfinite(solution.finish[i])):
            problems.append(f"task {tid}: start/finish not finite")
            placed = False
    if not placed:
        return problems
    if instance.max_vms is not None and len(solution.vm_types) > instance.max_vms:
        problems.append(f"{len(solution.vm_types)} VMs rented, limit is {instance.max_vms}")
    real = timeline(instance, solution)
    ids = instance.task_ids
    for i in np.flatnonzero(real.negative):
        problems.append(f"task {ids[i]}: starts at {solution.start[i]} < 0")
    for i in np.flatnonzero(real.wrong_finish):
        problems.append(f"task {ids[i]}: finish {solution.finish[i]} != real end {real.end[i]} "
                        f"(start {solution.start[i]} + run time, or the end of the task "
                        "before it on the core)")
    for i in np.flatnonzero(real.late):
        problems.append(f"task {ids[i]}: really ends at {real.end[i]}, after its deadline "
                        f"{instance.deadline[i]}")
    for i0, i1 in real.overlaps:
        problems.append(f"tasks {ids[i0]} and {ids[i1]} overlap on machine "
                        f"{solution.machine[i1]} core {solution.core[i1]}: {ids[i1]} starts "
                        f"at {solution.start[i1]}, {ids[i0]} really ends at {real.end[i0]}")
    if problems:
        return problems[:MAX_LISTED] + ([f"... and {len(problems) - MAX_LISTED} more"]
                                        if len(problems) > MAX_LISTED else [])

    return problems + _claim_problems(instance, solution, real)


def _claim_problems(instance: Instance, solution: Solution, real: Timeline) -> list[str]:
    """Every claim the solution states (lease hours per VM, cost, makespan) that is wrong.

    Each claim present is checked on its own: a VM without a lease claim does
    not excuse a wrong claim on another VM. Cost and makespan must match the
    recomputed values by the shared rule :func:`~hybridsched.family.wrong_claims`.
    """
    problems: list[str] = []
    leases = real.vm_hours
    claimed = solution.reported_lease_hours
    if claimed is not None:
        if len(claimed) != len(leases):
            problems.append(f"{len(claimed)} lease claims for {len(leases)} rented VMs")
        else:
            for j, (got, want) in enumerate(zip(claimed, leases, strict=True)):
                if got is not None and got != want:
                    problems.append(f"VM {j}: reported {got} lease hours, schedule needs {want}")
    return problems + wrong_claims((
        ("cost", solution.reported_cost, _cost(instance, solution, leases)),
        ("makespan", solution.reported_makespan,
         float(real.end.max()) if instance.n_tasks else 0.0),
    ))


def vm_billed_hours(instance: Instance, solution: Solution) -> list[int]:
    """Billed hours of each rented VM: started hours up to its latest real end."""
    return timeline(instance, solution).vm_hours


def rent_cost(instance: Instance, solution: Solution) -> float:
    """Total rent cost: price times billed hours, summed over rented VMs."""
    return _cost(instance, solution, vm_billed_hours(instance, solution))


def _cost(instance: Instance, solution: Solution, hours: list[int]) -> float:
    return float(sum(instance.vm_types[t].price * h
                     for t, h in zip(solution.vm_types, hours, strict=True)))


def evaluate(instance: Instance, solution: Solution) -> Evaluation:
    """Recompute the rent cost (objective) and the paper's other criteria.

    Metrics
    -------
    cost:
        Rent cost in dollars (also the objective).
    local_load:
        Work (GHz-hours) run on PMs, and ``local_load_share`` its share of all work.
    makespan:
        Latest finish time of any task (hours): one reading of the paper's
        "times finishing ... tasks" (Fig. 5) and of the "task makespans" RA
        improves (Section 4.3).
    mean_finish:
        Mean finish time of the tasks (hours): the other reading of "task
        makespans" (plural), which RA lowers whenever it moves a task.
    mean_machine_makespan:
        Mean, over the machines used, of each one's latest finish (hours):
        the reading where RA's "latest finish time" per PM/VM is averaged.
    pm_utilisation, vm_utilisation, utilisation:
        Busy core-hours over available core-hours: a used PM is available on
        all its cores until its last finish; a VM for all billed hours.
    pm_energy_wh:
        Energy of the used PMs in watt-hours, linear model
        ``P(u) = 70 + 40 u`` integrated from 0 to each PM's last finish.
    rented_vms, billed_vm_hours, used_pms:
        Counts.
    """
    n_pm = len(instance.pms)
    real = timeline(instance, solution)
    finish = real.end
    on_pm = solution.machine < n_pm
    capacity = np.array([pm.capacity for pm in instance.pms]
                        + [instance.vm_types[t].capacity for t in solution.vm_types])
    duration = instance.work / capacity[solution.machine] if instance.n_tasks else finish
    pm_busy = np.zeros(n_pm)
    pm_end = np.zeros(n_pm)
    np.add.at(pm_busy, solution.machine[on_pm], duration[on_pm])
    np.maximum.at(pm_end, solution.machine[on_pm], finish[on_pm])
    pm_cores = instance.pm_cores.astype(float) if n_pm else np.zeros(0)
    pm_avail = float(np.sum(pm_end * pm_cores))

    hours = real.vm_hours
    vm_busy = float(duration[~on_pm].sum())
    vm_avail = float(sum(instance.vm_types[t].cores * h
                         for t, h in zip(solution.vm_types, hours, strict=True)))
    used = pm_end > 0
    energy = float(np.sum(IDLE_WATTS * pm_end[used]
                          + (FULL_WATTS - IDLE_WATTS) * pm_busy[used] / pm_cores[used]))
    total_work = float(instance.work.sum())
    local_load = float(instance.work[on_pm].sum())
    cost = _cost(instance, solution, hours)
    ends = np.zeros(n_pm + len(solution.vm_types))
    np.maximum.at(ends, solution.machine, finish)
    used_ends = ends[ends > 0]
    metrics = {
        "cost": cost,
        "makespan": float(finish.max()) if instance.n_tasks else 0.0,
        "mean_finish": float(finish.mean()) if instance.n_tasks else 0.0,
        "mean_machine_makespan": float(used_ends.mean()) if len(used_ends) else 0.0,
        "local_load": local_load,
        "local_load_share": local_load / total_work if total_work else 0.0,
        "pm_utilisation": float(pm_busy.sum()) / pm_avail if pm_avail else 0.0,
        "vm_utilisation": vm_busy / vm_avail if vm_avail else 0.0,
        "utilisation": (float(pm_busy.sum()) + vm_busy) / (pm_avail + vm_avail)
        if pm_avail + vm_avail else 0.0,
        "pm_energy_wh": energy,
        "rented_vms": len(solution.vm_types),
        "billed_vm_hours": int(sum(hours)),
        "used_pms": int(used.sum()),
    }
    return Evaluation(objective=cost, metrics=metrics)
