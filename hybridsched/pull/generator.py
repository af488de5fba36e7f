"""Seeded pull instances: the workload WL, hosts of three DCIs, availability and error draws.

Workload: ``units`` work units of ``NOI`` instructions uniform in
``[10^6, 10^7]``, all arriving at time 0 (the paper's WL: 2,000 units).

Hosts (Table 3): IDG CPU in {50, 100, ..., 400}, free; Cloud CPU in {250,
300, 350, 400} at 0.001, 0.005, 0.0075, 0.01 per second; BEG CPU in {50,
100, 150}, free. Each chosen DCI gets hosts until its aggregate CPU reaches
``capacity`` (default 10,000), so the infrastructures are "roughly equal" as
in the paper.

Availability (*our* distributions; the paper replays failure traces):

- IDG (volatile desktops): alternating on and off periods, exponential with
  means 24 h and 8 h, each host starting in a random phase (so a 7-hour task,
  the paper's largest on the fastest host, is often cut short, as on BOINC);
- Cloud (stable): available all the time;
- BEG (stable, groups leaving together): hosts in groups of 10; each group
  leaves at exponential intervals of mean 24 h for a uniform 1-4 h.

Windows are generated up to ``horizon`` seconds (default 30 days); a host
available at the horizon stays (an infinite last window).

Behaviour (section 6.3.1): ``"all"`` (the default: 15% of results delayed
by a factor in (1, 1.5], 5% never returned), or one behaviour alone
(``"intime"``, ``"delay"``, ``"never"``); the draws are seeded by ``seed``.

Errors (Table 4): a fraction ``f`` of a DCI's hosts is erroneous and returns
wrong results with a probability drawn uniformly in the DCI's range: IDG 40%
in [0, 0.7], Cloud 2% in [0, 0.05], BEG 10% in [0, 0.2].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from hybridsched.errors import InputError
from hybridsched.pull.instance import BEHAVIOURS, DCIS, Behaviour, Instance
from hybridsched.pull.schema import MAX_HOSTS, MAX_TIME, MAX_UNITS, check_dcis
from hybridsched.seeding import RNGLike, resolve_seed

HOUR = 3600.0
IDG_CPU = tuple(range(50, 401, 50))
CLOUD_CPU_PRICE = ((250, 0.001), (300, 0.005), (350, 0.0075), (400, 0.01))
BEG_CPU = (50, 100, 150)
#: Latest horizon: a BEG outage that starts before it may last 4 h past it, and every
#: window must start by the format's latest time.
MAX_HORIZON = MAX_TIME - 4 * HOUR
#: ``dci -> (fraction of erroneous hosts, highest error probability)`` (Table 4).
ERRORS = {"idg": (0.40, 0.70), "cloud": (0.02, 0.05), "beg": (0.10, 0.20)}


def _alternating(rng: np.random.Generator, horizon: float, on: float, off: float
                 ) -> tuple[tuple[float, float], ...]:
    """On/off periods with exponential lengths, from a random phase."""
    windows = []
    t = -rng.uniform(0, on + off)
    up = True
    while t < horizon:
        length = rng.exponential(on if up else off)
        if up and t + length > 0:
            windows.append((max(t, 0.0), t + length))
        t += length
        up = not up
    if windows and windows[-1][1] >= horizon:
        windows[-1] = (windows[-1][0], math.inf)
    return tuple(windows)


def _group_outages(rng: np.random.Generator, horizon: float
                   ) -> tuple[tuple[float, float], ...]:
    """Available except for outages every ~24 h lasting 1-4 h."""
    windows, t = [], 0.0
    while True:
        leave = t + rng.exponential(24 * HOUR)
        if leave >= horizon:
            windows.append((t, math.inf))
            return tuple(windows)
        windows.append((t, leave))
        t = leave + rng.uniform(1 * HOUR, 4 * HOUR)


def workload(rng: np.random.Generator, units: int) -> np.ndarray:
    """The paper's WL: ``units`` sizes uniform in ``[10^6, 10^7]`` instructions (rounded)."""
    return rng.uniform(1e6, 1e7, units).round()


