"""GMO's schedule building: a game's fractional result rounded and placed on processors.

A game (:mod:`hybridsched.heuristics.bot_sites.gmo_game`) ends with fractional
``theta`` (processors per BoT and site) and ``delta`` (tasks per BoT and
site); this module makes them concrete, and :mod:`hybridsched.heuristics.bot_sites.gmo`
keeps what each game's plan runs before the next game.

* Rounding: the paper only says theta is rounded "in the end of
  scheduling". Per site, ``theta`` is rounded by largest remainders so that
  at most ``m_i`` processors are used (with hard limits: down, then up while
  the limits hold, :func:`round_allocation`); BoTs left without processors
  wait for the next game. ``delta`` is recomputed from the integer ``theta``
  with Eq. 14 and rounded per BoT by largest remainders
  (:func:`largest_remainder`) so that the totals are exact (constraint 6:
  ``delta_ki = 0`` where ``theta_ki < 1``).
* Placement (the ``placement`` reading,
  :mod:`hybridsched.heuristics.bot_sites.gmo_readings`): :func:`place_dedicated` gives
  BoT ``k`` ``theta_ki`` processors of site ``i``, :func:`place_shared` deals
  a site's tasks round-robin to its processors.
* :func:`assemble` merges the pieces all games committed into the family's
  blocks.
"""

from __future__ import annotations

import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.errors import InfeasibleInstanceError
from hybridsched.heuristics.bot_sites.gmo_game import Limits


def largest_remainder(values: np.ndarray, totals: np.ndarray, axis: int) -> np.ndarray:
    """Round non-negative ``values`` along ``axis`` to integers summing to ``totals``."""
    base = np.floor(values + 1e-9).astype(np.int64)
    base = np.minimum(base, np.expand_dims(totals, axis))
    short = totals - base.sum(axis=axis)
    frac = values - base
    # Rank of each entry's remainder along the axis (largest first, lowest index on ties).
    order = np.argsort(-frac, axis=axis, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(values.shape[axis]).reshape(
        (-1, 1) if axis == 0 else (1, -1)) * np.ones_like(order), axis=axis)
    return base + (ranks < np.expand_dims(np.maximum(short, 0), axis))


def round_allocation(theta: np.ndarray, m: np.ndarray, lim: Limits, hard: bool
                     ) -> np.ndarray:
    """Integer processors per (player, site), at most ``m_i`` per site."""
    totals = np.minimum(np.floor(theta.sum(axis=0) + 1e-9).astype(np.int64), m)
    if not hard or not lim.any:
        return largest_remainder(theta, totals, axis=0)
    out = np.floor(theta + 1e-9).astype(np.int64)
    frac = theta - out
    for i in range(theta.shape[1]):
        for k in np.argsort(-frac[:, i], kind="stable"):
            if out[:, i].sum() >= totals[i] or frac[k, i] <= 0:
                break
            out[k, i] += 1
            if not lim.ok(out)[i]:
                out[k, i] -= 1
    return out


def ensure_progress(theta_int: np.ndarray, theta: np.ndarray, m: np.ndarray,
                     lim: Limits) -> np.ndarray:
    """Give one processor to the best-placed player when rounding left none at all."""
    if theta_int.sum() > 0:
        return theta_int
    out = theta_int.copy()
    for flat in np.argsort(-theta, axis=None, kind="stable"):
        k, i = np.unravel_index(flat, theta.shape)
        out[k, i] = 1
        if lim.ok(out)[i] and m[i] >= 1:
            return out
        out[k, i] = 0
    raise InfeasibleInstanceError("no ready BoT can run a single task within the hard limits")


