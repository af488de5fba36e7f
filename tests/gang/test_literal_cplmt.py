"""A second, literal CPLMT (Algorithms 1-3, Eqs. 7-23 of Wang et al. 2018), compared with ours.

``literal_cplmt`` is written from the paper's pseudo-code and formulas, one
loop per "For every", one task at a time, with no numpy tricks; it follows
each reading of :mod:`hybridsched.heuristics.gang.cplmt` where the text is open.
On random small decision states (<= 8 jobs, <= 12 VMs; integer-valued draws
so that demands often equal capacities) both must start the same jobs, in
the same order, on the same VMs, under every combination of readings.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.gang.checker import TIME_TOL, check
from hybridsched.gang.generator import generate
from hybridsched.heuristics.gang.cplmt import CHOICES, Readings, make_cplmt
from hybridsched.heuristics.gang.simulation import DecisionState, simulate
from tests.gang.states import draw_moment


def literal_cplmt(state: DecisionState, r: Readings) -> list[tuple[int, list[int]]]:
    """CPLMT straight from the paper (see the module docstring)."""
    inst = state.instance
    vend = inst.n_vms
    vlist = list(range(vend))
    jlist = [int(j) for j in state.waiting]  # arrival order
    row = {j: k for k, j in enumerate(jlist)}

    def cannot(demand: float, capacity: float) -> bool:
        # Algorithm 1, line 4 with the loads of Eqs. 24-27 (alpha = beta = gamma = theta = 1).
        if demand == 0:
            return False
        load = demand / capacity
        return load >= 1 if r.overload_at == "reached" else load > 1

    def cpu_need(j: int) -> float:
        if r.cpu_demand == "remaining":
            return float(inst.instructions[j] / max(inst.due[j] - state.now, 1e-12))
        if r.cpu_demand == "deadline":
            return float(inst.instructions[j] / inst.deadline[j])
        return float(inst.instructions[j])

    ov: dict[int, dict[str, int]] = {}
    num: dict[int, int] = {}
    for j in jlist:
        p = int(inst.parallelism[j])
        per_task = []
        for _task in range(p):  # Algorithm 1 for every task (identical tasks)
            counts = {"CPU": 0, "MEM": 0, "BW": 0, "HD": 0}
            for v in vlist:
                counts["CPU"] += cannot(cpu_need(j), inst.speed[v])
                counts["MEM"] += cannot(inst.memory[j], inst.vm_memory[v])
                counts["BW"] += cannot(inst.bandwidth[j], inst.vm_bandwidth[v])
                counts["HD"] += cannot(inst.disk[j], inst.vm_disk[v])
            per_task.append(counts)
        ov[j] = {a: max(c[a] for c in per_task) for a in ("CPU", "MEM", "BW", "HD")}  # Eqs 8-11
        num[j] = sum(1 for v in vlist
                     if not (cannot(cpu_need(j), inst.speed[v])
                             or cannot(inst.memory[j], inst.vm_memory[v])
                             or cannot(inst.bandwidth[j], inst.vm_bandwidth[v])
                             or cannot(inst.disk[j], inst.vm_disk[v])))

    ujobs = [j for j in jlist if num[j] / inst.parallelism[j] <= r.k]  # Eq. 7
    unjobs = [j for j in jlist if j not in ujobs]
    ul_hd = {j for j in jlist if ov[j]["HD"] > r.epsilon * vend}  # Eq. 12
    ul_mem = {j for j in jlist if ov[j]["MEM"] > r.omega * vend}  # Eq. 14
    ul_bw = {j for j in jlist if ov[j]["BW"] > r.eta * vend}  # Eq. 16
    un_hd, un_mem, un_bw = (set(jlist) - ul_hd, set(jlist) - ul_mem, set(jlist) - ul_bw)
    three = ul_mem & ul_bw & ul_hd  # Eq. 18
    two = (ul_mem & ul_bw & un_hd) | (ul_mem & un_bw & ul_hd) | (un_mem & ul_bw & ul_hd)
    if r.one_ol == "printed":  # Eq. 20 as printed
        one = (ul_mem & un_bw & un_hd) | (un_mem & ul_bw & ul_hd) | (un_mem & un_bw & ul_hd)
    else:  # "the jobs that only belong to one of them"
        one = (ul_mem & un_bw & un_hd) | (un_mem & ul_bw & un_hd) | (un_mem & un_bw & ul_hd)
    one, other = one - three - two, set(jlist) - three - two - one  # Eq. 21, in order
    sets = [ujobs, [j for j in unjobs if j in three], [j for j in unjobs if j in two],
            [j for j in unjobs if j in one], [j for j in unjobs if j in other]]

    def tovload(j: int) -> float:  # Eq. 22
        total = ov[j]["MEM"] + ov[j]["BW"] + ov[j]["HD"]
        return total / vend if r.tovload == "fractions" else total

    def et(j: int, v: int) -> float:
        return float(inst.instructions[j] / inst.speed[v])

    def vm_set(which: str, j: int, taken: set[int]) -> list[int]:
        if which == "all":
            return vlist
        if which == "fitting":
            return [v for v in vlist if state.fits[row[j]][v]]
        return [v for v in vlist if state.usable[row[j]][v] and v not in taken]

    def max_of_min(j: int, vms: list[int], distinct: bool) -> float:
        """max over the tasks of each task's minimum execution time (Eq. 23's numerator)."""
        used: set[int] = set()
        minima = []
        for _task in range(int(inst.parallelism[j])):
            options = [v for v in vms if not (distinct and v in used)]
            if not options:
                return math.inf
            best = min(options, key=lambda v: (et(j, v), v))
            used.add(best)
            minima.append(et(j, best))
        return max(minima)

    def usable_now(j: int, taken: set[int]) -> list[int]:
        return [v for v in vlist if state.usable[row[j]][v] and v not in taken]

    chosen: list[tuple[int, list[int]]] = []
    taken: set[int] = set()
    mt_static = {j: max_of_min(j, vm_set(r.mt_vms, j, set()), r.task_min == "distinct")
                 for j in jlist}
    for group in sets:
        remaining = list(group)
        while True:
            # Algorithm 2 (select job), over the jobs of the set that can start now.
            minvalue, unset, selectj = 0.0, True, None
            for j in remaining:
                if len(usable_now(j, taken)) < inst.parallelism[j]:
                    continue
                if r.mt_vms == "free":
                    time = max_of_min(j, vm_set("free", j, taken), r.task_min == "distinct")
                else:
                    time = mt_static[j]
                if not math.isfinite(time):
                    continue
                temp = time / math.exp(tovload(j))  # Eq. 23
                if (r.select_start == "unset" and unset) or temp < minvalue:
                    minvalue, unset, selectj = temp, False, j
            if selectj is None:
                break
            j = selectj
            # Algorithm 3 (assign): the standard, then each task near it.
            vms = vm_set(r.standard_vms, j, taken)
            if r.standard == "min":  # lines 3-12 as printed: the least et of any task
                maxminet = 0.0
                for _task in range(int(inst.parallelism[j])):
                    for v in vms:
                        if et(j, v) < maxminet or maxminet == 0:
                            maxminet = et(j, v)
            else:
                maxminet = max_of_min(j, vms, r.task_min == "distinct")
            assigned: list[int] = []
            for _task in range(int(inst.parallelism[j])):
                candidates = [v for v in usable_now(j, taken) if v not in assigned]
                below = [v for v in candidates if et(j, v) <= maxminet]
                if below:  # "finished before maxminet and ... the most nearest to maxminet"
                    pick = min(below, key=lambda v: (maxminet - et(j, v), v))
                else:  # "most nearest to the maxminet (but more than maxminet)"
                    pick = min(candidates, key=lambda v: (et(j, v) - maxminet, v))
                assigned.append(pick)
            taken.update(assigned)
            remaining.remove(j)
            chosen.append((j, sorted(assigned)))
    return chosen


@st.composite
def decision_states(draw: st.DrawFn) -> DecisionState:
    """A random decision: <= 8 waiting jobs, <= 12 VMs, some busy; integer-valued draws."""
    now, instance, free, ready = draw_moment(draw, deadline_span=6, busy_from=1)
    fits, task_time = instance.fits(), instance.task_time()
    in_time = now + task_time <= instance.due[:, None] + TIME_TOL
    return DecisionState(now, np.arange(instance.n_jobs), fits & in_time & free[None, :], instance,
                         task_time, fits, ready)


readings = st.builds(Readings, **{name: st.sampled_from(values)
                                  for name, values in CHOICES.items()},
                     k=st.sampled_from([0.5, 1.0, 1.5, 3.0]),
                     epsilon=st.sampled_from([0.0, 0.5, 0.8]),
                     omega=st.sampled_from([0.0, 0.5, 0.8]), eta=st.sampled_from([0.0, 0.5, 0.8]))


def _ours(state: DecisionState, r: Readings) -> list[tuple[int, list[int]]]:
    options = {name: getattr(r, name) for name in Readings.__dataclass_fields__}
    return [(j, sorted(int(v) for v in vms)) for j, vms in make_cplmt(**options)(state)]


@settings(max_examples=100, deadline=None)
@given(decision_states(), readings)
def test_literal_and_main_cplmt_agree_on_random_states(state: DecisionState,
                                                       r: Readings) -> None:
    assert _ours(state, r) == literal_cplmt(state, r)


@settings(max_examples=40, deadline=None)
@given(decision_states())
def test_they_agree_under_the_literal_defaults(state: DecisionState) -> None:
    chosen = _ours(state, Readings())
    assert chosen == literal_cplmt(state, Readings())
    taken = [v for _, vms in chosen for v in vms]
    assert len(taken) == len(set(taken))  # no VM twice
    for j, vms in chosen:
        k = int(np.flatnonzero(state.waiting == j)[0])
        assert len(vms) == state.instance.parallelism[j] and state.usable[k, vms].all()


def test_whole_simulations_agree_and_pass_the_checker() -> None:
    """Decision by decision over a whole run: the same schedule, valid for the checker."""
    for scenario, options in (("table1", {}), ("table2", {}),
                              ("table1", {"tovload": "fractions", "task_min": "distinct",
                                          "mt_vms": "free", "standard_vms": "fitting"})):
        instance = generate(40, 8.0, scenario, seed=4, vms=12)
        r = Readings(**options)
        ours, _ = simulate(instance, make_cplmt(**options))
        theirs, _ = simulate(instance, lambda s, r=r: [(j, np.array(v))
                                                       for j, v in literal_cplmt(s, r)])
        assert np.array_equal(ours.start, theirs.start, equal_nan=True)
        assert np.array_equal(ours.task_vm, theirs.task_vm)
        assert check(instance, ours) == []
        assert np.isfinite(ours.start).sum() > 0  # something ran
