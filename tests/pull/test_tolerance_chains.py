"""Tolerance chains: no schedule the pull checker accepts beats a proven optimum, whatever n.

The instances (:func:`~hybridsched.pull.generator.chain_instance`) put n equal
work units on one always-available host, every result correct and in time,
all units arriving together. Their optimum is known in closed form: every
valid schedule runs the units back to back from their arrival, so the
makespan is ``n x d`` (``d = noi / cpu``), up to binary64's rounding of the
sum (:data:`~hybridsched.pull.timeline.ROUNDING`, per task, relative to the
run's end). Hand schedules then spend every slack the old checker granted:
each task ``TIME_TOL + DURATION_RTOL x full`` shorter, each started
``TIME_TOL`` before the previous one ends, the first ``TIME_TOL`` before the
arrival. A checker whose tolerances added up along the host accepted them
about ``2 n x 1e-6`` s below the optimum; the family's rule (real times
recomputed, ``TIME_TOL`` once per comparison) must not.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.experiments.certify import CERTIFIED, certify, same
from hybridsched.pull.checker import DURATION_RTOL, check, evaluate
from hybridsched.pull.generator import chain_instance
from hybridsched.pull.solution import CORRECT, Solution, from_records
from hybridsched.pull.timeline import ROUNDING, TIME_TOL

#: Few examples, no deadline (like ``FAST`` of the hybrid-deadline property tests).
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Durations: dyadic (sums exact in binary64) and decimal ones (sums rounded).
DURATIONS = (1.0, 2.5, 0.25, 0.1, 0.37, 3600.0)
#: Arrivals: 0 (no room for a start before it), or later.
ARRIVALS = (0.0, 1.0, 86_400.0)
#: Every n drawn (the last test prints the largest).
DRAWN: list[int] = []


def optimum(instance) -> float:
    """The exact optimal makespan of a chain instance: ``n x d`` (module docstring)."""
    d = Fraction(float(instance.noi[0] / instance.cpu[0]))
    return float(instance.n_units * d)


def slack(instance) -> float:
    """How far below :func:`optimum` an accepted makespan may lie: binary64's rounding."""
    n, best = instance.n_units, optimum(instance)
    return 2 * (n + 1) * ROUNDING * (float(instance.arrival[0]) + best)


def records(instance, start, end) -> Solution:
    n = instance.n_units
    return from_records([(k, 0, float(start[k]), float(end[k]), 1.0, CORRECT)
                         for k in range(n)])


def honest(instance) -> Solution:
    """The units back to back from their arrival, times added up as the checker adds them."""
    d = float(instance.noi[0] / instance.cpu[0] * 1.0)
    start, end = np.empty(instance.n_units), np.empty(instance.n_units)
    clock = float(instance.arrival[0])
    for k in range(instance.n_units):
        start[k], end[k] = clock, clock + d
        clock = end[k]
    return records(instance, start, end)


def cheating(instance, overlap: float, first: float, short: float) -> Solution:
    """Every task spending fractions of the slacks the old checker granted.

    ``overlap``: of ``TIME_TOL``, each task starting that much before the previous one
    ends; ``first``: of ``TIME_TOL``, the first one starting that much before the
    arrival (not before 0); ``short``: of ``TIME_TOL + DURATION_RTOL x full``, each
    task lasting that much less. A hair (0.1%) inside each, so binary64's rounding of
    the hand times never takes one beyond what the old checker granted.
    """
    d = float(instance.noi[0] / instance.cpu[0])
    inside = 0.999
    start, end = np.empty(instance.n_units), np.empty(instance.n_units)
    clock = max(0.0, float(instance.arrival[0]) - inside * first * TIME_TOL)
    for k in range(instance.n_units):
        start[k] = clock
        end[k] = clock + d - inside * short * (TIME_TOL + DURATION_RTOL * d)
        clock = end[k] - inside * overlap * TIME_TOL
    return records(instance, start, end)


def jittered(instance, rng: np.random.Generator) -> Solution:
    """The honest schedule with every stated time off by up to 0.9 TIME_TOL (rounding)."""
    s = honest(instance)
    noise = rng.uniform(-0.9, 0.9, (2, s.n_tasks)) * TIME_TOL
    return records(instance, np.maximum(s.start + noise[0], 0.0), s.end + noise[1])


SLACKS = [(1.0, 1.0, 1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0),
          (1.0, 1.0, 0.0), (0.5, 0.5, 0.5)]


def makespan(instance, schedule: Solution) -> float:
    return evaluate(instance, schedule).objective


@FAST
@given(n=st.integers(2, 1000), duration=st.sampled_from(DURATIONS),
       arrival=st.sampled_from(ARRIVALS), seed=st.integers(0, 2**32 - 1))
