"""A second, literal implementation of CDF (Algorithm 1), FFD and RA (Algorithm 2) (issue 19).

Written straight from the text of Wang et al. (2016), deliberately naive: every
step scans every core of every machine added so far and every unassigned task
(the main CDF looks only at the newest machine's cores, with a binary search),
finish times are recomputed from scratch, and nothing is cached. Decisions
(which task goes to which machine and core, in which order; which machines are
added; which tasks RA moves) are compared one by one with the main
implementations under every reading, on random small instances.

Numbers are dyadic (work and deadlines in eighths, capacities 1, 2 or 4 GHz)
so both implementations compute every finish time exactly: equal slacks are
then true ties, and the tie rules are compared too.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.errors import InputError
from hybridsched.heuristics.hybrid_deadline.cdf import cdf
from hybridsched.heuristics.hybrid_deadline.ffd import ffd
from hybridsched.heuristics.hybrid_deadline.reassign import reassign
from hybridsched.hybrid_deadline import PM, Instance, VMType, check

TOL = 1e-9


# --------------------------------------------------------------------------- the literal code


def _finish_if_added(inst, core, task, fit):
    """Finish of ``task`` added to ``core``, and whether every task there meets its deadline."""
    tasks = core["tasks"] + [task]
    if fit == "edf":  # the model: a core's tasks run by ascending deadline (stable)
        tasks = sorted(tasks, key=lambda t: (inst.deadline[t], tasks.index(t)))
    clock, finish, ok = 0.0, None, True
    for t in tasks:
        clock += inst.work[t] / core["capacity"]
        ok = ok and clock <= inst.deadline[t] + TOL
        if t == task:
            finish = clock
    return finish, ok


def _vm_type(inst, unassigned, task=None):
    """C1 (finishes every remaining task alone; else the most of them), C2, C3."""
    types = inst.vm_types

    def alone(t, i):
        return inst.work[i] / types[t].capacity <= inst.deadline[i] + TOL

    if task is not None:
        ok = [t for t in range(len(types)) if alone(t, task)]
    else:
        counts = [sum(alone(t, i) for i in unassigned) for t in range(len(types))]
        ok = [t for t in range(len(types)) if counts[t] == max(counts)]
    return min(ok, key=lambda t: (-types[t].cores * types[t].capacity / types[t].price,
                                  types[t].price, t))


def _add_machine(inst, cores, pms_left, vms, unassigned, added, task=None):
    """Lines 2-14: the PM with most capacity, else a VM chosen by C1-C3."""
    if pms_left:
        k = max(pms_left, key=lambda k: (inst.pms[k].cores * inst.pms[k].capacity,
                                         inst.pms[k].capacity, -k))
        pms_left.remove(k)
        number, n, capacity = k, inst.pms[k].cores, inst.pms[k].capacity
    else:
        t = _vm_type(inst, unassigned, task)
        vms.append(t)
        number, n, capacity = len(inst.pms) + len(vms) - 1, inst.vm_types[t].cores, \
            inst.vm_types[t].capacity
    added.append(number)
    for c in range(n):
        cores.append({"machine": number, "core": c, "capacity": capacity, "tasks": [],
                      "full": False})


def literal_cdf(inst, fit="append", scan="all"):
    unassigned = list(range(inst.n_tasks))
    pms_left = list(range(len(inst.pms)))
    cores, vms, added, placements = [], [], [], []
    while unassigned:  # Step 3
        best = None
        for core in cores:  # Step 2: all available cores (the current one only)
            if scan == "current" and core["full"]:
                continue
            for task in unassigned:
                finish, ok = _finish_if_added(inst, core, task, fit)
                if ok:
                    key = (inst.deadline[task] - finish, task)
                    if best is None or key < best[0]:
                        best = (key, core)
            if scan == "current":
                if best is None:
                    core["full"] = True  # "until the core cannot finish any task"
                    continue
                break
        if best is None:  # Step 1: no available resource
            _add_machine(inst, cores, pms_left, vms, unassigned, added)
            continue
        (_, task), core = best
        core["tasks"].append(task)
        unassigned.remove(task)
        placements.append((task, core["machine"], core["core"]))
    return placements, added, vms


def literal_ffd(inst, fit="edf"):
    pms_left = list(range(len(inst.pms)))
    cores, vms, added, placements = [], [], [], []
    unassigned = list(range(inst.n_tasks))
    for task in sorted(unassigned, key=lambda i: (-inst.work[i], i)):  # the longest first
        while True:
            core = next((c for c in cores if _finish_if_added(inst, c, task, fit)[1]), None)
            if core is not None:
                break
            _add_machine(inst, cores, pms_left, vms, unassigned, added, task)
        core["tasks"].append(task)
        placements.append((task, core["machine"], core["core"]))
    return placements, added, vms


def literal_ra(inst, solution, accept="task"):
    """Algorithm 2 on every machine; returns the moves and every task's new finish."""
    moves = []
    finish = dict(enumerate(solution.finish.tolist()))
    for m in sorted(set(solution.machine.tolist())):
        capacity = (inst.pms[m].capacity if m < len(inst.pms)
                    else inst.vm_types[solution.vm_types[m - len(inst.pms)]].capacity)
        n = (inst.pms[m].cores if m < len(inst.pms)
             else inst.vm_types[solution.vm_types[m - len(inst.pms)]].cores)
        queues = [sorted((t for t in finish if solution.machine[t] == m
                          and solution.core[t] == c), key=lambda t: solution.start[t])
                  for c in range(n)]
        while True:
            clock = [0.0] * n
            for c in range(n):  # back to back, as the main RA closes any gap
                for t in queues[c]:
                    clock[c] += inst.work[t] / capacity
                    finish[t] = clock[c]
            latest = max(range(n), key=lambda c: (clock[c], -c))
            lightest = min(range(n), key=lambda c: (clock[c], c))
            if n == 1 or latest == lightest or not queues[latest]:
                break
            task = queues[latest][-1]
            new = clock[lightest] + inst.work[task] / capacity
            if accept == "task" and not new < finish[task]:
                break
            if accept == "machine":
                after = [clock[c] for c in range(n) if c not in (latest, lightest)]
                after += [new, clock[latest] - inst.work[task] / capacity]
                if not max(after) < clock[latest]:
                    break
            queues[latest].pop()
            queues[lightest].append(task)
            moves.append((task, m, latest, lightest))
    return moves, np.array([finish[t] for t in range(inst.n_tasks)])


