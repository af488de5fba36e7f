"""Independent checker for bot-sites schedules: the family's one definition of feasibility.

It shares no code with the heuristics or the exact models: effective task
times are recomputed from the ETC, data and bandwidth arrays (Eq. 2-3), and
every objective is recomputed from the blocks alone.

**Real times** (the rule; :mod:`~hybridsched.bot_sites.timeline` computes it).
Stated starts are never trusted beyond the order they give:

* On each processor the blocks run one at a time, in the order of their
  stated starts (ties: the BoT's topological rank, then the block index).
* Let ``L`` be the latest of 0, the *real* end of the previous block on the
  processor and the *real* completion (latest real end of its blocks) of
  each DAG predecessor of the block's BoT, and let ``w(t) = TOL * max(1, |t|)``
  be the snap window, :data:`TOL` ``= 1e-9``: relative, with a floor of
  ``1e-9`` time units below ``|t| = 1``. A block stated to start at ``s``
  really starts at ``L`` when ``L - w(L) <= s <= L + w(L)`` (rounding: it
  runs right then), and at ``s`` when ``s > L + w(L)`` (an idle gap, kept);
  these comparisons are made in binary64 exactly as written.
  ``s < L - w(L)`` is a violation: an overlap (``s < E - w(E)``, ``E`` the
  previous block's real end), a start before a predecessor finishes
  (``s < F - w(F)``, ``F`` its real completion), or a negative start
  (``s < -TOL``). A block that runs on its processor before a block of one of
  its BoT's predecessors is a precedence violation too.
* A block's real end is its real start plus ``count * p`` (``p`` the
  effective time of one task), in binary64.

So the window is only ever used to snap a start onto the time it must
respect, or to decide a violation; it never shortens a run, never lets two
runs overlap and never lets a BoT start before its predecessors really
finish: ``n`` blocks on one processor take exactly the sum of their run
times, whatever ``n``, and the stated times' rounding neither helps nor
hurts. The only slack left is the binary64 rounding of the recomputed sums
(a relative ``2^-53`` or so per addition along a chain). Every objective and
metric below (completion times, makespan, aggregated makespan, fairness,
utilisation) and the bandwidth/storage peaks over time are computed from
the real times (a run occupies ``[real start, real end)``). The one other
tolerance is on values, not times: a site's peak bandwidth/storage may
exceed its limit by :data:`LIMIT_TOL` ``= 1e-9`` relative (one instant's sum
of uses: it cannot add up along a processor); the exact models use the same
rule and constant.

Readings of the paper used here (Duan, Prodan and Li 2014):

* ``f_k`` (Eq. 5, 15) is the *completion time* of BoT ``k``: the finish of
  its last task, measured from time 0. Without a DAG this is Eq. 5's
  ``delta_k / beta_k`` when the BoT starts at 0; the aggregated makespan is
  ``sum_k f_k`` (Eq. 15).
* Cost (Eq. 6) is ``sum_k sum_i p_ki * delta_ki * phi_i`` with the effective
  time ``p_ki`` and ``delta_ki`` the number of tasks of BoT ``k`` on site ``i``.
* Jain's fairness (Eq. 22), ``(sum_k T_k)^2 / (K sum_k T_k^2)``, "where K is
  the number of applications and T_i is the execution time of application
  W_i" (Section 5.1). ``W`` is a workflow (Definition 3.1: "a workflow
  application modeled as a DAG" of BoTs), "the makespan of an application
  A_i is the maximum completion time of its BoTs" (Definition 4.1, arrival
  times ignored), and in the simulations "the BoTs are organized in
  workflows by having 10 percent dependence probability between each pair
  of BoTs" (Section 5.2). So ``jain_fairness`` (the default, literal
  reading) is taken over the *workflows*, the weakly connected components
  of the BoT DAG, with ``T`` the latest completion time of a workflow's
  BoTs; without edges every BoT is its own workflow. The paper leaves this
  open elsewhere ("for clarity, we assume that each application manager
  handles the execution of one BoT", Section 4.2; Eq. 5 calls ``f_k`` the
  "execution time" of a BoT), so the other readings are reported too:
  ``jain_fairness_bots`` (``T_k`` the completion time of BoT ``k``),
  ``jain_fairness_execution`` (``T_k = f_k - r_k``, the time from the
  BoT's release ``r_k``, the last finish of its DAG predecessors, to its
  completion) and ``jain_fairness_slowdown`` (that execution time over the
  BoT's time alone on the whole platform, ``delta_k / sum_i m_i / p_ki``:
  Jain's normalised allocation, and the slowdown of the fairness work the
  paper cites, [23]).
* Efficiency (Eq. 23-25): the text's ``T_ki`` ("makespan of W_k on the
  slowest/fastest site") is read as ``T_ki = delta_k * p_ki / m_i``, the
  makespan BoT ``k`` would have alone on site ``i``; the garbled
  ``arg(T_ki)`` is read as the task-weighted average
  ``sum_i delta_ki / delta_k * T_ki`` of the sites actually used, so
  ``E_k = 1`` when every task runs on the BoT's best site and ``-1`` when all
  run on its worst; ``theta_k`` in Eq. 25 is the number of distinct
  processors that ran BoT ``k``. A BoT whose sites are all equal has
  ``E_k = 1`` and weight 0; when all weights are 0, ``E = 1``.
* Bandwidth (Eq. 7) and storage (Eq. 8) are read over time: while a
  processor of site ``i`` runs a task of BoT ``k`` it uses ``d_ki / p_ki`` of
  the site's input bandwidth and holds ``sr_k`` storage; the peak over time
  must not exceed ``lambda_i`` and ``sl_i``. They are hard constraints only
  when the instance says ``hard_limits``; otherwise they are reported as
  ``bandwidth_ok`` / ``storage_ok``. Peaks are taken over the real times,
  with the :data:`LIMIT_TOL` of the rule above.
* Block counts are checked one by one against their BoT's task count before
  anything is summed, so no integer sum can wrap around.
* A solution file's stated summary (``makespan``, ``cost``: kept as
  ``Solution.reported_makespan`` / ``reported_cost``) must match the
  recomputed values by the rule every family shares
  (:func:`hybridsched.family.wrong_claims`).
"""

