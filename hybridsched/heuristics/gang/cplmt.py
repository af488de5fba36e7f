"""CPLMT: cloud parallel scheduling based on the lists of multiple attributes (Wang et al. 2018).

At each decision, over the waiting jobs and the VMs:

1. **Overload counts** (Algorithm 1, Eqs. 8-11, loads of Eqs. 24-27): for each
   attribute, the number of VMs (all of them: "For every VM v in Vlist") whose
   capacity times its ratio (alpha, beta, gamma, theta; all 1 as in the
   paper) cannot meet the job's demand.
2. **ujobs / unjobs** (Eq. 7): ``num / p <= K`` makes a job a ujob, where
   ``num`` is the number of VMs that meet every demand (CPU included).
3. **Classes** (Eqs. 12-21): a job is scarce in an attribute (``ul``) when more
   than ``epsilon x vend`` VMs cannot give it (epsilon: disk, omega: memory,
   eta: bandwidth); ThreeOL, TwoOL, OneOL hold the unjobs scarce in three, two
   and one of memory, bandwidth and disk, OtherL the rest.
4. **Order**: ujobs, then ThreeOL, TwoOL, OneOL, OtherL ("first of all, we
   schedule ujobs, and then we schedule unjobs ... firstly ... ThreeOL, and then
   ... TwoOL, OneOL, and OtherL in sequence"). Within a set, Algorithm 2
   repeatedly selects, among the jobs that can start now, the one of least
   ``mt = max(min(f(t, Vlist))) / e^tovload`` (Eq. 23), until none can start
   (compared as ``log(time) - tovload``, so that ``e^tovload`` never overflows).
5. **Assignment** (Algorithm 3): a standard time ``maxminet``; each task takes
   the free usable VM whose time is at most the standard and nearest to it
   ("if we can find a VM that makes the task can be finished before maxminet
   and the time is the most nearest to maxminet"), else the one nearest above
   it ("most nearest to the maxminet (but more than maxminet)"). Ties: lower
   VM index.

Readings (keyword options of :func:`make_cplmt` and of the ``cplmt`` method;
the default is the most literal reading of the text, never the one that
reproduces the claim):

``tovload`` = ``"counts"`` (default) | ``"fractions"``
    Eq. 22: "j.tovload = j.jovMEM + j.jovBW + j.jovHD", where each ``jov`` is
    "the maximum value" of the tasks' ``ov`` (Eqs. 8-11), and ``ov`` "records
    the number of the resources that cannot" satisfy the task (Algorithm 1):
    raw counts of VMs, literally. ``"fractions"`` divides each count by the
    number of VMs (with counts up to 3 x 120, ``e^tovload`` swamps the
    execution time in Eq. 23 and the order is by overload alone).
``cpu_demand`` = ``"remaining"`` (default) | ``"deadline"`` | ``"instructions"``
    Eq. 24: ``CPUload = max(Pj / (Pv x alpha))`` where Pj is "the requirement
    to computing speed of different tasks". A speed needs a time: the task's
    instructions over the time left to its deadline (``"remaining"``: the
    job "with a long deadline, with time going, ... can be an urgent job",
    Section 2), over its relative deadline (``"deadline"``), or the raw
    instruction count that Table 1 lists under "Processing ability" for jobs
    ([5, 45] against the VMs' [1, 6]: ``"instructions"``, which overloads
    nearly every VM for every job, so nearly every job is a ujob).
``overload_at`` = ``"reached"`` (default) | ``"exceeded"``
    Algorithm 1, line 4: "If (CPUload >= alpha)": a load of exactly 1 counts
    as overload (``"reached"``); ``"exceeded"`` counts only a load above 1
    (what the simulation's own fitting rule accepts). A zero demand is
    never an overload. Matters only where demands equal capacities (integer
    draws, see the generator's ``integers``).
``k`` (default 1.5), ``epsilon``, ``omega``, ``eta`` (default 0.8 each)
    "We set K=1.5" (Eq. 7); "epsilon = 0.8, omega = 0.8, eta = 0.8" (Eqs.
    12-17), Section 4.2.
``one_ol`` = ``"exactly-one"`` (default) | ``"printed"``
    OneOL is "the jobs that only belong to one of" ulHD, ulMEM, ulBW (the
    prose, twice). Eq. 20 as printed lists ``ulMEM & unulBW & unulHD``,
    ``unulMEM & ulBW & ulHD`` (a TwoOL term, Eq. 19) and ``unulMEM & unulBW &
    ulHD``: a job scarce in bandwidth alone falls to OtherL (``"printed"``).
    The default follows the prose, which the equation contradicts itself
    by repeating a term of Eq. 19.
``select_start`` = ``"unset"`` (default) | ``"zero"``
    Algorithm 2: "Input: minvalue=0" and "If (temp<minvlue)". The paper's
    Algorithm 3 uses 0 as "not set yet" ("If et< maxminet or maxminet==0",
    line 7): read so, the first job sets the minimum (``"unset"``, i.e. a
    start at +infinity). Read as a number (``"zero"``), no ``mt > 0`` is
    below it and no job is ever selected: CPLMT starts nothing.
``task_min`` = ``"alone"`` (default) | ``"distinct"``
    Eq. 23: "min(f(t, Vlist)) returns a set of the minimum execution times of
    every task in job_i" and "max(...) returns the maximum". Each task's
    minimum taken alone (``"alone"``): the tasks of a job are identical
    ("the task that belongs to the same job has the same requirement"), so
    every minimum, and their maximum, is the job's time on the fastest VM.
    ``"distinct"``: the tasks of a gang need distinct VMs, so the largest of
    their minimum times is the ``p``-th shortest task time.
``mt_vms`` = ``"all"`` (default) | ``"fitting"`` | ``"free"``
    Which VMs Eq. 23's ``f(t, Vlist)`` runs over: every VM (``Vlist``, Eq. 5,
    literally), those meeting the job's memory, bandwidth and disk demands
    (busy or free), or those free now that fit and end the task by its
    deadline.
``standard`` = ``"max-min"`` (default) | ``"min"``
    Algorithm 3's standard: "we calculate the minimum execution time of every
    task; then we select the maximum value in all the minimum execution time
    as a standard" (the text, with ``task_min`` deciding the minimum of a task)
    or the pseudo-code's lines 3-12, which keep the smallest ``et`` of any task
    on any VM ("If et< maxminet ... maxminet=et"). With ``task_min="alone"``
    the two coincide; the pseudo-code's other slips (``selectj=t`` overwriting
    the job, lines 20-26 mixing the two branches) are not readings: the text
    says what they mean.
``standard_vms`` = ``"all"`` (default) | ``"fitting"`` | ``"free"``
    Which VMs the standard runs over (Algorithm 3: "For every VM V in Vlist"),
    as for ``mt_vms``. Tasks are always placed on free VMs that fit and end
    by the deadline (the only ones the simulation accepts).

Under ``task_min="alone"`` with ``standard_vms="all"`` the standard is the
fastest VM's time, so the tasks take the fastest usable VMs, as CMMS's do.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from hybridsched.heuristics.gang.simulation import (
    DecisionState,
    LiveState,
    Policy,
    lowest,
    rows_to_bits,
    to_bits,
)
from hybridsched.readings import check_choice, check_known, check_number

#: Upper limit ratios of the loads (alpha: CPU, beta: memory, gamma: bandwidth,
#: theta: disk), 1 in the paper's simulation ("the VM can give all of its ability").
ALPHA = BETA = GAMMA = THETA = 1.0

#: The values of each string reading, the default first.
CHOICES: dict[str, tuple[str, ...]] = {
    "tovload": ("counts", "fractions"),
    "cpu_demand": ("remaining", "deadline", "instructions"),
    "overload_at": ("reached", "exceeded"),
    "one_ol": ("exactly-one", "printed"),
    "select_start": ("unset", "zero"),
    "task_min": ("alone", "distinct"),
    "mt_vms": ("all", "fitting", "free"),
    "standard": ("max-min", "min"),
    "standard_vms": ("all", "fitting", "free"),
}


@dataclass(frozen=True)
class Readings:
    """One reading of every open point (see the module docstring); defaults are literal."""

    tovload: str = "counts"
    cpu_demand: str = "remaining"
    overload_at: str = "reached"
    k: float = 1.5
    epsilon: float = 0.8
    omega: float = 0.8
    eta: float = 0.8
    one_ol: str = "exactly-one"
    select_start: str = "unset"
    task_min: str = "alone"
    mt_vms: str = "all"
    standard: str = "max-min"
    standard_vms: str = "all"


#: The option names of :func:`make_cplmt`, with their defaults.
DEFAULTS: dict[str, Any] = asdict(Readings())


def readings(options: Mapping[str, Any]) -> Readings:
    """Validated readings from keyword options (one-line InputError on a bad one)."""
    check_known(options, tuple(DEFAULTS), "method 'cplmt'")
    values = dict(DEFAULTS, **options)
    for name, choices in CHOICES.items():
        check_choice(name, values[name], choices)
    values["k"] = check_number("k", values["k"], low=0.0)
    for name in ("epsilon", "omega", "eta"):
        values[name] = check_number(name, values[name], low=0.0, high=1.0)
    return Readings(**values)


def check_options(options: dict[str, Any]) -> None:
    """The registry's option check for ``cplmt``."""
    readings(options)


