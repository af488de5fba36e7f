"""Random decision moments of a gang simulation, shared by the literal re-implementations' tests."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from hybridsched.gang.instance import Instance


def draw_moment(draw: st.DrawFn, *, deadline_span: int,
                busy_from: int = 0) -> tuple[float, Instance, np.ndarray, np.ndarray]:
    """``(now, instance, free, busy_until)``: <= 8 waiting jobs, <= 12 VMs, some busy.

    Integer-valued draws, so that ties (a VM ending at this very instant, equal
    completion times) are frequent; deadlines fall up to ``deadline_span``
    after ``now``. ``busy_until`` is ``now`` on a free VM and ``busy_from`` to 3
    later on a busy one (0: some busy VMs end at this very instant).
    """
    n, m = draw(st.integers(1, 8)), draw(st.integers(1, 12))

    def ints(lo: int, hi: int, size: int) -> np.ndarray:
        return np.array(draw(st.lists(st.integers(lo, hi), min_size=size, max_size=size)),
                        dtype=float)

    now = float(draw(st.integers(0, 3)))
    arrival = np.minimum(ints(0, 3, n), now)
    instance = Instance(
        "state", tuple(f"j{k}" for k in range(n)), arrival=arrival,
        parallelism=ints(1, 4, n).astype(np.int64), instructions=ints(1, 12, n),
        memory=ints(0, 4, n), bandwidth=ints(1, 4, n), disk=ints(0, 2, n),
        deadline=ints(1, deadline_span, n) + (now - arrival),
        vm_ids=tuple(f"v{k}" for k in range(m)),
        speed=ints(1, 4, m), vm_memory=ints(1, 4, m), vm_bandwidth=ints(1, 4, m),
        vm_disk=np.where(ints(0, 1, m) > 0, np.inf, ints(1, 2, m)))
    free = np.array(draw(st.lists(st.booleans(), min_size=m, max_size=m)))
    busy_until = np.where(free, now, now + ints(busy_from, 3, m))
    return now, instance, free, busy_until
