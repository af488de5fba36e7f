"""Check a recorded strong bound of the rent cost in exact arithmetic, without any solver.

A certificate of :func:`hybridsched.models.hybrid_deadline.bound.strong_bound`
is either the cheap closed-form bound (empty proof; recomputed by
:func:`~hybridsched.hybrid_deadline.bounds.lower_bound`) or dual values of
the energetic LP (:mod:`hybridsched.hybrid_deadline.bound_rows`), keyed by
row. :func:`verify_bound` rebuilds each keyed row from the instance's data
with :class:`~fractions.Fraction`, takes the weak-duality bound of the dual
vector (:func:`~hybridsched.bound_proof.weak_duality_bound`), lowers it by
:data:`SAFETY` and raises it to the next achievable rent cost (every cost is
``sum_t price_t H_t`` with whole hours ``H_t``), all exactly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from hybridsched.bound_proof import (
    BoundCertificate,
    BoundProofError,
    Row,
    exact,
    floor_float,
    weak_duality_bound,
)
from hybridsched.hybrid_deadline.bound_rows import (
    Layout,
    due_exact,
    energy_exact,
    hour_overlap_exact,
    layout,
    need_hours,
    run_exact,
)
from hybridsched.hybrid_deadline.bounds import lower_bound
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.timeline import EXACT_TOL, decimal

#: Name of the proof kind this module checks.
KIND = "energetic-lp"
#: Relative margin taken off the exact LP bound before rounding it up to a cost:
#: a guard against a slip in the relaxation's tolerance terms, not against rounding
#: (the arithmetic is exact).
SAFETY = Fraction(1, 10**9)
#: Relative excess of a claimed value over the recomputed one that is refused.
CLAIM_RTOL = 1e-9
#: Largest number of hour combinations :func:`round_up_exact` enumerates.
_MAX_COMBINATIONS = 200_000


def verify_bound(instance: Instance, certificate: BoundCertificate) -> float:
    """The value ``certificate`` proves for ``instance`` (``BoundProofError`` if below its claim).

    Returns the recomputed value (the one to trust): the larger of the cheap
    bound and, for an LP proof, the rounded weak-duality bound of its duals.
    """
    proof = certificate.proof
    value = lower_bound(instance)
    if proof:
        if proof.get("kind") != KIND:
            raise BoundProofError(f"unknown proof kind {proof.get('kind')!r} (expected {KIND!r})")
        value = max(value, floor_float(proved_cost(instance, proof.get("duals"))))
    claimed = certificate.value
    if claimed > value + CLAIM_RTOL * max(1.0, abs(value)):
        raise BoundProofError(f"the proof gives {value!r}, less than the claimed {claimed!r}")
    return value


def proved_cost(instance: Instance, duals: Any) -> Fraction:
    """The smallest achievable rent cost at least the LP bound that ``duals`` prove (exact)."""
    lp = dual_bound(instance, duals)
    if lp <= 0:
        return Fraction(0)
    prices = [decimal(instance.vm_types[cls.type_index].price)
              for cls in layout(instance).classes if cls.kind == "vm"]
    return round_up_exact(lp * (1 - SAFETY), prices)


def dual_bound(instance: Instance, duals: Any) -> Fraction:
    """The exact weak-duality bound of the energetic LP for a keyed dual vector (0 if none)."""
    if not isinstance(duals, list):
        raise BoundProofError("proof field 'duals' must be a list of [key..., value] entries")
    lay = layout(instance)
    index = _Index(instance, lay)
    rows, values = [], []
    for entry in duals:
        if not isinstance(entry, list) or len(entry) < 2:
            raise BoundProofError(f"bad dual entry {entry!r}: expected [key..., value]")
        value = entry[-1]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BoundProofError(f"bad dual value in {entry!r}")
        rows.append(build_row(instance, index, entry[:-1]))
        values.append(value)
    costs: list[Fraction] = [Fraction(0)] * lay.n_columns
    for position, k in enumerate(lay.vm_classes):
        price = decimal(lay.classes[k].price)
        for h in range(1, lay.hours + 1):
            costs[lay.z_column(position, h)] = price
    lower = [0] * lay.n_columns
    upper = [1] * lay.n_pairs + [lay.z_upper] * (lay.n_columns - lay.n_pairs)
    bound = weak_duality_bound(costs, lower, upper, rows, values)
    return Fraction(0) if bound is None else max(Fraction(0), bound)


class _Index:
    """The layout with each pair's exact run time and deadline, computed once."""

    def __init__(self, instance: Instance, lay: Layout) -> None:
        self.lay = lay
        self.pair = {(int(i), int(k)): j for j, (i, k)
                     in enumerate(zip(lay.pair_task, lay.pair_class, strict=True))}
        self.tasks = {}
        for (i, _), j in self.pair.items():
            self.tasks.setdefault(i, []).append(j)
        self.exact = [(run_exact(instance, int(i), lay.classes[k]), due_exact(instance, int(i)))
                      for i, k in zip(lay.pair_task, lay.pair_class, strict=True)]
        self.of_class = {k: [j for j in range(lay.n_pairs) if lay.pair_class[j] == k]
                         for k in range(len(lay.classes))}