@example(n=1000, duration=0.1, arrival=1.0, seed=0)
@example(n=2, duration=1.0, arrival=1.0, seed=1)
def test_no_accepted_schedule_beats_the_exact_optimum(n, duration, arrival, seed):
    DRAWN.append(n)
    instance = chain_instance(n, duration, arrival=arrival, seed=seed % 1000)
    best, tol = optimum(instance), slack(instance)
    schedule = honest(instance)
    assert check(instance, schedule) == []
    assert abs(makespan(instance, schedule) - best) <= tol
    rounded = jittered(instance, np.random.default_rng(seed))
    assert check(instance, rounded) == []
    assert makespan(instance, rounded) == makespan(instance, schedule)
    for overlap, first, short in SLACKS:
        hand = cheating(instance, overlap, first, short)
        if not check(instance, hand):
            assert makespan(instance, hand) >= best - tol, (n, duration, overlap, first, short)


@pytest.mark.parametrize("n", [2, 10, 1000])
@pytest.mark.parametrize("duration", [1.0, 0.1])
def test_the_issue_s_chains_are_refused(n, duration):
    """Each task short, each started early, the first before its arrival: ~2n us gained."""
    instance = chain_instance(n, duration, arrival=1.0)
    hand = cheating(instance, 1.0, 1.0, 1.0)
    gained = optimum(instance) - (float(hand.end.max()) - 1.0)
    assert gained > 1.9 * n * TIME_TOL  # what the old checker accepted
    problems = check(instance, hand)
    assert problems and any("lasts" in p or "runs task" in p for p in problems), problems
    # Its times recomputed, the schedule takes the optimum: the claims alone are wrong.
    assert makespan(instance, hand) >= optimum(instance) - slack(instance)


@pytest.mark.parametrize("method, options", [("promethee", {}), ("fcfs", {}),
                                             ("fcfs", {"order": "oldest"})])
@pytest.mark.parametrize("duration", [1.0, 0.1, 0.37])
def test_no_heuristic_beats_the_optimum_on_chains(method, options, duration):
    for n, arrival in ((2, 0.0), (7, 1.0), (40, 0.0), (300, 86_400.0)):
        instance = chain_instance(n, duration, arrival=arrival)
        result = run_method("pull", method, instance, seed=n, **options)
        assert check(instance, result.solution) == []
        assert result.objective >= optimum(instance) - slack(instance)
        assert same(result.objective, optimum(instance))


@pytest.mark.parametrize("duration", [1.0, 0.1, 2.5])
@pytest.mark.parametrize("n", [2, 3, 6])
@pytest.mark.parametrize("models", [False, True], ids=["bound", "models"])
def test_certify_proves_the_exact_optimum_of_chains(n, duration, models, monkeypatch):
    """Both backends prove ``n x d``; no accepted hand schedule beats it.

    ``models``: the makespan lower bound (which the online schedule meets on a
    chain, proving it at once) is switched off, so that both exact models solve.
    """
    pytest.importorskip("ortools")
    if models:
        from hybridsched.models.pull import offline

        monkeypatch.setattr(offline, "makespan_lower_bound", lambda instance: 0.0)
    instance = chain_instance(n, duration, arrival=1.0)
    certificate = certify("pull", instance, name=instance.name, time_limit=20)
    assert certificate.verdict == CERTIFIED, certificate.reason
    assert same(certificate.best_known, optimum(instance))
    assert certificate.best_bound <= optimum(instance) + slack(instance)
    for overlap, first, short in SLACKS:
        hand = cheating(instance, overlap, first, short)
        if not check(instance, hand):
            assert makespan(instance, hand) >= certificate.best_bound - slack(instance)


@pytest.mark.parametrize("n", [3, 6])
@pytest.mark.parametrize("late", [0.5, 1.5])
def test_a_window_s_end_grants_time_tol_once(n, late):
    """The host leaves ``late x TIME_TOL`` before the chain's end, then comes back.

    Under ``TIME_TOL`` (0.5): the last task still returns, once, at the chain's end;
    beyond it (1.5): it is lost and the unit is redone when the host is back. The
    simulation, the checker and both exact models agree (the slack is not granted
    per task: n tasks cannot gain n x TIME_TOL on a window's end).
    """
    pytest.importorskip("ortools")
    chain = chain_instance(n, 1.0)
    stop = n - late * TIME_TOL
    instance = dataclasses.replace(chain, windows=(((0.0, stop), (n + 10.0, math.inf)),))
    fits = late < 1
    best = float(n) if fits else n + 11.0
    schedule = honest(instance)
    assert (check(instance, schedule) == []) is fits
    for method in ("fcfs", "promethee"):
        result = run_method("pull", method, instance)
        assert check(instance, result.solution) == [] and same(result.objective, best)
    certificate = certify("pull", instance, name=instance.name, time_limit=20)
    assert certificate.verdict == CERTIFIED, certificate.reason
    assert same(certificate.best_known, best) and certificate.best_bound <= best + 1e-9


def test_zz_report_largest_n() -> None:
    """Print the largest n the property test drew (``pytest -s``)."""
    if not DRAWN:
        pytest.skip("run with the property test")
    print(f"chains drawn: {len(DRAWN)}, n from {min(DRAWN)} to {max(DRAWN)}")
