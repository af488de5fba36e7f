"""Tolerance chains: no schedule the gang checker accepts beats a proven optimum, whatever n.

The instances (:func:`~hybridsched.gang.generator.chain_instance`) put n equal
jobs, all arriving at 0, on one VM (parallelism 1) or on two (parallelism 2:
every job takes both), with one deadline ``D = n x - TIME_TOL - excess``.
Their optimum is known exactly (computed here with :class:`fractions.Fraction`
from the decimal texts): the first k jobs fit iff ``k x <= D + 1e-9``, so
UFJ = n - max k (0 when ``excess <= 0``, 1 when ``0 < excess < x``). Hand
schedules then spend every slack an older checker granted: the first job
started ``TIME_TOL`` before its arrival, each next one ``TIME_TOL`` before the
previous one ends. That checker's tolerance added up along the VM, and it
accepted them with no unfinished job up to ``excess = n TIME_TOL`` (10 jobs of
0.10000000015 on a deadline of 1, the issue's chain); the family's rule (real
times: a start within ``TIME_TOL`` of its earliest start is rounded to it,
``TIME_TOL`` once, at the deadline) must not.

The task lengths of the drawn chains are small dyadic numbers, whose binary64
sums are exact: the only slack the rule leaves (binary64 rounding) is then
nil, and even an exact fit (``excess = "0"``) is decided as the closed form
says.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.experiments.certify import CERTIFIED, certify, same
from hybridsched.gang.checker import TIME_TOL, check, evaluate, timeline
from hybridsched.gang.generator import chain_instance
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts
from hybridsched.models.gang.cpsat_times import EXACT, first_times
from hybridsched.models.gang.milp_capacity import capacity_rows
from hybridsched.registry import methods

#: As ``FAST`` in tests/hybrid_deadline/test_properties.py.
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

EXCESSES = ("0", "-1e-12", "1e-12", "-3e-12", "3e-12", "5e-10", "-5e-10", "1.5e-9", "2e-9",
            "-2e-9", "1e-8")
#: Dyadic task lengths: exact binary64 sums (module docstring).
LENGTHS = ("1", "0.5", "0.25")
#: ``(overlap, first start)``: each start ``overlap`` before the stated end of the one
#: before it, the first at ``first`` (its arrival is 0); a negative overlap is a gap.
SLACKS = [(TIME_TOL, -TIME_TOL), (TIME_TOL, 0.0), (TIME_TOL / 2, -TIME_TOL / 2),
          (0.0, -TIME_TOL), (-TIME_TOL, TIME_TOL)]
#: The issue's chain: 10 jobs of 0.10000000015 on a deadline of 1 (one VM).
ISSUE = {"n": 10, "excess": "5e-10", "instructions": "0.10000000015"}


def optimum(instance: Instance) -> int:
    """The exact optimum of a chain instance (module docstring), from the decimal texts."""
    x = Fraction(repr(float(instance.instructions[0])))
    room = Fraction(repr(float(instance.deadline[0]))) + Fraction(1, 10**9)  # arrivals at 0
    return instance.n_jobs - min(instance.n_jobs, math.floor(room / x))


def honest(instance: Instance) -> Solution:
    """An optimal schedule: the first jobs back to back from 0, the others dropped."""
    n, vms = instance.n_jobs, list(range(instance.n_vms))
    length = float(instance.instructions[0] / instance.speed[0])
    starts, clock = {}, 0.0
    for j in range(n - optimum(instance)):
        starts[j] = (clock, vms)
        clock = clock + length
    return from_starts(n, starts, {j: "does not fit" for j in range(n) if j not in starts})


def cheating(instance: Instance, overlap: float, first: float) -> Solution:
    """Every job, each stated ``overlap`` before the stated end of the one before it."""
    n, vms = instance.n_jobs, list(range(instance.n_vms))
    length = float(instance.instructions[0] / instance.speed[0])
    starts, clock = {}, first
    for j in range(n):
        starts[j] = (clock, vms)
        clock = clock + length - overlap
    return from_starts(n, starts)


def unfinished(instance: Instance, solution: Solution) -> float:
    return evaluate(instance, solution).objective


@FAST
@given(n=st.integers(2, 1000), excess=st.sampled_from(EXCESSES),
       length=st.sampled_from(LENGTHS), vms=st.sampled_from([1, 2]))
@example(n=1000, excess="1e-12", length="1", vms=2)  # the largest n, always
@example(n=1000, excess="0", length="0.25", vms=1)
def test_no_accepted_schedule_beats_the_exact_optimum(n, excess, length, vms):
    instance = chain_instance(n, excess, vms=vms, instructions=length)
    best = optimum(instance)
    assert best == (0 if Fraction(excess) <= 0 else 1)
    schedule = honest(instance)
    assert check(instance, schedule) == []
    assert unfinished(instance, schedule) == best
    for overlap, first in SLACKS:
        hand = cheating(instance, overlap, first)
        if not check(instance, hand):
            assert unfinished(instance, hand) >= best, (n, excess, overlap, first)


@pytest.mark.parametrize("vms", [1, 2])
@pytest.mark.parametrize("n", [2, 10, 1000])
def test_the_chains_an_older_checker_accepted_are_refused(n, vms):
    """Excess within n TIME_TOL: all n jobs fit only by spending TIME_TOL per start."""
    for excess in ("1e-12", "5e-10", f"{n}e-9"):
        instance = chain_instance(n, excess, vms=vms)
        assert optimum(instance) == 1
        for overlap, first in SLACKS[:4]:
            problems = check(instance, cheating(instance, overlap, first))
            assert problems, (excess, overlap, first)


def test_a_start_within_the_tolerance_is_rounded_to_the_earliest_start():
    """Each start stated within TIME_TOL of the real end before it: it starts right then."""
    instance = chain_instance(3, "-1e-12")
    stated = [-TIME_TOL, 1.0 + TIME_TOL / 2, 2.0 - TIME_TOL / 2]
    hand = from_starts(3, {j: (s, [0]) for j, s in enumerate(stated)})
    assert check(instance, hand) == []
    line = timeline(instance, hand)
    assert line.start.tolist() == [0.0, 1.0, 2.0] and line.finish.tolist() == [1.0, 2.0, 3.0]
    assert evaluate(instance, hand).metrics["awt"] == 1.0
    # the accumulated slack of the hand schedules is not rounded away: it overlaps
    assert check(instance, cheating(instance, TIME_TOL / 2, -TIME_TOL / 2)) != []


def test_the_issue_s_chain_is_refused():
    instance = chain_instance(**ISSUE)
    assert float(instance.deadline[0]) == 1.0 and optimum(instance) == 1
    # each job starting TIME_TOL before the previous one ends: 0 unfinished jobs, refused
    hand = cheating(instance, TIME_TOL, 0.0)
    assert unfinished(instance, hand) == 0 and check(instance, hand) != []
    assert check(instance, honest(instance)) == []


@pytest.mark.parametrize(("excess", "rows"), [("5e-10", [(0, list(range(10)), 9)]),
                                              ("-5e-10", [])])
def test_the_milp_states_what_fits_exactly(excess, rows):
    """Capacity rows decide the chain in exact arithmetic (HiGHS's tolerances cannot)."""
    instance = chain_instance(10, excess, instructions="0.10000000015")
    assert capacity_rows(instance) == rows


def test_cpsat_solves_the_chains_at_their_own_scale():
    assert first_times(chain_instance(**ISSUE)).kind == EXACT
    assert first_times(chain_instance(40, "1e-12", vms=2)).kind == EXACT


@pytest.mark.parametrize("excess", ["0", "1e-12", "-1e-12", "5e-10"])
def test_no_heuristic_beats_the_optimum_on_chains(excess):
    found = methods("gang")
    names = [name for name in found if name != "exact"]
    assert len(names) >= 5
    for n, vms in ((2, 1), (7, 2), (40, 1), (40, 2)):
        instance = chain_instance(n, excess, vms=vms)
        for name in names:
            # The solver-backed ones (bound, grid) with a short limit: their schedule is
            # what is checked here, and unlimited they try every grid (minutes on 40 jobs).
            limit = 1.0 if found[name].exact else None
            result = run_method("gang", name, instance, time_limit=limit)
            assert check(instance, result.solution) == [], name
            assert result.objective >= optimum(instance), name


@pytest.mark.parametrize("vms", [1, 2])
@pytest.mark.parametrize("excess", ["0", "1e-12", "-1e-12", "5e-10"])
@pytest.mark.parametrize("n", [2, 3, 10, 40])
def test_certify_proves_the_exact_optimum_of_chains(n, excess, vms):
    pytest.importorskip("ortools")
    instance = chain_instance(n, excess, vms=vms)
    certificate = certify("gang", instance, name=instance.name, time_limit=20)
    assert certificate.verdict == CERTIFIED, certificate.reason
    assert same(certificate.best_known, optimum(instance))
    for overlap, first in SLACKS:
        hand = cheating(instance, overlap, first)
        if not check(instance, hand):
            assert unfinished(instance, hand) >= certificate.best_known


def test_certify_proves_the_issue_s_chain():
    pytest.importorskip("ortools")
    instance = chain_instance(**ISSUE)
    certificate = certify("gang", instance, name=instance.name, time_limit=20)
    assert certificate.verdict == CERTIFIED, certificate.reason
    assert certificate.best_known == certificate.best_bound == 1
    for run in certificate.runs.values():
        assert check(instance, run.solution) == []
        assert np.isnan(run.solution.start).sum() == 1
