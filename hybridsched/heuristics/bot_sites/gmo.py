"""GMO, the game-multi-objective algorithm of Duan, Prodan and Li (2014), Algorithm 1.

The players are the BoTs that are ready (all DAG predecessors complete) and
unfinished. One *game* computes a fractional resource allocation ``theta``
(processors of each site per BoT) and task distribution ``delta`` (tasks of
each BoT per site) by stages; its result is rounded and placed on concrete
processors; when resources are released (phase 3) completed BoTs leave,
newly ready BoTs join, and a new game starts with what remains. This module
plays that sequence of games (:func:`gmo`); its parts live beside it:

- :mod:`hybridsched.heuristics.bot_sites.gmo_game`: one game, our reading of the
  paper's equations, stage by stage;
- :mod:`hybridsched.heuristics.bot_sites.gmo_placement`: a game's result rounded and
  placed on processors, and the final schedule;
- :mod:`hybridsched.heuristics.bot_sites.gmo_readings`: the readings the text leaves
  open (the options of :func:`gmo`, with the paper's words), checked by
  :func:`~hybridsched.heuristics.bot_sites.gmo_readings.check_options`.

Each new game is warm-started from the previous game's distribution (scaled
to the tasks left) when every player played before, and from Eq. 18
otherwise (Algorithm 1 re-initialises only the BoTs "not yet scheduled").
When the next game starts is the ``regame`` reading: at a game's plan's
first BoT completion (line 16, the default) or when resources are actually
released; either way every BoT keeps the tasks that start before that time
and returns the others.
"""

from __future__ import annotations

import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.heuristics.bot_sites.dag import release_successors
from hybridsched.heuristics.bot_sites.gmo_game import TINY, play_game, player_limits
from hybridsched.heuristics.bot_sites.gmo_placement import (
    assemble,
    ensure_progress,
    largest_remainder,
    place_dedicated,
    place_shared,
    round_allocation,
)
from hybridsched.heuristics.bot_sites.gmo_readings import check_options

#: ``check_options`` is also the registered method's option check, named by string
#: (``"hybridsched.heuristics.bot_sites.gmo:check_options"``, :mod:`hybridsched.bot_sites.methods`).
__all__ = ["check_options", "gmo"]


