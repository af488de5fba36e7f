"""Instance of the bag-of-tasks-on-sites problem (Duan, Prodan and Li 2014).

K bags of tasks (BoTs) run on M sites. BoT ``k`` holds ``tasks[k]`` identical,
independent tasks; site ``i`` has ``procs[i]`` identical processors and a
price ``price[i]`` per unit of time of useful computation (0 for private
sites). ``compute[k, i]`` is the computation time of one task of BoT ``k`` on
one processor of site ``i`` (the ETC matrix).

Optional communication (Eq. 2-3 of the paper): ``data[k, i]`` is the data
size of one task and ``bandwidth[k, i]`` the bandwidth allocated to one of
its transfers, so the effective time of a task is
``p[k, i] = max(compute[k, i], data[k, i] / bandwidth[k, i])``; while it runs
it uses ``data[k, i] / p[k, i]`` of the site's input bandwidth
``site_bandwidth[i]`` (Eq. 7). Optional storage (Eq. 8): a processor busy with
BoT ``k`` holds ``storage[k]`` units of the site's ``storage_limit[i]``.

BoTs may form a DAG (``edges`` of ``(pred, succ)`` BoT indices): a BoT may
start only when every task of every predecessor has finished.

Units are free (the paper uses seconds and dollars); only ratios matter.
Instances are immutable: arrays are read-only and derived arrays are computed
once, at construction, from read-only inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Relative tolerance when comparing times of a schedule.
TIME_TOL = 1e-9


def _frozen(values: Any, dtype: type) -> np.ndarray:
    array = np.array(values, dtype=dtype)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class Instance:
    """A validated, immutable bot-sites instance.

    Attributes
    ----------
    name:
        Instance name.
    bot_ids, site_ids:
        Identifiers of the K BoTs and the M sites (file order).
    tasks:
        ``(K,)`` number of tasks of each BoT (>= 1).
    procs:
        ``(M,)`` number of identical processors of each site (>= 1).
    price:
        ``(M,)`` price per time unit of computation (>= 0).
    compute:
        ``(K, M)`` computation time of one task (> 0).
    edges:
        ``(E, 2)`` DAG edges ``(pred, succ)`` as BoT indices.
    data, bandwidth:
        ``(K, M)`` data size per task and bandwidth per transfer, or ``None``.
    site_bandwidth:
        ``(M,)`` input bandwidth of each site, or ``None`` (unlimited).
    storage:
        ``(K,)`` storage held by a processor busy with the BoT, or ``None``.
    storage_limit:
        ``(M,)`` storage of each site, or ``None`` (unlimited).
    hard_limits:
        When true the checker reports bandwidth/storage excess as violations;
        otherwise they are only metrics (``bandwidth_ok``, ``storage_ok``),
        as in the paper's comparison where the greedy heuristics ignore them.
    reference:
        Recorded optimum or bounds, e.g. ``{"optimal_makespan": 23.0}``.
    provenance:
        Free-form description of where the instance comes from.
    p:
        ``(K, M)`` effective time of one task (derived, Eq. 2).
    """

    name: str
    bot_ids: tuple[str, ...]
    site_ids: tuple[str, ...]
    tasks: np.ndarray
    procs: np.ndarray
    price: np.ndarray
    compute: np.ndarray
    edges: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=int))
    data: np.ndarray | None = None
    bandwidth: np.ndarray | None = None
    site_bandwidth: np.ndarray | None = None
    storage: np.ndarray | None = None
    storage_limit: np.ndarray | None = None
    hard_limits: bool = False
    reference: dict[str, Any] | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    p: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "tasks", _frozen(self.tasks, np.int64))
        set_(self, "procs", _frozen(self.procs, np.int64))
        set_(self, "price", _frozen(self.price, float))
        set_(self, "compute", _frozen(np.reshape(self.compute, (len(self.tasks),
                                                                len(self.procs))), float))
        set_(self, "edges", _frozen(np.reshape(self.edges, (-1, 2)), np.int64))
        for name in ("data", "bandwidth", "site_bandwidth", "storage", "storage_limit"):
            value = getattr(self, name)
            if value is not None:
                set_(self, name, _frozen(value, float))
        effective = np.array(self.compute)
        if self.data is not None and self.bandwidth is not None:
            effective = np.maximum(effective, self.data / self.bandwidth)
        set_(self, "p", _frozen(effective, float))

    @property
    def n_bots(self) -> int:
        """Number of BoTs K."""
        return len(self.tasks)

    @property
    def n_sites(self) -> int:
        """Number of sites M."""
        return len(self.procs)

    @property
    def n_tasks(self) -> int:
        """Total number of tasks."""
        return int(self.tasks.sum())

    @property
    def n_procs(self) -> int:
        """Total number of processors."""
        return int(self.procs.sum())

    @property
    def proc_offset(self) -> np.ndarray:
        """``(M + 1,)`` global index of each site's first processor (and the total)."""
        return np.concatenate(([0], np.cumsum(self.procs)))

    @property
    def proc_site(self) -> np.ndarray:
        """``(N,)`` site of each processor, processors numbered site by site."""
        return np.repeat(np.arange(self.n_sites), self.procs)

    @property
    def cost_per_task(self) -> np.ndarray:
        """``(K, M)`` cost of one task: ``p[k, i] * price[i]`` (Eq. 6)."""
        return self.p * self.price[None, :]

    @property
    def rate(self) -> np.ndarray | None:
        """``(K, M)`` bandwidth used while a task runs, ``data / p`` (Eq. 7), or ``None``."""
        if self.data is None:
            return None
        return self.data / self.p

    @property
    def predecessors(self) -> tuple[tuple[int, ...], ...]:
        """Direct predecessors of each BoT."""
        preds: list[list[int]] = [[] for _ in range(self.n_bots)]
        for a, b in self.edges:
            preds[int(b)].append(int(a))
        return tuple(tuple(sorted(p)) for p in preds)

    @property
    def successors(self) -> tuple[tuple[int, ...], ...]:
        """Direct successors of each BoT."""
        succs: list[list[int]] = [[] for _ in range(self.n_bots)]
        for a, b in self.edges:
            succs[int(a)].append(int(b))
        return tuple(tuple(sorted(s)) for s in succs)

    def topological_order(self) -> list[int]:
        """BoTs in topological order, lowest index first among ready BoTs (Kahn)."""
        import heapq

        indeg = np.zeros(self.n_bots, dtype=int)
        for _, b in self.edges:
            indeg[b] += 1
        succs = self.successors
        heap = [k for k in range(self.n_bots) if indeg[k] == 0]
        heapq.heapify(heap)
        order: list[int] = []
        while heap:
            k = heapq.heappop(heap)
            order.append(k)
            for s in succs[k]:
                indeg[s] -= 1
                if indeg[s] == 0:
                    heapq.heappush(heap, s)
        return order

    @property
    def has_limits(self) -> bool:
        """Whether bandwidth or storage limits are given."""
        return (self.site_bandwidth is not None and self.data is not None) or (
            self.storage is not None and self.storage_limit is not None
        )
