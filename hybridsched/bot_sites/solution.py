"""A schedule for a bot-sites instance, stored as blocks of identical tasks.

BoTs hold thousands of identical tasks, so a schedule is a list of *blocks*:
block ``b`` runs ``count[b]`` tasks of BoT ``bot[b]`` back to back on
processor ``proc[b]`` (numbered from 0 within its site) of site ``site[b]``,
the first starting at ``start[b]``. Task ``q`` of the block (``q = 0, 1,
...``) runs from ``start + q * p`` to ``start + (q + 1) * p`` where ``p`` is
the BoT's effective time on that site. Every task's site, processor and start
time is thus given, and a task-level schedule is one block per task.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hybridsched.bot_sites.instance import Instance


@dataclass(frozen=True, eq=False)
class Solution:
    """Blocks of tasks with their processors and start times.

    Attributes
    ----------
    bot, site, proc, count, start:
        One entry per block (see the module docstring).
    notes:
        What the producing method wants to report (stages, rounding, ...);
        never used by the checker.
    """

    bot: np.ndarray
    site: np.ndarray
    proc: np.ndarray
    count: np.ndarray
    start: np.ndarray
    notes: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, dtype in (("bot", np.int64), ("site", np.int64), ("proc", np.int64),
                            ("count", np.int64), ("start", float)):
            array = np.array(getattr(self, name), dtype=dtype).reshape(-1)
            array.setflags(write=False)
            object.__setattr__(self, name, array)

    @property
    def n_blocks(self) -> int:
        """Number of blocks."""
        return len(self.bot)

    def distribution(self, instance: Instance) -> np.ndarray:
        """``(K, M)`` number of tasks of each BoT on each site (delta_ki)."""
        delta = np.zeros((instance.n_bots, instance.n_sites), dtype=np.int64)
        np.add.at(delta, (self.bot, self.site), self.count)
        return delta


def from_task_assignments(instance: Instance, bot: Iterable[int], proc: Iterable[int],
                          start: Iterable[float], notes: dict[str, Any] | None = None
                          ) -> Solution:
    """Build a solution from one entry per task, merging back-to-back runs.

    Parameters
    ----------
    instance:
        The instance (for processor numbering and effective times).
    bot, proc, start:
        Per task: BoT, *global* processor index (sites in order) and start.
        Entries of one processor must come in chronological order.
    notes:
        Stored on the solution.

    Consecutive tasks of the same BoT on a processor are merged into one
    block when the second starts where the first ends (within a relative
    ``1e-12``), so a greedy schedule of 10^5 tasks is stored compactly.
    """
    bot = np.asarray(list(bot) if not isinstance(bot, np.ndarray) else bot, dtype=np.int64)
    proc = np.asarray(list(proc) if not isinstance(proc, np.ndarray) else proc, dtype=np.int64)
    start = np.asarray(list(start) if not isinstance(start, np.ndarray) else start, dtype=float)
    site_of = instance.proc_site
    offset = instance.proc_offset
    order = np.argsort(proc, kind="stable")
    bot, proc, start = bot[order], proc[order], start[order]
    site = site_of[proc]
    dur = instance.p[bot, site]
    end = start + dur
    if len(bot):
        same = (proc[1:] == proc[:-1]) & (bot[1:] == bot[:-1])
        contiguous = np.abs(start[1:] - end[:-1]) <= 1e-12 * np.maximum(1.0, np.abs(end[:-1]))
        new_block = np.concatenate(([True], ~(same & contiguous)))
    else:
        new_block = np.zeros(0, dtype=bool)
    heads = np.flatnonzero(new_block)
    counts = np.diff(np.append(heads, len(bot)))
    return Solution(bot[heads], site[heads], proc[heads] - offset[site[heads]], counts,
                    start[heads], notes=dict(notes or {}))
