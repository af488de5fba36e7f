"""The random draws that decide each result of a ``pull`` run, replayable from its schedule.

One definition, used by the simulator (:mod:`hybridsched.heuristics.pull.simulation`) to draw and
by the
checker (:mod:`.checker`) to replay, so the two cannot drift apart.

**Which draw a task gets.** Host ``h`` owns the stream
``numpy.random.default_rng([seed, h])`` (``seed``: the instance's
:attr:`Behaviour.seed`). The ``k``-th task the host starts (``k = 0, 1,
...``) takes the ``k``-th row ``(u0, u1, u2)`` of uniforms of that stream,
whatever becomes of the task later (lost when the host leaves, cancelled at
the end of the run). A host runs one task at a time, so its tasks in start
order *are* its draws in order: the schedule alone identifies every draw
(tasks of one host that start together, which only zero-length tasks can,
count in the order of the schedule). Every method meets the same sequence
of behaviours on a host.

**What a row decides** (:func:`realise`):

- never returned if ``u0 < never`` (delay factor 1);
- otherwise delayed if ``u0 < never + delayed``, by the factor
  ``1 + (max_delay - 1) * (1 - u1)`` in ``(1, max_delay]``;
- otherwise in time (delay factor 1);
- a returned result is wrong if ``u2 < error`` (the host's error
  probability), otherwise correct.

Drawing rows in blocks gives the same rows as drawing them one at a time
(a stream yields its doubles in sequence), so the simulator draws ahead in
blocks and the checker draws a host's rows in one call.
"""

from __future__ import annotations

import numpy as np

from hybridsched.pull.instance import Behaviour, Instance
from hybridsched.pull.solution import CORRECT, NEVER, WRONG

#: Uniforms per task (never/delayed, delay factor, wrong).
ROW = 3
#: First block of rows the simulator draws per host (then doubling, up to :data:`MAX_BLOCK`).
FIRST_BLOCK = 4
MAX_BLOCK = 1024


def stream(behaviour: Behaviour, host: int) -> np.random.Generator:
    """The seeded stream of ``host``'s draws."""
    return np.random.default_rng([behaviour.seed, host])


def realise(rows: np.ndarray, behaviour: Behaviour, error: float
            ) -> tuple[np.ndarray, np.ndarray]:
    """Delay factors and outcomes (``correct``, ``wrong``, ``never``) of ``rows`` of uniforms.

    ``rows`` has shape ``(n, 3)``; ``error`` is the host's error probability.
    """
    u0, u1, u2 = rows[:, 0], rows[:, 1], rows[:, 2]
    never = u0 < behaviour.never
    late = ~never & (u0 < behaviour.never + behaviour.delayed)
    delay = np.where(late, 1.0 + (behaviour.max_delay - 1.0) * (1.0 - u1), 1.0)
    outcome = np.where(never, NEVER, np.where(u2 < error, WRONG, CORRECT))
    return delay, outcome


def replay(instance: Instance, host: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Delay factors and outcomes of the first ``count`` tasks ``host`` starts."""
    rows = stream(instance.behaviour, host).random((count, ROW))
    return realise(rows, instance.behaviour, float(instance.error[host]))


class Draws:
    """The simulator's side: the next task's delay and outcome, host by host."""

    def __init__(self, instance: Instance) -> None:
        self._instance = instance
        self._streams: dict[int, np.random.Generator] = {}
        self._blocks: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._next: dict[int, int] = {}

    def next(self, host: int) -> tuple[float, int]:
        """Delay factor and outcome of the next task ``host`` starts."""
        k = self._next.get(host, 0)
        block = self._blocks.get(host)
        if block is None or k == len(block[0]):
            size = FIRST_BLOCK if block is None else min(2 * len(block[0]), MAX_BLOCK)
            rng = self._streams.setdefault(host, stream(self._instance.behaviour, host))
            block = realise(rng.random((size, ROW)), self._instance.behaviour,
                            float(self._instance.error[host]))
            self._blocks[host] = block
            k = 0
        self._next[host] = k + 1
        return float(block[0][k]), int(block[1][k])
