"""The frozen domain model of the ``pull`` family (work units, hosts, availability, behaviour).

A work unit has ``noi`` instructions and an arrival time; a host of a DCI
(``idg``, ``cloud`` or ``beg``) runs ``cpu`` instructions per second at
``price`` per second, only inside its availability windows, and returns
erroneous results with probability ``error`` (0 for a reliable host). Times
are seconds.

:class:`Behaviour` holds how results come back (the paper's three host
behaviours): a result is *never* returned with probability ``never``,
*delayed* by a factor uniform in ``(1, max_delay]`` with probability
``delayed``, and otherwise returned at its expected completion time. Its
``seed`` seeds every per-result draw, so one instance gives one realisation
whatever the method.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hybridsched.pull.schema import DCIS


@dataclass(frozen=True)
class Behaviour:
    """Probabilities of never-returned and delayed results, and the draws' seed."""

    delayed: float = 0.15
    never: float = 0.05
    max_delay: float = 1.5
    seed: int = 0


#: The paper's behaviour settings (section 6.3.1): all three mixed, or each alone.
BEHAVIOURS = {"all": (0.15, 0.05), "intime": (0.0, 0.0), "delay": (0.15, 0.0),
              "never": (0.0, 0.05)}


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
    behaviour: Behaviour = field(default_factory=Behaviour)
    provenance: dict[str, Any] = field(default_factory=dict)
    reference: dict[str, Any] | None = None

    @property
    def n_units(self) -> int:
        """Number of work units."""
        return len(self.unit_ids)

    @property
    def n_hosts(self) -> int:
        """Number of hosts."""
        return len(self.host_ids)

    @property
    def dcis(self) -> tuple[str, ...]:
        """The DCIs that have hosts, in the order of :data:`DCIS`."""
        present = set(self.dci)
        return tuple(d for d in DCIS if d in present)

    def window_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every window as arrays: ``host``, ``start``, ``end``, and ``offset``.

        Windows are listed host by host, each host's in time order; host
        ``h``'s are rows ``offset[h]`` to ``offset[h + 1]``.
        """
        counts = np.array([len(spans) for spans in self.windows], dtype=np.int64)
        offset = np.concatenate(([0], np.cumsum(counts)))
        spans = np.array([span for spans in self.windows for span in spans],
                         dtype=float).reshape(-1, 2)
        return np.repeat(np.arange(self.n_hosts), counts), spans[:, 0], spans[:, 1], offset

    def first_schedule(self) -> float:
        """Earliest time a task can be scheduled: a unit has arrived and a host is available.

        Every pull scheduler serves a pulling host at once, so this is when
        each method's first task is scheduled: the makespan's origin.
        ``inf`` when no host is ever available after the first arrival.
        """
        if self.n_units == 0:
            return 0.0
        first = float(self.arrival.min())
        best = math.inf
        for spans in self.windows:
            for a, b in spans:
                if b > first:
                    best = min(best, max(a, first))
                    break
        return best
