"""The real timeline of a hybrid-deadline schedule, judged in exact arithmetic.

This is the family's one definition of feasibility (the checker and both
exact models share it):

* Every number is the decimal its file holds: the shortest decimal text of
  its binary64 value (:func:`decimal`), and the tolerance ``TIME_TOL`` is
  exactly 10^-9 h.
* A core runs its tasks one at a time, in the order of their stated starts.
  A task's *real* start is the real end of the task before it on the core
  (0 for the first task) when its stated start lies within ``TIME_TOL`` of
  that end (rounding: the task runs right after it), else its stated start
  (an idle gap, or an overlap if the stated start is earlier, which is a
  violation); its *real* end is its real start plus ``work / capacity``.
  Stated finishes are never trusted: they are claims, compared with the real
  ends (:data:`FINISH_RTOL`).
* A task must really end by its deadline plus ``TIME_TOL``.
* A VM is billed ``ceil(lease - TIME_TOL)`` hours, ``lease`` being the
  latest real end on it (0 hours when ``lease <= TIME_TOL``).

So ``TIME_TOL`` is granted once per deadline and once per hour boundary,
never per task: n tasks on one core hold exactly the work that fits in
``D + TIME_TOL`` hours, whatever n, and the rounding of the stated times
(which drift from the exact sums as binary64 adds them up) neither helps
nor hurts a schedule.

*Speed.* Real ends are first computed in binary64 with a bound on their
rounding error. A schedule built back to back in binary64 (each stated
start equal to the stated finish before it, the first 0, each stated finish
equal to ``start + work / capacity``) has its stated finishes as real ends.
A comparison whose outcome the error bound leaves open, and every core that
is not back to back, are recomputed with
:class:`fractions.Fraction`: exact, and rare.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.solution import Solution

#: ``TIME_TOL`` as the exact number the rules use.
EXACT_TOL = Fraction(1, 10**9)
assert float(EXACT_TOL) == TIME_TOL
#: A stated finish may differ from the real end by this much, relative (floor 1 h).
FINISH_RTOL = 1e-9
#: Unit roundoff of binary64.
_U = 2.0**-53


def decimal(value: float) -> Fraction:
    """A number as its file holds it: the shortest decimal text of its binary64 value."""
    return Fraction(repr(float(value)))


@dataclass(frozen=True)
class Timeline:
    """What the rules decide about a schedule whose machines and cores exist.

    Attributes
    ----------
    end:
        Real end of each task (binary64, within its error bound of the exact one).
    late:
        Tasks that really end after their deadline plus ``TIME_TOL``.
    overlaps:
        ``(earlier task, task)`` pairs whose stated start lies more than
        ``TIME_TOL`` before the earlier task's real end on the same core.
    negative:
        Tasks stated to start before ``-TIME_TOL``.
    wrong_finish:
        Tasks whose stated finish differs from the real end by more than
        ``FINISH_RTOL`` relative.
    vm_hours:
        Billed hours of each rented VM.
    """

    end: np.ndarray
    late: np.ndarray
    overlaps: list[tuple[int, int]]
    negative: np.ndarray
    wrong_finish: np.ndarray
    vm_hours: list[int]


def _capacities(instance: Instance, solution: Solution) -> np.ndarray:
    """Per-core capacity of each task's machine (the machines must exist)."""
    table = np.array([pm.capacity for pm in instance.pms]
                     + [instance.vm_types[t].capacity for t in solution.vm_types], dtype=float)
    return table[solution.machine] if table.size else np.zeros(len(solution.machine))


def _billed(lease: Fraction) -> int:
    return math.ceil(lease - EXACT_TOL) if lease > EXACT_TOL else 0


class _Cores:
    """The tasks in run order (core by core), their binary64 real ends and exact ones on demand."""

    def __init__(self, instance: Instance, solution: Solution) -> None:
        n = instance.n_tasks
        self.instance, self.solution = instance, solution
        start, finish = solution.start, solution.finish
        self.capacity = _capacities(instance, solution)
        run = instance.work / self.capacity if n else np.zeros(0)
        self.order = order = np.lexsort((np.arange(n), finish, start, solution.core,
                                         solution.machine))
        m, c = solution.machine[order], solution.core[order]
        self.first = first = np.ones(n, dtype=bool)
        first[1:] = (m[1:] != m[:-1]) | (c[1:] != c[:-1])
        self.group_start = np.flatnonzero(first)
        self.group = np.cumsum(first) - 1
        self.rank = np.arange(n) - self.group_start[self.group] if n else np.zeros(0, int)
        self.s, self.f = start[order], finish[order]
        previous = np.where(first, 0.0, np.roll(self.f, 1))
        # Back to back in binary64: the stated finishes are the real ends.
        plain = (self.f == self.s + run[order]) & (self.s == previous)
        plain_group = np.ones(len(self.group_start), dtype=bool)
        np.logical_and.at(plain_group, self.group, plain)
        self.end = self.f.copy()
        self._exact: dict[int, list[Fraction]] = {}
        for g in np.flatnonzero(~plain_group).tolist():
            self._core(g)
        #: Bound on |binary64 real end - exact real end| (see the module docstring).
        self.error = (self.rank + 4) * 4 * _U * (np.abs(self.end) + 1.0)

    def _core(self, g: int) -> list[Fraction]:
        """Exact real ends of core ``g``'s tasks, in run order (computed once)."""
        if g not in self._exact:
            lo = int(self.group_start[g])
            hi = int(self.group_start[g + 1]) if g + 1 < len(self.group_start) else len(self.order)
            rate = decimal(float(self.capacity[self.order[lo]]))
            work, start = self.instance.work, self.solution.start
            ends: list[Fraction] = []
            clock = Fraction(0)
            for task in self.order[lo:hi].tolist():
                stated = decimal(start[task])
                begin = clock if abs(stated - clock) <= EXACT_TOL else stated
                clock = begin + decimal(work[task]) / rate
                ends.append(clock)
            self._exact[g] = ends
            self.end[lo:hi] = [float(x) for x in ends]
        return self._exact[g]

    def exact_end(self, k: int) -> Fraction:
        """Exact real end of the task at run position ``k``."""
        g = int(self.group[k])
        return self._core(g)[k - int(self.group_start[g])]


