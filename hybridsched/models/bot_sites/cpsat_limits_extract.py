"""Schedules out of the task-interval CP-SAT model (hard limits), in real units.

:func:`order_retime` keeps the model schedule's *order*: task ``a`` precedes
task ``b`` when they share a site (or ``a``'s BoT is a DAG predecessor of
``b``'s) and ``a`` ends no later than ``b`` starts in the model; every task
then starts as early as its predecessors in that partial order allow, with
the real durations. Two tasks overlap in the result only if they overlapped
in the model, so (Helly) tasks running together really ran together in the
model, where they fit the processors and the limits (the uses' rounding
aside: the checker judges); each chain loses less than one model unit per
task to the rounding of durations, so the makespan is at most the model's
plus ``(n + 1) / factor``. Tasks are then put on processors by start (an
interval graph whose cliques have at most ``m_i`` tasks needs ``m_i``
colours, and this greedy finds them). One block per task.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.models.bot_sites.cpsat_limits import LimitsModel


def model_tasks(lm: LimitsModel, solver: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(site, start)`` of every task in the incumbent (model units)."""
    site = np.array([next(i for i, lit in lits.items() if solver.boolean_value(lit))
                     for lits in lm.present], dtype=np.int64)
    start = np.array([solver.value(s) for s in lm.starts], dtype=np.int64)
    return site, start


def order_retime(instance: Instance, bot: np.ndarray, site: np.ndarray, start: np.ndarray,
                 duration: np.ndarray, notes: dict | None = None) -> Solution | None:
    """The real schedule keeping the model's order (module docstring); ``None`` if unplaceable.

    ``start`` and ``duration`` (per (BoT, site)) are in model units.
    """
    n = len(bot)
    end = start + duration[bot, site]
    real = instance.p[bot, site]
    preds = instance.predecessors
    order = np.lexsort((end, start))
    placed = np.zeros(n)
    finish = np.zeros(n)
    done = np.zeros(n, dtype=bool)
    for b in order.tolist():
        before = (end <= start[b]) & ((site == site[b]) | np.isin(bot, preds[bot[b]]))
        before[b] = False
        if np.any(before & ~done):   # cannot happen: predecessors start no later
            return None
        placed[b] = float(finish[before].max(initial=0.0))
        finish[b] = placed[b] + real[b]
        done[b] = True
    proc = _processors(instance, site, placed, finish)
    if proc is None:
        return None
    return Solution(bot.astype(np.int64), site.astype(np.int64), proc, np.ones(n, np.int64),
                    placed, notes=dict(notes or {}))


def _processors(instance: Instance, site: np.ndarray, start: np.ndarray, finish: np.ndarray
                ) -> np.ndarray | None:
    """Processor of each task on its site, by start time (``None`` if more are needed)."""
    proc = np.zeros(len(site), dtype=np.int64)
    for i in range(instance.n_sites):
        free = np.zeros(int(instance.procs[i]))
        for b in np.flatnonzero(site == i)[np.argsort(start[site == i], kind="stable")]:
            ok = np.flatnonzero(free <= start[b])
            if not len(ok):
                return None
            j = int(ok[0])   # any free one: greedy by start colours interval graphs
            proc[b] = j
            free[j] = finish[b]
    return proc
