"""Host reputation from its last results, and the Expected Error Impact (Table 1).

**Reputation** (after Arenas et al., as the paper uses it; the formula is
ours, the paper gives only its properties). Over the host's last
:data:`HISTORY` verified results ``k = 1..m`` (1 the most recent), each of
size ``noi_k`` and correctness ``ok_k`` (1 or 0), with recency weight
``lambda_k = HISTORY + 1 - k`` (5, 4, 3, 2, 1)::

    R = sum_k lambda_k * noi_k * ok_k / sum_k lambda_k * noi_k

so a wrong result on a large task lowers ``R`` more than one on a small
task, and recent results weigh more. A host without results has
``R = INITIAL_REPUTATION`` (1: trusted until a result says otherwise).

**EEI** (Algorithm 1, Table 1): with the relative utility
``U = noi / NOI_max`` (``NOI_max`` the largest unit of the workload),
``EEI = U * factor[band(R), band(U)]``, the bands being ``[0, 0.5]``,
``(0.5, 0.7]`` and ``(0.7, 1]`` (a reputation of exactly 0 joins the first
band, which Table 1 writes ``(0, 0.5]``).
"""

from __future__ import annotations

from collections import deque

import numpy as np

#: Results a reputation is computed from (the paper: "a maximum of 5").
HISTORY = 5
#: Reputation of a host that has returned no result yet.
INITIAL_REPUTATION = 1.0
#: Upper edges of the bands of Table 1 (reputation and relative utility alike).
BAND_EDGES = (0.5, 0.7)
#: ``FACTORS[reputation band][utility band]``: Table 1's multipliers of ``U``.
FACTORS = np.array([[2.0, 4.0, 8.0],
                    [0.5, 2.0, 4.0],
                    [0.25, 0.5, 1.0]])


class Reputation:
    """The last :data:`HISTORY` results of every host, and their reputation."""

    def __init__(self, n_hosts: int) -> None:
        self._history = [deque(maxlen=HISTORY) for _ in range(n_hosts)]
        self._weights = np.arange(HISTORY, 0, -1, dtype=float)

    def record(self, host: int, noi: float, correct: bool) -> None:
        """Add one verified result of ``host``."""
        self._history[host].appendleft((float(noi), 1.0 if correct else 0.0))

    def of(self, host: int) -> float:
        """The reputation ``R`` of ``host`` in ``[0, 1]``."""
        history = self._history[host]
        if not history:
            return INITIAL_REPUTATION
        noi, ok = np.array(history).T
        weight = self._weights[:len(history)] * noi
        return float(weight @ ok / weight.sum())


def band(values: np.ndarray | float) -> np.ndarray:
    """Band index 0, 1 or 2 of Table 1 for values in ``[0, 1]``."""
    return np.searchsorted(np.asarray(BAND_EDGES), values, side="left")


def eei(noi: np.ndarray, noi_max: float, reputation: float) -> np.ndarray:
    """Expected Error Impact of tasks of sizes ``noi`` on a host of ``reputation``."""
    utility = np.asarray(noi, dtype=float) / noi_max
    return utility * FACTORS[band(reputation), band(utility)]
