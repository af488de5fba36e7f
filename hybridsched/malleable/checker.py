"""Independent checker of ``malleable`` schedules: validity and every metric.

It reads only the instance and the pieces of the schedule (never a
simulator's counters) and applies the family's rules:

- every job runs, on one resource, only from its arrival on;
- no processor of a resource serves two pieces at once, and pieces use
  processors that exist (a cloud has ``max_vms * cpus``);
- each job receives its work under its speed-up model
  (:mod:`~hybridsched.malleable.speedup`): at least its size, and not one
  whole minute more than it needs;
- costs follow :mod:`~hybridsched.malleable.billing`;
- what a solution file states agrees with the pieces: its ``cost``,
  ``total_delay`` and ``objective`` (the metric named by ``optimised``,
  ``penalised_a`` by default) with the recomputed values, its event log with
  the pieces (:mod:`~hybridsched.malleable.event_log`).

Metrics: ``cost`` (the bill), ``total_time`` (sum of arrival-to-end),
``total_delay`` (sum of minutes past deadlines), ``late_jobs``,
``overspend`` (sum of job cost shares above budgets), ``penalised_a`` and
``penalised_b`` (the policies' scores, the objectives of the exact model),
``makespan`` and utilisation per resource type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hybridsched.errors import InputError
from hybridsched.family import Evaluation, wrong_claims
from hybridsched.malleable.billing import HOUR, cloud_bill, cloud_share, score, vms_per_hour
from hybridsched.malleable.event_log import log_problems
from hybridsched.malleable.instance import Instance, ResourceType
from hybridsched.malleable.solution import Solution
from hybridsched.malleable.speedup import rate, required_work

#: Most violations listed by :func:`check` (the rest are counted).
MAX_LISTED = 50


def _listed(problems: list[str], total: int) -> list[str]:
    if total > len(problems):
        problems.append(f"... and {total - len(problems)} more")
    return problems


def job_work(instance: Instance, solution: Solution) -> tuple[np.ndarray, np.ndarray]:
    """Work each job received and the work of its last minute (the rate it ended at)."""
    n = instance.n_jobs
    work, last = np.zeros(n), np.zeros(n)
    if solution.n_pieces == 0:
        return work, last
    perf = np.array([r.performance for r in instance.resources])
    job = solution.job
    res = solution.resource[job]
    per_job = np.bincount(job, minlength=n)
    single = per_job[job] == 1
    if single.any():
        j = job[single]
        r = rate(solution.count[single], perf[res[single]], instance.serial_fraction[j])
        work[j] = r * (solution.end[single] - solution.start[single])
        last[j] = r
    for j in np.unique(job[~single]):
        mask = job == j
        s, e, c = solution.start[mask], solution.end[mask], solution.count[mask]
        times = np.unique(np.concatenate([s, e]))
        # Processors in use over each stretch between consecutive breakpoints.
        width = np.array([c[(s <= t) & (e > t)].sum() for t in times[:-1]])
        speed = np.where(width > 0, rate(np.maximum(width, 1), perf[res[mask][0]],
                                         instance.serial_fraction[j]), 0.0)
        work[j] = float(np.sum(speed * np.diff(times)))
        last[j] = speed[-1] if speed.size else 0.0
    return work, last


#: Most (piece, range) rows :func:`split_ranges` may make: a schedule file whose pieces
#: cut the processors into more ranges than this is refused, not checked for hours.
MAX_SPLIT_ROWS = 50_000_000
#: Processor keys of resource ``i`` start at ``i * RESOURCE_STRIDE`` (above any index).
RESOURCE_STRIDE = 1 << 22


def split_ranges(lo: np.ndarray, hi: np.ndarray, what: str
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cut the integer ranges ``[lo, hi)`` at every range's ends.

    Returns ``(row, segment, cuts)``: range ``row[k]`` covers segment
    ``segment[k]``, the integers ``cuts[s] .. cuts[s + 1] - 1``. Two ranges share
    an integer exactly when they share a segment, and there are at most twice as
    many segments as ranges, so a schedule is checked per range of processors
    used alike rather than per processor (a job on 10^6 processors is one row).
    """
    cuts = np.unique(np.concatenate([lo, hi]))
    first, stop = np.searchsorted(cuts, lo), np.searchsorted(cuts, hi)
    n = stop - first
    total = int(n.sum())
    if total > MAX_SPLIT_ROWS:
        raise InputError(f"the schedule's pieces cut the {what} into more than "
                         f"{MAX_SPLIT_ROWS:,} (piece, range) pairs: too fragmented to check")
    rows = np.repeat(np.arange(len(lo)), n)
    segment = np.repeat(first, n) + (np.arange(total) - np.repeat(np.cumsum(n) - n, n))
    return rows, segment, cuts