# --------------------------------------------------------------------------- random instances

EIGHTHS = st.integers(1, 32).map(lambda k: k / 8)


@st.composite
def instances(draw):
    n = draw(st.integers(1, 7))
    work = np.array(draw(st.lists(EIGHTHS, min_size=n, max_size=n)))
    vm_types = tuple(VMType(f"v{t}", draw(st.integers(1, 2)), draw(st.sampled_from([1.0, 2.0,
                                                                                     4.0])),
                            draw(st.sampled_from([0.5, 1.0, 2.0])))
                     for t in range(draw(st.integers(1, 2))))
    fastest = max(vm.capacity for vm in vm_types)
    # Deadlines from the fastest VM's run time up (every task fits such a VM alone).
    extra = np.array(draw(st.lists(st.integers(0, 24), min_size=n, max_size=n))) / 8
    deadline = work / fastest + extra
    pms = tuple(PM(f"p{k}", draw(st.integers(1, 3)), draw(st.sampled_from([1.0, 2.0, 4.0])))
                for k in range(draw(st.integers(0, 2))))
    return Instance("literal", tuple(f"t{i}" for i in range(n)), tuple(f"j{i}" for i in range(n)),
                    work, deadline, pms, vm_types)


# --------------------------------------------------------------------------- comparisons


@settings(max_examples=60, deadline=None)
@given(instances(), st.sampled_from(["append", "edf"]), st.sampled_from(["all", "current"]))
def test_cdf_matches_the_literal_algorithm_decision_by_decision(inst, fit, scan):
    solution = cdf(inst, fit=fit, scan=scan)
    assert check(inst, solution) == []
    placements, added, vms = literal_cdf(inst, fit, scan)
    assert list(solution.notes["placements"]) == placements
    assert list(solution.notes["machine_order"]) == added
    assert list(solution.vm_types) == vms