def place_dedicated(instance: Instance, players: np.ndarray, theta_int: np.ndarray,
           delta_int: np.ndarray, mat: np.ndarray, release: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Processors' planned BoT, task count and start for one game (vectorised).

    Within each site, processors sorted by availability are handed out in
    contiguous chunks to the players in index order; a chunk's tasks are
    spread evenly, the extra ones on the processors available first.
    """
    N = instance.n_procs
    site = instance.proc_site
    order = np.lexsort((np.arange(N), mat, site))           # by site, then availability
    pos_in_site = np.arange(N) - instance.proc_offset[site[order]]
    th = theta_int.T.ravel()                                  # site-major (i, k)
    owners = np.repeat(np.tile(players, instance.n_sites), th)
    chunk_tasks = np.repeat(delta_int.T.ravel(), th)
    chunk_size = np.repeat(th, th)
    chunk_pos = np.arange(len(owners)) - np.repeat(np.cumsum(th) - th, th)
    used = theta_int.sum(axis=0)                              # processors used per site
    owner_start = np.concatenate(([0], np.cumsum(used)))[:-1]
    bot = np.full(N, -1, dtype=np.int64)
    count = np.zeros(N, dtype=np.int64)
    taken = pos_in_site < used[site[order]]
    idx = owner_start[site[order][taken]] + pos_in_site[taken]
    procs = order[taken]
    bot[procs] = owners[idx]
    size = chunk_size[idx]
    count[procs] = chunk_tasks[idx] // size + (chunk_pos[idx] < chunk_tasks[idx] % size)
    has = count > 0
    bot[~has] = -1
    start = np.where(has, np.maximum(mat, release[np.maximum(bot, 0)]), 0.0)
    return bot, count, start


def place_shared(instance: Instance, players: np.ndarray, delta_int: np.ndarray,
                  order_key: np.ndarray, mat: np.ndarray, release: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Blocks of one game when processors of a site are shared (vectorised).

    On each site the BoTs with tasks there are taken in increasing
    ``order_key`` (the game's ``f_k``, then index); their tasks are dealt
    round-robin to the site's processors sorted by availability, each
    processor running its share of one BoT before the next. A block starts
    when its processor is free and its BoT is released.

    Returns
    -------
    bot, proc, count, start
        One entry per (BoT, processor) block of the plan (global processors).
    """
    pk, ii = np.nonzero(delta_int)
    n = delta_int[pk, ii]
    key = order_key[pk]
    srt = np.lexsort((players[pk], key, ii))
    pk, ii, n = pk[srt], ii[srt], n[srt]
    m = instance.procs[ii]
    site_first = np.concatenate(([True], ii[1:] != ii[:-1])) if len(ii) else np.zeros(0, bool)
    csum = np.cumsum(n)
    S = csum - n
    S = S - np.maximum.accumulate(np.where(site_first, S, 0))  # exclusive cumsum per site
    reps = np.minimum(n, m)
    q = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
    e_pk, e_i, e_n, e_S, e_m = (np.repeat(a, reps) for a in (pk, ii, n, S, m))
    rank = (e_S + q) % e_m
    count = e_n // e_m + (q < e_n % e_m)
    # Processors of each site sorted by availability: rank -> global processor.
    site = instance.proc_site
    by_avail = np.lexsort((mat, site))
    proc = by_avail[instance.proc_offset[e_i] + rank]
    bot = players[e_pk]
    # Per processor, blocks in dealing order (S increases along the site sequence).
    srt = np.argsort(proc * (int(e_S.max(initial=0)) + 1) + e_S, kind="stable")
    bot, proc, count = bot[srt], proc[srt], count[srt]
    dur = count * instance.p[bot, site[proc]]
    seg_id = np.cumsum(np.concatenate(([True], proc[1:] != proc[:-1]))) if len(proc) else proc
    before = _segment_scan(dur, seg_id, np.add) - dur   # work before the block on its processor
    before = np.maximum(before, 0.0)
    ready = mat[proc]
    rel = release[bot]
    if np.any(rel > ready):
        ready = np.maximum(ready, _segment_scan(rel - before, seg_id, np.maximum))
    return bot, proc, count, ready + before


def _segment_scan(values: np.ndarray, seg_id: np.ndarray, op: np.ufunc) -> np.ndarray:
    """Inclusive scan with ``op`` restarted at each segment (segments are contiguous).

    Doubling scan, ``O(n log L)`` with ``L`` the longest segment; for sums the
    rounding error stays relative to the segment's own values (a global
    cumulative sum minus an offset would not).
    """
    out = values.astype(float).copy()
    n = len(out)
    step = 1
    while step < n:
        same = seg_id[step:] == seg_id[:-step]
        if not same.any():
            break
        head = out[step:]
        out[step:] = np.where(same, op(head, out[:-step]), head)
        step *= 2
    return out


def assemble(instance: Instance, bots: list[np.ndarray], procs: list[np.ndarray],
              counts: list[np.ndarray], starts: list[np.ndarray], notes: dict) -> Solution:
    """Merge the committed pieces into blocks (back-to-back pieces of one BoT join)."""
    bot = np.concatenate(bots) if bots else np.zeros(0, dtype=np.int64)
    proc = np.concatenate(procs) if procs else np.zeros(0, dtype=np.int64)
    count = np.concatenate(counts) if counts else np.zeros(0, dtype=np.int64)
    start = np.concatenate(starts) if starts else np.zeros(0)
    order = np.lexsort((start, proc))
    bot, proc, count, start = bot[order], proc[order], count[order], start[order]
    site = instance.proc_site[proc]
    end = start + count * instance.p[bot, site]
    if len(bot) > 1:
        joins = ((proc[1:] == proc[:-1]) & (bot[1:] == bot[:-1])
                 & (np.abs(start[1:] - end[:-1]) <= 1e-12 * np.maximum(1.0, end[:-1])))
        head = np.concatenate(([True], ~joins))
    else:
        head = np.ones(len(bot), dtype=bool)
    h = np.flatnonzero(head)
    merged = np.add.reduceat(count, h) if len(h) else count
    return Solution(bot[h], site[h], proc[h] - instance.proc_offset[site[h]], merged,
                    start[h], notes=notes)
