"""A second, literal GMO written from the paper, compared decision by decision with gmo.py.

Duan, Prodan and Li (2014): Eq. 5, 6, 9, 10, 11, 14, 18, Algorithm 1 lines 12-15 and
30-31 (one game without bandwidth/storage limits), and Jain's fairness (Eq. 22) under the
readings of the checker. Everything here is deliberately naive: plain Python loops over
lists, no numpy, no factorisation, no shared code with the main implementation.

The decisions compared are, stage by stage, the allocation a stage chooses (which weight
wins "the best gain") and the distribution it produces, and the stage at which line 15
stops. Where the two computations' rounding could decide differently (two candidates'
gains or the stopping test within 1e-9 relative of a tie), the comparison stops at that
stage: a float tie is not a reading.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.bot_sites.checker import evaluate
from hybridsched.bot_sites.instance import Instance
from hybridsched.heuristics.bot_sites.gmo import gmo
from hybridsched.heuristics.bot_sites.gmo_game import Limits, play_game
from hybridsched.heuristics.bot_sites.greedy import g_min_min

from .bot_helpers import random_instance

TIE = 1e-9


# ---------------------------------------------------------------- the paper, literally


def eq10_pw(p):
    """Eq. 10: pw_ki = (1 / p_ki) / sum_i (1 / p_ki)."""
    return [[(1 / row[i]) / sum(1 / x for x in row) for i in range(len(row))] for row in p]


def eq11_cw(p, price):
    """Eq. 11 (the checker's reading of the garbled phi_i = 0 case: the cheapest paid price)."""
    paid = [x for x in price if x > 0]
    if not paid:
        return eq10_pw(p)
    phi = [x if x > 0 else min(paid) for x in price]
    return [[(1 / (phi[i] * row[i])) / sum(1 / (phi[j] * row[j]) for j in range(len(row)))
             for i in range(len(row))] for row in p]


def eq9_theta(delta, p, w, m):
    """Eq. 9: theta_ki = m_i delta_ki p_ki w_ki / sum_k' delta_k'i p_k'i w_k'i."""
    K, M = len(delta), len(m)
    theta = [[0.0] * M for _ in range(K)]
    for i in range(M):
        total = sum(delta[k][i] * p[k][i] * w[k][i] for k in range(K))
        for k in range(K):
            if total > 0:
                theta[k][i] = m[i] * delta[k][i] * p[k][i] * w[k][i] / total
    return theta


def eq14_delta_row(theta_row, p_row, tasks_k):
    """Eq. 14 for one BoT: delta_ki = delta_k (theta_ki / p_ki) / sum_i theta_ki / p_ki."""
    beta = sum(t / q for t, q in zip(theta_row, p_row, strict=True))
    if beta <= 0:
        return [0.0] * len(p_row)
    return [tasks_k * (t / q) / beta for t, q in zip(theta_row, p_row, strict=True)]


def eq5_f(theta, p, tasks):
    """Eq. 5: f_k = delta_k / sum_i theta_ki / p_ki (infinite without processors)."""
    out = []
    for k in range(len(tasks)):
        beta = sum(theta[k][i] / p[k][i] for i in range(len(p[k])))
        out.append(tasks[k] / beta if beta > 0 else math.inf)
    return out


def eq6_cost(delta, p, price):
    """Eq. 6, summed over the BoTs: sum_k sum_i p_ki delta_ki phi_i."""
    return sum(p[k][i] * delta[k][i] * price[i]
               for k in range(len(delta)) for i in range(len(price)))


def eq18_delta0(p, m, tasks):
    """Eq. 18: delta_ki = delta_k (m_i / p_ki) / sum_i m_i / p_ki."""
    return [[tasks[k] * (m[i] / p[k][i]) / sum(m[j] / p[k][j] for j in range(len(m)))
             for i in range(len(m))] for k in range(len(tasks))]


def literal_game(p, m, tasks, price, *, utility, threshold, keep, moves, epsilon, max_stages):
    """Algorithm 1, phase 2 (no limits), objective makespan.

    Returns the stages as ``(key, theta, delta)`` of the chosen candidate, the margins of
    each stage's decisions (relative gap between candidates, between gain and threshold),
    and the index of the stage the game returns.
    """
    K = len(tasks)
    delta = eq18_delta0(p, m, tasks)
    weights = [eq10_pw(p)] + ([eq11_cw(p, price)] if any(x > 0 for x in price) else [])
    stages, margins = [], []
    previous = math.inf
    for stage in range(1, max_stages + 1):
        candidates = []
        for w in weights:
            if moves == "simultaneous":      # Eq. 20-21
                theta = eq9_theta(delta, p, w, m)
                new = [eq14_delta_row(theta[k], p[k], tasks[k]) for k in range(K)]
            else:                            # players in index order, each sees the ones before
                new = [row[:] for row in delta]
                for k in range(K):
                    theta = eq9_theta(new, p, w, m)
                    new[k] = eq14_delta_row(theta[k], p[k], tasks[k])
            f = eq5_f(theta, p, tasks)
            agg, cost = sum(f), eq6_cost(new, p, price)
            key = (agg + cost, agg) if utility == "sum" else (agg, cost)
            candidates.append((key, theta, new))
        chosen = candidates[0]
        for c in candidates[1:]:
            if c[0] < chosen[0]:
                chosen = c
        keys = [c[0][0] for c in candidates]
        margin = math.inf
        if len(keys) > 1 and any(abs(a - b) > 1e-12 * max(1.0, abs(a))
                                 for ra, rb in zip(candidates[0][1], candidates[1][1],
                                                   strict=True)
                                 for a, b in zip(ra, rb, strict=True)):
            # Candidates that allocate differently: how far their gains are from a tie.
            margin = abs(keys[0] - keys[1]) / max(abs(keys[0]), 1e-300)
        stages.append(chosen)
        delta = chosen[2]
        value = chosen[0][0]
        gain = previous - value
        previous = value
        limit = epsilon if threshold == "absolute" else epsilon * abs(value)
        if stage > 1 and math.isfinite(value):
            margin = min(margin, abs(gain - limit) / max(abs(value), 1e-300))
        margins.append(margin)
        if stage > 1 and (not math.isfinite(value) or gain <= limit):
            break
    if keep == "last":
        returned = len(stages) - 1
    else:
        returned = 0
        for s in range(1, len(stages)):
            if stages[s][0] < stages[returned][0]:
                returned = s
    return stages, margins, returned


# ---------------------------------------------------------------- fairness, literally


def literal_fairness(instance: Instance, solution) -> dict[str, float]:
    """Eq. 22 under each reading, from the blocks, with loops."""
    K = instance.n_bots
    finish = [0.0] * K
    for b in range(solution.n_blocks):
        k, i = int(solution.bot[b]), int(solution.site[b])
        end = float(solution.start[b]) + int(solution.count[b]) * float(instance.p[k][i])
        finish[k] = max(finish[k], end)
    # Workflows: BoTs linked by an edge in either direction, closed transitively.
    flow = list(range(K))
    changed = True
    while changed:
        changed = False
        for a, b in instance.edges.tolist():
            low = min(flow[a], flow[b])
            if flow[a] != low or flow[b] != low:
                flow[a] = flow[b] = low
                changed = True
    spans = {}
    for k in range(K):
        spans[flow[k]] = max(spans.get(flow[k], 0.0), finish[k])
    release = [0.0] * K
    for a, b in instance.edges.tolist():
        release[b] = max(release[b], finish[a])
    execution = [finish[k] - release[k] for k in range(K)]
    alone = [int(instance.tasks[k]) / sum(int(instance.procs[i]) / float(instance.p[k][i])
                                          for i in range(instance.n_sites)) for k in range(K)]

    def jain(values):
        square = sum(v * v for v in values)
        return sum(values) ** 2 / (len(values) * square) if square > 0 else 1.0

    return {"jain_fairness": jain(list(spans.values())), "jain_fairness_bots": jain(finish),
            "jain_fairness_execution": jain(execution),
            "jain_fairness_slowdown": jain([execution[k] / alone[k] for k in range(K)])}


# ---------------------------------------------------------------- the comparisons

readings = st.fixed_dictionaries({
    "utility": st.sampled_from(["sum", "objective"]),
    "threshold": st.sampled_from(["absolute", "relative"]),
    "keep": st.sampled_from(["last", "best"]),
    "moves": st.sampled_from(["simultaneous", "sequential"]),
})


def _state(seed: int):
    rng = np.random.default_rng(seed)
    K, M = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    p = rng.uniform(1, 20, (K, M)).round(3)
    m = rng.integers(1, 6, M).astype(float)
    tasks = rng.integers(1, 40, K).astype(float)
    price = rng.choice([0.0, 0.05, 0.3, 1.0], M)
    return p, m, tasks, price


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), options=readings,
       epsilon=st.sampled_from([1e-5, 1e-2, 1.0]))
