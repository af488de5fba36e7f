"""A lower bound valid for every schedule the ``malleable`` checker accepts.

The family's problem is the paper's *malleable* jobs: a job runs on one
resource, on any number of its processors, in any number of pieces, and may
share the resource with other jobs on other processors (the checker's rules,
:mod:`hybridsched.malleable.checker`). A bound of a restricted model (whole
clusters, one job at a time) is not a bound of this problem, so the exact
method and ``compare`` use this one, which relaxes each job on its own:

- *time*: a job gains at most ``rate(P)`` work per minute on a resource of
  ``P`` processors, so it ends at least ``minutes_needed(size, rate(P))``
  minutes after its arrival there;
- *cost*: ``rate(n) / n`` falls with ``n`` (Amdahl), so a processor-minute
  does at most ``performance`` work: an allocated cluster bills at least
  ``price * size / performance``; a cloud bills each VM-hour at least
  ``min(price, on_demand_price)`` and a VM-hour holds ``60 * cpus``
  processor-minutes;
- *share* (for budgets): a job's VM-minutes on a cloud do at most
  ``rate(cpus)`` work each (a width ``w`` touches at least ``w / cpus`` VMs
  and ``rate(k * cpus) <= k * rate(cpus)``); on an allocated cluster the
  share is the bill above.

A job's bound is the least, over resources, of its weighted cost, delay,
overspend and arrival-to-end bounds there; the bound of the schedule is the
sum over jobs (the bill of a cloud is at least the sum of the jobs' parts,
since they use distinct processor-minutes). Work sums are compared with a
relative slack of :data:`SUM_RTOL` so that a float sum the checker accepts
never falls below the bound's minutes.
"""

from __future__ import annotations

import math

import numpy as np

from hybridsched.malleable.billing import HOUR, POLICY_WEIGHTS
from hybridsched.malleable.instance import Instance, Resource, ResourceType
from hybridsched.malleable.speedup import rate, required_work

#: Relative slack on work: the checker sums float rates over pieces.
SUM_RTOL = 1e-9

#: ``objective -> (cost, delay, overspend, arrival-to-end)`` weights of the family's objectives.
WEIGHTS: dict[str, tuple[float, float, float, float]] = {
    "penalised_a": (1.0, *POLICY_WEIGHTS["A"], 0.0),
    "penalised_b": (1.0, *POLICY_WEIGHTS["B"], 0.0),
    "cost": (1.0, 0.0, 0.0, 0.0),
    "total_time": (0.0, 0.0, 0.0, 1.0),
    "total_delay": (0.0, 1.0, 0.0, 0.0),
}


def weights(objective: str) -> tuple[float, float, float, float]:
    """``(cost, delay, overspend, arrival-to-end)`` weights of ``objective``."""
    try:
        return WEIGHTS[objective]
    except KeyError:
        raise ValueError(f"objective: must be one of {', '.join(WEIGHTS)}, "
                         f"got {objective!r}") from None


def usable(resource: Resource) -> bool:
    """Whether any job can run on ``resource`` (it has processors that do work)."""
    count = resource.max_vms if resource.is_cloud else 1
    return resource.cpus > 0 and resource.performance > 0 and count > 0


def fewest_minutes(size: float, fastest: float) -> int:
    """Least whole minutes in which work at most ``fastest`` per minute can reach ``size``."""
    return max(1, math.ceil(required_work(size) * (1.0 - SUM_RTOL) / fastest))


def job_bounds(instance: Instance, objective: str) -> np.ndarray:
    """``bound[j, i]``: least weighted value of job ``j`` on resource ``i`` (inf: unusable)."""
    w_cost, w_delay, w_over, w_time = weights(objective)
    out = np.full((instance.n_jobs, instance.n_resources), np.inf)
    for i, r in enumerate(instance.resources):
        if not usable(r):
            continue
        for j in range(instance.n_jobs):
            size, fraction = float(instance.size[j]), float(instance.serial_fraction[j])
            need = float(required_work(size)) * (1.0 - SUM_RTOL)
            minutes = fewest_minutes(size, float(rate(r.processors, r.performance, fraction)))
            if r.type is ResourceType.ALLOCATED:
                bill = share = r.price * need / r.performance
            elif r.is_cloud:
                bill = min(r.price, r.on_demand_price) * need / (r.performance * r.cpus * HOUR)
                share = r.price * need / (float(rate(r.cpus, r.performance, fraction)) * HOUR)
            else:
                bill = share = 0.0
            out[j, i] = (w_cost * bill
                         + w_delay * max(0, int(instance.arrival[j]) + minutes
                                         - int(instance.deadline[j]))
                         + w_over * max(0.0, share - float(instance.budget[j]))
                         + w_time * minutes)
    return out


def lower_bound(instance: Instance, objective: str = "penalised_a") -> float:
    """The bound of the module docstring (0 without jobs; inf when a job fits nowhere)."""
    if instance.n_jobs == 0:
        return 0.0
    return max(0.0, float(job_bounds(instance, objective).min(axis=1).sum()))
