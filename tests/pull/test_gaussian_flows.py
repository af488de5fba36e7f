"""The Gaussian's bounded series against the pairwise path, and the same choices (issue 21).

:func:`~hybridsched.heuristics.pull.promethee.bounded_sums` must be within its
stated ``error`` of the pairwise path's sums on any data, give that path's
own floats for the rows asked, and the scheduler built on it must choose as
the pairwise flows do: on single decisions and on whole simulations.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.heuristics.pull import policies
from hybridsched.heuristics.pull.policies import PrometheeScheduler, strategy
from hybridsched.heuristics.pull.promethee import (
    BoundedSums,
    Criterion,
    bounded_sums,
    criterion_sums,
)
from hybridsched.heuristics.pull.promethee_gaussian import (
    PAIR_TOL,
    series_sums,
    truncation_bound,
)
from hybridsched.heuristics.pull.simulation import simulate
from hybridsched.pull import check
from hybridsched.pull.generator import generate


def assert_within_bound(column: np.ndarray, c: Criterion) -> BoundedSums:
    """The series is within its bound, and its exact rows are the pairwise path's floats."""
    sums = bounded_sums(column, c)
    given, taken = criterion_sums(column, c, "pairwise")
    assert np.all(np.abs(sums.given - given) <= sums.error)
    assert np.all(np.abs(sums.taken - taken) <= sums.error)
    rows = np.arange(len(column))
    exact_given, exact_taken = sums.exact(rows)
    assert np.array_equal(exact_given, given) and np.array_equal(exact_taken, taken)
    # A ranking the exact sums separate by more than twice the bound is kept.
    net, approx = given - taken, sums.given - sums.taken
    apart = net[:, None] - net[None, :] > 4 * sums.error
    assert np.all(approx[:, None] > approx[None, :], where=apart)
    return sums


@st.composite
def columns(draw) -> np.ndarray:
    """Awkward values: ties, equal values, huge spreads and offsets, one or two values."""
    n = draw(st.integers(1, 700))
    kind = draw(st.sampled_from(["uniform", "ties", "equal", "outlier", "lognormal",
                                 "clusters"]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    if kind == "uniform":
        x = rng.uniform(1e6, 1e7, n).round()
    elif kind == "ties":
        x = rng.integers(0, draw(st.integers(1, 6)), n).astype(float)
    elif kind == "equal":
        x = np.full(n, draw(st.floats(-1e6, 1e6)))
    elif kind == "outlier":
        x = rng.normal(0.0, 1.0, n)
        x[rng.integers(n)] = draw(st.sampled_from([1e3, -1e6, 1e9]))
    elif kind == "lognormal":
        x = rng.lognormal(0.0, draw(st.floats(0.1, 4.0)), n)
    else:
        x = rng.choice([0.0, 1.0, 50.0, 51.0, 1e4], n) + rng.normal(0, 0.01, n)
    return x + draw(st.sampled_from([0.0, 0.0, 1e6, 1e12]))


@settings(max_examples=150, deadline=None)
@given(columns(), st.sampled_from(["max", "min"]),
       st.sampled_from([1e-6, 1e-3, 0.05, 0.3, 1.0, 3.0, 100.0, 1e6]), st.booleans(),
       st.sampled_from(["signed-pairs", "absolute-pairs"]))
def test_the_series_is_within_its_bound_of_the_pairwise_path(x, target, s, relative,
                                                             spread) -> None:
    if not relative:  # an absolute s at the scale of the values, tiny to huge
        s *= max(float(np.ptp(x)), 1.0)
    assert_within_bound(x, Criterion(target, 1.0, "gaussian", s=s, relative=relative,
                                     spread=spread))


def test_the_series_is_used_and_tight_where_the_scheduler_needs_it() -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(1e6, 1e7, 2000).round()
    sigma = math.sqrt(2) * float(np.std(x, ddof=1))  # the signed-pairs sigma
    series = series_sums(np.sort(x), sigma)
    assert series is not None and series.bins == 1 and series.terms <= 12
    sums = assert_within_bound(x, Criterion("max", 1.0, "gaussian", s=1.0, relative=True,
                                            spread="signed-pairs"))
    # Per sum of up to 1,999 terms: within 2,000 x PAIR_TOL, flows within about 1e-6.
    assert 0 < sums.error < 2000 * PAIR_TOL


@pytest.mark.parametrize("terms, radius, reach", [(5, 0.5, 1.0), (10, 1.2, 1.2),
                                                  (15, 0.5, 38.0), (8, 1.5, 1.5)])
def test_the_truncation_bound_holds_pair_by_pair(terms, radius, reach) -> None:
    """The remainder of ``exp(uv)`` after ``p`` terms, on a grid of ``|u| <= U``, ``|v| <= r``."""
    u, v = np.meshgrid(np.linspace(-reach, reach, 401), np.linspace(-radius, radius, 101))
    series = sum((u * v) ** k / math.factorial(k) for k in range(terms))
    error = np.abs(np.exp(-(u - v) ** 2 / 2) - np.exp(-(u * u + v * v) / 2) * series)
    bound = truncation_bound(terms, radius, reach)
    assert error.max() <= bound * (1 + 1e-9) + 1e-300
    assert error.max() >= bound / 50  # and it is not loose by orders of magnitude


def choices(noi, targets, weights, price, reputation, noi_max, **options) -> tuple[int, int]:
    picks = []
    for method in ("auto", "pairwise"):
        scheduler = PrometheeScheduler(strategy(preference="gaussian", targets=targets,
                                                weights=weights, **options),
                                       np.random.default_rng(0), flows_method=method)
        picks.append(scheduler(np.arange(len(noi)), noi, 150.0, price, noi_max, reputation))
    return picks[0], picks[1]


TARGETS = ["max,max,max", "min,max,max", "max,max,min", "min,min,min", "min,max,min"]
WEIGHTS = ["0.6,0.1,0.3", "0.3333333333333333,0.3333333333333333,0.3333333333333334",
           "0.5,0.3,0.2", "1,0,0", "0,0,1"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 60), min_size=1, max_size=400), st.sampled_from(TARGETS),
       st.sampled_from(WEIGHTS), st.sampled_from([0.0, 0.005]),
       st.sampled_from([0.2, 0.6, 0.9]), st.sampled_from([None, 0.3, 3.0]),
       st.sampled_from(["signed-pairs", "absolute-pairs"]))