def gmo(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
        objective: str = "makespan", epsilon: float = 1e-5, max_stages: int = 1000,
        regame: str = "completion", placement: str = "dedicated", utility: str = "sum",
        threshold: str = "absolute", keep: str = "last", moves: str = "simultaneous"
        ) -> Solution:
    """Schedule ``instance`` with GMO (our reading: the module docstring and those it lists).

    Parameters
    ----------
    instance:
        A bot-sites instance.
    seed, time_limit:
        Accepted for the solver contract; GMO is deterministic and fast.
    objective:
        ``"makespan"`` or ``"cost"``: the gain's tie-break (``utility="sum"``)
        or the gain (``utility="objective"``) between candidate allocations.
    epsilon:
        Threshold of line 15 (absolute or relative: ``threshold``).
    max_stages:
        Stage limit per game (the paper uses 1,000).
    regame:
        When a new game starts: ``"completion"`` (default: at the first BoT
        completion of a game's plan, the literal line 16) or ``"idle"`` (a
        processor runs out of work or a BoT with successors completes).
    placement:
        ``"dedicated"`` (default: BoT ``k`` gets ``theta_ki`` processors of
        site ``i``) or ``"shared"`` (a site's processors run the BoTs one
        after another). Hard limits always use dedicated processors.
    utility, threshold, keep, moves:
        The gain of a stage, its stopping threshold, which stage a game
        returns and how players move (:mod:`~hybridsched.heuristics.bot_sites.gmo_readings`).

    Returns
    -------
    Solution
        With ``notes`` giving the number of games, total stages and the
        stages of the first game.
    """
    check_options({"objective": objective, "epsilon": epsilon, "max_stages": max_stages,
                   "regame": regame, "placement": placement, "utility": utility,
                   "threshold": threshold, "keep": keep, "moves": moves})
    readings = {"utility": utility, "threshold": threshold, "keep": keep, "moves": moves}
    K, N = instance.n_bots, instance.n_procs
    p_all = instance.p
    m = instance.procs.astype(float)
    site = instance.proc_site
    remaining = instance.tasks.astype(np.int64).copy()
    preds = instance.predecessors
    waiting = np.array([len(x) for x in preds])
    succs = instance.successors
    release = np.zeros(K)
    completion = np.zeros(K)
    active = waiting == 0
    mat = np.zeros(N)
    hard = instance.hard_limits and instance.has_limits
    dedicated = hard or placement == "dedicated"
    prev_delta = np.full((K, instance.n_sites), np.nan)
    out_bot: list[np.ndarray] = []
    out_proc: list[np.ndarray] = []
    out_count: list[np.ndarray] = []
    out_start: list[np.ndarray] = []
    games = total_stages = first_stages = 0
    while remaining.sum() > 0:
        players = np.flatnonzero(active & (remaining > 0))
        lim = player_limits(instance, players)
        p = p_all[players]
        warm = None
        rows = prev_delta[players]
        if games and not np.isnan(rows).any():
            warm = rows / np.maximum(rows.sum(axis=1, keepdims=True), TINY) \
                * remaining[players][:, None]
        result = play_game(p, m, remaining[players], instance.price, lim, objective=objective,
                           epsilon=epsilon, max_stages=max_stages, start=warm, **readings)
        games += 1
        total_stages += result.stages
        first_stages = first_stages or result.stages
        prev_delta[players] = result.delta
        theta_int = round_allocation(result.theta, instance.procs, lim, instance.hard_limits)
        theta_int = ensure_progress(theta_int, result.theta, instance.procs, lim)
        rate = theta_int / p
        rsum = rate.sum(axis=1, keepdims=True)
        share = rate / np.where(rsum > 0, rsum, 1.0)
        totals = np.where(theta_int.sum(axis=1) > 0, remaining[players], 0)
        delta_int = largest_remainder(share * totals[:, None], totals, axis=1)
        delta_int[theta_int == 0] = 0
        if dedicated:
            # With hard limits a game starts when every processor is free, so that the
            # allocations of two games never overlap in time; without, each processor
            # takes its new share when it is free.
            avail = np.full(N, mat.max()) if hard else mat
            bot, count, start = place_dedicated(instance, players, theta_int, delta_int, avail,
                                       release)
            proc = np.flatnonzero(bot >= 0)
            bot, count, start = bot[proc], count[proc], start[proc]
        else:
            bot, proc, count, start = place_shared(instance, players, delta_int, result.f,
                                                    mat, release)
        dur = p_all[bot, site[proc]]
        end = start + count * dur
        plan_finish = np.zeros(K)
        np.maximum.at(plan_finish, bot, end)
        planned = np.zeros(K, dtype=np.int64)
        np.add.at(planned, bot, count)
        finishing = players[planned[players] == remaining[players]]
        if regame == "completion":
            horizon = plan_finish[finishing].min()
        else:
            # Entries are sorted by processor: the last one of each is its planned end.
            last = np.concatenate((proc[1:] != proc[:-1], [True]))
            horizon = end[last].min()
            gating = finishing[[bool(succs[k]) for k in finishing]]
            if len(gating):
                horizon = min(horizon, plan_finish[gating].min())
        done_now = finishing[plan_finish[finishing] <= horizon * (1 + 1e-12)]
        started = np.clip(np.ceil((horizon - start) / dur), 0, count).astype(np.int64)
        full = np.isin(bot, done_now)
        started[full] = count[full]
        keep = started > 0
        out_bot.append(bot[keep])
        out_proc.append(proc[keep])
        out_count.append(started[keep])
        out_start.append(start[keep])
        piece_end = start[keep] + started[keep] * dur[keep]
        np.maximum.at(mat, proc[keep], piece_end)
        committed = np.zeros(K, dtype=np.int64)
        np.add.at(committed, bot[keep], started[keep])
        remaining -= committed
        np.maximum.at(completion, bot[keep], piece_end)
        for k in players[remaining[players] == 0]:
            active[k] = False
            for b in release_successors(k, succs, preds, waiting, completion, release):
                active[b] = True
    return assemble(instance, out_bot, out_proc, out_count, out_start,
                     {"method": "gmo", "objective": objective, "games": games,
                      "stages": total_stages, "first_game_stages": first_stages,
                      "placement": "dedicated" if dedicated else "shared", "regame": regame,
                      **readings})