def test_stages_decide_as_the_paper(seed, options, epsilon):
    p, m, tasks, price = _state(seed)
    stages, margins, returned = literal_game(p.tolist(), m.tolist(), tasks.tolist(),
                                             price.tolist(), epsilon=epsilon, max_stages=12,
                                             **options)
    lim = Limits(None, None, None, None)
    for s in range(1, len(stages) + 1):
        # Stage s, compared alone: the game cut at s stages returns the s-th stage.
        main = play_game(p, m, tasks, price, lim, epsilon=epsilon, max_stages=s,
                         **(options | {"keep": "last"}))
        assert main.stages == s
        _, theta, delta = stages[s - 1]
        np.testing.assert_allclose(main.theta, theta, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(main.delta, delta, rtol=1e-7, atol=1e-9)
        if margins[s - 1] < TIE:
            return                     # a float tie: the two may legitimately part here
    # The whole game: the same stopping stage (line 15) and the same returned stage.
    main = play_game(p, m, tasks, price, lim, epsilon=epsilon, max_stages=12, **options)
    assert main.stages == len(stages)
    np.testing.assert_allclose(main.theta, stages[returned][1], rtol=1e-7, atol=1e-9)


def test_the_literal_game_tells_the_readings_apart():
    # The comparison above can fail: on this state the readings make different decisions.
    p, m, tasks, price = _state(7)
    assert p.shape[0] > 1 and np.any(price > 0)
    runs = {}
    for utility in ("sum", "objective"):
        for moves in ("simultaneous", "sequential"):
            stages, _, _ = literal_game(p.tolist(), m.tolist(), tasks.tolist(), price.tolist(),
                                        utility=utility, threshold="absolute", keep="last",
                                        moves=moves, epsilon=1e-5, max_stages=12)
            runs[utility, moves] = np.array(stages[-1][1])
    values = list(runs.values())
    assert all(not np.allclose(values[0], v) for v in values[1:])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), method=st.sampled_from(["gmo", "gmo-idle", "min-min"]))
def test_fairness_is_eq22_under_each_reading(seed, method):
    inst = random_instance(np.random.default_rng(seed), max_tasks=12, max_procs=3)
    if method == "min-min":
        solution = g_min_min(inst)
    else:
        solution = gmo(inst, regame="idle" if method == "gmo-idle" else "completion")
    metrics = evaluate(inst, solution).metrics
    for key, value in literal_fairness(inst, solution).items():
        assert metrics[key] == pytest.approx(value, rel=1e-12)