def test_the_scheduler_chooses_as_the_pairwise_flows(sizes, targets, weights, price,
                                                     reputation, p, spread) -> None:
    noi = np.array(sizes, dtype=float) * 2.5e5  # many equal sizes: ties of the flows
    assert len(set(choices(noi, targets, weights, price, reputation, 1.5e7, p=p,
                           spread=spread))) == 1


def test_many_random_decisions_choose_as_the_pairwise_flows() -> None:
    rng = np.random.default_rng(7)
    for k in range(150):
        n = int(rng.integers(2, 1200))
        noi = rng.uniform(1e6, 1e7, n).round()
        if k % 3 == 0:  # duplicates of the best candidates, equal flows
            noi[rng.integers(n, size=3)] = noi.max()
            noi[rng.integers(n, size=3)] = noi.min()
        auto, pairwise = choices(noi, TARGETS[k % 5], WEIGHTS[k % 5], float(k % 2) * 0.005,
                                 [0.2, 0.6, 0.9][k % 3], float(noi.max()))
        assert auto == pairwise, k


def test_near_ties_are_settled_by_the_pairwise_floats(monkeypatch) -> None:
    """Equal sizes have equal flows up to the pairwise path's rounding: the exact rows decide."""
    settled = []

    def spied(column, c, where="values"):
        sums = bounded_sums(column, c, where)

        def exact(rows):
            settled.append(len(rows))
            return sums.exact(rows)
        return BoundedSums(sums.given, sums.taken, sums.error, exact)

    monkeypatch.setattr(policies, "bounded_sums", spied)
    rng = np.random.default_rng(3)
    for _ in range(20):
        noi = rng.uniform(1e6, 1e7, 900).round()
        noi[rng.integers(900, size=4)] = noi.max()
        auto, pairwise = choices(noi, "max,max,max", "0.6,0.1,0.3", 0.0, 0.9,
                                 float(noi.max()))
        assert auto == pairwise
    assert settled and all(size >= 2 for size in settled)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", [{}, {"targets": "max,max,min",
                                          "weights": "0.3333333333333333,0.3333333333333333,"
                                                     "0.3333333333333334"},
                                     {"targets": "min,max,max", "weights": "0.5,0.3,0.2",
                                      "window": 0.5}])
def test_whole_simulations_give_the_pairwise_schedules(seed, options) -> None:
    instance = generate(160 + 40 * seed, seed=seed)
    solutions = []
    for method in ("auto", "pairwise"):
        scheduler = PrometheeScheduler(strategy(preference="gaussian", **options),
                                       np.random.default_rng(seed), flows_method=method)
        solution, _ = simulate(instance, scheduler)
        assert check(instance, solution) == []
        solutions.append(solution)
    a, b = solutions
    for field in ("unit", "host", "start", "end", "outcome"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
