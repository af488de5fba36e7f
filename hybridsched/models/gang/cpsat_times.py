"""Integer times of the gang CP-SAT model: how the instance's float times are scaled.

CP-SAT takes integers. A schedule's times are its starts ``S_j``, the
arrivals ``a_j``, the deadlines ``d_j = a_j + deadline_j`` and the task
times ``t_jv = instructions_j / speed_v``. The model (:mod:`.cpsat_build`)
reads three integer arrays at a factor ``f`` (a power of ten): ``release[j]``
(earliest start), ``size[j, v]`` (a task's length on VM ``v``) and
``latest[j, v]`` (latest start of ``j`` if it runs a task on ``v``). They come
in three kinds:

``exact``
    Every ``a_j``, ``deadline_j`` and ``t_jv`` (the decimal numbers, as
    fractions) is an integer at scale ``f``, and ``f (n + 1) m < 1`` for the
    margin ``m`` below. Then ``release = f a``, ``size = f t``, ``latest = f
    (d - t)`` exactly, and the model's optimum is the real problem's: every
    schedule the checker accepts (start up to ``TIME_TOL`` early, overlaps
    and lateness up to ``TIME_TOL``, all with float rounding: each row holds
    within ``m`` in real numbers) keeps its jobs, VMs and per-VM order in the
    exact earliest-start pass ``T``, which starts every job at most ``(n +
    1) m`` later than the schedule did (by induction along the chain of jobs
    that set its start, ``m`` per link); ``f T`` is an integer and ends by
    ``f d + f (n + 1) m < f d + 1``, so by ``f d``. ``T`` is a model
    solution with the same jobs (same UFJ, same instructions), and every
    model solution is a real schedule without any tolerance.
``relaxed``
    Otherwise. Each row is loosened by ``m`` and rounded outwards:
    ``release = floor(f (a - m))``, ``size = floor(f (t - m))`` (at least 0),
    ``latest = floor(f (d + m - t))``. For any accepted schedule, ``x_j =
    floor(f S_j)`` satisfies them (``floor(p + q) >= floor(p) + floor(q)``),
    so the model's feasible set contains every accepted schedule (with its
    jobs): its proven bound on UFJ is valid for the real problem. Its
    solutions may not be real schedules: they are read back and checked.
``restricted``
    Rows tightened and rounded inwards: ``release = ceil(f a)``, ``size =
    ceil(f t)``, ``latest = floor(f (d - t))``: every solution is a real
    schedule (no tolerance used), so it is solved for a schedule when the
    relaxed model's does not read back; it proves nothing.

``m = TIME_TOL + 16 eps H`` is the checker's tolerance plus a bound on its
float rounding (``H`` the largest time, ``eps`` the double's epsilon), and
floors and ceilings of float products are taken ``8 eps f H`` further out so
that the float arithmetic here cannot round across an integer the wrong way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from hybridsched.gang.checker import TIME_TOL, could_finish
from hybridsched.gang.instance import Instance
from hybridsched.models.solvers.cpsat import MAX_INTEGER, decimal_scale

EXACT, RELAXED, RESTRICTED = "exact", "relaxed", "restricted"
#: Most decimal places of the scale: 9, so that the relaxed and restricted models round
#: times by at most 1e-9, the checker's tolerance (at 1e-6 they would disagree with it on
#: near-tolerance instances); exact data with up to 6 decimals keeps its own smaller scale.
DECIMALS = 9
#: Double precision's epsilon.
EPS = float(np.finfo(float).eps)


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


def largest_time(instance: Instance) -> float:
    """The largest magnitude among arrivals, deadlines and task times (at least 1)."""
    parts = [np.abs(instance.arrival), np.abs(instance.due), instance.task_time().ravel()]
    return max([1.0] + [float(p.max()) for p in parts if p.size])


def margin(instance: Instance) -> float:
    """How far (in time units) a row of an accepted schedule may miss, rounding included."""
    return TIME_TOL + 16 * EPS * largest_time(instance)


def _factor(instance: Instance, ok: np.ndarray) -> tuple[int, bool]:
    """The scale and whether the data is exactly integral at it (module docstring)."""
    values = np.concatenate([instance.arrival, instance.deadline, instance.task_time()[ok]])
    scaling = decimal_scale(values, max_decimals=DECIMALS)
    if not scaling.exact:
        return scaling.factor, False
    f = scaling.factor
    if f * (instance.n_jobs + 1) * margin(instance) >= 1:
        return f, False
    fractions = [Fraction(repr(float(v))) for v in np.concatenate(
        [instance.arrival, instance.deadline])]
    speed = [Fraction(repr(float(s))) for s in instance.speed]
    work = [Fraction(repr(float(w))) for w in instance.instructions]
    fractions += [work[j] / speed[v] for j, v in zip(*np.nonzero(ok), strict=True)]
    return f, all((f * x).denominator == 1 for x in fractions)


def _exact(instance: Instance, ok: np.ndarray, f: int) -> Times:
    arrival = [int(Fraction(repr(float(a))) * f) for a in instance.arrival]
    due = [a + int(Fraction(repr(float(d))) * f)
           for a, d in zip(arrival, instance.deadline, strict=True)]
    speed = [Fraction(repr(float(s))) for s in instance.speed]
    size = np.zeros(ok.shape, dtype=np.int64)
    latest = np.zeros(ok.shape, dtype=np.int64)
    for j, v in zip(*np.nonzero(ok), strict=True):
        t = int(Fraction(repr(float(instance.instructions[j]))) / speed[v] * f)
        size[j, v], latest[j, v] = t, due[j] - t
    return Times(EXACT, f, ok, np.array(arrival, dtype=np.int64), size, latest)


def _rounded(instance: Instance, ok: np.ndarray, f: int, kind: str) -> Times:
    t = instance.task_time()
    guard = 8 * EPS * f * largest_time(instance)
    m = margin(instance) if kind == RELAXED else 0.0
    if kind == RELAXED:
        release = np.floor(f * (instance.arrival - m) - guard)
        size = np.maximum(np.floor(f * (t - m) - guard), 0.0)
        latest = np.floor(f * (instance.due[:, None] + m - t) - guard)
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


def first_times(instance: Instance) -> Times:
    """The model solved first: ``exact`` when the data allows it, else ``relaxed``."""
    ok = could_finish(instance)
    f, exact = _factor(instance, ok)
    return _exact(instance, ok, f) if exact else _rounded(instance, ok, f, RELAXED)


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
