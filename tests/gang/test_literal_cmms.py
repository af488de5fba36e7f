"""CMMS ``completion="ready-times"`` against a literal Min-min, decision by decision (issue 34).

``braun_min_min`` is Min-min as Braun et al. (2001) define it, written from
the definition with one loop per "for every": repeatedly, for every unmapped
task, its minimum completion time over the machines given their ready times;
the task of least minimum is mapped to that machine, whose ready time
becomes that completion. It is checked against the published Min-min
makespan of the ``u_c_hihi.0`` ETC instance (8,460,675.0).

``gang_min_min`` adapts it to gangs as the ``ready-times`` reading of
:mod:`hybridsched.heuristics.gang.baselines` defines it: a job's completion is
the ``parallelism``-th smallest ``max(ready, now) + time`` among the VMs that
fit it and end it by its deadline (every VM that fits it under a
deadline-oblivious reading); the job of least completion takes those VMs,
whose ready time becomes its completion; it starts now when they are all
free and no job mapped before it in this decision took one of them. With one
task per job and no binding deadline it is ``braun_min_min``. Ties: the
earlier job in the queue, the lower VM index (strict ``<`` in the loops).

The main code must start the same jobs on the same VMs on random decision
states (hypothesis; integer draws so that ties occur, busy VMs that end at
this very instant included), on crafted states whose answer is worked out
by hand below, and over whole simulations.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.gang.checker import TIME_TOL, check
from hybridsched.gang.generator import generate
from hybridsched.gang.instance import Instance
from hybridsched.heuristics.gang.baselines import cmms, cmms_ready, make_baseline
from hybridsched.heuristics.gang.simulation import (
    DEADLINE_RULES,
    DecisionState,
    LiveState,
    from_bits,
    simulate,
)
from hybridsched.io.shared_data import shared_data_path
from tests.gang.states import draw_moment

#: A mapping step: (job or task, its VMs or machine, its completion time).
Step = tuple[int, list[int], float]


def braun_min_min(etc: list[list[float]], ready: list[float]) -> list[tuple[int, int, float]]:
    """Min-min (Braun et al. 2001): the mapping in the order it is made, (task, machine, ct)."""
    ready = list(ready)
    unmapped = list(range(len(etc)))
    mapping = []
    while unmapped:
        best_task, best_machine, best_ct = -1, -1, math.inf
        for t in unmapped:  # for every unmapped task: its minimum completion time
            machine, least = -1, math.inf
            for m in range(len(ready)):
                ct = ready[m] + etc[t][m]
                if ct < least:
                    machine, least = m, ct
            if least < best_ct:  # the task with the minimum minimum
                best_task, best_machine, best_ct = t, machine, least
        mapping.append((best_task, best_machine, best_ct))
        ready[best_machine] = best_ct  # the machine's ready time becomes its completion
        unmapped.remove(best_task)
    return mapping


def gang_min_min(state: DecisionState, free: np.ndarray) -> tuple[list[Step],
                                                                  list[tuple[int, list[int]]]]:
    """Min-min over the waiting jobs (module docstring): the mapping, and the jobs started now."""
    inst, now = state.instance, state.now
    m = inst.n_vms
    ready = [now if state.ready is None else max(float(state.ready[v]), now) for v in range(m)]
    row = {int(j): k for k, j in enumerate(state.waiting)}
    unmapped = [int(j) for j in state.waiting]  # queue order
    taken: set[int] = set()  # VMs mapped to a job in this decision
    mapping: list[Step] = []
    starts: list[tuple[int, list[int]]] = []
    while unmapped:
        best: tuple[float, int, list[int]] | None = None
        for j in unmapped:
            options = []
            for v in range(m):  # the completion of a task of j on every VM that may run it
                if not state.fits[row[j]][v]:
                    continue
                ct = ready[v] + float(inst.instructions[j]) / float(inst.speed[v])
                if state.aware and ct > float(inst.due[j]) + TIME_TOL:
                    continue  # it would end after the deadline
                options.append((ct, v))
            p = int(inst.parallelism[j])
            if len(options) < p:
                continue  # j cannot be mapped
            options.sort()  # by completion, then VM index
            completion = options[p - 1][0]
            if best is None or completion < best[0]:
                best = (completion, j, sorted(v for _, v in options[:p]))
        if best is None:
            break
        completion, j, vms = best
        unmapped.remove(j)
        mapping.append((j, vms, completion))
        if all(free[v] and v not in taken for v in vms):
            starts.append((j, vms))
        for v in vms:
            ready[v] = completion
            taken.add(v)
    return mapping, starts


def _ours(state: DecisionState) -> list[tuple[int, list[int]]]:
    return [(int(j), sorted(int(v) for v in vms)) for j, vms in cmms_ready(state)]


def make_state(instance: Instance, now: float, free: np.ndarray, ready: np.ndarray,
               aware: bool = True) -> DecisionState:
    """The decision every waiting job of ``instance`` is in at ``now`` (all waiting)."""
    fits, task_time = instance.fits(), instance.task_time()
    in_time = now + task_time <= instance.due[:, None] + TIME_TOL
    usable = fits & (in_time if aware else True) & free[None, :]
    return DecisionState(now, np.arange(instance.n_jobs), usable, instance, task_time, fits,
                         ready, aware=aware)


@st.composite
def decision_states(draw: st.DrawFn) -> tuple[DecisionState, np.ndarray]:
    """<= 8 waiting jobs, <= 12 VMs, some busy (some ending at this very instant)."""
    now, instance, free, ready = draw_moment(draw, deadline_span=8)
    return make_state(instance, now, free, ready, aware=draw(st.booleans())), free


@settings(max_examples=300, deadline=None)
@given(decision_states())
def test_ready_times_cmms_is_the_literal_min_min(drawn: tuple[DecisionState, np.ndarray]
                                                 ) -> None:
    state, free = drawn
    assert _ours(state) == gang_min_min(state, free)[1]


@settings(max_examples=100, deadline=None)
@given(decision_states())
def test_with_one_task_per_job_and_no_deadline_it_is_braun_min_min(
        drawn: tuple[DecisionState, np.ndarray]) -> None:
    state, free = drawn
    inst = state.instance
    one = Instance(inst.name, inst.job_ids, arrival=inst.arrival,
                   parallelism=np.ones(inst.n_jobs, dtype=np.int64),
                   instructions=inst.instructions, memory=np.zeros(inst.n_jobs),
                   bandwidth=np.zeros(inst.n_jobs), disk=np.zeros(inst.n_jobs),
                   deadline=inst.deadline + 1e6, vm_ids=inst.vm_ids, speed=inst.speed,
                   vm_memory=inst.vm_memory, vm_bandwidth=inst.vm_bandwidth,
                   vm_disk=inst.vm_disk)
    plain = make_state(one, state.now, free, state.ready)
    assert plain.fits.all()
    ours = gang_min_min(plain, free)[0]
    etc = [[float(x) / float(s) for s in one.speed] for x in one.instructions]
    ready = [max(float(r), state.now) for r in state.ready]
    assert [(j, vms[0], ct) for j, vms, ct in ours] == braun_min_min(etc, ready)
    assert _ours(plain) == gang_min_min(plain, free)[1]


def test_braun_min_min_gives_the_published_makespan() -> None:
    folder = shared_data_path("braun-etc-512x16")
    if folder is None or not (folder / "u_c_hihi.0").is_file():
        pytest.skip("needs ../shared/data/braun-etc-512x16/u_c_hihi.0")
    values = (folder / "u_c_hihi.0").read_text().split()
    tasks, machines = int(values[0]), int(values[1])
    numbers = [float(x) for x in values[3:3 + tasks * machines]]
    etc = [numbers[t * machines:(t + 1) * machines] for t in range(tasks)]
    mapping = braun_min_min(etc, [0.0] * machines)
    assert len(mapping) == tasks
    assert round(max(ct for _, _, ct in mapping), 1) == 8460675.0


def crafted(jobs: list[tuple[int, float, float]], speeds: list[float], now: float,
            busy_until: dict[int, float], aware: bool = True
            ) -> tuple[DecisionState, np.ndarray]:
    """Jobs ``(parallelism, instructions, deadline)`` waiting at ``now``; every VM fits them."""
    n, m = len(jobs), len(speeds)
    column = np.array(jobs, dtype=float).reshape(n, 3)
    instance = Instance(
        "crafted", tuple(f"j{k}" for k in range(n)), arrival=np.full(n, now),
        parallelism=column[:, 0].astype(np.int64), instructions=column[:, 1],
        memory=np.ones(n), bandwidth=np.ones(n), disk=np.zeros(n), deadline=column[:, 2],
        vm_ids=tuple(f"v{k}" for k in range(m)), speed=np.array(speeds, dtype=float),
        vm_memory=np.full(m, 2.0), vm_bandwidth=np.full(m, 2.0), vm_disk=np.full(m, np.inf))
    free = np.array([v not in busy_until for v in range(m)])
    ready = np.array([busy_until.get(v, now) for v in range(m)], dtype=float)
    return make_state(instance, now, free, ready, aware), free


#: (what it shows, state, the jobs started now: worked out by hand).
CRAFTED = [
    # One free VM: j1 (completion 1) goes before j0 (5) in the queue; j0 waits behind it.
    ("least completion first, not queue order",
     crafted([(1, 5.0, 20.0), (1, 1.0, 20.0)], [1.0], 0.0, {}), [(1, [0])]),
    # v0 (speed 4) is busy to 1, v1 (speed 1) free. j1: 1 + 1 = 2 on v0 against 4 on v1,
    # so it waits for v0; then j0: 2 + 2 = 4 on v0 against 8 on v1: nothing starts now.
    ("a job waits for a busy fast VM",
     crafted([(1, 8.0, 20.0), (1, 4.0, 20.0)], [4.0, 1.0], 0.0, {0: 1.0}), []),
    # The same, j1 due at 1.5: v0 ends it at 2, too late, v1 at 4: it cannot be mapped;
    # j0 then waits for v0 (3 against 8).
    ("a VM that ends the task after its deadline does not count",
     crafted([(1, 8.0, 20.0), (1, 4.0, 1.5)], [4.0, 1.0], 0.0, {0: 1.0}), []),
    # j1 due at 1.5 with v1 at speed 4 too: v1 ends it at 1, in time: it starts there.
    ("the deadline picks the free VM",
     crafted([(1, 8.0, 20.0), (1, 4.0, 1.5)], [4.0, 4.0], 0.0, {0: 1.0}), [(1, [1])]),
    # Gang: v0 (speed 4) busy to 5, v1 and v2 (speed 1) free. j0 (p = 2, 4 instructions):
    # 6, 4, 4 -> completion 4 on {v1, v2}; j1 (p = 1, 2): 5.5, 2, 2 -> 2 on v1 first, starts.
    # Then j0: v0 6, v1 2 + 4 = 6, v2 4 -> {v2, v0} (6, ties to the lower index): waits.
    ("a gang's completion is its p-th smallest",
     crafted([(2, 4.0, 20.0), (1, 2.0, 20.0)], [4.0, 1.0, 1.0], 0.0, {0: 5.0}), [(1, [1])]),
    # A VM that ends its job at this very instant is not free yet: the job waits for it.
    ("busy until now is busy",
     crafted([(1, 2.0, 20.0)], [2.0, 1.0], 3.0, {0: 3.0}), []),
    # Deadline-oblivious: j0 cannot end in time anywhere (8 / 4 = 2 > 1) but is mapped and
    # starts on the free VM v1; aware, it is not mapped and nothing starts.
    ("oblivious: the deadline is not tested",
     crafted([(1, 8.0, 1.0)], [4.0, 4.0], 0.0, {0: 1.0}, aware=False), [(0, [1])]),
    ("aware: the same job is not mapped",
     crafted([(1, 8.0, 1.0)], [4.0, 4.0], 0.0, {0: 1.0}), []),
]


@pytest.mark.parametrize(("what", "drawn", "expected"), CRAFTED,
                         ids=[what for what, _, _ in CRAFTED])
def test_crafted_states(what: str, drawn: tuple[DecisionState, np.ndarray],
                        expected: list[tuple[int, list[int]]]) -> None:
    state, free = drawn
    assert gang_min_min(state, free)[1] == expected, "the literal Min-min"
    assert _ours(state) == expected, "CMMS ready-times"


def test_ready_times_differs_from_the_default_where_a_busy_vm_is_faster() -> None:
    state, _ = CRAFTED[1][1]
    assert _ours(state) == [] and [(j, list(v)) for j, v in cmms(state)] == [(1, [1])]


def _literal_policy(state: DecisionState) -> list[tuple[int, np.ndarray]]:
    assert isinstance(state, LiveState)
    free = from_bits(state.free, state.instance.n_vms)
    return [(j, np.array(vms)) for j, vms in gang_min_min(state, free)[1]]


@pytest.mark.parametrize("deadline", DEADLINE_RULES)
def test_whole_simulations_agree_and_pass_the_checker(deadline: str) -> None:
    for scenario, seed in (("table1", 0), ("table2", 1), ("table1", 2)):
        instance = generate(60, 10.0, scenario, seed=seed, vms=12,
                            integers="all" if seed == 2 else "stated")
        ours, _ = simulate(instance, make_baseline("cmms", completion="ready-times"),
                           deadline=deadline)
        theirs, _ = simulate(instance, _literal_policy, deadline=deadline)
        assert np.array_equal(ours.start, theirs.start, equal_nan=True)
        assert np.array_equal(ours.task_vm, theirs.task_vm) and ours.missed == theirs.missed
        assert check(instance, ours) == []
        assert np.isfinite(ours.start).sum() > 0