def host_attributes(rng: np.random.Generator, dci: str) -> tuple[float, float, float]:
    """``(cpu, price, error)`` of a new host of ``dci`` (Tables 3 and 4)."""
    if dci == "idg":
        cpu, price = float(rng.choice(IDG_CPU)), 0.0
    elif dci == "cloud":
        cpu, price = map(float, CLOUD_CPU_PRICE[int(rng.integers(4))])
    else:
        cpu, price = float(rng.choice(BEG_CPU)), 0.0
    fraction, worst = ERRORS[dci]
    error = float(rng.uniform(0, worst)) if rng.random() < fraction else 0.0
    return cpu, price, error


def check_capacity(capacity: float, dcis: Sequence[str]) -> None:
    """One-line :class:`InputError` for a capacity that is not finite and > 0, or too large.

    Hosts are drawn until each DCI's aggregate CPU reaches ``capacity``; the
    slowest host (50 instructions per second) bounds how many that takes.
    """
    if not (math.isfinite(capacity) and capacity > 0):
        raise InputError(f"capacity: must be a finite number > 0, got {capacity:g}")
    if capacity / min(BEG_CPU[0], IDG_CPU[0]) * len(dcis) > MAX_HOSTS:
        raise InputError(f"capacity: {capacity:g} per DCI could need more than {MAX_HOSTS:,} "
                         "hosts")


def generate(units: int = 2000, dcis: Sequence[str] = DCIS, seed: int | None = None, *,
             rng: RNGLike = None, capacity: float = 10_000.0, horizon: float = 30 * 24 * HOUR,
             behaviour: str = "all", name: str | None = None) -> Instance:
    """A seeded instance (see the module docstring).

    Parameters
    ----------
    units : int
        Number of work units (0 to :data:`~hybridsched.pull.schema.MAX_UNITS`).
    dcis : sequence of {"idg", "cloud", "beg"}
        The DCIs whose hosts are drawn.
    seed : int, optional
        The older name of ``rng`` (an integer seed), kept for existing code;
        give one or the other.
    rng : int, numpy.random.Generator or None
        Seed of every draw (see :mod:`hybridsched.seeding`): an integer (>= 0)
        gives the same instance as ``seed`` did; ``None``, seed 0; a
        generator is consumed by one draw, the seed that is then used. That
        seed is recorded in the instance's name and provenance, and is the
        instance's own ``seed`` (and its behaviour's): it also seeds every
        result a simulation draws on it.
    capacity : float
        Aggregate CPU (instructions per second) drawn per DCI.
    horizon : float
        Seconds of availability windows drawn.
    behaviour : str
        Probabilities of delayed and never-returned results
        (:data:`~hybridsched.pull.instance.BEHAVIOURS`).
    name : str, optional
        Instance name (default from the parameters).

    Returns
    -------
    Instance
        The instance; ``provenance["seed"]`` regenerates it.

    Examples
    --------
    >>> inst = generate(50, ("cloud",), rng=6, capacity=1000.0)
    >>> inst.n_units, inst.seed, inst.behaviour.seed
    (50, 6, 6)
    """
    if not 0 <= units <= MAX_UNITS:
        raise InputError(f"units: must be between 0 and {MAX_UNITS}, got {units}")
    check_dcis(dcis)
    check_capacity(capacity, dcis)
    if not (math.isfinite(horizon) and 0 < horizon <= MAX_HORIZON):
        raise InputError(f"horizon: must be a finite number in (0, {MAX_HORIZON:g}], got "
                         f"{horizon:g}")
    if behaviour not in BEHAVIOURS:
        raise InputError(f"behaviour: choose among {', '.join(BEHAVIOURS)}, got {behaviour!r}")
    seed = resolve_seed(rng, seed)
    rng = np.random.default_rng(seed)
    noi = workload(rng, units)
    hosts: list[tuple[str, float, float, float, tuple[tuple[float, float], ...]]] = []
    for dci in dcis:
        total, group = 0.0, 0
        while total < capacity:
            cpu, price, error = host_attributes(rng, dci)
            if dci == "idg":
                windows = _alternating(rng, horizon, 24 * HOUR, 8 * HOUR)
            elif dci == "cloud":
                windows = ((0.0, math.inf),)
            else:
                if group % 10 == 0:
                    shared = _group_outages(rng, horizon)
                windows = shared
                group += 1
            hosts.append((dci, cpu, price, error, windows))
            total += cpu
    return Instance(
        name=name or f"pull-{'-'.join(dcis)}-{units}-s{seed}",
        unit_ids=tuple(f"w{k}" for k in range(units)), noi=noi, arrival=np.zeros(units),
        host_ids=tuple(f"{d}-{k}" for k, (d, *_rest) in enumerate(hosts)),
        dci=tuple(h[0] for h in hosts), cpu=np.array([h[1] for h in hosts]),
        price=np.array([h[2] for h in hosts]), error=np.array([h[3] for h in hosts]),
        windows=tuple(h[4] for h in hosts), seed=seed,
        behaviour=Behaviour(*BEHAVIOURS[behaviour], seed=seed),
        provenance={"generator": "pull", "units": units, "dcis": list(dcis), "seed": seed,
                    "capacity": capacity, "horizon": horizon,
                    "behaviour": behaviour},
    )


