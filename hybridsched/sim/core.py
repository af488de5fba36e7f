"""SimPy environment, arrivals, availability windows and the event log.

A family's simulation creates one :class:`Simulation`, registers its
arrivals (:meth:`Simulation.arrivals`) and, where resources come and go,
their availability windows (:meth:`Simulation.availability`), and starts its
own resource processes on ``sim.env``. Everything it does is recorded in
``sim.log``, which is part of the realised schedule.

Events at the same time run in the order they were scheduled, so a
simulation is deterministic given its inputs (and seeded policies).

Example
-------
>>> sim = Simulation()
>>> seen = []
>>> sim.arrivals([2, 0, 2], lambda items: seen.append((sim.now, items)))
>>> sim.run()
>>> seen
[(0, [1]), (2, [0, 2])]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import simpy


class EventLog:
    """Chronological records ``{"time", "event", ...}`` of a simulation."""

    def __init__(self) -> None:
        self._records: list[dict[str, Any]] = []

    def record(self, time: float, event: str, **fields: Any) -> None:
        """Append one record (``fields`` must be JSON-ready)."""
        self._records.append({"time": time, "event": event, **fields})

    def records(self) -> tuple[dict[str, Any], ...]:
        """All records, in the order they happened (stable for equal times)."""
        return tuple(sorted(self._records, key=lambda r: r["time"]))

    def __len__(self) -> int:
        return len(self._records)


class Simulation:
    """One SimPy environment with an event log and the common processes."""

    def __init__(self) -> None:
        self.env = simpy.Environment()
        self.log = EventLog()

    @property
    def now(self) -> float:
        """Current simulated time."""
        return self.env.now

    def arrivals(self, times: Sequence[float] | np.ndarray,
                 on_arrival: Callable[[list[int]], None]) -> None:
        """Call ``on_arrival(indices)`` at each distinct time of ``times``.

        Items arriving together are passed together, in index order.
        """
        times = np.asarray(times)
        order = np.argsort(times, kind="stable")
        # Python scalars to group the batches (numpy scalars cost more per element);
        # the times waited for stay the array's own scalars, as they always were.
        sorted_times, indices = times[order].tolist(), order.tolist()

        def process() -> Any:
            k = 0
            while k < len(indices):
                t, first = times[indices[k]], sorted_times[k]
                batch = []
                while k < len(indices) and sorted_times[k] == first:
                    batch.append(indices[k])
                    k += 1
                if t > self.env.now:
                    yield self.env.timeout(t - self.env.now)
                on_arrival(batch)

        self.env.process(process())

    def availability(self, windows: Sequence[tuple[float, float]],
                     on_join: Callable[[], None], on_leave: Callable[[], None]) -> None:
        """Call ``on_join`` at the start and ``on_leave`` at the end of each window.

        ``windows`` are ``(start, end)`` pairs of one resource, sorted and
        disjoint; an infinite end means the resource stays.
        """

        def process() -> Any:
            for start, end in windows:
                if start > self.env.now:
                    yield self.env.timeout(start - self.env.now)
                on_join()
                if np.isinf(end):
                    return
                yield self.env.timeout(end - self.env.now)
                on_leave()

        self.env.process(process())

    def after(self, delay: float, action: Callable[[], None]) -> None:
        """Call ``action`` ``delay`` time units from now (no process needed)."""
        self.env.timeout(delay).callbacks.append(lambda _event: action())

    def run(self, until: float | None = None) -> None:
        """Run until no event is left (or until ``until``)."""
        self.env.run(until=until)

    def run_until(self, done: simpy.Event) -> bool:
        """Run until ``done`` is triggered, or no event is left; return whether it was."""
        while not done.triggered and self.env.peek() != float("inf"):
            self.env.step()
        return done.triggered
