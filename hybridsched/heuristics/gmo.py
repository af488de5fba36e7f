"""GMO, the game-multi-objective algorithm of Duan, Prodan and Li (2014), Algorithm 1.

The players are the BoTs that are ready (all DAG predecessors complete) and
unfinished. One *game* computes a fractional resource allocation ``theta``
(processors of each site per BoT) and task distribution ``delta`` (tasks of
each BoT per site) by stages; its result is rounded and placed on concrete
processors; when resources are released (phase 3, see below) completed
BoTs leave, newly ready BoTs join, and a new game starts with what remains.

Our reading of the paper, equation by equation:

* Eq. 9: ``theta_ki = m_i * delta_ki p_ki w_ki / sum_k' delta_k'i p_k'i w_k'i``.
* Eq. 14: ``delta_ki = delta_k * (theta_ki / p_ki) / sum_i' theta_ki' / p_ki'``,
  and Eq. 5: ``f_k = delta_k / sum_i theta_ki / p_ki``.
* Eq. 18 (initial distribution): ``delta_ki`` proportional to ``m_i / p_ki``
  (with ``objective="cost"``, to ``m_i / (phi~_i p_ki)``: "the tasks are
  distributed based on the processing rate and performance/price ratio").
  Eq. 19 only initialises bandwidth, which our model fixes per task.
* Eq. 10 (performance weight): the garbled text reduces to
  ``pw_ki = (1 / p_ki) / sum_i' (1 / p_ki')``.
* Eq. 11 (cost weight): ``cw_ki = (1 / (phi~_i p_ki)) / sum_i' (1 / (phi~_i' p_ki'))``
  where ``phi~_i = phi_i`` for paid sites and, for free sites (the garbled
  ``phi_i = 0`` case, which would divide by zero), the smallest positive
  price, so a free site counts as the cheapest paid one. Without any paid
  site ``cw = pw``.
* Eq. 12 (bandwidth weight, per site, normalised over BoTs):
  ``bw_ki = (p_ki / d_ki) / sum_k' (p_k'i / d_k'i)``: BoTs that need less
  bandwidth per processor win processors.
* Eq. 13 (storage weight): ``sw_ki = (1 / sr_k) / sum_k' (1 / sr_k')``.
* One stage (Algorithm 1 lines 13-14 and MULTIOBJECTIVE-SCHEDULE): from the
  previous ``delta``, candidate allocations are computed with Eq. 9 under the
  ``pw`` and the ``cw`` weights ("Recalculate theta''_ki with Equation 9 with
  weights from 10 and 11", line 29); on a site whose bandwidth (Eq. 7) or
  storage (Eq. 8) limit the candidate violates, that site's column is
  recomputed with ``bw`` (then ``sw``) weights, and if still violated scaled
  down (processors left idle) so the limit holds. Each candidate gives a new
  ``delta`` by Eq. 14 and the one "with best gain" (lines 30-31) is kept.

Readings that the text leaves open are options of :func:`gmo` (and of the
registered method), checked by :func:`check_options`; each default is the
most literal reading:

* ``utility`` -- what "best gain" (line 31) and the gain of line 15
  measure. Line 15 stops when
  ``sum_k (f_k(Delta^{S(l-1)}) - f_k(Delta^{S(l)})) + sum_k (c_k(...) - c_k(...)) <= epsilon``:
  the gain is the aggregated makespan's (Eq. 15) plus the aggregated cost's
  (Eq. 6), unnormalised. ``"sum"`` (default) uses that sum for both the
  choice between candidates and the stop (``objective`` breaks ties);
  ``"objective"`` uses the selected objective alone (``sum_k f_k`` for
  ``objective="makespan"``, ``sum_k c_k`` for ``"cost"``, the other one
  breaking ties).
* ``threshold`` -- line 15's ``<= epsilon``: ``"absolute"`` (default, as
  written; the paper gives no value of epsilon, ours is ``1e-5``) or
  ``"relative"`` (gain at most ``epsilon`` times the current value, so it
  does not depend on units; with ``1e-5``, 100-250 stages in a first game
  at the paper's sizes against 310-632 in its Table 3). Either way at most
  ``max_stages`` stages ("we use for GMO a maximum number of 1,000
  iterations", Section 4.6).
* ``keep`` -- which stage a game returns: ``"last"`` (default: Algorithm
  1 ensures ``Delta^{S(l)}``, the distribution of the stage that met line
  15) or ``"best"`` (the best stage by the gain's key).
* ``moves`` -- the order in which players move. The paper calls the game
  *sequential*, "players select a strategy following a certain predefined
  order and observe the moves of the players who preceded them" (Section
  4.2), but writes a stage as ``Theta^{S(l)} = Theta(Delta^{S(l-1)})``,
  ``Delta^{S(l)} = Delta(Theta^{S(l)})`` (Eq. 20-21): every player against
  the last stage's distribution. ``"simultaneous"`` (default) is Eq.
  20-21; ``"sequential"`` lets players move in index order within a stage,
  each computing Eq. 9 from the distribution in which the players before it
  have already moved, and replacing its own row by Eq. 14 (``f`` of the
  stage is Eq. 5 under the allocation the last player moved against).
* ``placement`` -- what the rounded ``theta`` means on concrete
  processors. ``theta_ki`` "is the number of processors allocated to BoT
  T_k on site s_i" (Section 4.1), and "GMO yields an execution plan in
  which tasks belonging to the same BoT are grouped in contiguous slots on
  the same sites" (Section 5.1): ``"dedicated"`` (default) gives BoT ``k``
  ``theta_ki`` processors of site ``i`` (contiguous chunks, ``delta_ki``
  tasks spread evenly, extras on the processors free first). ``"shared"``
  (the previous default) deals a site's tasks round-robin to its
  processors, BoTs in increasing ``f_k`` (the game's execution time), each
  processor running its share of one BoT, then of the next. With hard
  bandwidth/storage limits processors are always dedicated, so the peak use
  never exceeds ``sum_k theta_ki * use_k``, which the game kept within the
  limits.
* ``regame`` -- when phase 3 starts a new game. Line 16 says "wait for a
  BoT to complete", and Phase 3 "the earliest completed BoTs are
  eliminated. To utilize the released resources, we repeat the first two
  phases": ``"completion"`` (default) plays a game's plan until its earliest
  BoT completes at time ``T``. ``"idle"`` starts a new game when resources
  are actually released: the first time a processor runs out of planned
  work, or when a BoT with DAG successors completes (faster at 10^3 BoTs:
  tens instead of hundreds of games). At ``T`` every BoT keeps the tasks
  that start before ``T`` and returns the others; BoTs that have no task
  left leave the game, and BoTs whose predecessors have all completed join
  with release time the predecessors' last finish. The schedule is
  computed offline, so a new game's tasks start as soon as their processor
  is free and their BoT released (idle gaps before ``T`` are used). With
  hard limits a new game starts only when every processor is free, so the
  allocations of two games never overlap in time. On the paper's Table 2
  the literal readings give 24 (T2's last round starts at 16, before T1
  completes at 20, so nothing is left to re-allocate); ``regame="idle"``
  or ``placement="shared"`` give the paper's 23.

Other points of ours where the paper is silent:

* Rounding: the paper only says theta is rounded "in the end of
  scheduling". Per site, ``theta`` is rounded by largest remainders so that
  at most ``m_i`` processors are used (with hard limits: down, then up while
  the limits hold); BoTs left without processors wait for the next game.
  ``delta`` is recomputed from the integer ``theta`` with Eq. 14 and rounded
  per BoT by largest remainders so that the totals are exact (constraint 6:
  ``delta_ki = 0`` where ``theta_ki < 1``).
* Each new game is warm-started from the previous game's distribution
  (scaled to the tasks left) when every player played before, and from Eq.
  18 otherwise (Algorithm 1 re-initialises only the BoTs "not yet
  scheduled").
* GMO with ``objective="cost"``: site factors cancel in Eq. 9 (``theta``
  shares one site among BoTs), so the cost weight only changes which BoTs
  win processors, not which sites are used; the cost mode therefore differs
  little from the makespan mode. This is a property of the equations as
  written, not of our implementation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.errors import InfeasibleInstanceError, InputError
from hybridsched.heuristics.bot_dag import release_successors
from hybridsched.readings import check_choice, check_number

TINY = 1e-300
#: Column or row sums below this are treated as 0 (avoids overflow on denormals).
NEGLIGIBLE = 1e-150


@dataclass(frozen=True)
class GameResult:
    """Outcome of one game: fractional allocation and distribution, and its stages."""

    theta: np.ndarray
    delta: np.ndarray
    f: np.ndarray
    stages: int


def performance_weights(p: np.ndarray) -> np.ndarray:
    """Eq. 10: ``pw_ki = (1/p_ki) / sum_i (1/p_ki)``."""
    inv = 1.0 / p
    return inv / inv.sum(axis=1, keepdims=True)


def effective_prices(price: np.ndarray) -> np.ndarray | None:
    """Prices with free sites at the smallest positive price (``None`` if all are free)."""
    paid = price[price > 0]
    if not len(paid):
        return None
    return np.where(price > 0, price, paid.min())


def cost_weights(p: np.ndarray, price: np.ndarray) -> np.ndarray:
    """Eq. 11 (our reading, see the module docstring)."""
    eff = effective_prices(price)
    if eff is None:
        return performance_weights(p)
    inv = 1.0 / (eff[None, :] * p)
    return inv / inv.sum(axis=1, keepdims=True)


def allocate(delta: np.ndarray, p: np.ndarray, w: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Eq. 9: processors of each site shared in proportion to ``delta * p * w``."""
    x = delta * p * w
    s = x.sum(axis=0)
    return np.where(s > 0, m[None, :] * x / np.where(s > 0, s, 1.0), 0.0)