def _overlaps(instance: Instance, solution: Solution) -> tuple[list[str], int]:
    """Processors that serve two pieces at once (one line per clashing range)."""
    res = solution.resource[solution.job]
    lo = res * RESOURCE_STRIDE + solution.cpu
    rows, segment, cuts = split_ranges(lo, lo + solution.count, "processors")
    order = np.lexsort((solution.start[rows], segment))
    rows, segment = rows[order], segment[order]
    clash = (segment[1:] == segment[:-1]) & (solution.end[rows][:-1]
                                             > solution.start[rows][1:])
    hits = np.flatnonzero(clash)
    problems = []
    for i in hits[:MAX_LISTED]:
        a, b = rows[i], rows[i + 1]
        problems.append(
            f"processor {int(cuts[segment[i]] % RESOURCE_STRIDE)} of "
            f"{instance.resources[int(res[a])].id!r} serves job "
            f"{instance.job_ids[int(solution.job[a])]!r} until {int(solution.end[a])} and job "
            f"{instance.job_ids[int(solution.job[b])]!r} from {int(solution.start[b])}")
    return problems, int(hits.size)


def check(instance: Instance, solution: Solution) -> list[str]:
    """Every violation of the family's rules (empty: the schedule is valid)."""
    problems: list[str] = []
    total = 0
    n = instance.n_jobs
    if len(solution.resource) != n or (solution.n_pieces and (
            solution.job.min() < 0 or solution.job.max() >= n)):
        return ["the schedule does not match the instance's jobs"]
    placed = solution.resource >= 0
    if solution.n_pieces and not placed[solution.job].all():
        return ["pieces of a job without a resource"]
    has_piece = np.bincount(solution.job, minlength=n) > 0
    for j in np.flatnonzero(~(placed & has_piece)):
        total += 1
        if len(problems) < MAX_LISTED:
            problems.append(f"job {instance.job_ids[j]!r} is not scheduled")
    if solution.n_pieces == 0:
        return _listed(problems, total)
    job, res = solution.job, solution.resource[solution.job]
    processors = np.array([r.processors for r in instance.resources])
    checks = (
        (solution.end <= solution.start, "ends at {e}, not after its start {s}"),
        (solution.start < instance.arrival[job], "starts at {s}, before its arrival {a}"),
        (solution.cpu + solution.count > processors[res],
         "uses processors {c}..{last} of {r!r}, which has {p}"),
    )
    for bad, text in checks:
        for k in np.flatnonzero(bad):
            total += 1
            if len(problems) < MAX_LISTED:
                problems.append(f"job {instance.job_ids[job[k]]!r}: a piece " + text.format(
                    e=solution.end[k], s=solution.start[k], a=instance.arrival[job[k]],
                    c=solution.cpu[k], last=solution.cpu[k] + solution.count[k] - 1,
                    r=instance.resources[res[k]].id, p=processors[res[k]]))
    if total:
        return _listed(problems, total)
    overlap, clashes = _overlaps(instance, solution)
    problems += overlap
    total += clashes
    work, last = job_work(instance, solution)
    need = required_work(instance.size)
    for j in np.flatnonzero(placed & has_piece):
        if work[j] < need[j]:
            total += 1
            if len(problems) < MAX_LISTED:
                problems.append(f"job {instance.job_ids[j]!r} receives {work[j]:.9g} of its "
                                f"{instance.size[j]:.9g} units of work")
        elif work[j] - last[j] >= need[j]:
            total += 1
            if len(problems) < MAX_LISTED:
                problems.append(f"job {instance.job_ids[j]!r} receives {work[j]:.9g} units of "
                                f"work: one minute less would complete its "
                                f"{instance.size[j]:.9g}")
    if not total:
        problems += log_problems(instance, solution)
    if not total and solution.reported:  # only a file states values to compare
        metrics = _metrics(instance, solution)
        problems += wrong_claims((what, solution.reported.get(what), metrics[what])
                                 for what in ("cost", "total_delay"))
        problems += wrong_claims([(f"objective ({solution.optimised})",
                                   solution.reported.get("objective"),
                                   metrics[solution.optimised])])
    return _listed(problems, total + len(problems) - min(len(problems), MAX_LISTED))