def timeline(instance: Instance, solution: Solution) -> Timeline:
    """Decide every rule of the module docstring for ``solution`` (machines and cores exist)."""
    cores = _Cores(instance, solution)
    order, first, s, f = cores.order, cores.first, cores.s, cores.f
    end, error = cores.end, cores.error
    deadline = instance.deadline[order]
    limit = deadline + TIME_TOL
    slack = 4 * _U * (np.abs(deadline) + 1.0)
    late = end - error > limit + slack
    unsure = ~late & (end + error > limit - slack)
    for k in np.flatnonzero(unsure).tolist():
        late[k] = cores.exact_end(k) > decimal(deadline[k]) + EXACT_TOL
    # Stated starts against the previous real end, and stated finishes against real ends.
    gap = s - np.roll(end, 1)
    gap_error = np.roll(error, 1) + 4 * _U * (np.abs(s) + 1.0)
    overlap = ~first & (gap + gap_error < -TIME_TOL)
    unsure = ~first & ~overlap & (gap - gap_error < -TIME_TOL)
    for k in np.flatnonzero(unsure).tolist():
        overlap[k] = decimal(s[k]) < cores.exact_end(k - 1) - EXACT_TOL
    allowed = FINISH_RTOL * np.maximum(1.0, np.abs(end))
    noise = error + 4 * _U * (np.abs(f) + 1.0)
    wrong = np.abs(f - end) > allowed + noise
    unsure = ~wrong & (np.abs(f - end) > allowed - noise)
    for k in np.flatnonzero(unsure).tolist():
        real = cores.exact_end(k)
        wrong[k] = abs(decimal(f[k]) - real) > Fraction(FINISH_RTOL) * max(Fraction(1), real)
    negative = s < -TIME_TOL
    for k in np.flatnonzero(~negative & (s < -TIME_TOL / 2)).tolist():
        negative[k] = decimal(s[k]) < -EXACT_TOL
    hours = _vm_hours(cores)

    def by_task(values: np.ndarray) -> np.ndarray:
        out = np.empty_like(values)
        out[order] = values
        return out

    overlaps = [(int(order[k - 1]), int(order[k])) for k in np.flatnonzero(overlap).tolist()]
    return Timeline(by_task(cores.end), by_task(late), overlaps, by_task(negative),
                    by_task(wrong), hours)


def _vm_hours(cores: _Cores) -> list[int]:
    """Billed hours of each VM from the real ends, exact where binary64 leaves it open."""
    instance, solution = cores.instance, cores.solution
    n_pm, n_vms = len(instance.pms), len(solution.vm_types)
    hours = [0] * n_vms
    machine = solution.machine[cores.order]
    on_vm = np.flatnonzero(machine >= n_pm)
    if not n_vms or not on_vm.size:
        return hours
    vm_of = machine[on_vm] - n_pm
    lease = np.zeros(n_vms)
    lease_error = np.zeros(n_vms)
    np.maximum.at(lease, vm_of, cores.end[on_vm])
    np.maximum.at(lease_error, vm_of, cores.error[on_vm])
    margin = lease_error + 4 * _U * (lease + 1.0)
    low, high = lease - TIME_TOL - margin, lease - TIME_TOL + margin
    for v in range(n_vms):
        if high[v] <= 0:
            continue
        if low[v] > 0 and math.ceil(low[v]) == math.ceil(high[v]) and low[v] != math.floor(low[v]):
            hours[v] = math.ceil(low[v])
            continue
        # Undecided in binary64: the exact latest real end of the VM's tasks.
        latest = max(cores.exact_end(int(k)) for k in on_vm[vm_of == v])
        hours[v] = _billed(latest)
    return hours
