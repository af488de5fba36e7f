"""CDF's fast path (issue 21) against the straightforward scan it replaced.

The reference below is CDF as it was before
:mod:`hybridsched.heuristics.hybrid_deadline.latest_starts`:
:class:`RemainingTasks` (a sorted list edited on every removal) asked for
every core's tightest fit at every decision. The fast path must make exactly
the same decisions, ties included, on instances with many equal works and
deadlines; RA must find the same core sequences as its ``sorted()`` did.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hybridsched.heuristics.hybrid_deadline import reassign as reassign_module
from hybridsched.heuristics.hybrid_deadline.cdf import cdf
from hybridsched.heuristics.hybrid_deadline.latest_starts import LatestStarts
from hybridsched.heuristics.hybrid_deadline.machine_pool import MachinePool, RemainingTasks
from hybridsched.heuristics.hybrid_deadline.reassign import reassign
from hybridsched.hybrid_deadline import PM, VMType, check
from hybridsched.hybrid_deadline.generator import generate
from hybridsched.hybrid_deadline.instance import TIME_TOL
from hybridsched.hybrid_deadline.solution import durations_function, from_core_sequences

from .helpers import make_instance


def reference_cdf(instance, scan):
    """CDF with ``fit="append"``: every core asked at every decision (the old scan)."""
    remaining = RemainingTasks(instance)
    pool = MachinePool(instance)
    sequences, placements = {}, []
    while len(remaining):
        machine = pool.add_next(remaining)
        loads = [0.0] * machine.cores
        queues = [sequences.setdefault((machine.number, c), []) for c in range(machine.cores)]
        current = 0
        while len(remaining) and current < machine.cores:
            best = None
            for c in range(machine.cores) if scan == "all" else (current,):
                found = remaining.tightest_fit(machine.capacity, loads[c])
                if found is not None and (best is None or (found[0], found[1], c) < best):
                    best = (found[0], found[1], c)
            if best is None:
                if scan == "all":
                    break
                current += 1
                continue
            _, task, c = best
            loads[c] += instance.work[task] / machine.capacity
            queues[c].append(task)
            placements.append((task, machine.number, c))
            remaining.remove(task)
    solution = from_core_sequences(instance.n_tasks, pool.vm_types, sequences,
                                   durations_function(instance, pool.vm_types))
    return solution, placements


def tied_instance(seed: int, n_tasks: int):
    """Few distinct works and deadlines (many exact ties), PMs of mixed shapes, two VM types."""
    rng = np.random.default_rng(seed)
    work = rng.choice([0.5, 1.0, 1.5, 2.0, 3.0], n_tasks)
    deadline = np.maximum(work / 2.0, rng.choice([0.5, 1.0, 2.0, 3.0, 4.5], n_tasks))
    pms = [PM(f"pm{k}", int(rng.integers(1, 5)), float(rng.choice([1.5, 2.0, 2.5])))
           for k in range(int(rng.integers(0, 4)))]
    vms = (VMType("small", 2, 2.0, 0.1), VMType("fast", 1, 3.0, 0.2))
    return make_instance(work, deadline, pms=pms, vm_types=vms, name=f"tied{seed}")


def instances():
    yield from (generate(n, alpha, seed) for n, alpha, seed in
                itertools.product((20, 150), (1, 2, "mixed"), range(3)))
    yield from (tied_instance(seed, n) for seed, n in itertools.product(range(6), (12, 90)))


def same_schedule(a, b) -> bool:
    return (a.vm_types == b.vm_types and np.array_equal(a.machine, b.machine)
            and np.array_equal(a.core, b.core) and np.array_equal(a.start, b.start)
            and np.array_equal(a.finish, b.finish))


@pytest.mark.parametrize("scan", ["all", "current"])
def test_cdf_makes_the_reference_scans_decisions(scan):
    for instance in instances():
        expected, placements = reference_cdf(instance, scan)
        got = cdf(instance, scan=scan)
        assert same_schedule(got, expected), instance.name
        assert list(got.notes["placements"]) == placements, instance.name
        assert check(instance, got) == []


def test_latest_starts_answers_as_remaining_tasks():
    """Random loads (some exactly at a latest start, where rounding decides) and removals."""
    rng = np.random.default_rng(7)
    for instance in itertools.islice(instances(), 0, None, 2):
        fast, slow = LatestStarts(instance), RemainingTasks(instance)
        capacities = [1.5, 2.0, 2.7, 3.0]
        for step in range(3 * instance.n_tasks):
            capacity = float(rng.choice(capacities))
            if rng.random() < 0.4 and len(slow):
                # At the fit boundary, a few ulps either side: where the key and the
                # checker's expression may round differently.
                task = int(rng.choice(slow.indices()))
                load = float(instance.deadline[task] - instance.work[task] / capacity)
                load += TIME_TOL * float(rng.choice([0.0, 1.0]))
                load += int(rng.integers(-4, 5)) * float(np.spacing(max(load, 1.0)))
            else:
                load = float(rng.uniform(0.0, 1.2 * instance.deadline.max()))
            assert fast.tightest_fit(capacity, load) == slow.tightest_fit(capacity, load)
            assert fast.fitting_alone(capacity) == slow.fitting_alone(capacity)
            if step % 3 == 0 and len(slow):
                task = int(rng.choice(slow.indices()))
                fast.remove(task)
                slow.remove(task)
                assert len(fast) == len(slow)
                assert np.array_equal(fast.indices(), slow.indices())


def reference_core_sequences(solution):
    sequences = {}
    for task in sorted(range(len(solution.start)), key=lambda i: solution.start[i]):
        key = (int(solution.machine[task]), int(solution.core[task]))
        sequences.setdefault(key, []).append(task)
    return sequences


@pytest.mark.parametrize("accept", ["task", "machine"])
def test_ra_after_cdf_is_checked_and_as_with_sorted_core_orders(accept, monkeypatch):
    solutions = [(instance, cdf(instance)) for instance in instances()]
    got = [reassign(instance, start, accept=accept) for instance, start in solutions]
    # The same RA with the sorted() it used to order each core's tasks by start.
    monkeypatch.setattr(reassign_module, "_core_sequences", reference_core_sequences)
    for (instance, start), moved in zip(solutions, got, strict=True):
        expected = reassign(instance, start, accept=accept)
        assert same_schedule(moved, expected), instance.name
        assert moved.notes["moves"] == expected.notes["moves"], instance.name
        assert check(instance, moved) == []


def test_durations_are_shared_per_capacity_and_read_only():
    instance = tied_instance(0, 30)
    durations_on = durations_function(instance, (0, 1, 0))
    n_pm = len(instance.pms)
    assert durations_on(n_pm) is durations_on(n_pm + 2)
    assert np.array_equal(durations_on(n_pm + 1), instance.work / 3.0)
    assert not durations_on(n_pm).flags.writeable
