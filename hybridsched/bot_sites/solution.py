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

import operator
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from hybridsched.bot_sites.instance import Instance

if TYPE_CHECKING:
    import pandas as pd


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
    reported_makespan, reported_cost:
        The summary a solution *file* states (``None`` when absent): never
        used by algorithms; the checker reports a mismatch with the values it
        recomputes.

    Integer fields are converted exactly: values that are not integers or
    do not fit in a signed 64-bit integer raise :class:`ValueError` (numpy
    would silently truncate floats and wrap unsigned values).
    """

    bot: np.ndarray
    site: np.ndarray
    proc: np.ndarray
    count: np.ndarray
    start: np.ndarray
    notes: dict[str, Any] = field(default_factory=dict)
    reported_makespan: float | None = None
    reported_cost: float | None = None

    def __post_init__(self) -> None:
        for name in ("bot", "site", "proc", "count"):
            array = _int64(getattr(self, name), name)
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        start = np.array(self.start, dtype=float).reshape(-1)
        start.setflags(write=False)
        object.__setattr__(self, "start", start)

    @property
    def n_blocks(self) -> int:
        """Number of blocks."""
        return len(self.bot)

    def to_frame(self, instance: Instance | None = None) -> pd.DataFrame:
        """The schedule as a table: one row per block (a run of tasks of one BoT).

        A block is the solution's own unit (a task-level schedule has one
        block per task), so a schedule of 10^5 tasks stays a short table.

        Parameters
        ----------
        instance : Instance, optional
            The instance scheduled: adds the names, the times and the cost.

        Returns
        -------
        pandas.DataFrame
            Columns (times in seconds):

            ``block``
                Block index (solution order).
            ``bot``, ``site``, ``proc``
                BoT index, site index, processor number within the site.
            ``count``
                Tasks of the block, run back to back.
            ``start_s``
                Start of the block's first task.

            With ``instance``, also ``bot_id``, ``site_id``, ``task_s`` (the
            effective time of one task there), ``end_s`` (``start_s + count
            x task_s``, as stated: the checker's real times may differ by
            rounding) and ``cost`` (``count x task_s x`` the site's price per
            second).

        Examples
        --------
        >>> from hybridsched import load_instance, run_method
        >>> family, inst = load_instance("instances/bot-sites/small-hihi-i-3s-4b.json")
        >>> result = run_method(family.name, "g-min-min", inst)
        >>> frame = result.solution.to_frame(inst)
        >>> len(frame) == result.solution.n_blocks
        True
        >>> int(frame["count"].sum()) == int(inst.tasks.sum())  # every task, once
        True
        >>> bool(abs(frame["cost"].sum() - result.metrics["cost"]) < 1e-6)
        True
        """
        import pandas as pd

        frame = pd.DataFrame({"block": np.arange(self.n_blocks), "bot": self.bot,
                              "site": self.site, "proc": self.proc, "count": self.count,
                              "start_s": self.start})
        if instance is None:
            return frame
        task = instance.p[self.bot, self.site]
        return frame.assign(
            bot_id=[instance.bot_ids[k] for k in self.bot.tolist()],
            site_id=[instance.site_ids[i] for i in self.site.tolist()],
            task_s=task, end_s=self.start + self.count * task,
            cost=self.count * task * np.asarray(instance.price, dtype=float)[self.site])

    def distribution(self, instance: Instance) -> np.ndarray:
        """``(K, M)`` number of tasks of each BoT on each site (delta_ki)."""
        delta = np.zeros((instance.n_bots, instance.n_sites), dtype=np.int64)
        np.add.at(delta, (self.bot, self.site), self.count)
        return delta


_INT64 = np.iinfo(np.int64)


def _int64(values: Any, name: str) -> np.ndarray:
    """``values`` as a flat int64 array, refusing anything that would not convert exactly."""
    array = np.asarray(values)
    if array.dtype.kind == "i":
        return np.array(array, dtype=np.int64).reshape(-1)
    if array.dtype.kind == "u":
        if array.size and int(array.max()) > _INT64.max:
            raise ValueError(f"solution {name}: {int(array.max())} does not fit in int64")
        return np.array(array, dtype=np.int64).reshape(-1)
    flat = array.reshape(-1).tolist() if array.dtype != object else list(array.reshape(-1))
    out = np.empty(len(flat), dtype=np.int64)
    for n, value in enumerate(flat):
        if isinstance(value, bool | np.bool_):
            raise ValueError(f"solution {name}: {value!r} is not an integer")
        if isinstance(value, float | np.floating):
            if not (np.isfinite(value) and float(value).is_integer()):
                raise ValueError(f"solution {name}: {value!r} is not an integer")
            value = int(value)
        try:
            value = operator.index(value)
        except TypeError:
            raise ValueError(f"solution {name}: {value!r} is not an integer") from None
        if not _INT64.min <= value <= _INT64.max:
            raise ValueError(f"solution {name}: {value} does not fit in int64")
        out[n] = value
    return out


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

    Notes
    -----
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
