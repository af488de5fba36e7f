"""CPLMT: cloud parallel scheduling based on the lists of multiple attributes (Wang et al. 2018).

At each decision, over the waiting jobs and all VMs:

1. **Overload counts** (Algorithm 1, Eqs. 8-11, loads of Eqs. 24-27): for each
   attribute, the number of VMs whose capacity times its ratio (alpha, beta,
   gamma, theta; all 1 as in the paper) is below the job's demand. The CPU
   demand is read through the deadline: a task needs processing ability
   ``instructions / (deadline - now)``, so a job grows more urgent as time
   passes.
2. **ujobs / unjobs** (Eq. 7): ``num / p <= K`` (K = 1.5) makes a job a ujob,
   where ``num`` is the number of VMs that meet every demand.
3. **Classes** (Eqs. 12-21): a job is scarce in an attribute (``ul``) when more
   than ``epsilon x vend`` VMs cannot give it (epsilon = omega = eta = 0.8);
   ThreeOL, TwoOL, OneOL hold the unjobs scarce in three, exactly two and
   exactly one of memory, bandwidth and disk (Eq. 20 is misprinted: it repeats
   a term of Eq. 19; we read it as "exactly one"), OtherL the rest.
4. **Order**: ujobs, then ThreeOL, TwoOL, OneOL, OtherL. Within a set,
   Algorithm 2 repeatedly selects the startable job of least
   ``mt = max_task(min execution time) / e^tovload`` (Eq. 23), until none can
   start. *Readings*: the minimum starts at +infinity (the pseudo-code's 0
   would select nothing); the tasks of a gang take distinct VMs, so the
   largest of the tasks' minimum times is the ``p``-th shortest task time on
   the usable free VMs; ``tovload`` (Eq. 22) sums the overload counts as
   fractions of the VMs (raw counts up to 3 x 120 would make ``e^tovload``
   swamp the execution time).
5. **Assignment** (Algorithm 3): the standard ``maxminet`` is the job's best
   completion time on the VMs that meet its demands, busy or free (its
   ``p``-th shortest task time). Each task takes the free usable VM whose time
   is at most ``maxminet`` and nearest to it (saving the fastest VMs), else
   the one just above it. *Reading*: the pseudo-code computes a minimum into
   ``maxminet``, mixes its two branches and reuses ``selectj`` for a task; we
   implement the text (the largest of the tasks' minimum times as the
   standard, nearest below first, then nearest above).
"""

from __future__ import annotations

import numpy as np

from hybridsched.gang.online import DecisionState

#: Upper limit ratios of the loads (alpha: CPU, beta: memory, gamma: bandwidth,
#: theta: disk), 1 in the paper's simulation.
ALPHA = BETA = GAMMA = THETA = 1.0
#: ujobs / unjobs boundary on ``num / p`` (Eq. 7).
K = 1.5
#: Scarcity thresholds epsilon (disk), omega (memory), eta (bandwidth).
EPSILON = OMEGA = ETA = 0.8


def classify(state: DecisionState) -> tuple[list[np.ndarray], np.ndarray]:
    """The waiting jobs' positions grouped in scheduling order, and each job's ``tovload``.

    Groups: ujobs, then the unjobs of ThreeOL, TwoOL, OneOL and OtherL.
    """
    inst, waiting = state.instance, state.waiting
    slack = np.maximum(inst.due[waiting] - state.now, 1e-12)
    need_speed = inst.instructions[waiting] / slack
    over_cpu = need_speed[:, None] > ALPHA * inst.speed[None, :]
    over_mem = inst.memory[waiting][:, None] > BETA * inst.vm_memory[None, :]
    over_bw = inst.bandwidth[waiting][:, None] > GAMMA * inst.vm_bandwidth[None, :]
    over_hd = inst.disk[waiting][:, None] > THETA * inst.vm_disk[None, :]
    vend = inst.n_vms
    counts = np.stack([over_mem.sum(axis=1), over_bw.sum(axis=1), over_hd.sum(axis=1)])
    num = (~(over_cpu | over_mem | over_bw | over_hd)).sum(axis=1)
    ujob = num / inst.parallelism[waiting] <= K
    limits = np.array([OMEGA, ETA, EPSILON])[:, None] * vend
    scarce = (counts > limits).sum(axis=0)
    positions = np.arange(len(waiting))
    groups = [positions[ujob]] + [positions[~ujob & (scarce == c)] for c in (3, 2, 1, 0)]
    return groups, counts.sum(axis=0) / vend


def _pth(times: np.ndarray, usable: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Each row's ``p``-th shortest usable task time (inf when fewer than ``p`` are usable)."""
    if not len(times):
        return np.zeros(0)
    masked = np.sort(np.where(usable, times, np.inf), axis=1)
    return masked[np.arange(len(times)), np.minimum(p, masked.shape[1]) - 1]


def cplmt(state: DecisionState) -> list[tuple[int, np.ndarray]]:
    """Jobs to start now, in CPLMT's order, on the VMs Algorithm 3 assigns."""
    inst, waiting = state.instance, state.waiting
    usable = state.usable.copy()
    times = state.task_time[waiting]
    p = inst.parallelism[waiting]
    groups, tovload = classify(state)
    weight = np.exp(tovload)
    standard = _pth(times, state.fits, p)
    pth = _pth(times, usable, p)
    chosen: list[tuple[int, np.ndarray]] = []
    for group in groups:
        open_jobs = np.zeros(len(waiting), dtype=bool)
        open_jobs[group] = True
        while True:
            mt = np.where(open_jobs, pth / weight, np.inf)
            k = int(np.argmin(mt))  # ties: the earlier position (arrival order)
            if not np.isfinite(mt[k]):
                break
            vms = _assign(times[k], usable[k], int(p[k]), float(standard[k]))
            # Only rows that could use a taken VM at or below their p-th time change.
            hit = (usable[:, vms] & (times[:, vms] <= pth[:, None])).any(axis=1)
            usable[:, vms] = False
            open_jobs[k] = False
            rows = np.flatnonzero(hit)
            pth[rows] = _pth(times[rows], usable[rows], p[rows])
            pth[k] = np.inf
            chosen.append((int(waiting[k]), vms))
    return chosen


def _assign(times: np.ndarray, usable: np.ndarray, p: int, standard: float) -> np.ndarray:
    """Algorithm 3: nearest at or below the standard first, then nearest above it."""
    candidates = np.flatnonzero(usable)
    t = times[candidates]
    above = t > standard + 1e-12
    # At or below the standard first, then above it; within each, nearest to it first.
    order = np.lexsort((candidates, np.abs(t - standard), above))
    return np.sort(candidates[order[:p]])
