"""The frozen domain model of the ``pull`` family (work units, hosts, availability).

A work unit has ``noi`` instructions and an arrival time; a host of a DCI
(``idg``, ``cloud`` or ``beg``) runs ``cpu`` instructions per second at
``price`` per second, only inside its availability windows, and returns
erroneous results with probability ``error`` (0 for a reliable host). Times
are seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: The three kinds of distributed computing infrastructure of the paper.
DCIS = ("idg", "cloud", "beg")


@dataclass(frozen=True, eq=False)
class Instance:
    """Work units and hosts as arrays; ``windows[h]`` are host ``h``'s ``(start, end)`` spans."""

    name: str
    unit_ids: tuple[str, ...]
    noi: np.ndarray
    arrival: np.ndarray
    host_ids: tuple[str, ...]
    dci: tuple[str, ...]
    cpu: np.ndarray
    price: np.ndarray
    error: np.ndarray
    windows: tuple[tuple[tuple[float, float], ...], ...]
    seed: int = 0
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def n_units(self) -> int:
        """Number of work units."""
        return len(self.unit_ids)

    @property
    def n_hosts(self) -> int:
        """Number of hosts."""
        return len(self.host_ids)