from __future__ import annotations

import math

import numpy as np

from hybridsched.bot_sites import timeline
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.bot_sites.timeline import TOL, Timeline
from hybridsched.family import Evaluation, wrong_claims

#: A site's peak bandwidth/storage may exceed its limit by this relative amount.
LIMIT_TOL = 1e-9


def effective_times(instance: Instance) -> np.ndarray:
    """``(K, M)`` effective time of one task: ``max(compute, data / bandwidth)`` (Eq. 2-3)."""
    p = np.array(instance.compute, dtype=float)
    if instance.data is not None and instance.bandwidth is not None:
        p = np.maximum(p, np.asarray(instance.data) / np.asarray(instance.bandwidth))
    return p


def real_times(instance: Instance, solution: Solution) -> Timeline:
    """Real start and end of every block, and real completion of every BoT (module docstring).

    The blocks must name existing BoTs, sites and processors; a block that
    breaks the rule keeps its stated start (the violations are listed).
    """
    return timeline.compute(instance, effective_times(instance), solution.bot, solution.site,
                            solution.proc, solution.count, solution.start)


def block_ends(instance: Instance, solution: Solution) -> np.ndarray:
    """Real end of each block's last task (module docstring)."""
    return real_times(instance, solution).end


def _structure(instance: Instance, solution: Solution) -> list[str]:
    problems: list[str] = []
    n = solution.n_blocks
    for name in ("site", "proc", "count", "start"):
        if len(getattr(solution, name)) != n:
            return [f"solution has {len(getattr(solution, name))} {name} entries for {n} blocks"]
    K, M = instance.n_bots, instance.n_sites
    bot, site, proc = solution.bot, solution.site, solution.proc
    start, count = solution.start, solution.count
    site_ok = (site >= 0) & (site < M)
    procs = np.asarray(instance.procs)[np.where(site_ok, site, 0)]
    finite = np.isfinite(start)
    bot_ok = (bot >= 0) & (bot < K)
    too_many = bot_ok & (count > np.asarray(instance.tasks)[np.where(bot_ok, bot, 0)])
    bad = (~bot_ok | ~site_ok | (site_ok & ((proc < 0) | (proc >= procs)))
           | (count < 1) | too_many | ~finite
           | (finite & (start < -TOL)))
    for b in np.flatnonzero(bad)[:20]:
        k, i, j = int(bot[b]), int(site[b]), int(proc[b])
        if not 0 <= k < K:
            problems.append(f"block {b}: BoT index {k} does not exist")
        if not 0 <= i < M:
            problems.append(f"block {b}: site index {i} does not exist")
        elif not 0 <= j < int(instance.procs[i]):
            problems.append(f"block {b}: processor {j} does not exist on site "
                            f"{instance.site_ids[i]} ({int(instance.procs[i])} processors)")
        if count[b] < 1:
            problems.append(f"block {b}: count {int(count[b])} < 1")
        elif 0 <= k < K and count[b] > instance.tasks[k]:
            problems.append(f"block {b}: count {int(count[b])} exceeds the "
                            f"{int(instance.tasks[k])} tasks of BoT {instance.bot_ids[k]}")
        if not math.isfinite(float(start[b])):
            problems.append(f"block {b}: start is not finite")
        elif start[b] < -TOL:
            problems.append(f"block {b}: starts at {float(start[b])} < 0")
    return problems


