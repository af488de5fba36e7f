"""Schedules out of the bot-sites CP-SAT model, in the instance's real units.

What CP-SAT returns is turned into ordinary schedules for the family checker
to judge (:mod:`hybridsched.models.bot_sites.cpsat` keeps the best that passes):

* **Re-timed** (:func:`~hybridsched.bot_sites.limits.retime`): the model's
  blocks, list-scheduled in the order of their model starts (by BoT index in
  the assignment model), each as early as its processor, its predecessors
  and the hard limits allow, with the real durations. Without hard limits no
  block ends later than in the model (up to the scaling's rounding).
* **As timed** (timed model only): the model's start times in real units.
  With an exact scaling they are the model's schedule itself. With a
  rounded one the model's durations are shorter than the real ones, so every
  time is stretched by ``alpha = max p / (d / factor)`` over the blocks used:
  each real block then lies inside its stretched model block, so processor,
  precedence and limit constraints still hold (overlaps only shrink). This
  one matters with hard limits, where re-timing in another order can lose.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hybridsched.bot_sites.limits import retime
from hybridsched.bot_sites.solution import Solution
from hybridsched.models.bot_sites.cpsat_build import CpsatBotModel


def extract(bm: CpsatBotModel, solver: Any) -> list[Solution]:
    """The incumbent's schedules (module docstring): re-timed, and as timed when timed."""
    inst = bm.instance
    bots, procs, counts, starts = [], [], [], []
    if bm.timed:
        for (k, q, _), (used, count, start) in bm.blocks.items():
            if solver.boolean_value(used):
                bots.append(k)
                procs.append(q)
                counts.append(int(solver.value(count)))
                starts.append(int(solver.value(start)))
    else:
        for (k, q), var in bm.pairs.items():
            n = int(solver.value(var))
            if n > 0:
                bots.append(k)
                procs.append(q)
                counts.append(n)
                starts.append(k)
    bot = np.array(bots, dtype=np.int64)
    proc = np.array(procs, dtype=np.int64)
    count = np.array(counts, dtype=np.int64)
    key = np.array(starts, dtype=float)
    out = []
    retimed = retime(inst, bot, proc, count, key, notes={"method": "exact", "backend": "cpsat"})
    if retimed is not None:
        out.append(retimed)
    if bm.timed and len(bot):
        site = inst.proc_site[proc]
        stretch = _stretch(bm, bot, site)
        if stretch is not None:
            factor = float(bm.scaling.factor)
            off = inst.proc_offset
            out.append(Solution(bot, site, proc - off[site], count, key / factor * stretch,
                                notes={"method": "exact", "backend": "cpsat"}))
    return out


def _stretch(bm: CpsatBotModel, bot: np.ndarray, site: np.ndarray) -> float | None:
    """1 for an exact scaling; else the stretch ``alpha`` (``None`` if a duration is 0)."""
    if bm.scaling.exact:
        return 1.0
    model = bm.duration[bot, site].astype(float)
    if (model <= 0).any():
        return None
    real = bm.instance.p[bot, site] * bm.scaling.factor
    # Rounded up a little: the checker then sees every block inside its stretched slot.
    return float(np.max(real / model)) * (1 + 1e-15)
