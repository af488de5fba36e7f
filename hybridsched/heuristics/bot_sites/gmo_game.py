"""One game of GMO (Duan, Prodan and Li 2014, Algorithm 1, phases 1-2): its stages and utilities.

The players are the BoTs that are ready and unfinished. One *game* computes,
stage by stage, a fractional resource allocation ``theta`` (processors of
each site per BoT) and task distribution ``delta`` (tasks of each BoT per
site); :mod:`hybridsched.heuristics.bot_sites.gmo_placement` rounds and places its
result and :mod:`hybridsched.heuristics.bot_sites.gmo` plays the games one after
another.

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

The readings the text leaves open (``utility``, ``threshold``, ``keep``,
``moves``) are described with their options in
:mod:`hybridsched.heuristics.bot_sites.gmo_readings`.

GMO with ``objective="cost"``: site factors cancel in Eq. 9 (``theta``
shares one site among BoTs), so the cost weight only changes which BoTs
win processors, not which sites are used; the cost mode therefore differs
little from the makespan mode. This is a property of the equations as
written, not of our implementation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hybridsched.bot_sites.instance import Instance

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
class Limits:
    """Bandwidth (Eq. 7) and storage (Eq. 8) data of a game's players; ``None`` where unlimited."""

    rate: np.ndarray | None          # (K, M) bandwidth per busy processor
    bandwidth: np.ndarray | None     # (M,)
    storage: np.ndarray | None       # (K,)
    storage_limit: np.ndarray | None  # (M,)

    def usage(self, theta: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Bandwidth and storage each site uses under ``theta`` (``None``: unlimited)."""
        bw = None if self.bandwidth is None else (theta * self.rate).sum(axis=0)
        st = None if self.storage_limit is None else (theta * self.storage[:, None]).sum(axis=0)
        return bw, st

    @property
    def any(self) -> bool:
        """Whether any limit applies."""
        return self.bandwidth is not None or self.storage_limit is not None

    def ok(self, theta: np.ndarray) -> np.ndarray:
        """Per site, whether ``theta`` keeps within its limits."""
        bw, st = self.usage(theta)
        good = np.ones(theta.shape[1], dtype=bool)
        if bw is not None:
            good &= bw <= self.bandwidth * (1 + 1e-12)
        if st is not None:
            good &= st <= self.storage_limit * (1 + 1e-12)
        return good


def player_limits(instance: Instance, players: np.ndarray) -> Limits:
    """The limits of the BoTs ``players`` of ``instance`` (rows in the players' order)."""
    rate = instance.rate
    has_bw = rate is not None and instance.site_bandwidth is not None
    has_st = instance.storage is not None and instance.storage_limit is not None
    return Limits(
        rate=rate[players] if has_bw else None,
        bandwidth=instance.site_bandwidth if has_bw else None,
        storage=instance.storage[players] if has_st else None,
        storage_limit=instance.storage_limit if has_st else None,
    )


def _enforce(theta: np.ndarray, delta: np.ndarray, p: np.ndarray, m: np.ndarray,
             lim: Limits) -> np.ndarray:
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
              lim: Limits, *, objective: str = "makespan", epsilon: float = 1e-5,
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
        The readings of :mod:`hybridsched.heuristics.bot_sites.gmo_readings`.
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