@settings(max_examples=60, deadline=None)
@given(instances(), st.sampled_from(["append", "edf"]))
def test_ffd_matches_the_literal_algorithm_decision_by_decision(inst, fit):
    solution = ffd(inst, fit=fit)
    assert check(inst, solution) == []
    placements, added, vms = literal_ffd(inst, fit)
    assert list(solution.notes["placements"]) == placements
    assert list(solution.notes["machine_order"]) == added
    assert list(solution.vm_types) == vms


@settings(max_examples=60, deadline=None)
@given(instances(), st.sampled_from(["cdf", "ffd"]), st.sampled_from(["task", "machine"]))
def test_ra_matches_the_literal_algorithm_move_by_move(inst, method, accept):
    before = cdf(inst) if method == "cdf" else ffd(inst)
    after = reassign(inst, before, accept=accept)
    assert check(inst, after) == []
    moves, finish = literal_ra(inst, before, accept)
    assert list(after.notes["moves"]) == moves
    np.testing.assert_array_equal(after.finish, finish)


# --------------------------------------------------------------------------- crafted states


VM2 = VMType("v", 2, 1.0, 1.0)


def _inst(work, deadline, pms, vm=VM2):
    n = len(work)
    return Instance("crafted", tuple(f"t{i}" for i in range(n)), tuple(f"j{i}" for i in range(n)),
                    np.array(work, float), np.array(deadline, float), tuple(pms), (vm,))


def test_ffd_fit_reading_changes_the_decision():
    # FFD places A (work 4, due 5) first; B (work 1, due 1) fits in front of it in
    # deadline order (A then ends at 5), but not after it.
    inst = _inst([4.0, 1.0], [5.0, 1.0], [PM("p", 1, 1.0)])
    assert ffd(inst, fit="edf").notes["placements"][1] == (1, 0, 0)
    assert ffd(inst, fit="append").notes["placements"][1] == (1, 1, 0)  # a rented VM


def test_cdf_fit_reading_changes_the_decision():
    # One core: A (work 3, due 3.5) and C (work 0.5, due 1) tie on latest start 0.5, A goes
    # first (lower index). C then fits only in front of A (deadline order: A ends at 3.5).
    inst = _inst([3.0, 0.5], [3.5, 1.0], [PM("p", 1, 1.0)])
    assert cdf(inst, fit="edf").notes["placements"] == ((0, 0, 0), (1, 0, 0))
    assert cdf(inst, fit="append").notes["placements"] == ((0, 0, 0), (1, 1, 0))  # a VM


def test_cdf_scan_reading_changes_the_decision():
    # Two cores; T0 fills core 0 until 1. "all" then gives T2 (slack 0.25) to core 1,
    # "current" keeps filling core 0 with T1 (slack 1).
    inst = _inst([1.0, 1.0, 1.0], [1.0, 3.0, 1.25], [PM("p", 2, 1.0)])
    assert cdf(inst, scan="all").notes["placements"][1] == (2, 0, 1)
    assert cdf(inst, scan="current").notes["placements"][1] == (1, 0, 0)


def test_ra_accept_reading_changes_the_moves():
    # Three cores, two tied for the latest finish: moving one last task shortens the
    # task but not the machine.
    inst = _inst([2.0, 2.0, 1.0, 1.0], [9.0] * 4, [PM("p", 3, 1.0)])
    from hybridsched.hybrid_deadline.solution import durations_function, from_core_sequences

    base = from_core_sequences(4, (), {(0, 0): [0, 2], (0, 1): [1, 3], (0, 2): []},
                               durations_function(inst, ()))
    assert reassign(inst, base, accept="task").notes["moves"]
    assert reassign(inst, base, accept="machine").notes["moves"] == ()


@pytest.mark.parametrize(("method", "option", "value"), [
    ("cdf", "fit", "lifo"), ("cdf", "scan", "some"), ("ffd", "fit", "best"),
    ("cdf+ra", "ra_accept", "always"), ("ffd+ra", "ra_accept", 1), ("ffd+ra", "fit", None),
])
def test_bad_readings_are_refused_in_one_line(method, option, value):
    from hybridsched.registry import check_options

    with pytest.raises(InputError) as caught:
        check_options("hybrid-deadline", method, {option: value})
    message = str(caught.value)
    assert "\n" not in message and option.replace("_", "-") in message
