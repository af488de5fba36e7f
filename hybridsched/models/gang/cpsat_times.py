"""Integer times of the gang CP-SAT model: how the instance's float times are scaled.

CP-SAT takes integers. A schedule's times are its real starts ``S_j`` (the
checker's, :mod:`hybridsched.gang.checker`), the arrivals ``a_j``, the
deadlines ``d_j = a_j + deadline_j`` and the task times ``t_jv =
instructions_j / speed_v``. The model (:mod:`.cpsat_build`) reads three
integer arrays at a factor ``f`` (a power of ten): ``release[j]`` (earliest
start), ``size[j, v]`` (a task's length on VM ``v``) and ``latest[j, v]``
(latest start of ``j`` if it runs a task on ``v``). The checker grants
``TIME_TOL`` once, at the deadline; every other slack of an accepted
schedule is binary64 rounding: each rule holds in exact arithmetic within
``r = rounding_slack(instance)``, and the exact earliest start at the end of
a chain of ``n`` tasks lies within ``c = rounding_slack(instance, n)`` of
the real one (:func:`hybridsched.gang.checker.rounding_slack`). Three kinds:

``exact``
    Every ``a_j``, ``deadline_j`` and ``t_jv`` (the decimal numbers, as
    fractions) is an integer at scale ``f`` (at most ``10^12``:
    :data:`EXACT_DECIMALS`), and the chain slack does not reach the next
    unit: ``g = floor(f TIME_TOL + f c)`` equals ``floor(f TIME_TOL)``
    (``f TIME_TOL`` is an integer from ``f = 10^9`` on; below, it is less
    than 1 and ``g = 0``). Then ``release = f a``, ``size = f t``, ``latest =
    f (d - t) + g``. Every accepted schedule keeps its jobs, VMs and per-VM
    order in the exact earliest-start pass ``T``, which starts every job at
    most ``c`` (less the deadline's share) later than its real start (by
    induction along the chain of jobs that set its start, one rounding per
    link); ``f (T + t)`` is an integer at most ``f (d + TIME_TOL) + f c``, so
    at most ``f d + g``: ``T`` is a model solution with the same jobs (same
    UFJ, same instructions). Conversely every model solution ends by ``d +
    g / f <= d + TIME_TOL``: a real schedule (its binary64 read-back only
    rounds, :mod:`.cpsat_extract`). The model's optimum is the real problem's.
``relaxed``
    Otherwise. Each rule is loosened by ``r`` and rounded outwards:
    ``release = floor(f a)``, ``size = floor(f (t - r))`` (at least 0),
    ``latest = floor(f (d + TIME_TOL + r - t))``. For any accepted schedule,
    ``x_j = floor(f S_j)`` satisfies them (``floor(p + q) >= floor(p) +
    floor(q)``; a real start is never before the arrival), so the model's
    feasible set contains every accepted schedule (with its jobs): its proven
    bound on UFJ is valid for the real problem. Its solutions may not be real
    schedules (each size may lose up to one unit, ``10^-9`` at
    :data:`DECIMALS`, and those add up along a VM): they are read back and
    checked.
``restricted``
    Rows tightened and rounded inwards: ``release = ceil(f a)``, ``size =
    ceil(f t)``, ``latest = floor(f (d - t))``: every solution is a real
    schedule (no tolerance used), so it is solved for a schedule when the
    relaxed model's does not read back; it proves nothing.

Floors and ceilings of float products are taken ``8 eps f H`` further out
(``H`` the largest time, ``eps`` the double's epsilon) so that the float
arithmetic here cannot round across an integer the wrong way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from hybridsched.gang.checker import (
    EPS,
    TIME_TOL,
    could_finish,
    largest_time,
    rounding_slack,
)
from hybridsched.gang.instance import Instance
from hybridsched.models.solvers.cpsat import MAX_INTEGER, decimal_scale

EXACT, RELAXED, RESTRICTED = "exact", "relaxed", "restricted"
#: Most decimal places of the relaxed and restricted models' scale: 9, so that they round
#: times by at most 1e-9, the checker's tolerance (at 1e-6 they would disagree with it on
#: near-tolerance instances).
DECIMALS = 9
#: Most decimal places of exact data: 12, so that data placed at the tolerance (a deadline
#: 1e-12 from a chain of tasks) keeps its own scale, and the model its exact optimum.
EXACT_DECIMALS = 12


@dataclass(frozen=True)
class Times:
    """The integer data of one model kind (module docstring); ``ok`` as the checker's."""

    kind: str
    factor: int
    ok: np.ndarray
    release: np.ndarray
    size: np.ndarray
    latest: np.ndarray

    def describe(self) -> str:
        """One phrase for messages."""
        return f"times scaled by {self.factor} ({self.kind})"