def tiny_instance(seed: int) -> Instance:
    """A random tiny instance (2-3 units, 2-3 hosts) that exact methods solve in well under 1 s.

    Deterministic in ``seed``. Host 0 is a reliable cloud host, always
    available, so every unit completes. About a third of the seeds are
    awkward: equal unit sizes (ties), a window exactly as long as a task,
    windows that abut, a unit arriving late, a window end 3e-7 s (under the
    checker's tolerance) after a task's end.
    """
    rng = np.random.default_rng([seed, 22])
    awkward = seed % 3 == 0
    units = int(rng.integers(2, 4))
    noi = rng.integers(4, 11, units).astype(float)
    if awkward and rng.random() < 0.5:
        noi[:] = noi[0]
    arrival = np.zeros(units)
    if awkward and rng.random() < 0.5:
        arrival[-1] = float(rng.integers(1, 6))
    hosts = [("cloud", float(rng.choice((1.0, 2.0))), 0.001, 0.0, ((0.0, math.inf),))]
    for _ in range(int(rng.integers(1, 3))):
        cpu = float(rng.choice((1.0, 2.0)))
        start = float(rng.integers(0, 4))
        length = float(rng.integers(3, 12))
        if awkward:
            ect = float(noi[rng.integers(units)]) / cpu
            kind = int(rng.integers(3))
            length = ect if kind == 0 else ect + 3e-7 if kind == 1 else length
        first = (start, start + length)
        gap = 0.0 if awkward and rng.random() < 0.5 else float(rng.integers(1, 5))
        windows = (first, (first[1] + gap, math.inf))
        hosts.append(("idg", cpu, 0.0, float(rng.choice((0.0, 0.3))), windows))
    behaviour = Behaviour(float(rng.choice((0.0, 0.3))), float(rng.choice((0.0, 0.2))), 1.5,
                          seed)
    return Instance(
        name=f"pull-tiny-s{seed}", unit_ids=tuple(f"w{k}" for k in range(units)), noi=noi,
        arrival=arrival, host_ids=tuple(f"{h[0]}-{k}" for k, h in enumerate(hosts)),
        dci=tuple(h[0] for h in hosts), cpu=np.array([h[1] for h in hosts]),
        price=np.array([h[2] for h in hosts]), error=np.array([h[3] for h in hosts]),
        windows=tuple(h[4] for h in hosts), seed=seed, behaviour=behaviour,
        provenance={"generator": "pull-tiny", "seed": seed})


