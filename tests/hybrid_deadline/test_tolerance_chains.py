"""Tolerance chains: no schedule the checker accepts beats a proven optimum, whatever n.

The instances (:func:`~hybridsched.hybrid_deadline.generator.chain_instance`) put
n equal tasks on one 1 GHz PM core whose works add up to 1 h + TIME_TOL,
just below or just above it. Their optimum is known exactly: $0 when the
decimal works add up to at most ``1 + 1e-9`` (all on the PM core), else $1.
Hand schedules then spend every slack the checker could grant: each task
started TIME_TOL before the previous one ends, the first one TIME_TOL before
0, finishes stated short. A checker whose tolerance added up along the core
accepted them at $0 above the line; the family's rule (real ends recomputed
in exact arithmetic, TIME_TOL once per deadline) must not.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.experiments.certify import CERTIFIED, certify, same
from hybridsched.hybrid_deadline import Solution, check
from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.hybrid_deadline.generator import chain_instance
from hybridsched.hybrid_deadline.instance import TIME_TOL
from hybridsched.hybrid_deadline.timeline import FINISH_RTOL, decimal

from .test_properties import FAST

EXCESSES = ("0", "-1e-12", "1e-12", "-3e-12", "3e-12", "5e-10", "-5e-10", "2e-9")


def optimum(instance) -> float:
    """The exact optimum of a chain instance (module docstring)."""
    total = sum(decimal(w) for w in instance.work)
    return 0.0 if total <= Fraction(1) + Fraction(1, 10**9) else 1.0


def honest(instance) -> Solution:
    """An optimal schedule: all on the PM core, or the last task alone on one VM."""
    n = instance.n_tasks
    run = instance.work.copy()
    on_vm = optimum(instance) > 0
    machine = np.zeros(n, dtype=int)
    if on_vm:
        machine[-1] = 1
    ends = np.cumsum(np.where(machine == 0, run, 0.0))
    start = np.concatenate(([0.0], ends[:-1]))
    finish = start + run
    start[-1], finish[-1] = (0.0, run[-1]) if on_vm else (start[-1], finish[-1])
    return Solution((0,) if on_vm else (), machine, np.zeros(n, dtype=int), start, finish)


def cheating(instance, overlap: float, first: float, short: float) -> Solution:
    """All tasks on the PM core, each spending the slack the old checker granted."""
    n = instance.n_tasks
    run = instance.work
    start = np.empty(n)
    finish = np.empty(n)
    clock = first
    for k in range(n):
        start[k] = clock
        finish[k] = clock + run[k] - short * max(1.0, clock + run[k])
        clock = finish[k] - overlap
    return Solution((), np.zeros(n, dtype=int), np.zeros(n, dtype=int), start, finish)


SLACKS = [(TIME_TOL, 0.0, 0.0), (TIME_TOL, -TIME_TOL, 0.0), (0.0, 0.0, FINISH_RTOL),
          (TIME_TOL, -TIME_TOL, FINISH_RTOL), (TIME_TOL / 2, -TIME_TOL / 2, FINISH_RTOL / 2)]


@FAST
@given(n=st.integers(2, 1000), excess=st.sampled_from(EXCESSES))
def test_no_accepted_schedule_beats_the_exact_optimum(n, excess):
    instance = chain_instance(n, excess)
    best = optimum(instance)
    schedule = honest(instance)
    assert check(instance, schedule) == []
    assert rent_cost(instance, schedule) == best
    for overlap, first, short in SLACKS:
        hand = cheating(instance, overlap, first, short)
        if not check(instance, hand):
            assert rent_cost(instance, hand) >= best, (n, excess, overlap, first, short)


@pytest.mark.parametrize("n", [2, 10, 1000])
def test_the_issue_s_chains_are_refused(n):
    """Works 0.5000000008 (n = 2) and 0.1000000003 (n = 10) on a 1 h deadline: $1, not $0."""
    instance = chain_instance(n, "1.6e-9" if n == 2 else "2e-9")
    assert optimum(instance) == 1.0
    for overlap, first, short in SLACKS:
        problems = check(instance, cheating(instance, overlap, first, short))
        assert problems, (overlap, first, short)


@pytest.mark.parametrize("method", ["cdf", "ffd", "cdf+ra"])
@pytest.mark.parametrize("excess", ["0", "1e-12", "-1e-12"])
def test_no_heuristic_beats_the_optimum_on_chains(method, excess):
    for n in (2, 7, 40):
        instance = chain_instance(n, excess)
        result = run_method("hybrid-deadline", method, instance)
        assert check(instance, result.solution) == []
        assert result.objective >= optimum(instance)


@pytest.mark.parametrize("excess", ["0", "1e-12", "-1e-12", "5e-10"])
@pytest.mark.parametrize("n", [2, 3, 10, 40])
def test_certify_proves_the_exact_optimum_of_chains(n, excess):
    pytest.importorskip("ortools")
    instance = chain_instance(n, excess)
    certificate = certify("hybrid-deadline", instance, name=instance.name, time_limit=20)
    assert certificate.verdict == CERTIFIED, certificate.reason
    assert same(certificate.best_known, optimum(instance))
    for overlap, first, short in SLACKS:
        hand = cheating(instance, overlap, first, short)
        if not check(instance, hand):
            assert rent_cost(instance, hand) >= certificate.best_known


@pytest.mark.slow
@pytest.mark.parametrize("excess", ["0", "1e-12"])
def test_certify_at_a_thousand_tasks(excess):
    """The exact method at n = 1,000 (its packing search recursed once per task)."""
    pytest.importorskip("ortools")
    instance = chain_instance(1000, excess)
    certificate = certify("hybrid-deadline", instance, name=instance.name, time_limit=60)
    assert certificate.verdict == CERTIFIED, certificate.reason
    assert same(certificate.best_known, optimum(instance))