def _overloaded(demand: np.ndarray, capacity: np.ndarray, at: str) -> np.ndarray:
    """``over[j, v]``: VM ``v``'s capacity cannot meet job ``j``'s demand (zero: never)."""
    d, c = demand[:, None], capacity[None, :]
    return (d > 0) & ((d >= c) if at == "reached" else (d > c))


def classify(state: DecisionState, r: Readings = Readings()
             ) -> tuple[list[np.ndarray], np.ndarray]:
    """The waiting jobs' positions grouped in scheduling order, and each job's ``tovload``.

    Groups: ujobs, then the unjobs of ThreeOL, TwoOL, OneOL and OtherL.
    """
    inst, waiting = state.instance, state.waiting
    other, unjob_class, tovload, due = _static(state, r)
    instructions = inst.instructions[waiting]
    if r.cpu_demand == "remaining":
        need = instructions / np.maximum(due[waiting] - state.now, 1e-12)
    elif r.cpu_demand == "deadline":
        need = instructions / inst.deadline[waiting]
    else:
        need = instructions
    over_cpu = _overloaded(need, ALPHA * inst.speed, r.overload_at)
    num = (~(over_cpu | other[waiting])).sum(axis=1)
    ujob = num / inst.parallelism[waiting] <= r.k
    positions = np.arange(len(waiting))
    classes = unjob_class[waiting]
    groups = [positions[ujob]] + [positions[~ujob & (classes == c)] for c in range(4)]
    return groups, tovload[waiting]


