"""The fast gang simulation against a straightforward one, kept here (issue 21).

:func:`reference_simulate` is the simulation as it was written before it kept
its state incrementally: at every event it recomputes, with numpy, which
waiting jobs are late and which VMs each can use, builds a full
:class:`DecisionState` and asks the policy. :func:`reference_fifo` and
:func:`reference_asjs` are FIFO and ASJS as they were written on those
matrices. Every schedule, drop and logged event must be identical.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hybridsched.gang.adapters import HEURISTICS
from hybridsched.gang.checker import TIME_TOL, check
from hybridsched.gang.generator import generate
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts
from hybridsched.heuristics.gang.baselines import fair_matrix, make_baseline
from hybridsched.heuristics.gang.simulation import DecisionState, Policy, simulate
from hybridsched.sim import Simulation


def reference_simulate(instance: Instance, policy: Policy, drop: str = "latest-start"
                       ) -> Solution:
    """Recompute everything at every event (the simulation before issue 21)."""
    sim = Simulation()
    fits, task_time, due = instance.fits(), instance.task_time(), instance.due
    free = np.ones(instance.n_vms, dtype=bool)
    busy_until = np.zeros(instance.n_vms)
    waiting: list[int] = []
    starts: dict[int, tuple[float, list[int]]] = {}
    dropped: dict[int, str] = {}
    ids, vm_ids = instance.job_ids, instance.vm_ids

    def drop_job(j: int, reason: str) -> None:
        dropped[j] = reason
        sim.log.record(float(sim.now), "drop", job=ids[j], reason=reason)

    def decide() -> None:
        now = float(sim.now)
        if not waiting:
            return
        rows = np.array(waiting, dtype=np.int64)
        can = fits[rows] & (now + task_time[rows] <= due[rows, None] + TIME_TOL)
        if drop == "latest-start":
            late = can.sum(axis=1) < instance.parallelism[rows]
            reason = "no longer enough VMs fast enough for its deadline"
        else:
            late = now >= due[rows] - TIME_TOL
            reason = "its deadline has passed"
        for j in rows[late]:
            drop_job(int(j), reason)
        waiting[:] = rows[~late].tolist()
        if not waiting:
            return
        rows = rows[~late]
        state = DecisionState(now, rows, can[~late] & free[None, :], instance, task_time,
                              fits[rows], np.where(free, now, busy_until))
        for j, vms in policy(state):
            vms = np.asarray(vms, dtype=np.int64)
            assert len(vms) == instance.parallelism[j] and free[vms].all()
            assert fits[j, vms].all() and (now + task_time[j, vms] <= due[j] + TIME_TOL).all()
            free[vms] = False
            waiting.remove(int(j))
            end = now + float(task_time[j, vms].max())
            busy_until[vms] = end
            starts[int(j)] = (now, vms.tolist())
            sim.log.record(now, "start", job=ids[j], vms=[vm_ids[v] for v in vms], end=end)
            sim.after(end - now, lambda j=int(j), vms=vms, end=end: finish(j, vms, end))

    def finish(j: int, vms: np.ndarray, end: float) -> None:
        free[vms] = True
        sim.log.record(end, "end", job=ids[j])
        decide()

    def arrive(batch: list[int]) -> None:
        for j in batch:
            sim.log.record(float(sim.now), "arrival", job=ids[j])
            if drop == "latest-start" and fits[j].sum() < instance.parallelism[j]:
                drop_job(j, f"only {int(fits[j].sum())} VMs meet its demands, it needs "
                         f"{int(instance.parallelism[j])}")
            else:
                waiting.append(j)
        decide()

    sim.arrivals(instance.arrival, arrive)
    sim.run()
    for j in waiting:
        drop_job(j, "never started")
    return from_starts(instance.n_jobs, starts, dropped, sim.log.records())


def reference_fifo(state: DecisionState, *, strict: bool = True) -> list[tuple[int, Any]]:
    """FIFO on the usable matrix."""
    usable = state.usable.copy()
    chosen = []
    for k, j in enumerate(state.waiting):
        p = int(state.instance.parallelism[j])
        vms = np.flatnonzero(usable[k])
        if len(vms) < p:
            if strict:
                break
            continue
        usable[:, vms[:p]] = False
        chosen.append((int(j), vms[:p]))
    return chosen


def reference_asjs(state: DecisionState, *, wait: bool = True) -> list[tuple[int, Any]]:
    """ASJS on the usable matrix."""
    inst = state.instance
    score = 0.5 * inst.speed / inst.speed.max() + 0.5 * inst.vm_bandwidth / inst.vm_bandwidth.max()
    in_time = state.now + state.task_time[state.waiting] <= inst.due[state.waiting, None]
    rank = np.lexsort((np.arange(inst.n_vms), -score))
    eligible = ((state.fits & in_time) if wait else state.usable)[:, rank]
    taken = np.zeros(inst.n_vms, dtype=bool)
    chosen = []
    for k, j in enumerate(state.waiting):
        p = int(inst.parallelism[j])
        best = rank[np.flatnonzero(eligible[k])[:p]]
        if len(best) == p and state.usable[k, best].all() and not taken[best].any():
            taken[best] = True
            chosen.append((int(j), np.sort(best)))
    return chosen


def same(a: Solution, b: Solution) -> bool:
    return (np.array_equal(a.start, b.start, equal_nan=True)
            and np.array_equal(a.task_job, b.task_job) and np.array_equal(a.task_vm, b.task_vm)
            and a.dropped == b.dropped and list(a.dropped) == list(b.dropped)
            and a.events == b.events)


INSTANCES = [("table1", 10.0, 250, 0, "stated"), ("table2", 40.0, 250, 1, "stated"),
             ("table1", 3.0, 150, 2, "stated"), ("table2", 5.0, 120, 3, "stated"),
             # Integer draws: deadlines met exactly, where the simulation's margins matter.
             ("table1", 10.0, 200, 4, "all"), ("table2", 20.0, 200, 5, "all")]
VARIANTS = [("fifo", {}), ("fifo", {"blocking": "skip"}), ("fair", {}),
            ("fair", {"vms": "fastest"}), ("asjs", {}), ("asjs", {"wait": "free"}), ("cmms", {}),
            ("cmms", {"completion": "ready-times"}), ("cplmt", {}),
            ("cplmt", {"mt_vms": "free", "task_min": "distinct", "standard_vms": "free"}),
            ("cplmt", {"mt_vms": "fitting", "standard": "min", "standard_vms": "fitting",
                       "cpu_demand": "deadline", "tovload": "fractions"})]


@pytest.mark.parametrize("drop", ["latest-start", "deadline"])
@pytest.mark.parametrize(("scenario", "rate", "jobs", "seed", "integers"), INSTANCES)
def test_the_simulation_matches_the_straightforward_one(scenario: str, rate: float, jobs: int,
                                                        seed: int, integers: str,
                                                        drop: str) -> None:
    instance = generate(jobs, rate, scenario, seed, integers=integers)
    for method, options in VARIANTS:
        factory = HEURISTICS[method][0]
        fast = simulate(instance, factory(**options), drop=drop)[0]
        assert check(instance, fast) == []
        assert same(fast, reference_simulate(instance, factory(**options), drop)), (method,
                                                                                   options)


@pytest.mark.parametrize(("scenario", "rate", "jobs", "seed", "integers"), INSTANCES)
def test_fifo_fair_and_asjs_on_bits_match_them_on_matrices(scenario: str, rate: float, jobs: int,
                                                      seed: int, integers: str) -> None:
    instance = generate(jobs, rate, scenario, seed, integers=integers)
    pairs = [(make_baseline("fifo"), reference_fifo),
             (make_baseline("fifo", blocking="skip"),
              lambda s: reference_fifo(s, strict=False)),
             (make_baseline("fair"), lambda s: fair_matrix(s, fastest=False)),
             (make_baseline("asjs"), reference_asjs),
             (make_baseline("asjs", wait="free"), lambda s: reference_asjs(s, wait=False))]
    for policy, reference in pairs:
        assert same(simulate(instance, policy)[0], reference_simulate(instance, reference))
