"""Small pull instances built by hand or drawn by hypothesis."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from hybridsched.pull.instance import Behaviour, Instance

#: Every result in time.
IN_TIME = Behaviour(0.0, 0.0, 1.5, 0)


def tiny(noi=(1000.0, 2000.0), hosts=(("cloud", 100.0, 0.01, 0.0, ((0.0, math.inf),)),),
         behaviour=IN_TIME, arrival=None) -> Instance:
    """An instance from unit sizes and ``(dci, cpu, price, error, windows)`` hosts."""
    n = len(noi)
    return Instance(
        name="tiny", unit_ids=tuple(f"w{k}" for k in range(n)), noi=np.array(noi, float),
        arrival=np.zeros(n) if arrival is None else np.array(arrival, float),
        host_ids=tuple(f"h{k}" for k in range(len(hosts))), dci=tuple(h[0] for h in hosts),
        cpu=np.array([h[1] for h in hosts]), price=np.array([h[2] for h in hosts]),
        error=np.array([h[3] for h in hosts]), windows=tuple(h[4] for h in hosts),
        behaviour=behaviour)


@st.composite
def windows(draw, closed: bool = False):
    """Sorted, disjoint windows; the last one may stay open."""
    cuts = sorted(set(draw(st.lists(st.integers(0, 200), min_size=1, max_size=6))))
    spans = [(float(cuts[k]), float(cuts[k + 1])) for k in range(0, len(cuts) - 1, 2)]
    if not closed and (not spans or draw(st.booleans())):
        start = spans[-1][1] + draw(st.integers(1, 30)) if spans else float(cuts[0])
        spans.append((start, math.inf))
    return tuple(spans) if spans else ((0.0, math.inf),)


@st.composite
def instances(draw, max_units: int = 8, max_hosts: int = 4):
    """Random small instances: some hosts always end up available (so units complete)."""
    n = draw(st.integers(1, max_units))
    noi = [float(draw(st.integers(1, 50))) * 100 for _ in range(n)]
    arrival = [float(draw(st.integers(0, 50))) for _ in range(n)]
    hosts = []
    for k in range(draw(st.integers(1, max_hosts))):
        dci = draw(st.sampled_from(("idg", "cloud", "beg")))
        cpu = float(draw(st.sampled_from((50, 100, 250, 400))))
        price = 0.0 if dci != "cloud" else draw(st.sampled_from((0.001, 0.01)))
        error = draw(st.sampled_from((0.0, 0.0, 0.3, 0.7)))
        spans = draw(windows()) if k else ((float(draw(st.integers(0, 40))), math.inf),)
        hosts.append((dci, cpu, price, error if k else 0.0, spans))
    never = draw(st.sampled_from((0.0, 0.05, 0.3)))
    delayed = draw(st.sampled_from((0.0, 0.15, 0.5)))
    return tiny(noi, tuple(hosts), Behaviour(delayed, never, 1.5, draw(st.integers(0, 99))),
                arrival)
