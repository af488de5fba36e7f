"""Seeded workloads of the paper's evaluation (Section 4, Tables 1 and 2).

``table1``: 120 VMs with memory uniform in [1, 5] GB, processing ability in
[1, 6] and bandwidth in [1, 20] (x 100 Mb/s); jobs with memory in [1, 5],
bandwidth in [1, 20], instructions per task in [5, 45], deadline an integer
in [1, 6] time units and parallelism an integer in [1, 8]. All uniform
(integers where the paper says so: deadlines, parallelism; the rest real).
Arrivals: a Poisson process of ``rate`` jobs per time unit.

``table2``: 120 nodes of 24 or 48 "SP" (processing ability), instructions in
[24, 240], deadline in [1, 6], parallelism in [1, 8], memory always
sufficient (every job's memory and bandwidth demand is 1, every VM has 5 and
20), about 40 jobs per time unit.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from hybridsched.errors import InputError
from hybridsched.gang.instance import Instance
from hybridsched.gang.schema import MAX_TIME
from hybridsched.io.limits import check_pairs

Scenario = Literal["table1", "table2"]
SCENARIOS = ("table1", "table2")
#: Default arrival rate of each scenario (jobs per time unit).
DEFAULT_RATE = {"table1": 10.0, "table2": 40.0}
#: Most jobs one call generates.
MAX_JOBS = 10**6


def generate(jobs: int, rate: float | None = None, scenario: Scenario = "table1",
             seed: int = 0, *, vms: int = 120, name: str | None = None) -> Instance:
    """A seeded instance of ``scenario`` with ``jobs`` Poisson arrivals at ``rate``."""
    if scenario not in SCENARIOS:
        raise InputError(f"scenario: must be table1 or table2, got {scenario!r}")
    if not 0 <= jobs <= MAX_JOBS:
        raise InputError(f"jobs: must be between 0 and {MAX_JOBS}, got {jobs}")
    rate = DEFAULT_RATE[scenario] if rate is None else rate
    if not (math.isfinite(rate) and rate > 0):
        raise InputError(f"rate: must be a finite number > 0, got {rate}")
    if not 1 <= vms <= 10**5:
        raise InputError(f"vms: must be between 1 and 100000, got {vms}")
    check_pairs(jobs, vms, "VMs", "generate gang")
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        arrival = np.cumsum(rng.exponential(1.0 / rate, jobs))
    if jobs and not arrival[-1] <= MAX_TIME - 6:  # the latest deadline must fit too
        raise InputError(f"rate: {rate:g} jobs per time unit is too low for {jobs} jobs "
                         f"(arrivals would pass time {MAX_TIME:g}, the latest accepted)")
    parallelism = rng.integers(1, 9, jobs)
    deadline = rng.integers(1, 7, jobs).astype(float)
    if scenario == "table1":
        instructions = rng.uniform(5, 45, jobs)
        memory, bandwidth = rng.uniform(1, 5, jobs), rng.uniform(1, 20, jobs)
        speed = rng.uniform(1, 6, vms)
        vm_memory, vm_bandwidth = rng.uniform(1, 5, vms), rng.uniform(1, 20, vms)
    else:
        instructions = rng.uniform(24, 240, jobs)
        memory, bandwidth = np.ones(jobs), np.ones(jobs)
        speed = rng.choice([24.0, 48.0], vms)
        vm_memory, vm_bandwidth = np.full(vms, 5.0), np.full(vms, 20.0)
    return Instance(
        name=name or f"gang-{scenario}-r{rate:g}-n{jobs}-s{seed}",
        job_ids=tuple(f"j{k}" for k in range(jobs)),
        arrival=np.round(arrival, 9), parallelism=parallelism.astype(np.int64),
        instructions=np.round(instructions, 6), memory=np.round(memory, 6),
        bandwidth=np.round(bandwidth, 6), disk=np.zeros(jobs), deadline=deadline,
        vm_ids=tuple(f"v{k}" for k in range(vms)), speed=np.round(speed, 6),
        vm_memory=np.round(vm_memory, 6), vm_bandwidth=np.round(vm_bandwidth, 6),
        vm_disk=np.full(vms, np.inf),
        provenance={"generator": "gang", "scenario": scenario, "rate": rate, "jobs": jobs,
                    "seed": seed, "vms": vms},
    )
