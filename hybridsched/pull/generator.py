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
  means 3 h and 1 h, each host starting in a random phase;
- Cloud (stable): available all the time;
- BEG (stable, groups leaving together): hosts in groups of 10; each group
  leaves at exponential intervals of mean 24 h for a uniform 1-4 h.

Windows are generated up to ``horizon`` seconds (default 30 days); a host
available at the horizon stays (an infinite last window).

Errors (Table 4): a fraction ``f`` of a DCI's hosts is erroneous and returns
wrong results with a probability drawn uniformly in the DCI's range: IDG 40%
in [0, 0.7], Cloud 2% in [0, 0.05], BEG 10% in [0, 0.2].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from hybridsched.errors import InputError
from hybridsched.pull.instance import DCIS, Instance

HOUR = 3600.0
IDG_CPU = tuple(range(50, 401, 50))
CLOUD_CPU_PRICE = ((250, 0.001), (300, 0.005), (350, 0.0075), (400, 0.01))
BEG_CPU = (50, 100, 150)
#: ``dci -> (fraction of erroneous hosts, highest error probability)`` (Table 4).
ERRORS = {"idg": (0.40, 0.70), "cloud": (0.02, 0.05), "beg": (0.10, 0.20)}
#: Most work units one call generates.
MAX_UNITS = 10**6


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


def generate(units: int = 2000, dcis: Sequence[str] = DCIS, seed: int = 0, *,
             capacity: float = 10_000.0, horizon: float = 30 * 24 * HOUR,
             name: str | None = None) -> Instance:
    """A seeded instance (see the module docstring)."""
    if not 0 <= units <= MAX_UNITS:
        raise InputError(f"units: must be between 0 and {MAX_UNITS}, got {units}")
    unknown = [d for d in dcis if d not in DCIS]
    if unknown or not dcis:
        raise InputError(f"dci: choose among {', '.join(DCIS)} (got "
                         f"{', '.join(dcis) or 'none'}): an infrastructure is needed")
    if len(set(dcis)) != len(dcis):
        raise InputError(f"dci: {', '.join(dcis)} names a DCI twice")
    if not (math.isfinite(capacity) and capacity > 0 and math.isfinite(horizon)
            and horizon > 0):
        raise InputError("capacity and horizon must be finite numbers > 0")
    rng = np.random.default_rng(seed)
    noi = rng.uniform(1e6, 1e7, units).round()
    hosts: list[tuple[str, float, float, float, tuple[tuple[float, float], ...]]] = []
    for dci in dcis:
        total, group = 0.0, 0
        fraction, worst = ERRORS[dci]
        while total < capacity:
            if dci == "idg":
                cpu, price = float(rng.choice(IDG_CPU)), 0.0
                windows = _alternating(rng, horizon, 3 * HOUR, 1 * HOUR)
            elif dci == "cloud":
                cpu, price = map(float, CLOUD_CPU_PRICE[int(rng.integers(4))])
                windows = ((0.0, math.inf),)
            else:
                cpu, price = float(rng.choice(BEG_CPU)), 0.0
                if group % 10 == 0:
                    shared = _group_outages(rng, horizon)
                windows = shared
                group += 1
            error = float(rng.uniform(0, worst)) if rng.random() < fraction else 0.0
            hosts.append((dci, cpu, price, error, windows))
            total += cpu
    return Instance(
        name=name or f"pull-{'-'.join(dcis)}-{units}-s{seed}",
        unit_ids=tuple(f"w{k}" for k in range(units)), noi=noi, arrival=np.zeros(units),
        host_ids=tuple(f"{d}-{k}" for k, (d, *_rest) in enumerate(hosts)),
        dci=tuple(h[0] for h in hosts), cpu=np.array([h[1] for h in hosts]),
        price=np.array([h[2] for h in hosts]), error=np.array([h[3] for h in hosts]),
        windows=tuple(h[4] for h in hosts), seed=seed,
        provenance={"generator": "pull", "units": units, "dcis": list(dcis), "seed": seed,
                    "capacity": capacity, "horizon": horizon},
    )