def check(instance: Instance, solution: Solution) -> list[str]:
    """Return every violation of ``solution`` against ``instance`` (empty: valid).

    Checks: blocks name existing BoTs, sites and processors with counts >= 1
    and finite starts >= ``-TOL``; every task of every BoT is scheduled exactly
    once (per-BoT counts add up); under the module docstring's rule, no block
    starts before the real end of the previous block on its processor or
    before every task of its DAG predecessors has really finished; when the
    instance has ``hard_limits``, peak bandwidth and storage per site over the
    real times; stated makespan and cost against the recomputed ones.
    """
    problems = _structure(instance, solution)
    if problems:
        return problems
    placed = _placed(instance, solution)
    for k in range(instance.n_bots):
        if placed[k] != int(instance.tasks[k]):
            problems.append(f"BoT {instance.bot_ids[k]}: {placed[k]} tasks scheduled, "
                            f"it has {int(instance.tasks[k])}")
    real = real_times(instance, solution)
    for b0, b1 in real.overlaps[:20]:
        problems.append(
            f"overlap on site {instance.site_ids[solution.site[b0]]} processor "
            f"{int(solution.proc[b0])}: BoT {instance.bot_ids[solution.bot[b0]]} runs until "
            f"{real.end[b0]}, BoT {instance.bot_ids[solution.bot[b1]]} starts at "
            f"{solution.start[b1]}")
    problems += _precedence_problems(instance, solution, real)
    if instance.hard_limits and not problems:
        for what in ("bandwidth", "storage"):
            ratio = _peak_ratio(instance, solution, what, real)
            if ratio is None:
                continue
            for i in np.flatnonzero(ratio > 1 + LIMIT_TOL):
                problems.append(f"site {instance.site_ids[i]}: peak {what} use is "
                                f"{ratio[i]:.6g} times its limit")
    return problems + _claim_problems(instance, solution, real)


def _precedence_problems(instance: Instance, solution: Solution, real: Timeline) -> list[str]:
    """One line per DAG edge some block of the successor breaks (its earliest such start)."""
    early: dict[tuple[int, int], int] = {}
    for a, b in real.early + real.stuck:
        key = (a, int(solution.bot[b]))
        if key not in early or solution.start[b] < solution.start[early[key]]:
            early[key] = b
    stuck = {(a, int(solution.bot[b])) for a, b in real.stuck}
    problems = []
    for a, k in instance.edges.tolist():
        if (a, k) not in early:
            continue
        start = solution.start[early[a, k]]
        if (a, k) in stuck:
            problems.append(f"BoT {instance.bot_ids[k]} starts at {start} before its "
                            f"predecessor {instance.bot_ids[a]} finishes (a block of "
                            f"{instance.bot_ids[a]} runs after it on the same processor)")
        else:
            problems.append(f"BoT {instance.bot_ids[k]} starts at {start} before its "
                            f"predecessor {instance.bot_ids[a]} finishes at "
                            f"{real.completion[a]}")
    return problems[:20]


def _placed(instance: Instance, solution: Solution) -> list[int]:
    """Tasks scheduled per BoT, as exact Python integers.

    Every count is already known to lie in ``[1, tasks[bot]]``; the sums are
    taken in int64 only when a float64 estimate shows they cannot wrap.
    """
    approx = np.zeros(instance.n_bots)
    np.add.at(approx, solution.bot, solution.count.astype(float))
    if approx.max(initial=0.0) < 2.0**62:
        exact = np.zeros(instance.n_bots, dtype=np.int64)
        np.add.at(exact, solution.bot, solution.count)
        return [int(v) for v in exact]
    totals = [0] * instance.n_bots
    for k, c in zip(solution.bot.tolist(), solution.count.tolist(), strict=True):
        totals[k] += c
    return totals


