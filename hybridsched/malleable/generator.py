"""Seeded workloads and platforms of the paper's evaluation (Section VI).

Workload (:func:`generate`):

- inter-arrival times exponential with mean 1 minute; arrivals are the
  cumulated times rounded down to whole minutes;
- priority uniform in 1..20;
- size uniform in 60..120 processor-minutes (``small``), 1,000..2,000
  (``big``) or, for ``mixed``, an equal number of both in random order;
- deadline: arrival plus a time uniform between the minimal execution time
  (all processors of the largest resource) and the single-processor time
  at performance 1 (or the minimal time, on a platform slower than that),
  rounded up to whole minutes;
- budget (*our rule*, the paper gives none): a factor uniform in
  ``[0.5, 1.5]`` times the job's cost on the cheapest paid resource with
  linear speed-up (processor-minutes times its price per processor-minute;
  a cloud's is ``price / (60 * cpus)``), so that about half the jobs can be
  run within budget on paid resources;
- Amdahl serial fraction uniform in ``[0, serial_fraction]`` (0: linear).

Platform (:func:`default_platform`): the paper's three kinds of resource
with its prices: a free dedicated cluster, two allocated clusters at 1 unit
per processor-minute, and a cloud of 8-CPU VMs at 960 units per hour (2
units per processor-minute) on spot, 1,440 on demand (*our* figure: 1.5x
spot; the paper gives no on-demand price).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from hybridsched.errors import InputError
from hybridsched.io.documents import first_duplicate
from hybridsched.malleable.instance import (
    AgentTree,
    Instance,
    Resource,
    ResourceType,
)
from hybridsched.malleable.limits import check_size
from hybridsched.seeding import RNGLike, resolve_seed

Mix = Literal["small", "big", "mixed"]

#: Size ranges (processor-minutes) of the paper's job sets.
SIZES = {"small": (60, 120), "big": (1000, 2000)}
#: Range of the budget factor over the cheapest paid execution.
BUDGET_FACTOR = (0.5, 1.5)
#: Most jobs one call generates.
MAX_JOBS = 10**6


def default_platform() -> tuple[Resource, ...]:
    """A dedicated cluster, two allocated clusters and a cloud (the paper's costs)."""
    return (
        Resource("dedicated", ResourceType.DEDICATED, 64),
        Resource("alloc-1", ResourceType.ALLOCATED, 32, price=1.0),
        Resource("alloc-2", ResourceType.ALLOCATED, 64, price=1.0),
        Resource("cloud", ResourceType.CLOUD, 8, price=960.0, max_vms=32, spot_vms=16,
                 on_demand_price=1440.0),
    )


def batch_platform() -> tuple[Resource, ...]:
    """A small four-resource platform for offline batches the exact model can prove.

    A free 4-CPU cluster, two allocated clusters (8 CPUs at 1 per processor-minute;
    4 CPUs twice as fast at 1.5) and a cloud of 2-CPU VMs (150 per hour on spot for
    2 VMs, 225 on demand, 4 VMs at most): small jobs keep it busy, so its optima
    are not trivially 0 as on :func:`default_platform`.
    """
    return (
        Resource("dedicated", ResourceType.DEDICATED, 4),
        Resource("alloc-1", ResourceType.ALLOCATED, 8, price=1.0),
        Resource("alloc-2", ResourceType.ALLOCATED, 4, performance=2.0, price=1.5),
        Resource("cloud", ResourceType.CLOUD, 2, price=150.0, max_vms=4, spot_vms=2,
                 on_demand_price=225.0),
    )


def cheapest_paid_rate(resources: tuple[Resource, ...]) -> float:
    """Lowest price per processor-minute of work among paid resources (0 if none is paid)."""
    rates = [r.price / r.performance / (60 * r.cpus) if r.is_cloud else r.price / r.performance
             for r in resources if r.type is not ResourceType.DEDICATED]
    return min(rates, default=0.0)


def generate(jobs: int, mix: Mix = "mixed", seed: int | None = None, *, rng: RNGLike = None,
             resources: tuple[Resource, ...] | None = None, tree: AgentTree | None = None,
             serial_fraction: float = 0.0, name: str | None = None) -> Instance:
    """A seeded workload of ``jobs`` jobs on ``resources`` (default: :func:`default_platform`).

    Parameters
    ----------
    jobs : int
        Number of jobs (0 to :data:`MAX_JOBS`).
    mix : {"small", "big", "mixed"}
        Job sizes.
    seed : int, optional
        The older name of ``rng`` (an integer seed), kept for existing code;
        give one or the other.
    rng : int, numpy.random.Generator or None
        Seed of every draw (see :mod:`hybridsched.seeding`): an integer (>= 0)
        gives the same instance as ``seed`` did; ``None``, seed 0; a
        generator is consumed by one draw, the seed that is then used,
        recorded in the instance's name and provenance.
    resources, tree : optional
        The platform (default: :func:`default_platform`, no agent tree).
    serial_fraction : float
        Upper end of each job's uniform serial fraction, in [0, 1).
    name : str, optional
        Instance name (default from the parameters).

    Returns
    -------
    Instance
        The instance; ``provenance["seed"]`` regenerates it.

    Examples
    --------
    >>> inst = generate(12, "small", rng=3)
    >>> inst.n_jobs, inst.name
    (12, 'malleable-small-12-s3')
    """
    if not 0 <= jobs <= MAX_JOBS:
        raise InputError(f"jobs: must be between 0 and {MAX_JOBS}, got {jobs}")
    if mix not in ("small", "big", "mixed"):
        raise InputError(f"mix: must be small, big or mixed, got {mix!r}")
    if not (0 <= serial_fraction < 1) or math.isnan(serial_fraction):
        raise InputError(f"serial fraction: must be in [0, 1), got {serial_fraction}")
    resources = default_platform() if resources is None else resources
    if not resources:
        raise InputError("resources: a platform needs at least one resource")
    dup = first_duplicate([r.id for r in resources])
    if dup is not None:
        raise InputError(f"resources: duplicate id {dup!r}")
    check_size(jobs, resources, "generate malleable")
    seed = resolve_seed(rng, seed)
    rng = np.random.default_rng(seed)
    arrival = np.floor(np.cumsum(rng.exponential(1.0, jobs))).astype(np.int64)
    priority = rng.integers(1, 21, jobs)
    if mix == "mixed":
        kinds = np.array(["small", "big"] * (jobs // 2) + ["small"] * (jobs % 2))
        rng.shuffle(kinds)
    else:
        kinds = np.array([mix] * jobs)
    size = np.array([rng.integers(SIZES[k][0], SIZES[k][1] + 1) for k in kinds], dtype=float)
    widest = max(resources, key=lambda r: r.processors * r.performance)
    fastest = widest.processors * widest.performance
    # On a platform slower than one processor of performance 1, the minimal time is the
    # later one: the deadline is then that time (uniform() refuses high < low).
    low = size / fastest
    high = np.maximum(size, low)
    deadline = arrival + np.ceil(rng.uniform(low, high)).astype(np.int64)
    budget = np.round(rng.uniform(*BUDGET_FACTOR, jobs) * size * cheapest_paid_rate(resources),
                      2)
    fraction = (rng.uniform(0.0, serial_fraction, jobs) if serial_fraction > 0
                else np.zeros(jobs))
    return Instance(
        name=name or f"malleable-{mix}-{jobs}-s{seed}",
        job_ids=tuple(f"j{k}" for k in range(jobs)),
        size=size, priority=priority.astype(np.int64), deadline=deadline, budget=budget,
        arrival=arrival, serial_fraction=fraction, resources=resources, tree=tree,
        provenance={"generator": "malleable", "jobs": jobs, "mix": mix, "seed": seed,
                    "serial_fraction": serial_fraction},
    )


def tiny_instance(seed: int) -> Instance:
    """A random tiny batch (1-3 jobs, 1-2 small resources) both exact backends prove fast.

    Deterministic in ``seed``. About a third of the seeds are *awkward*: a
    size a hair above a whole number (``3.0000001``), jobs that exactly fill
    the cluster by their deadline, equal jobs (ties), a deadline at the
    arrival's minute plus one, budgets at the exact cost. Linear speed-up
    (serial fraction 0) so both backends scale the data exactly.
    """
    rng = np.random.default_rng([22, seed])
    awkward = seed % 3 == 0
    resources = [Resource("c0", ResourceType.DEDICATED if rng.random() < 0.5
                          else ResourceType.ALLOCATED, int(rng.integers(1, 3)),
                          performance=float(rng.choice([1.0, 2.0])),
                          price=float(rng.choice([0.5, 1.0])))]
    if rng.random() < 0.5:
        resources.append(Resource("v0", ResourceType.CLOUD, 1, price=30.0, max_vms=2,
                                  spot_vms=1, on_demand_price=45.0))
    if resources[0].type is ResourceType.DEDICATED:
        resources[0] = Resource("c0", ResourceType.DEDICATED, resources[0].cpus,
                                performance=resources[0].performance)
    jobs = int(rng.integers(1, 4))
    size = rng.choice([1.0, 2.0, 3.0, 4.0], jobs)
    arrival = rng.integers(0, 2, jobs)
    deadline = arrival + rng.integers(1, 4, jobs)
    budget = rng.choice([0.0, 1.0, 2.5], jobs)
    if awkward:
        kind = seed // 3 % 3
        if kind == 0:
            size[0] = 3.000001  # a hair above 3: one whole minute more on one processor
        elif kind == 1:
            # Equal jobs that exactly fill the first cluster by their common deadline.
            cap = resources[0].cpus * resources[0].performance
            size[:] = cap
            arrival[:] = 0
            deadline[:] = jobs
            budget[:] = cap * resources[0].price
        else:
            deadline[:] = arrival + 1
    return Instance(
        name=f"malleable-tiny-{seed}", job_ids=tuple(f"j{k}" for k in range(jobs)),
        size=size.astype(float), priority=np.ones(jobs, dtype=np.int64),
        deadline=deadline.astype(np.int64), budget=budget.astype(float),
        arrival=arrival.astype(np.int64), serial_fraction=np.zeros(jobs),
        resources=tuple(resources), provenance={"generator": "malleable-tiny", "seed": seed})
