"""How large the hybrid-deadline exact models would be, counted from the instance before building.

Both models have a placement per (task, core) pair, and their VM-slot cores
are sized by the warm start's cost, so a few thousand tasks already make
millions of pairs (5,000 generated tasks, warm start $170: about 16 million
pairs, tens of GiB). Building such a model ends in ``MemoryError`` or the
kernel's kill, and even a model that fits can take longer to build than the
whole time limit. So each backend counts its model here first, with the
same rules its builder uses (vectorised: milliseconds at 200,000 tasks), and
:func:`over_memory` and :func:`over_time` say in one line why it must not be
built: over the memory budget (:func:`hybridsched.memory.require`), or more
build time than the time budget has left.

The constants are measured (see each one's comment); they are averages over
the builds measured, and the estimates round up.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from hybridsched.budget import TimeBudget
from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.memory import ModelTooLarge, require

#: Deadline rows of a core of the HiGHS model switch to cumulative-load variables
#: when their prefix sums would hold more than this many terms per task of the core
#: (:mod:`~hybridsched.models.hybrid_deadline.milp_build`; stated here so that the
#: model is counted without importing Pyomo).
CHAIN_FROM = 40

#: Peak resident bytes per (task, core) pair of the Pyomo model and HiGHS's copy of it,
#: all rows included, and per row term beyond the pairs. Measured with
#: ``benchmarks/bench_exact_scale.py --calibrate`` (generated instances, seed 1): the
#: build alone grows RSS by 1.3 KB per pair at 150-600 tasks (17k-51k pairs; the
#: session before: 1.6-1.7 KB at 2.08M pairs, 3.4 GB), and the peak of a whole run is
#: about three times the build's growth (600 tasks: 320 MB peak, 65 MB build).
MILP_BYTES_PER_PAIR = 4_000.0
MILP_BYTES_PER_NONZERO = 300.0
#: Build seconds per pair and per row term (least squares over the same builds:
#: 17 us and 1.7 us; 0.35-1.2 s for 17k-51k pairs).
MILP_SECONDS_PER_PAIR = 20e-6
MILP_SECONDS_PER_NONZERO = 2e-6
#: Seconds HiGHS needs to receive the model per second of building (as
#: :data:`hybridsched.models.hybrid_deadline.milp.TRANSLATE_PER_BUILD_S`, measured 1.4-5).
MILP_TRANSLATE_PER_BUILD = 3.0

#: The same for the CP-SAT model (a Boolean, an integer start, an optional interval and a
#: billing row per pair; prefix energy rows, cliques and symmetry chains on top).
#: Measured alike: the build grows RSS by 2.7 KB per pair plus 18 B per energy-row term
#: (fit over 150-600 tasks, 5.6k-50k pairs, 0.17M-5.3M terms), and a whole run peaks
#: at about three times that (600 tasks: 0.98 GB peak).
CPSAT_BYTES_PER_PAIR = 9_000.0
CPSAT_BYTES_PER_NONZERO = 80.0
#: Build seconds per pair and per term (fit: 53 us and 1.2 us; 2.2 s at 300 tasks, 8.9 s
#: at 600).
CPSAT_SECONDS_PER_PAIR = 60e-6
CPSAT_SECONDS_PER_NONZERO = 1.5e-6
#: CP-SAT copies and presolves the model before it searches: seconds per build second.
CPSAT_PRESOLVE_PER_BUILD = 1.0


@dataclass(frozen=True)
class ModelSize:
    """A model's size, counted before it is built.

    Attributes
    ----------
    what:
        The model's name in messages ("the HiGHS BNP model").
    pairs:
        (task, core) placements.
    rows:
        Constraints (an upper bound where the builder drops rows that cannot bind).
    nonzeros:
        Terms of those rows.
    bytes:
        Estimated resident memory of the built model.
    seconds:
        Estimated seconds to build it and hand it to the solver.
    """

    what: str
    pairs: int
    rows: int
    nonzeros: int
    bytes: float
    seconds: float

    def describe(self) -> str:
        """``"16.2M (task, core) pairs"``, for messages."""
        return f"{_count(self.pairs)} (task, core) pairs"


def _count(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1e6:.1f}M"
    if n >= 10_000:
        return f"{n / 1e3:.0f}k"
    return str(n)


def floor_ratio(value: float, price: float) -> int:
    """``floor(value / price)``, rounded generously (as the builders do)."""
    return math.floor(value / price * (1 + 1e-9) + 1e-9)


def slot_counts(instance: Instance, upper_bound: float | None) -> list[int]:
    """VM slots per type that cannot cut off a solution costing at most ``upper_bound``.

    A nonempty VM holds a task that fits alone on its type; with a cost at
    most ``UB``, at most ``floor(UB / price)`` VMs of a type bill an hour or
    more, and a VM billed 0 hours holds only tasks of run time within
    ``TIME_TOL`` (at most one such VM per such task is ever useful). The
    HiGHS builder sizes its slots with it, and the size estimate counts them
    with it before any model is built (the CP-SAT builder's rule differs only
    in integer rounding at the boundary).
    """
    counts = []
    for vm in instance.vm_types:
        n = int(np.count_nonzero(instance.fits_alone(vm.capacity)))
        if upper_bound is not None and vm.price > 0:
            free = int(np.count_nonzero(instance.work / vm.capacity <= TIME_TOL))
            n = min(n, floor_ratio(upper_bound, vm.price) + free)
        if instance.max_vms is not None:
            n = min(n, instance.max_vms)
        counts.append(max(0, n) if vm.cores > 0 else 0)
    return counts


def _deadline_terms(instance: Instance, capacity: float, chain_from: int | None) -> tuple[int, int]:
    """Deadline rows and their terms on one core of ``capacity``, as the builders make them.

    The rows that can bind (work due by ``D`` exceeds ``D + TIME_TOL``) are
    prefix sums; with ``chain_from`` (the MILP), a core whose prefixes would
    hold more than ``chain_from`` terms per task switches to one
    cumulative-load variable per row (terms: the tasks, plus two per row).
    """
    fits = np.flatnonzero(instance.fits_alone(capacity))
    if len(fits) == 0:
        return 0, 0
    deadline = instance.deadline[fits]
    order = np.lexsort((fits, deadline))
    d = deadline[order]
    total = np.cumsum(instance.work[fits][order] / capacity)
    last = np.ones(len(d), dtype=bool)
    last[:-1] = d[1:] > d[:-1]
    binding = np.flatnonzero(last & (total > d + TIME_TOL))
    prefix_terms = int((binding + 1).sum())
    if chain_from is not None and prefix_terms > chain_from * (len(fits) + 1):
        return len(binding), int(binding[-1] + 1) + 2 * len(binding)
    return len(binding), prefix_terms


def _cores(instance: Instance, upper_bound: float | None) -> tuple[Counter[float], list[int]]:
    """Model cores per capacity (PM cores and slot cores) and the slot count per type."""
    capacities: Counter[float] = Counter()
    for pm in instance.pms:
        capacities[pm.capacity] += pm.cores
    counts = slot_counts(instance, upper_bound)
    for vm, count in zip(instance.vm_types, counts, strict=True):
        capacities[vm.capacity] += count * vm.cores
    return capacities, counts


def milp_size(instance: Instance, upper_bound: float | None) -> ModelSize:
    """Count the HiGHS model of :mod:`~hybridsched.models.hybrid_deadline.milp_build`.

    ``upper_bound``: the warm start's cost (sizes the slots), or ``None``.
    """
    capacities, counts = _cores(instance, upper_bound)
    fitting = {c: int(np.count_nonzero(instance.fits_alone(c))) for c in capacities}
    deadline = {c: _deadline_terms(instance, c, CHAIN_FROM) for c in capacities}
    pairs = sum(k * fitting[c] for c, k in capacities.items())
    rows = instance.n_tasks + sum(k * deadline[c][0] for c, k in capacities.items())
    nonzeros = pairs + sum(k * deadline[c][1] for c, k in capacities.items())
    for vm, count in zip(instance.vm_types, counts, strict=True):
        if count == 0:
            continue
        n = fitting[vm.capacity]
        hours = int(np.count_nonzero(np.ceil(instance.work / vm.capacity - 4 * TIME_TOL) >= 1))
        # Lease rows (one per core), task-hours rows (one per task that bills an hour),
        # and the VM-limit link when there is one.
        rows += count * (vm.cores + hours + (instance.max_vms is not None))
        nonzeros += count * (vm.cores * (n + 1) + hours * (vm.cores + 1)
                             + (vm.cores * n + 1 if instance.max_vms is not None else 0))
    build = MILP_SECONDS_PER_PAIR * pairs + MILP_SECONDS_PER_NONZERO * (nonzeros - pairs)
    return ModelSize("the HiGHS BNP model", pairs, rows, nonzeros,
                     MILP_BYTES_PER_PAIR * pairs + MILP_BYTES_PER_NONZERO * (nonzeros - pairs),
                     build * (1 + MILP_TRANSLATE_PER_BUILD))


def cpsat_size(instance: Instance, upper_bound: float | None) -> ModelSize:
    """Count the CP-SAT model of :mod:`~hybridsched.models.hybrid_deadline.cpsat_build`.

    ``upper_bound``: the warm start's cost (sizes the slots), or ``None``.
    Energy rows are prefix sums (no chaining), the symmetry chains add a
    variable per (task, grouped core).
    """
    capacities, counts = _cores(instance, upper_bound)
    fitting = {c: int(np.count_nonzero(instance.fits_alone(c))) for c in capacities}
    deadline = {c: _deadline_terms(instance, c, None) for c in capacities}
    pairs = sum(k * fitting[c] for c, k in capacities.items())
    rows = instance.n_tasks + pairs + sum(k * deadline[c][0] for c, k in capacities.items())
    nonzeros = 2 * pairs + sum(k * deadline[c][1] for c, k in capacities.items())
    for vm, count in zip(instance.vm_types, counts, strict=True):
        n = fitting[vm.capacity]
        rows += count * (vm.cores + n)  # billing per core, task-hours per fitting task
        nonzeros += count * (vm.cores * n + n * (vm.cores + 1))
    build = CPSAT_SECONDS_PER_PAIR * pairs + CPSAT_SECONDS_PER_NONZERO * (nonzeros - 2 * pairs)
    return ModelSize("the CP-SAT BNP model", pairs, rows, nonzeros,
                     CPSAT_BYTES_PER_PAIR * pairs
                     + CPSAT_BYTES_PER_NONZERO * (nonzeros - 2 * pairs),
                     build * (1 + CPSAT_PRESOLVE_PER_BUILD))


def over_memory(size: ModelSize) -> str | None:
    """Why a model of ``size`` does not fit the memory budget (one line), or ``None``."""
    try:
        require(f"{size.what} ({size.describe()})", size.bytes)
    except ModelTooLarge as exc:
        return str(exc)
    return None


def over_time(size: ModelSize, budget: TimeBudget) -> str | None:
    """Why a model of ``size`` cannot be built and handed over in time (one line), or ``None``."""
    remaining = budget.remaining()
    if remaining is not None and size.seconds > remaining:
        return (f"{size.what} ({size.describe()}) would take about {size.seconds:.1f} s to "
                f"build and hand to the solver, more than the {remaining:.1f} s left of the "
                "time limit")
    return None


def refusal(size: ModelSize, budget: TimeBudget) -> tuple[str, bool] | None:
    """Why a model of ``size`` must not be built, and whether time (not memory) decided it.

    ``None`` when it fits both budgets (:func:`over_memory`, :func:`over_time`).
    """
    reason = over_memory(size)
    if reason is not None:
        return reason, False
    reason = over_time(size, budget)
    return None if reason is None else (reason, True)