def distribute(theta: np.ndarray, p: np.ndarray, tasks: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 14 and Eq. 5: task distribution and each BoT's execution time ``f_k``."""
    rate = theta / p
    beta = rate.sum(axis=1)
    safe = np.maximum(beta, TINY)
    return tasks[:, None] * rate / safe[:, None], np.where(beta > 0, tasks / safe, np.inf)


@dataclass(frozen=True)
class _Limits:
    rate: np.ndarray | None          # (K, M) bandwidth per busy processor
    bandwidth: np.ndarray | None     # (M,)
    storage: np.ndarray | None       # (K,)
    storage_limit: np.ndarray | None  # (M,)

    def usage(self, theta: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        bw = None if self.bandwidth is None else (theta * self.rate).sum(axis=0)
        st = None if self.storage_limit is None else (theta * self.storage[:, None]).sum(axis=0)
        return bw, st

    @property
    def any(self) -> bool:
        return self.bandwidth is not None or self.storage_limit is not None

    def ok(self, theta: np.ndarray) -> np.ndarray:
        bw, st = self.usage(theta)
        good = np.ones(theta.shape[1], dtype=bool)
        if bw is not None:
            good &= bw <= self.bandwidth * (1 + 1e-12)
        if st is not None:
            good &= st <= self.storage_limit * (1 + 1e-12)
        return good


def _limits(instance: Instance, players: np.ndarray) -> _Limits:
    rate = instance.rate
    has_bw = rate is not None and instance.site_bandwidth is not None
    has_st = instance.storage is not None and instance.storage_limit is not None
    return _Limits(
        rate=rate[players] if has_bw else None,
        bandwidth=instance.site_bandwidth if has_bw else None,
        storage=instance.storage[players] if has_st else None,
        storage_limit=instance.storage_limit if has_st else None,
    )


def _enforce(theta: np.ndarray, delta: np.ndarray, p: np.ndarray, m: np.ndarray,
             lim: _Limits) -> np.ndarray:
    """MULTIOBJECTIVE-SCHEDULE lines 24-29: switch weights on violating sites, then scale."""
    if not lim.any:
        return theta
    theta = theta.copy()
    bw, st = lim.usage(theta)
    if bw is not None:
        bad = bw > lim.bandwidth
        if bad.any():
            inv = p[:, bad] / np.maximum(lim.rate[:, bad] * p[:, bad], TINY)  # p / d
            w = inv / inv.sum(axis=0, keepdims=True)
            theta[:, bad] = allocate(delta[:, bad], p[:, bad], w, m[bad])
    _, st = lim.usage(theta)
    if st is not None:
        bad = st > lim.storage_limit
        if bad.any():
            w = np.repeat((1.0 / lim.storage / np.sum(1.0 / lim.storage))[:, None],
                          bad.sum(), axis=1)
            theta[:, bad] = allocate(delta[:, bad], p[:, bad], w, m[bad])
    bw, st = lim.usage(theta)
    scale = np.ones(theta.shape[1])
    if bw is not None:
        scale = np.minimum(scale, lim.bandwidth / np.maximum(bw, TINY))
    if st is not None:
        scale = np.minimum(scale, lim.storage_limit / np.maximum(st, TINY))
    return theta * np.minimum(scale, 1.0)[None, :]


#: Values of GMO's reading options (see the module docstring); the first is the default.
UTILITIES = ("sum", "objective")
THRESHOLDS = ("absolute", "relative")
KEEPS = ("last", "best")
MOVES = ("simultaneous", "sequential")
PLACEMENTS = ("dedicated", "shared")
REGAMES = ("completion", "idle")


def _stage_key(objective: str, utility: str, agg: float, cost: float) -> tuple[float, float]:
    """Gain key of a candidate (smaller is better); its first entry is the stopping value."""
    if utility == "sum":
        return (agg + cost, agg if objective == "makespan" else cost)
    return (agg, cost) if objective == "makespan" else (cost, agg)


def _stop(stages: int, gain: float, current: float, epsilon: float, threshold: str) -> bool:
    """Line 15: the stage's gain is at most epsilon (absolute or relative to the value)."""
    if stages <= 1:
        return False
    if not np.isfinite(current):
        return True
    return gain <= (epsilon if threshold == "absolute" else epsilon * abs(current))


def play_game(p: np.ndarray, m: np.ndarray, tasks: np.ndarray, price: np.ndarray,
              lim: _Limits, *, objective: str = "makespan", epsilon: float = 1e-5,
              max_stages: int = 1000, start: np.ndarray | None = None,
              utility: str = "sum", threshold: str = "absolute", keep: str = "last",
              moves: str = "simultaneous") -> GameResult:
    """Run the stages of one game (Algorithm 1, phases 1-2) on the given players.

    Parameters
    ----------
    p:
        ``(K, M)`` effective task times of the players.
    m:
        ``(M,)`` processors per site.
    tasks:
        ``(K,)`` tasks each player still has to place.
    price:
        ``(M,)`` site prices.
    lim:
        Bandwidth/storage data of the players.
    objective:
        ``"makespan"`` or ``"cost"``: the gain's tie-break (``utility="sum"``)
        or the gain itself (``utility="objective"``).
    epsilon:
        Threshold of line 15.
    max_stages:
        Upper limit on stages.
    start:
        Warm-start distribution (``None``: Eq. 18).
    utility, threshold, keep, moves:
        The readings of the module docstring.
    """
    tasks = tasks.astype(float)
    if start is None:
        eff = effective_prices(price) if objective == "cost" else None
        speed = m[None, :] / p if eff is None else m[None, :] / (eff[None, :] * p)
        delta = tasks[:, None] * speed / speed.sum(axis=1, keepdims=True)
    else:
        delta = start
    if not lim.any and moves == "simultaneous":
        return _play_fast(p, m, tasks, price, delta, objective, epsilon, max_stages,
                          utility, threshold, keep)
    weights = [performance_weights(p)]
    if np.any(price > 0):
        weights.append(cost_weights(p, price))
    unit_cost = p * price[None, :]

    def move(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One stage under weights ``w``: allocation, distribution, ``f`` (Eq. 20-21, 5)."""
        if moves == "simultaneous":
            theta = _enforce(allocate(delta, p, w, m), delta, p, m, lim)
            d, f = distribute(theta, p, tasks)
            return theta, d, f
        # Players move one after another in index order, each against the allocation
        # (Eq. 9) that the distributions of the players before it, already moved, produce.
        d = delta.copy()
        theta = d
        for k in range(len(tasks)):
            theta = _enforce(allocate(d, p, w, m), d, p, m, lim)
            rate = theta[k] / p[k]
            total = rate.sum()
            d[k] = tasks[k] * rate / total if total > 0 else 0.0
        # Eq. 5 under the allocation the last player moved against.
        _, f = distribute(theta, p, tasks)
        return theta, d, f

    best_key: tuple[float, float] = (np.inf, np.inf)
    best = last = None
    current = np.inf
    stages = 0
    for stages in range(1, max_stages + 1):
        candidates = []
        for w in weights:
            theta, d, f = move(w)
            key = _stage_key(objective, utility, float(f.sum()), float((unit_cost * d).sum()))
            candidates.append((key, theta, d, f))
        key, theta, delta, f = min(candidates, key=lambda c: c[0])
        last = (theta, delta, f)
        if best is None or key < best_key:
            best_key, best = key, last
        gain = current - key[0]
        current = key[0]
        if _stop(stages, gain, current, epsilon, threshold):
            break
    theta, delta, f = best if keep == "best" else last
    return GameResult(theta, delta, f, stages)


def _play_fast(p: np.ndarray, m: np.ndarray, tasks: np.ndarray, price: np.ndarray,
               delta: np.ndarray, objective: str, epsilon: float, max_stages: int,
               utility: str = "sum", threshold: str = "absolute", keep: str = "last"
               ) -> GameResult:
    """The simultaneous stages of :func:`play_game` without limits, factorised.

    With ``pw`` (Eq. 10) the product ``p_ki pw_ki`` is ``1 / S_k`` with
    ``S_k = sum_i 1 / p_ki``; with ``cw`` (Eq. 11) it is ``1 / (phi~_i C_k)``
    where the site factor cancels in Eq. 9. So Eq. 9 reads
    ``theta_ki = m_i a_k delta_ki / sum_k' a_k' delta_k'i`` with a per-BoT
    factor ``a_k``, and Eq. 14 gives ``delta'_ki = delta_k G_ki c_i / (G c)_k``
    with ``G = delta / p`` and ``c_i = m_i / sum_k a_k delta_ki``: the same
    numbers as the direct formulas with a few matrix-vector products.
    """
    invp = 1.0 / p
    factors = [1.0 / invp.sum(axis=1)]
    eff = effective_prices(price)
    if eff is not None:
        factors.append(1.0 / (invp / eff[None, :]).sum(axis=1))
    unit_cost = p * price[None, :]
    need_cost = objective == "cost" or utility == "sum"
    best_key: tuple[float, float] = (np.inf, np.inf)
    best: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    last = best
    current = np.inf
    stages = 0
    tasks = tasks.astype(float)
    for stages in range(1, max_stages + 1):
        G = delta * invp
        H = G * unit_cost if need_cost else None
        candidates = []
        for a in factors:
            col = a @ delta
            ok = col > NEGLIGIBLE
            c = np.divide(m, col, out=np.zeros_like(col), where=ok)
            Gc = G @ c
            safe = np.maximum(Gc, TINY)
            f = tasks / (a * safe)
            agg = float(f.sum()) if Gc.min() > 0 else np.inf
            cost = float(np.dot(tasks, (H @ c) / safe)) if H is not None else 0.0
            candidates.append((_stage_key(objective, utility, agg, cost), a, c, safe, f))
        key, a, c, safe, f = min(candidates, key=lambda x: x[0]) if len(candidates) > 1 \
            else candidates[0]
        new_delta = G * c
        new_delta *= (tasks / safe)[:, None]
        last = (delta, a, c, new_delta, f)
        if best is None or key < best_key:
            best_key, best = key, last
        delta = new_delta
        gain = current - key[0]
        current = key[0]
        if _stop(stages, gain, current, epsilon, threshold):
            break
    prev, a, c, d, f = best if keep == "best" else last
    theta = a[:, None] * prev * c[None, :]
    return GameResult(theta, d, f, stages)


def _largest_remainder(values: np.ndarray, totals: np.ndarray, axis: int) -> np.ndarray:
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


def round_allocation(theta: np.ndarray, m: np.ndarray, lim: _Limits, hard: bool
                     ) -> np.ndarray:
    """Integer processors per (player, site), at most ``m_i`` per site."""
    totals = np.minimum(np.floor(theta.sum(axis=0) + 1e-9).astype(np.int64), m)
    if not hard or not lim.any:
        return _largest_remainder(theta, totals, axis=0)
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


def _ensure_progress(theta_int: np.ndarray, theta: np.ndarray, m: np.ndarray,
                     lim: _Limits) -> np.ndarray:
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


def _place(instance: Instance, players: np.ndarray, theta_int: np.ndarray,
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


def _place_shared(instance: Instance, players: np.ndarray, delta_int: np.ndarray,
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


def check_options(options: dict) -> None:
    """Refuse bad values of GMO's options with a one-line :class:`InputError`.

    The registry and the campaign call it before any work; :func:`gmo` calls
    it too, so a direct call is checked the same way.
    """
    objective = options.get("objective", "makespan")
    if objective not in ("makespan", "cost"):
        raise InputError(f"--objective: must be one of 'makespan', 'cost', got {objective!r}")
    choices = {"utility": UTILITIES, "threshold": THRESHOLDS, "keep": KEEPS, "moves": MOVES,
               "placement": PLACEMENTS, "regame": REGAMES}
    for name, allowed in choices.items():
        if name in options:
            check_choice(name, options[name], allowed)
    if "epsilon" in options:
        check_number("epsilon", options["epsilon"], low=0.0)
    if "max_stages" in options:
        ms = options["max_stages"]
        if isinstance(ms, bool) or not isinstance(ms, int) or not 1 <= ms <= 10**6:
            raise InputError(f"option --max-stages: must be an integer in [1, 1000000], "
                             f"got {ms!r}")


def gmo(instance: Instance, *, seed: int | None = None, time_limit: float | None = None,
        objective: str = "makespan", epsilon: float = 1e-5, max_stages: int = 1000,
        regame: str = "completion", placement: str = "dedicated", utility: str = "sum",
        threshold: str = "absolute", keep: str = "last", moves: str = "simultaneous"
        ) -> Solution:
    """Schedule ``instance`` with GMO (see the module docstring for our reading).

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
        returns and how players move (module docstring).

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
        lim = _limits(instance, players)
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
        theta_int = _ensure_progress(theta_int, result.theta, instance.procs, lim)
        rate = theta_int / p
        rsum = rate.sum(axis=1, keepdims=True)
        share = rate / np.where(rsum > 0, rsum, 1.0)
        totals = np.where(theta_int.sum(axis=1) > 0, remaining[players], 0)
        delta_int = _largest_remainder(share * totals[:, None], totals, axis=1)
        delta_int[theta_int == 0] = 0
        if dedicated:
            # With hard limits a game starts when every processor is free, so that the
            # allocations of two games never overlap in time; without, each processor
            # takes its new share when it is free.
            avail = np.full(N, mat.max()) if hard else mat
            bot, count, start = _place(instance, players, theta_int, delta_int, avail,
                                       release)
            proc = np.flatnonzero(bot >= 0)
            bot, count, start = bot[proc], count[proc], start[proc]
        else:
            bot, proc, count, start = _place_shared(instance, players, delta_int, result.f,
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
    return _assemble(instance, out_bot, out_proc, out_count, out_start,
                     {"method": "gmo", "objective": objective, "games": games,
                      "stages": total_stages, "first_game_stages": first_stages,
                      "placement": "dedicated" if dedicated else "shared", "regame": regame,
                      **readings})


def _assemble(instance: Instance, bots: list[np.ndarray], procs: list[np.ndarray],
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
