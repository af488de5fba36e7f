"""Default platform of the paper's experiments: 15 local PMs and EC2 c3.large.

The paper's Table 3 (CPU configurations of the 15 PMs) was lost in the text
we have. In its place we use a documented heterogeneous mix of 15 PMs of the
same era (2008-2012 Xeons, 2 to 8 cores, 1.86 to 2.93 GHz), including four of
the paper's own test CPU (Xeon E5410, 4 cores at 2.33 GHz): 64 cores and
155.8 GHz in all.
"""

from __future__ import annotations

from hybridsched.hybrid_deadline.instance import PM, VMType

#: (count, cores, GHz, label) of the substitute for the paper's Table 3.
PM_MIX: tuple[tuple[int, int, float, str], ...] = (
    (3, 8, 2.93, "xeon-x5570"),
    (4, 4, 2.33, "xeon-e5410"),
    (4, 4, 2.0, "xeon-e5405"),
    (4, 2, 1.86, "xeon-5120"),
)

#: EC2 c3.large (US East, 2016): 2 vCPUs at 2.7 GHz, $0.105 per hour.
C3_LARGE = VMType("c3.large", 2, 2.7, 0.105)


def default_pms() -> tuple[PM, ...]:
    """The 15-PM local pool, ids ``pm00``..``pm14`` in :data:`PM_MIX` order."""
    pms: list[PM] = []
    for count, cores, ghz, label in PM_MIX:
        for _ in range(count):
            pms.append(PM(f"pm{len(pms):02d}-{label}", cores, ghz))
    return tuple(pms)
