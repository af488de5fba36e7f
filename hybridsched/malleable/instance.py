"""The frozen domain model of the ``malleable`` family: jobs, resources, agent tree.

Times are whole minutes. A job arrives at ``arrival``, should end by its
absolute ``deadline`` and spend at most ``budget`` cost units; ``size`` is
its work in processor-minutes at performance 1. Resources are of three
types (:class:`ResourceType`):

``dedicated``
    A cluster of ``cpus`` processors, free of charge.
``allocated``
    A cluster of ``cpus`` processors rented at ``price`` per processor-minute.
``cloud``
    Up to ``max_vms`` VMs of ``cpus`` processors each. ``price`` is the spot
    price of one VM-hour; the first ``spot_vms`` VMs of any clock hour are
    billed at it, the rest at ``on_demand_price`` (see
    :mod:`hybridsched.malleable.billing`).

Processors are numbered from 0 on each resource; on a cloud, processor ``p``
belongs to VM ``p // cpus``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np


class ResourceType(StrEnum):
    """The three kinds of resource of the paper (Section II)."""

    DEDICATED = "dedicated"
    ALLOCATED = "allocated"
    CLOUD = "cloud"


@dataclass(frozen=True)
class Resource:
    """One resource (a leaf of the agent tree, run by its local scheduler).

    Attributes
    ----------
    id, type:
        Identifier and :class:`ResourceType`.
    cpus:
        Processors of a cluster, or processors per VM on a cloud.
    performance:
        Work per processor-minute (1 in the paper's homogeneous setup).
    price:
        Per processor-minute (allocated), per spot VM-hour (cloud), 0 (dedicated).
    max_vms, spot_vms, on_demand_price:
        Cloud only: VM limit, VMs per clock hour at the spot price (default:
        all of them), and the price of any further VM-hour (default: the spot
        price).
    """

    id: str
    type: ResourceType
    cpus: int
    performance: float = 1.0
    price: float = 0.0
    max_vms: int = 0
    spot_vms: int = None  # type: ignore[assignment]  # None: max_vms (set after init)
    on_demand_price: float = None  # type: ignore[assignment]  # None: price

    def __post_init__(self) -> None:
        if self.spot_vms is None:
            object.__setattr__(self, "spot_vms", self.max_vms)
        if self.on_demand_price is None:
            object.__setattr__(self, "on_demand_price", self.price)

    @property
    def is_cloud(self) -> bool:
        """Whether this resource rents VMs by the hour."""
        return self.type is ResourceType.CLOUD

    @property
    def processors(self) -> int:
        """Number of processor indices a schedule may use on this resource."""
        return self.cpus * self.max_vms if self.is_cloud else self.cpus

    @property
    def largest_width(self) -> int:
        """Most processors one job can use here at once."""
        return self.processors


@dataclass(frozen=True)
class AgentTree:
    """The hierarchy of scheduling agents; leaves are resources (by index).

    ``edges`` are ``(parent, child)`` node names; ``leaves`` maps a leaf node
    name to its resource index. The root is the only node without a parent.
    Validated by :func:`hybridsched.malleable.tree_config.validate_tree`.
    """

    root: str
    edges: tuple[tuple[str, str], ...]
    leaves: tuple[tuple[str, int], ...]

    def children(self) -> dict[str, list[str]]:
        """Children of every node, in edge order."""
        out: dict[str, list[str]] = {}
        for parent, child in self.edges:
            out.setdefault(parent, []).append(child)
        return out


@dataclass(frozen=True, eq=False)
class Instance:
    """A workload (jobs with arrival times) and a platform (resources, agent tree).

    Job attributes are numpy arrays in job order; ``tree`` is ``None`` when
    the file gives none (the tree scheduler then uses one agent per resource
    type, see :func:`hybridsched.malleable.tree_config.default_tree`).
    """

    name: str
    job_ids: tuple[str, ...]
    size: np.ndarray
    priority: np.ndarray
    deadline: np.ndarray
    budget: np.ndarray
    arrival: np.ndarray
    serial_fraction: np.ndarray
    resources: tuple[Resource, ...]
    tree: AgentTree | None = None
    reference: dict[str, Any] | None = None
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def n_jobs(self) -> int:
        """Number of jobs."""
        return len(self.job_ids)

    @property
    def n_resources(self) -> int:
        """Number of resources."""
        return len(self.resources)

    def resource_index(self) -> dict[str, int]:
        """Resource id to index."""
        return {r.id: i for i, r in enumerate(self.resources)}