def _claim_problems(instance: Instance, solution: Solution, real: Timeline) -> list[str]:
    """Summary values the solution states (makespan, cost) that the schedule contradicts."""
    return wrong_claims((
        ("makespan", solution.reported_makespan, float(real.completion.max(initial=0.0))),
        ("cost", solution.reported_cost, schedule_cost(instance, solution)),
    ))


def peak_usage(instance: Instance, solution: Solution, what: str) -> np.ndarray | None:
    """``(M,)`` peak over time of the bandwidth or storage in use on each site.

    ``what`` is ``"bandwidth"`` or ``"storage"``; ``None`` when the instance
    has no such data. Blocks run over their real times (module docstring),
    ``[real start, real end)``: a run that ends when another starts is not
    concurrent with it.
    """
    return _peak_usage(instance, solution, what, real_times(instance, solution))


def _peak_usage(instance: Instance, solution: Solution, what: str, real: Timeline
                ) -> np.ndarray | None:
    p = effective_times(instance)
    if what == "bandwidth":
        if instance.data is None:
            return None
        per_task = (np.asarray(instance.data) / p)[solution.bot, solution.site]
    elif what == "storage":
        if instance.storage is None:
            return None
        per_task = np.asarray(instance.storage)[solution.bot]
    else:
        raise ValueError(f"unknown resource {what!r}")
    peak = np.zeros(instance.n_sites)
    for i in range(instance.n_sites):
        mask = solution.site == i
        if not mask.any():
            continue
        times = np.concatenate((real.start[mask], real.end[mask]))
        deltas = np.concatenate((per_task[mask], -per_task[mask]))
        kinds = np.concatenate((np.ones(mask.sum()), np.zeros(mask.sum())))
        order = np.lexsort((kinds, times))      # at equal times, ends before starts
        peak[i] = max(0.0, float(np.cumsum(deltas[order]).max()))
    return peak


def peak_ratio(instance: Instance, solution: Solution, what: str) -> np.ndarray | None:
    """Peak use over the limit on each site (``None`` without data or limits)."""
    return _peak_ratio(instance, solution, what, None)


def _peak_ratio(instance: Instance, solution: Solution, what: str, real: Timeline | None
                ) -> np.ndarray | None:
    limit = instance.site_bandwidth if what == "bandwidth" else instance.storage_limit
    if limit is None:
        return None
    if real is None:
        real = real_times(instance, solution)
    peak = _peak_usage(instance, solution, what, real)
    return None if peak is None else peak / np.asarray(limit)


def completion_times(instance: Instance, solution: Solution) -> np.ndarray:
    """``(K,)`` completion time ``f_k`` of each BoT (real finish of its last task)."""
    return real_times(instance, solution).completion


def schedule_cost(instance: Instance, solution: Solution) -> float:
    """Cost of Eq. 6: ``sum_k sum_i p_ki * delta_ki * phi_i``."""
    p = effective_times(instance)
    return float(np.sum(solution.count * p[solution.bot, solution.site]
                        * np.asarray(instance.price)[solution.site]))


def jain_fairness(times: np.ndarray) -> float:
    """Jain's fairness index (Eq. 22) of the values ``times`` (1 when all are 0)."""
    times = np.asarray(times, dtype=float)
    denom = len(times) * float(np.sum(times ** 2))
    return float(np.sum(times)) ** 2 / denom if denom > 0 else 1.0


def workflows(instance: Instance) -> np.ndarray:
    """``(K,)`` workflow of each BoT: the weakly connected components of the DAG.

    Components are numbered by their lowest BoT index, in increasing order.
    """
    parent = list(range(instance.n_bots))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in instance.edges.tolist():
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    roots = np.array([root(k) for k in range(instance.n_bots)], dtype=np.int64)
    return np.unique(roots, return_inverse=True)[1].reshape(-1)


def release_times(instance: Instance, finish: np.ndarray) -> np.ndarray:
    """``(K,)`` release of each BoT: the latest ``finish`` of its DAG predecessors (or 0)."""
    release = np.zeros(instance.n_bots)
    if len(instance.edges):
        np.maximum.at(release, instance.edges[:, 1], finish[instance.edges[:, 0]])
    return release