def _vm_ranges(solution: Solution, mask: np.ndarray, cpus: int) -> tuple[np.ndarray, np.ndarray]:
    """First VM and one past the last VM each piece of ``mask`` touches on one cloud."""
    return (solution.cpu[mask] // cpus,
            (solution.cpu[mask] + solution.count[mask] - 1) // cpus + 1)


def _vm_uses(solution: Solution, mask: np.ndarray, cpus: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(segment, vms, start, end)``: the pieces of one cloud over ranges of VMs used alike.

    Each row stands for ``vms`` VMs (one segment of :func:`split_ranges`) used from
    ``start`` to ``end``, so billing never lists VMs one by one.
    """
    first, stop = _vm_ranges(solution, mask, cpus)
    rows, segment, cuts = split_ranges(first, stop, "VMs of a cloud")
    return (segment, np.diff(cuts)[segment], solution.start[mask][rows],
            solution.end[mask][rows])


def costs(instance: Instance, solution: Solution) -> tuple[float, np.ndarray, np.ndarray]:
    """Total bill, bill per resource and each job's cost share (see :mod:`.billing`)."""
    bill = np.zeros(instance.n_resources)
    share = np.zeros(instance.n_jobs)
    res = solution.resource[solution.job]
    length = (solution.end - solution.start).astype(float)
    for i, r in enumerate(instance.resources):
        mask = res == i
        if not mask.any() or r.type is ResourceType.DEDICATED:
            continue
        if r.type is ResourceType.ALLOCATED:
            used = solution.count[mask] * length[mask] * r.price
            np.add.at(share, solution.job[mask], used)
            bill[i] = float(used.sum())
        else:
            bill[i] = cloud_bill(r, *_vm_uses(solution, mask, r.cpus))
            first, stop = _vm_ranges(solution, mask, r.cpus)
            np.add.at(share, solution.job[mask],
                      cloud_share(r, ((stop - first) * length[mask]).astype(float)))
    return float(bill.sum()), bill, share


def utilisation(instance: Instance, solution: Solution) -> dict[str, float]:
    """Busy share of each resource's capacity.

    Clusters: busy processor-minutes over ``cpus * makespan``; clouds: busy
    processor-minutes over the processor-minutes of the VM-hours billed.
    """
    res = solution.resource[solution.job]
    busy = np.bincount(res, weights=solution.count * (solution.end - solution.start),
                       minlength=instance.n_resources)
    horizon = float(solution.end.max(initial=0))
    out = {}
    for i, r in enumerate(instance.resources):
        if r.is_cloud:
            mask = res == i
            capacity = (sum(vms_per_hour(*_vm_uses(solution, mask, r.cpus)).values())
                        * HOUR * r.cpus)
        else:
            capacity = r.cpus * horizon
        out[r.id] = float(busy[i] / capacity) if capacity else 0.0
    return out


def _metrics(instance: Instance, solution: Solution) -> dict[str, Any]:
    end = solution.job_end(instance.n_jobs)
    total_cost, bill, share = costs(instance, solution)
    delay = np.maximum(end - instance.deadline, 0)
    overspend = np.maximum(share - instance.budget, 0.0)
    total_delay, total_over = float(delay.sum()), float(overspend.sum())
    metrics: dict[str, Any] = {
        "cost": total_cost,
        "total_time": float((end - instance.arrival).sum()),
        "total_delay": total_delay,
        "late_jobs": int((delay > 0).sum()),
        "overspend": total_over,
        "penalised_a": score(total_cost, total_delay, total_over, "A"),
        "penalised_b": score(total_cost, total_delay, total_over, "B"),
        "makespan": float(end.max(initial=0)),
    }
    util = utilisation(instance, solution)
    for kind in ResourceType:
        ids = [r.id for r in instance.resources if r.type is kind]
        if ids:
            metrics[f"utilisation_{kind.value}"] = float(np.mean([util[i] for i in ids]))
    for kind in (ResourceType.ALLOCATED, ResourceType.CLOUD):
        idx = [i for i, r in enumerate(instance.resources) if r.type is kind]
        if idx:
            metrics[f"cost_{kind.value}"] = float(bill[idx].sum())
    return metrics


def evaluate(instance: Instance, solution: Solution) -> Evaluation:
    """Recompute the objective (``penalised_a``) and every metric from the pieces."""
    metrics = _metrics(instance, solution)
    return Evaluation(objective=metrics["penalised_a"], metrics=metrics)