def _exact_scale(instance: Instance, ok: np.ndarray) -> tuple[int, int] | None:
    """The scale ``f`` and deadline units ``g`` of the exact kind, if the data allows it."""
    values = np.concatenate([instance.arrival, instance.deadline, instance.task_time()[ok]])
    scaling = decimal_scale(values, max_decimals=EXACT_DECIMALS)
    if not scaling.exact:
        return None
    f = scaling.factor
    tolerance = Fraction(f, 10**9)  # f TIME_TOL, exactly
    g = math.floor(tolerance + Fraction(f * rounding_slack(instance, instance.n_jobs)))
    if g != math.floor(tolerance):
        return None
    if f * (float(np.abs(instance.due).max(initial=0.0)) + 1.0) > MAX_INTEGER:
        return None
    fractions = [Fraction(repr(float(v))) for v in np.concatenate(
        [instance.arrival, instance.deadline])]
    speed = [Fraction(repr(float(s))) for s in instance.speed]
    work = [Fraction(repr(float(w))) for w in instance.instructions]
    fractions += [work[j] / speed[v] for j, v in zip(*np.nonzero(ok), strict=True)]
    return (f, g) if all((f * x).denominator == 1 for x in fractions) else None


def _exact(instance: Instance, ok: np.ndarray, f: int, g: int) -> Times:
    arrival = [int(Fraction(repr(float(a))) * f) for a in instance.arrival]
    due = [a + int(Fraction(repr(float(d))) * f)
           for a, d in zip(arrival, instance.deadline, strict=True)]
    speed = [Fraction(repr(float(s))) for s in instance.speed]
    size = np.zeros(ok.shape, dtype=np.int64)
    latest = np.zeros(ok.shape, dtype=np.int64)
    for j, v in zip(*np.nonzero(ok), strict=True):
        t = int(Fraction(repr(float(instance.instructions[j]))) / speed[v] * f)
        size[j, v], latest[j, v] = t, due[j] + g - t
    return Times(EXACT, f, ok, np.array(arrival, dtype=np.int64), size, latest)


def _rounded(instance: Instance, ok: np.ndarray, f: int, kind: str) -> Times:
    t = instance.task_time()
    guard = 8 * EPS * f * largest_time(instance)
    if kind == RELAXED:
        r = rounding_slack(instance)
        release = np.floor(f * instance.arrival - guard)
        size = np.maximum(np.floor(f * (t - r) - guard), 0.0)
        latest = np.floor(f * (instance.due[:, None] + TIME_TOL + r - t) - guard)
    else:
        release = np.ceil(f * instance.arrival + guard)
        size = np.ceil(f * t + guard)
        latest = np.floor(f * (instance.due[:, None] - t) - guard)
    size, latest = np.where(ok, size, 0.0), np.where(ok, latest, 0.0)
    if max(float(np.abs(release).max(initial=0)), float(np.abs(latest).max(initial=0)),
           float(size.max(initial=0))) > MAX_INTEGER:
        raise ValueError("times too large for CP-SAT's integers at this scale")
    return Times(kind, f, ok, release.astype(np.int64), size.astype(np.int64),
                 latest.astype(np.int64))


def _rounded_scale(instance: Instance, ok: np.ndarray) -> int:
    """The scale of the relaxed and restricted kinds (at most ``10^DECIMALS``)."""
    values = np.concatenate([instance.arrival, instance.deadline, instance.task_time()[ok]])
    return decimal_scale(values, max_decimals=DECIMALS).factor


def first_times(instance: Instance) -> Times:
    """The model solved first: ``exact`` when the data allows it, else ``relaxed``."""
    ok = could_finish(instance)
    exact = _exact_scale(instance, ok)
    if exact is not None:
        return _exact(instance, ok, *exact)
    return _rounded(instance, ok, _rounded_scale(instance, ok), RELAXED)


def restricted_times(instance: Instance, factor: int) -> Times:
    """The ``restricted`` kind at ``factor`` (solved for a schedule only)."""
    return _rounded(instance, could_finish(instance), factor, RESTRICTED)


def sin_weights(instance: Instance) -> list[int]:
    """Integer weights of the instructions ``parallelism x instructions`` (tie-break only).

    Rounded to the nearest integer at the instructions' decimal scale: they
    only order schedules with the same UFJ, never enter a proof of UFJ.
    """
    if not instance.n_jobs:
        return []
    total = float(np.sum(instance.parallelism * instance.instructions))
    # The scale of the data, unless the sum would leave CP-SAT's integers.
    f = min(float(decimal_scale(instance.instructions).factor), MAX_INTEGER / max(total, 1.0))
    return [int(p) * math.floor(float(w) * f + 0.5)
            for p, w in zip(instance.parallelism, instance.instructions, strict=True)]
