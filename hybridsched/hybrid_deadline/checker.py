"""Independent checker for hybrid-deadline schedules.

It shares no code with the heuristics or the exact model: it rebuilds every
core's timeline from the solution's own start/finish times, and recomputes
lease hours, rent cost and all metrics from them.
"""

from __future__ import annotations

import math

import numpy as np

from hybridsched.family import Evaluation, wrong_claims
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution

#: Linear PM power model of the paper (after Baliga et al.): watts idle / full.
IDLE_WATTS = 70.0
FULL_WATTS = 110.0


def billed_hours(lease: float) -> int:
    """Started hours of a lease of ``lease`` hours (per-hour billing from time 0)."""
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
    if instance.max_vms is not None and len(solution.vm_types) > instance.max_vms:
        problems.append(f"{len(solution.vm_types)} VMs rented, limit is {instance.max_vms}")

    timelines: dict[tuple[int, int], list[tuple[float, float, int]]] = {}
    for i in range(n):
        tid = instance.task_ids[i]
        m, c = int(solution.machine[i]), int(solution.core[i])
        shape = _machine_shape(instance, solution, m)
        if shape is None:
            problems.append(f"task {tid}: machine {m} does not exist")
            continue
        cores, capacity = shape
        if not 0 <= c < cores:
            problems.append(f"task {tid}: core {c} does not exist on machine {m}")
            continue
        s, f = float(solution.start[i]), float(solution.finish[i])
        if not (math.isfinite(s) and math.isfinite(f)):
            problems.append(f"task {tid}: start/finish not finite")
            continue
        if s < -TIME_TOL:
            problems.append(f"task {tid}: starts at {s} < 0")
        run = instance.work[i] / capacity
        if abs(f - (s + run)) > TIME_TOL * max(1.0, f):
            problems.append(f"task {tid}: finish {f} != start {s} + run time {run}")
        if f > instance.deadline[i] + TIME_TOL:
            problems.append(
                f"task {tid}: finishes at {f}, after its deadline {instance.deadline[i]}"
            )
        timelines.setdefault((m, c), []).append((s, f, i))

    for (m, c), spans in timelines.items():
        spans.sort()
        for (_s0, f0, i0), (s1, _f1, i1) in zip(spans, spans[1:], strict=False):
            if s1 < f0 - TIME_TOL:
                problems.append(
                    f"tasks {instance.task_ids[i0]} and {instance.task_ids[i1]} overlap "
                    f"on machine {m} core {c}"
                )
    if problems:
        return problems

    return problems + _claim_problems(instance, solution)


def _claim_problems(instance: Instance, solution: Solution) -> list[str]:
    """Every claim the solution states (lease hours per VM, cost, makespan) that is wrong.

    Each claim present is checked on its own: a VM without a lease claim does
    not excuse a wrong claim on another VM. Cost and makespan must match the
    recomputed values by the shared rule :func:`~hybridsched.family.wrong_claims`.
    """
    problems: list[str] = []
    leases = vm_billed_hours(instance, solution)
    claimed = solution.reported_lease_hours
    if claimed is not None:
        if len(claimed) != len(leases):
            problems.append(f"{len(claimed)} lease claims for {len(leases)} rented VMs")
        else:
            for j, (got, want) in enumerate(zip(claimed, leases, strict=True)):
                if got is not None and got != want:
                    problems.append(f"VM {j}: reported {got} lease hours, schedule needs {want}")
    return problems + wrong_claims((
        ("cost", solution.reported_cost, rent_cost(instance, solution)),
        ("makespan", solution.reported_makespan,
         float(solution.finish.max()) if instance.n_tasks else 0.0),
    ))
    return problems


def vm_billed_hours(instance: Instance, solution: Solution) -> list[int]:
    """Billed hours of each rented VM: started hours up to its last finish."""
    n_pm = len(instance.pms)
    last = np.zeros(len(solution.vm_types))
    on_vm = solution.machine >= n_pm
    np.maximum.at(last, solution.machine[on_vm] - n_pm, solution.finish[on_vm])
    return [billed_hours(x) for x in last]


def rent_cost(instance: Instance, solution: Solution) -> float:
    """Total rent cost: price times billed hours, summed over rented VMs."""
    hours = vm_billed_hours(instance, solution)
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
    duration = solution.finish - solution.start
    on_pm = solution.machine < n_pm
    pm_busy = np.zeros(n_pm)
    pm_end = np.zeros(n_pm)
    np.add.at(pm_busy, solution.machine[on_pm], duration[on_pm])
    np.maximum.at(pm_end, solution.machine[on_pm], solution.finish[on_pm])
    pm_cores = instance.pm_cores.astype(float) if n_pm else np.zeros(0)
    pm_avail = float(np.sum(pm_end * pm_cores))

    hours = vm_billed_hours(instance, solution)
    vm_busy = float(duration[~on_pm].sum())
    vm_avail = float(sum(instance.vm_types[t].cores * h
                         for t, h in zip(solution.vm_types, hours, strict=True)))
    used = pm_end > 0
    energy = float(np.sum(IDLE_WATTS * pm_end[used]
                          + (FULL_WATTS - IDLE_WATTS) * pm_busy[used] / pm_cores[used]))
    total_work = float(instance.work.sum())
    local_load = float(instance.work[on_pm].sum())
    cost = rent_cost(instance, solution)
    ends = np.zeros(n_pm + len(solution.vm_types))
    np.maximum.at(ends, solution.machine, solution.finish)
    used_ends = ends[ends > 0]
    metrics = {
        "cost": cost,
        "makespan": float(solution.finish.max()) if instance.n_tasks else 0.0,
        "mean_finish": float(solution.finish.mean()) if instance.n_tasks else 0.0,
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