def _static(state: DecisionState, r: Readings
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What does not change with time, for every job of the instance (once per simulation).

    ``other[j, v]``: VM ``v`` cannot meet job ``j``'s memory, bandwidth or disk
    demand; ``unjob_class[j]``: 0 ThreeOL, 1 TwoOL, 2 OneOL, 3 OtherL (when ``j``
    is an unjob); ``tovload[j]``; the absolute deadlines.
    """
    key = ("cplmt", r.overload_at, r.omega, r.eta, r.epsilon, r.one_ol, r.tovload)
    if key not in state.memo:
        inst = state.instance
        over_mem = _overloaded(inst.memory, BETA * inst.vm_memory, r.overload_at)
        over_bw = _overloaded(inst.bandwidth, GAMMA * inst.vm_bandwidth, r.overload_at)
        over_hd = _overloaded(inst.disk, THETA * inst.vm_disk, r.overload_at)
        vend = inst.n_vms
        counts = np.stack([over_mem.sum(axis=1), over_bw.sum(axis=1), over_hd.sum(axis=1)])
        scarce = counts > np.array([r.omega, r.eta, r.epsilon])[:, None] * vend  # mem, bw, hd
        n_scarce = scarce.sum(axis=0)
        one = n_scarce == 1
        if r.one_ol == "printed":  # Eq. 20 as printed: memory alone or disk alone
            one &= ~scarce[1]
        unjob_class = np.select([n_scarce == 3, n_scarce == 2, one], [0, 1, 2], default=3)
        tovload = counts.sum(axis=0).astype(float)
        state.memo[key] = (over_mem | over_bw | over_hd, unjob_class,
                           tovload / vend if r.tovload == "fractions" else tovload, inst.due)
    return state.memo[key]


def _kth(times: np.ndarray, mask: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Each row's ``k``-th shortest time among ``mask`` (inf when fewer than ``k``)."""
    if not len(times):
        return np.zeros(0)
    masked = np.sort(np.where(mask, times, np.inf), axis=1)
    return masked[np.arange(len(times)), np.minimum(k, masked.shape[1]) - 1]


def make_cplmt(**options: Any) -> Policy:
    """A CPLMT policy under the given readings (keyword options, module docstring)."""
    r = readings(options)

    def policy(state: DecisionState) -> list[tuple[int, np.ndarray]]:
        return _cplmt(state, r)

    policy.__name__ = "cplmt"
    return policy


def cplmt(state: DecisionState) -> list[tuple[int, np.ndarray]]:
    """Jobs to start now under the default (literal) readings."""
    return _cplmt(state, Readings())


def _cplmt(state: DecisionState, r: Readings) -> list[tuple[int, np.ndarray]]:
    """Jobs to start now, in CPLMT's order, on the VMs Algorithm 3 assigns."""
    if r.select_start == "zero":  # no mt > 0 is below a minimum starting at 0
        return []
    if isinstance(state, LiveState) and r.mt_vms != "free" and r.standard_vms != "free":
        return _cplmt_live(state, r)
    return _cplmt_matrix(state, r)


def _cplmt_matrix(state: DecisionState, r: Readings) -> list[tuple[int, np.ndarray]]:
    """:func:`_cplmt` on the matrices of the waiting jobs (every reading; the reference)."""
    inst, waiting = state.instance, state.waiting
    times = state.task_time[waiting]
    p = inst.parallelism[waiting]
    groups, tovload = classify(state, r)
    kth_mt = p if r.task_min == "distinct" else np.ones_like(p)
    kth_std = kth_mt if r.standard == "max-min" else np.ones_like(p)
    free_mt = r.mt_vms == "free"
    # The usable matrix is kept only by the readings that read the free VMs in it;
    # the selection loop works on each job's usable VMs as the bits of an integer.
    usable = state.usable.copy() if free_mt or r.standard_vms == "free" else None
    mt_set = (np.ones(times.shape, dtype=bool) if r.mt_vms == "all"
              else state.fits if r.mt_vms == "fitting" else usable)
    mt_time = _kth(times, mt_set, kth_mt)
    key, selectable = _keys(mt_time, tovload)
    rows = [bits for _, bits in state.usable_bits()]
    need = p.tolist()
    chosen: list[tuple[int, np.ndarray]] = []
    for group in groups:
        open_jobs = group.tolist()
        while True:
            # The least key among the open jobs that can start; ties: the earlier position.
            k, least = -1, np.inf
            for position in open_jobs:
                if (selectable[position] and key[position] < least
                        and rows[position].bit_count() >= need[position]):
                    k, least = position, key[position]
            if k < 0:
                break
            std_set = (np.ones(times.shape[1], dtype=bool) if r.standard_vms == "all"
                       else state.fits[k] if r.standard_vms == "fitting" else usable[k])
            standard = float(_kth(times[k:k + 1], std_set[None, :], kth_std[k:k + 1])[0])
            vms = _assign(times[k], rows[k], need[k], standard)
            taken = 0
            for v in vms.tolist():
                taken |= 1 << v
            rows = [bits & ~taken for bits in rows]
            open_jobs.remove(k)
            if usable is not None:
                if free_mt:  # only rows that could use a taken VM at or below their time change
                    hit = np.flatnonzero((usable[:, vms] & (times[:, vms] <= mt_time[:, None]))
                                         .any(axis=1))
                usable[:, vms] = False
                if free_mt:
                    mt_time[hit] = _kth(times[hit], usable[hit], kth_mt[hit])
                    key, selectable = _keys(mt_time, tovload)
            chosen.append((int(waiting[k]), vms))
    return chosen


class _Fixed:
    """What CPLMT reads of each job that does not change in a simulation (one reading).

    Under ``mt_vms`` and ``standard_vms`` other than ``"free"``, a job's
    ``mt`` (so its key ``log(mt) - tovload``) and its standard time depend
    on the job and the instance only; its class among the unjobs too.
    Computed for every job at once, with the same numpy expressions as
    :func:`_cplmt_matrix` on the waiting jobs (elementwise, so the same values).
    """

    def __init__(self, state: DecisionState, r: Readings) -> None:
        inst = state.instance
        other, unjob_class, tovload, _ = _static(state, r)
        n_jobs, n_vms = inst.n_jobs, inst.n_vms
        p = inst.parallelism
        kth_mt = p if r.task_min == "distinct" else np.ones_like(p)
        kth_std = kth_mt if r.standard == "max-min" else np.ones_like(p)
        rows = np.arange(n_jobs)
        speed = np.asarray(inst.speed, dtype=float)
        speed_desc = -np.sort(-speed)

        def kth(over: str, k: np.ndarray) -> np.ndarray:
            if not n_jobs:
                return np.zeros(0)
            if over == "all":  # the k-th shortest of x / speed: x over the k-th highest speed
                return inst.instructions / speed_desc[np.minimum(k, n_vms) - 1]
            masked = np.sort(np.where(inst.fits(), state.task_time, np.inf), axis=1)
            return masked[rows, np.minimum(k, n_vms) - 1]

        mt_time = kth(r.mt_vms, kth_mt)
        self.key, self.selectable = _keys(mt_time, tovload)
        self.standard = kth(r.standard_vms, kth_std).tolist()
        self.unjob_class = unjob_class.tolist()
        self.fit_bits = rows_to_bits(~other)  # VMs that meet the job's other demands
        # Speeds fastest first (the simulation's order), negated: ascending for bisect.
        self.negated = (-speed_desc).tolist()
        self.need = (None if r.cpu_demand == "remaining"
                     else (inst.instructions / inst.deadline).tolist()
                     if r.cpu_demand == "deadline" else inst.instructions.tolist())


def _cplmt_live(state: LiveState, r: Readings) -> list[tuple[int, np.ndarray]]:
    """:func:`_cplmt_matrix` in a simulation, on the jobs that can start.

    Only a job with enough usable VMs at the decision can be selected (its
    usable VMs only shrink); ``mt`` and the standard are fixed
    (:class:`_Fixed`), so Algorithm 2's repeated selection of the least key
    among the jobs of a set that can start is one pass over the set in key
    order (ties: queue order): a job passed over could not start then, nor
    later. A job's class is computed as :func:`classify` does, its count of
    VMs not overloaded (``num``) from the speeds above its CPU need (a prefix
    of the VMs by speed) among those that meet its other demands.
    """
    rows = state.startable_rows()
    if not rows:
        return []
    key = ("cplmt fixed", r)
    fixed = state.memo.get(key)
    if fixed is None:
        fixed = state.memo[key] = _Fixed(state, r)
    run, now = state.run, state.now
    fast, parallelism = run.fast, run.parallelism
    negated, fit_bits, unjob_class = fixed.negated, fixed.fit_bits, fixed.unjob_class
    keys, selectable, need = fixed.key, fixed.selectable, fixed.need
    instructions, due, queue_rank = run.instructions, run.due_plain, run.queue_rank
    above = bisect_left if r.overload_at == "reached" else bisect_right
    order = []
    for j, bits in rows:
        if not selectable[j]:
            continue
        demand = (instructions[j] / max(due[j] - now, 1e-12) if need is None else need[j])
        # VMs whose speed meets the demand (not overloaded): a prefix of the VMs by speed.
        c = above(negated, -demand) if demand > 0 else len(negated)
        num = (fit_bits[j] & fast[c]).bit_count()
        group = 0 if num / parallelism[j] <= r.k else 1 + unjob_class[j]
        order.append((group, keys[j], queue_rank[j], j, bits))
    order.sort()
    taken = 0
    chosen = []
    inst, standard = state.instance, fixed.standard
    for _, _, _, j, bits in order:
        bits &= ~taken
        p = parallelism[j]
        if bits.bit_count() < p:
            continue
        # The job's row of task_time, without the matrix.
        vms = _assign(inst.instructions[j] / inst.speed, bits, p, standard[j])
        for v in vms.tolist():
            taken |= 1 << v
        chosen.append((j, vms))
    return chosen


def _keys(mt_time: np.ndarray, tovload: np.ndarray) -> tuple[list[float], list[bool]]:
    """Eq. 23's ``log(mt) - tovload`` of each job, and whether its ``mt`` is finite."""
    with np.errstate(divide="ignore"):
        key = np.log(mt_time) - tovload
    return key.tolist(), np.isfinite(mt_time).tolist()


def _assign(times: np.ndarray, usable: int | np.ndarray, p: int, standard: float
            ) -> np.ndarray:
    """Algorithm 3: nearest at or below the standard first, then nearest above it.

    ``usable``: the VMs the job may take, as bits (or a boolean mask).
    """
    if isinstance(usable, np.ndarray):
        usable = to_bits(usable)
    candidates = lowest(usable, usable.bit_count())
    t = times[candidates].tolist()
    # At or below the standard first, then above it; within each, nearest to it first.
    order = sorted(range(len(candidates)),
                   key=lambda i: (t[i] > standard + 1e-12, abs(t[i] - standard), candidates[i]))
    return np.sort(np.array([candidates[i] for i in order[:p]], dtype=np.int64))