def fairness_readings(instance: Instance, solution: Solution,
                      completion: np.ndarray | None = None) -> dict[str, float]:
    """Jain's index (Eq. 22) under each reading of the module docstring.

    Keys: ``jain_fairness`` (workflows, the default), ``jain_fairness_bots``,
    ``jain_fairness_execution`` and ``jain_fairness_slowdown``. ``completion``:
    the real completion times when already known.
    """
    f = completion_times(instance, solution) if completion is None else completion
    flow = workflows(instance)
    span = np.zeros(int(flow.max(initial=-1)) + 1)
    np.maximum.at(span, flow, f)
    execution = f - release_times(instance, f)
    p = effective_times(instance)
    alone = instance.tasks / (np.asarray(instance.procs)[None, :] / p).sum(axis=1)
    return {
        "jain_fairness": jain_fairness(span),
        "jain_fairness_bots": jain_fairness(f),
        "jain_fairness_execution": jain_fairness(execution),
        "jain_fairness_slowdown": jain_fairness(execution / alone),
    }


def system_efficiency(instance: Instance, solution: Solution) -> float:
    """System-level efficiency E of Eq. 23-25 (see the module docstring)."""
    p = effective_times(instance)
    delta = np.zeros((instance.n_bots, instance.n_sites))
    np.add.at(delta, (solution.bot, solution.site), solution.count)
    alone = instance.tasks[:, None] * p / np.asarray(instance.procs)[None, :]
    hi, lo = alone.max(axis=1), alone.min(axis=1)
    avg = np.sum(delta / instance.tasks[:, None] * alone, axis=1)
    spread = hi - lo
    e_k = np.where(spread > 0, (hi + lo - 2 * avg) / np.where(spread > 0, spread, 1), 1.0)
    glob = instance.proc_offset[solution.site] + solution.proc
    pairs = np.unique(solution.bot * instance.n_procs + glob)
    theta = np.bincount(pairs // instance.n_procs, minlength=instance.n_bots)
    weight = spread * theta
    if weight.sum() <= 0:
        return 1.0
    return float(np.clip(np.sum(np.clip(e_k, -1, 1) * weight) / weight.sum(), -1.0, 1.0))


def evaluate(instance: Instance, solution: Solution) -> Evaluation:
    """Recompute the overall makespan (objective) and the paper's other criteria.

    Metrics
    -------
    makespan:
        Finish of the last task (also the objective).
    aggregated_makespan:
        ``sum_k f_k`` (Eq. 15), ``f_k`` the completion time of BoT ``k``.
    cost:
        Eq. 6.
    jain_fairness:
        Eq. 22 over the workflows' makespans (the literal reading);
        ``jain_fairness_bots``, ``jain_fairness_execution`` and
        ``jain_fairness_slowdown`` under the other readings (module docstring).
    efficiency:
        Eq. 23-25 (see the module docstring for our reading).
    utilisation:
        Busy processor time over ``N * makespan``.
    bandwidth_ok, storage_ok:
        Whether the peak use stays within every site's limit (true without
        limits); ``peak_bandwidth_ratio`` / ``peak_storage_ratio`` give the
        largest peak over limit (``None`` without limits).
    blocks:
        Number of blocks in the schedule.
    """
    p = effective_times(instance)
    real = real_times(instance, solution)
    f = real.completion
    makespan = float(f.max()) if len(f) else 0.0
    busy = float(np.sum(solution.count * p[solution.bot, solution.site]))
    metrics: dict[str, object] = {
        "makespan": makespan,
        "aggregated_makespan": float(f.sum()),
        "cost": schedule_cost(instance, solution),
        **fairness_readings(instance, solution, f),
        "efficiency": system_efficiency(instance, solution),
        "utilisation": busy / (instance.n_procs * makespan) if makespan > 0 else 0.0,
    }
    for what in ("bandwidth", "storage"):
        ratio = _peak_ratio(instance, solution, what, real)
        metrics[f"{what}_ok"] = True if ratio is None else bool(np.all(ratio <= 1 + LIMIT_TOL))
        metrics[f"peak_{what}_ratio"] = None if ratio is None else float(ratio.max())
    metrics["blocks"] = solution.n_blocks
    return Evaluation(objective=makespan, metrics=metrics)
