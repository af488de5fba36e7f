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

Readings (keyword options of :func:`generate` and of ``generate gang``; the
default is the most literal reading, never the one that reproduces the
paper's figures):

``instructions`` = ``"per-task"`` (default) | ``"per-job"``
    Section 4.2: "The number of instructions of every task has a range of
    [5, 45] (5 means that a task needs 5 standard time units to execute it on
    a standard machine)" (every task draws it). Section 4.3 says "The
    instruction number, the deadline and the parallelism of the job is a
    random in [24, 240], [1, 6] and [1, 8]": read as the job's total,
    ``"per-job"`` splits the drawn number evenly over its ``parallelism``
    tasks. The default is the per-task wording of Section 4.2 for both
    settings (Eq. 4 gives a task its own requirements).
``arrivals`` = ``"poisson"`` (default) | ``"even"`` | ``"batches"``
    "The X-axis denotes the average arrival rates of parallel jobs. It
    denotes the average number of jobs that arrive in a standard time unit."
    An average rate reads as a Poisson process (exponential gaps of mean
    ``1 / rate``, the default); ``"even"``: one job every ``1 / rate``;
    ``"batches"``: at each whole time unit (from 0) a Poisson(``rate``)
    number of jobs arrives at once, as a time-stepped simulation would.
``integers`` = ``"stated"`` (default) | ``"all"``
    Table 1's ranges "follow uniform probability distribution"; the text
    says integer only for "The deadline of every job is a random integer in
    [1 6]" and "The parallelism of jobs is a random integer number between 1
    and 8", so the rest are real (default). ``"all"`` draws every range as
    integers (memory, bandwidth, processing ability, instructions), which
    makes demands equal capacities often (see CPLMT's ``overload_at``).

How deadlines count is not an option: "The deadline of every job is a
random integer in [1 6]" is relative to the job's arrival (an absolute
deadline in [1, 6] would leave every job arriving after time 6 unfinished,
whereas Fig. 4's curves grow smoothly with the rate).
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction
from typing import Literal

import numpy as np

from hybridsched.errors import InputError
from hybridsched.gang.instance import Instance
from hybridsched.gang.schema import MAX_TIME
from hybridsched.io.limits import check_pairs
from hybridsched.readings import check_choice
from hybridsched.seeding import RNGLike, resolve_seed

Scenario = Literal["table1", "table2"]
SCENARIOS = ("table1", "table2")
#: Default arrival rate of each scenario (jobs per time unit).
DEFAULT_RATE = {"table1": 10.0, "table2": 40.0}
#: Most jobs one call generates.
MAX_JOBS = 10**6
#: The values of each reading option, the default first (module docstring).
READINGS: dict[str, tuple[str, ...]] = {
    "instructions": ("per-task", "per-job"),
    "arrivals": ("poisson", "even", "batches"),
    "integers": ("stated", "all"),
}


def generate(jobs: int, rate: float | None = None, scenario: Scenario = "table1",
             seed: int | None = None, *, rng: RNGLike = None, vms: int = 120,
             name: str | None = None, instructions: str = "per-task",
             arrivals: str = "poisson", integers: str = "stated") -> Instance:
    """A seeded instance of ``scenario`` with ``jobs`` arrivals at ``rate`` (see readings).

    Parameters
    ----------
    jobs : int
        Number of jobs (0 to :data:`MAX_JOBS`).
    rate : float, optional
        Jobs per time unit (default: the scenario's, :data:`DEFAULT_RATE`).
    scenario : {"table1", "table2"}
        The paper's setting.
    seed : int, optional
        The older name of ``rng`` (an integer seed), kept for existing code;
        give one or the other.
    rng : int, numpy.random.Generator or None
        Seed of every draw (see :mod:`hybridsched.seeding`): an integer (>= 0)
        gives the same instance as ``seed`` did; ``None``, seed 0; a
        generator is consumed by one draw, the seed that is then used,
        recorded in the instance's name and provenance.
    vms : int
        Number of VMs (1 to 100000).
    name : str, optional
        Instance name (default from the parameters).
    instructions, arrivals, integers : str
        Readings of the paper (module docstring; the default first in :data:`READINGS`).

    Returns
    -------
    Instance
        The instance; ``provenance["seed"]`` regenerates it.

    Examples
    --------
    >>> inst = generate(30, scenario="table2", rng=4, vms=10)
    >>> inst.n_jobs, inst.name
    (30, 'gang-table2-r40-n30-s4')
    """
    for option, value in (("instructions", instructions), ("arrivals", arrivals),
                          ("integers", integers)):
        check_choice(option, value, READINGS[option])
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
    seed = resolve_seed(rng, seed)
    rng = np.random.default_rng(seed)
    arrival = _arrivals(rng, jobs, rate, arrivals)
    if jobs and not arrival[-1] <= MAX_TIME - 6:  # the latest deadline must fit too
        raise InputError(f"rate: {rate:g} jobs per time unit is too low for {jobs} jobs "
                         f"(arrivals would pass time {MAX_TIME:g}, the latest accepted)")
    parallelism = rng.integers(1, 9, jobs)
    deadline = rng.integers(1, 7, jobs).astype(float)
    draw = _integer if integers == "all" else _real
    if scenario == "table1":
        work = draw(rng, 5, 45, jobs)
        memory, bandwidth = draw(rng, 1, 5, jobs), draw(rng, 1, 20, jobs)
        speed = draw(rng, 1, 6, vms)
        vm_memory, vm_bandwidth = draw(rng, 1, 5, vms), draw(rng, 1, 20, vms)
    else:
        work = draw(rng, 24, 240, jobs)
        memory, bandwidth = np.ones(jobs), np.ones(jobs)
        speed = rng.choice([24.0, 48.0], vms)
        vm_memory, vm_bandwidth = np.full(vms, 5.0), np.full(vms, 20.0)
    if instructions == "per-job":
        work = work / parallelism
    readings = {"instructions": instructions, "arrivals": arrivals, "integers": integers}
    changed = {k: v for k, v in readings.items() if v != READINGS[k][0]}
    return Instance(
        name=name or f"gang-{scenario}-r{rate:g}-n{jobs}"
        + "".join(f"-{v}" for v in changed.values()) + f"-s{seed}",
        job_ids=tuple(f"j{k}" for k in range(jobs)),
        arrival=np.round(arrival, 9), parallelism=parallelism.astype(np.int64),
        instructions=np.round(work, 6), memory=np.round(memory, 6),
        bandwidth=np.round(bandwidth, 6), disk=np.zeros(jobs), deadline=deadline,
        vm_ids=tuple(f"v{k}" for k in range(vms)), speed=np.round(speed, 6),
        vm_memory=np.round(vm_memory, 6), vm_bandwidth=np.round(vm_bandwidth, 6),
        vm_disk=np.full(vms, np.inf),
        provenance={"generator": "gang", "scenario": scenario, "rate": rate, "jobs": jobs,
                    "seed": seed, "vms": vms, **changed},
    )


def _real(rng: np.random.Generator, low: int, high: int, n: int) -> np.ndarray:
    return rng.uniform(low, high, n)


def _integer(rng: np.random.Generator, low: int, high: int, n: int) -> np.ndarray:
    return rng.integers(low, high + 1, n).astype(float)


def _arrivals(rng: np.random.Generator, jobs: int, rate: float, how: str) -> np.ndarray:
    """Arrival times of ``jobs`` jobs at ``rate`` per time unit, read as ``how``."""
    if how == "even":
        return np.arange(jobs) / rate
    if how == "batches":
        counts: list[np.ndarray] = []
        total = 0
        while total < jobs:  # whole time units, a Poisson(rate) batch each
            block = rng.poisson(rate, max(16, int(2 * (jobs - total) / rate) + 1))
            counts.append(block)
            total += int(block.sum())
        per_unit = np.concatenate(counts) if counts else np.zeros(0, dtype=np.int64)
        return np.repeat(np.arange(len(per_unit), dtype=float), per_unit)[:jobs]
    with np.errstate(over="ignore"):
        return np.cumsum(rng.exponential(1.0 / rate, jobs))


#: Slacks (time units) of the near-tolerance tiny instances around an exact fit: both sides
#: of the checker's tolerance (1e-9), and beyond it.
TINY_SLACKS = (-2e-9, -1e-9, -5e-10, 0.0, 5e-10, 1e-9, 2e-9, 1e-7)


def tiny_instance(seed: int) -> Instance:
    """A random tiny instance (1-4 jobs, 1-3 VMs) that exact methods solve in milliseconds.

    Deterministic in ``seed``. Every third seed (``seed % 3 == 2``) is awkward,
    in turn: *ties* (jobs and VMs all alike, arriving together), an *exact
    fit* (every deadline exactly the end of the jobs before it run back to
    back on VM 0), or *near tolerance* (the same chain with VM 0 of speed 3,
    so times like 1/3, and each deadline moved by one of :data:`TINY_SLACKS`).
    The others draw small decimal numbers, memory demands that may not fit,
    and deadlines that may be too short. For cross-checks of the backends.
    """
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 5)), int(rng.integers(1, 4))
    arrival = rng.choice([0.0, 0.5, 1.0, 1.5], n)
    parallelism = rng.integers(1, m + 1, n).astype(np.int64)
    work = rng.choice([1.0, 1.5, 2.0, 3.0], n)
    deadline = rng.choice([0.5, 1.0, 2.0, 3.0, 4.0], n)
    speed = rng.choice([1.0, 2.0, 3.0], m)
    memory, vm_memory = rng.choice([1.0, 2.0], n), rng.choice([1.0, 2.0, 3.0], m)
    kind = "random"
    if seed % 3 == 2:
        kind = ("ties", "exact fit", "near tolerance")[seed // 3 % 3]
        if kind == "ties":
            arrival[:], work[:], deadline[:] = arrival[0], work[0], deadline[0]
            speed[:], memory[:], vm_memory[:] = speed[0], memory[0], memory[0]
        else:
            if kind == "near tolerance":
                speed[0] = 3.0
            arrival[:], vm_memory[0] = 0.0, 2.0
            deadline = np.cumsum(work / speed[0])  # the jobs back to back on VM 0
            if kind == "near tolerance":
                deadline = np.maximum(deadline + rng.choice(TINY_SLACKS, n), 1e-3)
    return Instance(
        name=f"gang-tiny-s{seed}", job_ids=tuple(f"j{k}" for k in range(n)),
        arrival=arrival, parallelism=parallelism, instructions=work, memory=memory,
        bandwidth=np.ones(n), disk=np.zeros(n), deadline=deadline,
        vm_ids=tuple(f"v{k}" for k in range(m)), speed=speed, vm_memory=vm_memory,
        vm_bandwidth=np.ones(m), vm_disk=np.full(m, np.inf),
        provenance={"generator": "gang.tiny_instance", "seed": seed, "kind": kind})


def chain_instance(n: int, excess: str = "0", *, vms: int = 1, instructions: str = "1",
                   name: str | None = None) -> Instance:
    """``n`` equal jobs that fill one deadline to within ``excess`` of the tolerance.

    Every job arrives at 0 with ``parallelism = vms`` tasks of
    ``instructions`` (a decimal text ``x``) on ``vms`` identical VMs of speed
    1, and the same deadline ``D = n x - TIME_TOL - excess`` (exactly, as
    decimal texts; it must be the shortest text of its binary64 value). Every
    job takes every VM, so the jobs run one after the other, and the first
    ``k`` fit iff ``k x <= D + TIME_TOL = n x - excess``: the exact optimum
    is

        UFJ = n - min(n, floor((n x - excess) / x))
            = 0 when excess <= 0, ceil(excess / x) when 0 < excess < n x.

    A checker whose tolerance added up along a VM (each start ``TIME_TOL``
    early) accepted all ``n`` jobs up to ``excess = n TIME_TOL``. The
    issue's chain is ``chain_instance(10, "5e-10", instructions="0.10000000015")``
    (``D = 1``). With ``x`` a small dyadic number (``"1"``, ``"0.5"``,
    ``"0.25"``) and ``n x <= 1000`` the binary64 sums of the checker are exact
    and even ``excess = "0"`` is decided as the closed form says.
    """
    if not 1 <= n <= MAX_JOBS:
        raise InputError(f"n: must be between 1 and {MAX_JOBS}, got {n}")
    if not 1 <= vms <= 10**5:
        raise InputError(f"vms: must be between 1 and 100000, got {vms}")
    try:
        with localcontext() as context:
            context.prec = 80
            x, extra = Decimal(instructions), Decimal(excess)
            deadline = n * x - Decimal("1e-9") - extra
    except InvalidOperation:
        raise InputError(f"instructions and excess: decimal numbers, got {instructions!r} "
                         f"and {excess!r}") from None
    if not (x.is_finite() and x > 0 and deadline.is_finite() and deadline > 0):
        raise InputError(f"chain: instructions {instructions} and excess {excess} leave "
                         f"no positive deadline for {n} jobs")
    value = float(deadline)
    if Fraction(repr(value)) != Fraction(deadline) or Fraction(repr(float(x))) != Fraction(x):
        raise InputError(f"chain: the deadline {deadline} (or instructions {x}) is not the "
                         "shortest text of a binary64 number")
    return Instance(
        name=name or f"gang-chain-n{n}-p{vms}-x{instructions}-e{excess}",
        job_ids=tuple(f"j{k}" for k in range(n)), arrival=np.zeros(n),
        parallelism=np.full(n, vms, dtype=np.int64), instructions=np.full(n, float(x)),
        memory=np.ones(n), bandwidth=np.ones(n), disk=np.zeros(n),
        deadline=np.full(n, value), vm_ids=tuple(f"v{k}" for k in range(vms)),
        speed=np.ones(vms), vm_memory=np.ones(vms), vm_bandwidth=np.ones(vms),
        vm_disk=np.full(vms, np.inf),
        provenance={"generator": "gang.chain_instance", "n": n, "excess": excess,
                    "vms": vms, "instructions": instructions})
