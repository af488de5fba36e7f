"""Pull instances whose hosts come from availability traces (the Failure Trace Archive).

As in the paper's simulator (section 6.1): each trace gives the hosts of one
DCI and their availability windows; every host gets a CPU capacity, price
and error probability drawn for its DCI (Tables 3 and 4, seeded); hosts are
picked at random until the DCI's aggregate CPU reaches ``capacity`` (all of
them when ``capacity`` is ``None``), so that DCIs are balanced. Each
trace's times are rebased to its own start (its earliest availability
event is time 0; see :func:`~hybridsched.io.fta.read_fta`), so traces in
epoch seconds fit the instance format and traces of different periods start
together. ``offset`` loads the traces from that many seconds after their
start on (the paper's "different start-points in time"): windows are shifted
by ``-offset`` and clipped at 0. The workload is the paper's WL of ``units``
work units.

Whatever this module builds, the instance loader accepts: every window has a
positive length and lies within :data:`~hybridsched.pull.schema.MAX_TIME`
seconds, and an instance has at most :data:`~hybridsched.pull.schema.MAX_HOSTS`
hosts (a larger trace needs ``capacity``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from hybridsched.errors import InputError
from hybridsched.io.fta import positive, read_fta
from hybridsched.pull.generator import BEHAVIOURS, host_attributes, workload
from hybridsched.pull.instance import Behaviour, Instance
from hybridsched.pull.schema import MAX_HOSTS, MAX_TIME, MAX_UNITS, check_dcis
from hybridsched.seeding import RNGLike, resolve_seed


def _shifted(windows: tuple[tuple[float, float], ...], offset: float
             ) -> tuple[tuple[float, float], ...]:
    # Rounding of the shift may make a very short window empty: it is dropped.
    return positive([(max(a - offset, 0.0), b - offset) for a, b in windows if b - offset > 0])


def start_later(instance: Instance, offset: float) -> Instance:
    """The same hosts and workload, with availability read from ``offset`` seconds on.

    The paper's repeated runs (section 6.3.3) load the same traces "at
    different start-points in time". A host with no window left after
    ``offset`` is never available.
    """
    if not (math.isfinite(offset) and offset >= 0):
        raise InputError(f"offset: must be a finite number >= 0, got {offset}")
    windows = tuple(_shifted(w, offset) for w in instance.windows)
    return replace(instance, windows=windows, name=f"{instance.name}+{offset:g}s",
                   provenance={**instance.provenance, "offset": offset})


def instance_from_traces(traces: Sequence[tuple[str | Path, str]], *, units: int = 2000,
                         seed: int | None = None, rng: RNGLike = None,
                         capacity: float | None = None, offset: float = 0.0,
                         behaviour: str = "all", name: str | None = None,
                         **columns: int) -> Instance:
    """An instance from ``(trace file, dci)`` pairs (see the module docstring).

    ``rng`` seeds the workload, the hosts picked and their attributes, and is
    the instance's own seed (see :mod:`hybridsched.seeding`: an integer gives
    what ``seed``, its older name, gave; ``None``, seed 0; a
    ``numpy.random.Generator`` is consumed by one draw, the seed then used
    and recorded). ``columns`` (``node_column``, ``type_column``, ...) go to
    :func:`~hybridsched.io.fta.read_fta`.
    """
    check_dcis([dci for _, dci in traces])
    if not 0 <= units <= MAX_UNITS:
        raise InputError(f"units: must be between 0 and {MAX_UNITS}, got {units}")
    if capacity is not None and not (math.isfinite(capacity) and capacity > 0):
        raise InputError(f"capacity: must be a finite number > 0, got {capacity}")
    if not (math.isfinite(offset) and offset >= 0):
        raise InputError(f"offset: must be a finite number >= 0, got {offset}")
    if behaviour not in BEHAVIOURS:
        raise InputError(f"behaviour: choose among {', '.join(BEHAVIOURS)}, got {behaviour!r}")
    seed = resolve_seed(rng, seed)
    rng = np.random.default_rng(seed)
    noi = workload(rng, units)
    ids, dcis, attrs, windows, origins = [], [], [], [], []
    for path, dci in traces:
        trace = read_fta(path, max_span=MAX_TIME, **columns)
        origins.append(trace.origin)
        nodes = [n for n in trace.nodes if _shifted(trace.windows[n], offset)]
        if not nodes:
            raise InputError(f"{path}: no host is available after the offset {offset:g} s")
        total = 0.0
        for k in rng.permutation(len(nodes)):
            if capacity is not None and total >= capacity:
                break
            if len(ids) == MAX_HOSTS:
                raise InputError(f"{path}: more than {MAX_HOSTS:,} hosts (the most an "
                                 "instance may have); give a capacity to pick fewer")
            node = nodes[k]
            cpu, price, error = host_attributes(rng, dci)
            ids.append(f"{dci}-{node}")
            dcis.append(dci)
            attrs.append((cpu, price, error))
            windows.append(_shifted(trace.windows[node], offset))
            total += cpu
    cpu, price, error = (np.array(c) for c in zip(*attrs, strict=True))
    return Instance(
        name=name or f"pull-fta-{'-'.join(d for _, d in traces)}-{units}-s{seed}",
        unit_ids=tuple(f"w{k}" for k in range(units)), noi=noi, arrival=np.zeros(units),
        host_ids=tuple(ids), dci=tuple(dcis), cpu=cpu, price=price, error=error,
        windows=tuple(windows), seed=seed,
        behaviour=Behaviour(*BEHAVIOURS[behaviour], seed=seed),
        provenance={"importer": "fta", "traces": [[str(p), d] for p, d in traces],
                    "origins": origins, "units": units, "seed": seed, "capacity": capacity,
                    "offset": offset, "behaviour": behaviour},
    )
