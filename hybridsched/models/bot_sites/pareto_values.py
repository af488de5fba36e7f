"""Every makespan and every cost a bot-sites schedule can have, listed exactly.

The Pareto sweep of :mod:`hybridsched.models.bot_sites.milp_pareto` needs, next to a
front point's value, the achievable value closest to it, so that its strict
caps exclude that point by half the true gap, whatever the gap. Both
criteria are sums over a few groups of choices:

* without a DAG or hard limits, the makespan of a left-shifted schedule is
  the load of one processor, ``sum_k p[k, i] * a_k`` with
  ``0 <= a_k <= tasks[k]``; with a DAG or limits, a sum of task times along
  a chain, ``a[k, i] <= tasks[k]`` (:func:`makespan_values`, a superset);
* the cost (Eq. 6) is a sum of one composition cost per BoT
  (:func:`cost_values`).

:class:`ValueSet` stores such sum sets by meet in the middle (two sorted
halves), so that queries near a value stay cheap; beyond
:data:`ENUM_LIMIT` partial sums per half, the lists are not made (``None``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from hybridsched.bot_sites.instance import Instance

#: Most partial sums per half when enumerating achievable values.
ENUM_LIMIT = 2_000_000


def _half_sums(groups: Sequence[np.ndarray], limit: int) -> np.ndarray | None:
    """Sorted distinct ``sum_g v_g`` (one value per group), or ``None`` beyond ``limit``."""
    acc = np.zeros(1)
    for values in groups:
        if len(acc) * len(values) > limit:
            return None
        acc = np.unique(np.add.outer(acc, values).ravel())
    return acc


class ValueSet:
    """A finite set of numbers that contains every achievable value of one criterion.

    It is a union of sum sets ``{sum_g v_g}`` (one ``v_g`` from each group),
    each stored as two sorted halves (meet in the middle), so membership
    queries near a value cost ``O(|left| log |right|)``. Sums are computed in
    floating point: a returned value may differ from the exact one by a few
    ulps, far below :data:`hybridsched.models.bot_sites.milp_pareto.NOISE_REL`.
    """

    def __init__(self, halves: list[tuple[np.ndarray, np.ndarray]]):
        self.halves = halves

    @classmethod
    def of_sums(cls, sum_sets: Sequence[Sequence[np.ndarray]], limit: int = ENUM_LIMIT
                ) -> ValueSet | None:
        """The union of the sum sets of ``sum_sets`` (``None`` when too large)."""
        halves = []
        for groups in sum_sets:
            groups = sorted((np.unique(g) for g in groups), key=len, reverse=True)
            parts: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
            sizes = [0.0, 0.0]                 # log sizes of the two halves
            for g in groups:
                side = 0 if sizes[0] <= sizes[1] else 1
                parts[side].append(g)
                sizes[side] += math.log(max(len(g), 1))
            left, right = _half_sums(parts[0], limit), _half_sums(parts[1], limit)
            if left is None or right is None:
                return None
            if len(left) > len(right):
                left, right = right, left
            halves.append((left, right))
        return cls(halves)

    def below(self, value: float) -> float:
        """Largest member below ``value`` (``-inf`` if none)."""
        best = -math.inf
        for left, right in self.halves:
            j = np.searchsorted(right, value - left, side="left") - 1
            ok = j >= 0
            if ok.any():
                best = max(best, float((left[ok] + right[j[ok]]).max()))
        return best

    def above(self, value: float) -> float:
        """Smallest member above ``value`` (``+inf`` if none)."""
        best = math.inf
        for left, right in self.halves:
            j = np.searchsorted(right, value - left, side="right")
            ok = j < len(right)
            if ok.any():
                best = min(best, float((left[ok] + right[j[ok]]).min()))
        return best

    def any_in(self, lo: float, hi: float) -> bool:
        """Whether some member ``v`` has ``lo <= v < hi``."""
        if not lo < hi:
            return False
        for left, right in self.halves:
            j = np.searchsorted(right, lo - left, side="left")
            ok = j < len(right)
            if ok.any() and bool(np.any(left[ok] + right[j[ok]] < hi)):
                return True
        return False


def makespan_values(instance: Instance, limit: int = ENUM_LIMIT) -> ValueSet | None:
    """Every makespan a left-shifted schedule can have (a superset), or ``None`` if too many.

    Without a DAG or limits: one processor's load, ``sum_k p[k, i] a_k`` with
    ``0 <= a_k <= tasks[k]``, for some site ``i``. Otherwise every task starts
    at 0 or when another one ends (its processor's previous task, a
    predecessor BoT's task, or one releasing bandwidth or storage), so the
    makespan is the length of a chain of distinct tasks:
    ``sum_k sum_i p[k, i] a_ki`` with ``sum_i a_ki <= tasks[k]``.
    """
    p, tasks = instance.p, instance.tasks
    usable = np.isfinite(p)                 # a task of infinite time can never run there
    if len(instance.edges) == 0 and not (instance.hard_limits and instance.has_limits):
        sets = [[p[k, i] * np.arange(int(tasks[k]) + 1, dtype=float)
                 for k in range(instance.n_bots) if usable[k, i]]
                for i in range(instance.n_sites)]
        return ValueSet.of_sums(sets, limit)
    groups = []
    for k in range(instance.n_bots):        # chain tasks of BoT k: at most tasks[k] of them
        values = _composition_costs(np.append(p[k][usable[k]], 0.0), int(tasks[k]), limit)
        if values is None:
            return None
        groups.append(values)
    return ValueSet.of_sums([groups], limit)


def _composition_costs(unit: np.ndarray, tasks: int, limit: int) -> np.ndarray | None:
    """Distinct ``sum_j n_j unit_j`` over ``n >= 0`` with ``sum_j n_j = tasks``."""
    unit = np.unique(unit)
    if math.comb(tasks + len(unit) - 1, len(unit) - 1) > limit:
        return None
    n = np.arange(tasks + 1)
    values, used = np.zeros(1), np.zeros(1, dtype=np.int64)
    for u in unit[1:]:
        grid_v = np.add.outer(values, n * u).ravel()
        grid_u = np.add.outer(used, n).ravel()
        keep = grid_u <= tasks
        values, used = grid_v[keep], grid_u[keep]
    return np.unique(values + (tasks - used) * unit[0])


def cost_values(instance: Instance, limit: int = ENUM_LIMIT) -> ValueSet | None:
    """Every cost (Eq. 6) a schedule can have, or ``None`` if too many to list.

    The cost depends only on how many tasks of each BoT run on each site: a
    sum over BoTs of ``sum_i cost_per_task[k, i] n_ki`` with
    ``sum_i n_ki = tasks[k]``.
    """
    unit = instance.cost_per_task
    usable = np.isfinite(instance.p)
    groups = []
    for k in range(instance.n_bots):
        if not usable[k].any():
            return None
        values = _composition_costs(unit[k][usable[k]], int(instance.tasks[k]), limit)
        if values is None:
            return None
        groups.append(values)
    return ValueSet.of_sums([groups], limit)
