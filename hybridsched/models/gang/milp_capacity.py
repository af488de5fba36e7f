"""Capacity rows of the gang MILP: how many tasks fit on a VM in a window, decided exactly.

HiGHS accepts integer solutions whose rows and integrality are violated by up
to 1e-6 (:data:`~hybridsched.models.solvers.highs.MIP_FEASIBILITY_TOL`): a
chain of tasks that overfills a deadline by less than that, which the
checker refuses (:mod:`hybridsched.gang.checker`: the tolerance once, at the
deadline), fits in HiGHS's eyes, and no cut on the order of the jobs can
refute every order (10 jobs have 10! of them). The capacity rows of
:func:`capacity_rows` state the answer instead, decided in exact arithmetic
on the checker's own doubles, for the windows where HiGHS could be wrong
(:mod:`hybridsched.models.gang.milp` adds them to every model it solves).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from hybridsched.gang.checker import EPS, TIME_TOL, could_finish, largest_time
from hybridsched.gang.instance import Instance

#: A window gets a capacity row when the shortest tasks that overfill it do so by at most
#: this much per task, times the largest time (HiGHS's tolerances could let them all in).
NEAR = 1e-6


def capacity_rows(instance: Instance, ok: np.ndarray | None = None
                  ) -> list[tuple[int, list[int], int]]:
    """``(vm, jobs, most)``: at most ``most`` of ``jobs`` run a task on VM ``vm``.

    A window from an arrival ``a`` to a latest end ``e`` (some job's ``due +
    TIME_TOL``, the checker's float) holds the jobs ``J`` that arrive at or
    after ``a`` and must end by ``e``. On one VM their tasks run one after
    the other, each really starting after the real end of the one before
    (the checker's rule), so ``k`` of them fit only if the ``k`` shortest task
    times (the checker's doubles, added exactly) sum to at most ``e - a + k
    EPS H`` (one rounding of the largest time ``H`` per task, twice over):
    ``most`` is the largest such ``k``. Decided in exact arithmetic, and kept
    only where it matters to HiGHS: when the ``k + 1`` shortest tasks that
    overfill the window do so by at most ``NEAR x (k + 1) x H`` (its
    tolerances could let them all in, 1e-6 per row and per order binary) and
    ``most`` is below the number of jobs of ``J`` the VM can run. Windows are
    screened in floats; VMs of one speed share them.
    """
    ok = could_finish(instance) if ok is None else ok
    jobs = np.flatnonzero(ok.any(axis=1))
    rows: list[tuple[int, list[int], int]] = []
    if len(jobs) < 2:
        return rows
    work, arrival, times = instance.instructions, instance.arrival, instance.task_time()
    limit = instance.due + TIME_TOL  # the checker's latest end
    scale = largest_time(instance)
    unit = Fraction(EPS * scale)
    speeds, speed_of = np.unique(instance.speed, return_inverse=True)
    for a in np.unique(arrival[jobs]).tolist():
        inside = jobs[arrival[jobs] >= a]
        ends = np.unique(limit[inside])
        member = limit[inside][None, :] <= ends[:, None]
        # Prefix sums of the smallest instructions of each window's jobs (inf past them).
        prefix = np.cumsum(np.sort(np.where(member, work[inside][None, :], np.inf), axis=1),
                           axis=1)
        for w in np.flatnonzero(member.sum(axis=1) >= 2).tolist():
            length = float(ends[w]) - a
            window = inside[member[w]]
            sums = prefix[w][:len(window)]
            k = np.searchsorted(sums, length * speeds, side="right")  # fit, in floats
            short = k < len(window)
            over = np.full(len(speeds), np.inf)  # how far the first prefix that does not fit
            over[short] = sums[k[short]] / speeds[short] - length  # overfills the window
            for c in np.flatnonzero(short & (over <= NEAR * (k + 1) * scale)).tolist():
                vms = np.flatnonzero(speed_of == c)
                lengths = sorted(Fraction(float(t)) for t in times[window, vms[0]])
                room, total, most = Fraction(float(ends[w])) - Fraction(a), Fraction(0), 0
                for n, task in enumerate(lengths, 1):  # exactly, with n roundings
                    total += task
                    if total <= room + n * unit:
                        most = n
                for v in vms.tolist():
                    mine = [j for j in window.tolist() if ok[j, v]]
                    if most < len(mine):
                        rows.append((v, mine, most))
    return rows