def small_instance(seed: int) -> Instance:
    """A random small instance (5-7 units, 3-4 hosts) at the size the offline models still prove.

    Deterministic in ``seed``; for the benchmark library's ``small`` tier.
    Host 0 is a reliable cloud host, always available; the others are
    desktop-grid (``idg``) or best-effort-grid (``beg``) hosts with two or
    three availability windows, erroneous results on some, and the paper's
    mixed behaviour (15% delayed, 5% never returned).
    """
    rng = np.random.default_rng([seed, 23])
    units = int(rng.integers(5, 8))
    noi = rng.integers(4, 16, units).astype(float)
    arrival = np.sort(rng.integers(0, 6, units)).astype(float)
    hosts = [("cloud", 1.0, 0.001, 0.0, ((0.0, math.inf),))]
    for _ in range(int(rng.integers(2, 4))):
        dci = str(rng.choice(("idg", "beg")))
        cpu = float(rng.choice((1.0, 2.0, 3.0)))
        spans, at = [], float(rng.integers(0, 4))
        for _ in range(int(rng.integers(1, 3))):
            end = at + float(rng.integers(4, 14))
            spans.append((at, end))
            at = end + float(rng.integers(1, 6))
        spans.append((at, math.inf))
        hosts.append((dci, cpu, 0.0, float(rng.choice((0.0, 0.1, 0.3))), tuple(spans)))
    return Instance(
        name=f"pull-small-s{seed}", unit_ids=tuple(f"w{k}" for k in range(units)), noi=noi,
        arrival=arrival, host_ids=tuple(f"{h[0]}-{k}" for k, h in enumerate(hosts)),
        dci=tuple(h[0] for h in hosts), cpu=np.array([h[1] for h in hosts]),
        price=np.array([h[2] for h in hosts]), error=np.array([h[3] for h in hosts]),
        windows=tuple(h[4] for h in hosts), seed=seed, behaviour=Behaviour(0.15, 0.05, 1.5, seed),
        provenance={"generator": "pull-small", "seed": seed})


def chain_instance(n: int, duration: float = 1.0, *, arrival: float = 0.0, cpu: float = 1.0,
                   seed: int = 0, name: str | None = None) -> Instance:
    """A tolerance chain: ``n`` equal work units on one host, every result correct and in time.

    One reliable cloud host (``cpu`` instructions per second, error 0,
    available all the time), ``n`` units of ``duration x cpu`` instructions,
    all arriving at ``arrival``; behaviour: no result delayed or lost (so
    every draw is in time and correct, whatever the ``seed``).

    **Closed-form optimum.** One host runs one task at a time, each unit once
    (its result is correct; a replica after it would be refused) and never
    idles while a unit waits, so *every* valid schedule runs the units back to
    back from ``arrival``: the makespan is ``n x d``, ``d = noi / cpu`` the
    binary64 duration (``duration`` itself when ``duration x cpu / cpu``
    rounds back to it), the first schedule being ``arrival``. The checker's
    binary64 sum of the chain differs from ``n x d`` by at most ``n x 2^-53``
    relative (nothing when ``d`` is a dyadic number, such as 1 or 2.5, and
    ``n x d`` small enough). A checker whose tolerances added up along the host
    accepted schedules ~``2 n x 1e-6`` s shorter (each task ``TIME_TOL`` short,
    each started ``TIME_TOL`` before the previous one ends): what
    :mod:`tests.pull.test_tolerance_chains` builds.
    """
    if not 1 <= n <= MAX_UNITS:
        raise InputError(f"units: must be between 1 and {MAX_UNITS}, got {n}")
    if not (math.isfinite(duration) and duration > 0 and math.isfinite(cpu) and cpu > 0):
        raise InputError("duration and cpu: must be finite numbers > 0, got "
                         f"{duration:g} and {cpu:g}")
    if not (math.isfinite(arrival) and 0 <= arrival <= MAX_TIME):
        raise InputError(f"arrival: must be a time in [0, {MAX_TIME:g}], got {arrival:g}")
    return Instance(
        name=name or f"pull-chain-{n}-d{duration:g}",
        unit_ids=tuple(f"w{k}" for k in range(n)), noi=np.full(n, duration * cpu),
        arrival=np.full(n, float(arrival)), host_ids=("cloud-0",), dci=("cloud",),
        cpu=np.array([float(cpu)]), price=np.array([0.001]), error=np.zeros(1),
        windows=(((0.0, math.inf),),), seed=seed, behaviour=Behaviour(0.0, 0.0, 1.5, seed),
        provenance={"generator": "pull-chain", "units": n, "duration": duration,
                    "arrival": arrival, "cpu": cpu, "seed": seed})