def build_row(instance: Instance, index: _Index, key: Sequence[Any]) -> Row:
    """The exact row of the energetic LP named by ``key`` (see :mod:`.bound_rows`)."""
    lay = index.lay
    if not key or not isinstance(key[0], str):
        raise BoundProofError(f"bad row key {list(key)!r}")
    tag, args = key[0], list(key[1:])
    try:
        if tag == "a":
            (i,) = _ints(args, 1)
            columns = index.tasks.get(i, [])
            if not columns:
                raise BoundProofError(f"row {list(key)!r}: task {i} has no eligible class")
            return Row({j: 1 for j in columns}, ">=", 1)
        if tag == "m":
            k, h = _ints(args, 2)
            position = _vm_position(lay, k)
            if not 1 <= h < lay.hours:
                raise BoundProofError(f"row {list(key)!r}: hour out of range")
            return Row({lay.z_column(position, h): 1, lay.z_column(position, h + 1): -1}, ">=", 0)
        if tag == "n":
            i, k = _ints(args, 2)
            position = _vm_position(lay, k)
            j = _pair(index, i, k)
            hours = need_hours(index.exact[j][0])
            if not 1 <= hours <= lay.hours:
                raise BoundProofError(f"row {list(key)!r}: task needs no billed hour")
            return Row({lay.z_column(position, hours): 1, j: -1}, ">=", 0)
        if tag == "M":
            if instance.max_vms is None or args:
                raise BoundProofError(f"row {list(key)!r}: no VM limit to use")
            return Row({lay.z_column(p, 1): 1 for p in range(len(lay.vm_classes))}, "<=",
                       instance.max_vms)
        if tag in ("p", "v"):
            return _window(index, tag, args)
    except (TypeError, ValueError) as error:
        raise BoundProofError(f"bad row key {list(key)!r}: {error}") from None
    raise BoundProofError(f"unknown row tag {tag!r}")


def _window(index: _Index, tag: str, args: list[Any]) -> Row:
    """The energetic row of a class over a window ``[a, b]`` (floats read exactly)."""
    lay = index.lay
    if len(args) != 3 or isinstance(args[0], bool) or not isinstance(args[0], int):
        raise BoundProofError(f"window key {[tag, *args]!r}: expected class, a, b")
    k = args[0]
    a, b = exact(_number(args[1])), exact(_number(args[2]))
    if not 0 <= k < len(lay.classes) or (lay.classes[k].kind == "vm") != (tag == "v"):
        raise BoundProofError(f"window key {[tag, *args]!r}: no such class")
    if not b > a:
        raise BoundProofError(f"window key {[tag, *args]!r}: empty window")
    cls = lay.classes[k]
    coefficients: dict[int, Fraction | int] = {}
    for j in index.of_class[k]:
        run, due = index.exact[j]
        if run <= a:  # ends before the window if it starts at 0: no forced overlap
            continue
        e = energy_exact(run, due, a, b)
        if e:
            coefficients[j] = e
    if cls.kind == "pm":
        return Row(coefficients, "<=", cls.cores * (b - a))
    position = lay.vm_classes.index(k)
    for h in range(1, lay.hours + 1):
        overlap = hour_overlap_exact(h, a, b)
        if overlap:
            coefficients[lay.z_column(position, h)] = -cls.cores * overlap
    return Row(coefficients, "<=", cls.cores * lay.z_upper * EXACT_TOL)


def round_up_exact(value: Fraction, prices: list[Fraction]) -> Fraction:
    """The smallest ``sum_t prices[t] H_t >= value`` over whole hours ``H_t >= 0`` (exact).

    With many types and a large value the enumeration is skipped and
    ``value`` returned unchanged (still a bound, only not raised).
    """
    prices = sorted({p for p in prices if p > 0}, reverse=True)
    if value <= 0 or not prices:
        return max(Fraction(0), value)
    cheapest = prices[-1]
    ranges = [range(math.floor(value / p) + 2) for p in prices[:-1]]
    if math.prod(len(r) for r in ranges) > _MAX_COMBINATIONS:
        return value
    best: Fraction | None = None
    for hours in itertools.product(*ranges):
        partial = sum((p * h for p, h in zip(prices, hours, strict=False)), Fraction(0))
        rest = max(0, math.ceil((value - partial) / cheapest))
        total = partial + cheapest * rest
        best = total if best is None or total < best else best
    assert best is not None
    return best


def _ints(args: list[Any], count: int) -> list[int]:
    if len(args) != count or any(isinstance(v, bool) or not isinstance(v, int) for v in args):
        raise ValueError(f"expected {count} integers")
    return args


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BoundProofError(f"window end {value!r} is not a finite number")
    return float(value)


def _pair(index: _Index, i: int, k: int) -> int:
    if (i, k) not in index.pair:
        raise BoundProofError(f"task {i} is not eligible for class {k}")
    return index.pair[(i, k)]


def _vm_position(lay: Layout, k: int) -> int:
    if k not in lay.vm_classes:
        raise BoundProofError(f"class {k} is not a VM type")
    return lay.vm_classes.index(k)
