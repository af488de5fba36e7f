"""The Gaussian's fast choices are the pairwise definition's, on awkward inputs (issue 35).

Issue 35 made the bounded series of
:mod:`~hybridsched.heuristics.pull.promethee_gaussian` cheaper: fewer terms
(a looser :data:`~.promethee_gaussian.PAIR_TOL`, so that more rows are
settled by the pairwise floats) and two sums per row (``below`` and
``full``, module doc "Evaluation"). Whatever the series costs, the
scheduler must choose what the pairwise definition chooses: here on single
decisions over awkward queues (ties, equal sizes, one or two tasks, huge
and tiny sigma, offsets, clusters far apart, thousands of tasks) and on
whole runs (one host, thousands of hosts, every reading option), and the
series within its bound where its new evaluation is stressed (many bins,
bins left out, the one-bin limit).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.heuristics.pull import promethee_gaussian
from hybridsched.heuristics.pull.policies import PrometheeScheduler, strategy
from hybridsched.heuristics.pull.promethee import Criterion
from hybridsched.heuristics.pull.promethee_gaussian import (
    MAX_TERMS,
    ONE_BIN,
    PAIR_TOL,
    series_sums,
    truncation_bound,
)
from hybridsched.heuristics.pull.simulation import simulate
from hybridsched.pull import check
from hybridsched.pull.generator import generate
from tests.pull.test_gaussian_flows import assert_within_bound

TARGETS = ["max,max,max", "max,max,min", "min,max,max", "min,min,min", "min,max,min"]
WEIGHTS = ["0.6,0.1,0.3", "0.3333333333333333,0.3333333333333333,0.3333333333333334",
           "0.5,0.3,0.2", "1,0,0", "0,0,1"]


def choices(noi: np.ndarray, options: dict, price: float, reputation: float,
            noi_max: float) -> tuple[int, int]:
    """The Gaussian scheduler's pick on the fast path and on the pairwise definition."""
    picks = []
    for method in ("auto", "pairwise"):
        scheduler = PrometheeScheduler(strategy(preference="gaussian", **options),
                                       np.random.default_rng(0), flows_method=method)
        picks.append(scheduler(np.arange(len(noi)), noi, 150.0, price, noi_max, reputation))
    return picks[0], picks[1]


@st.composite
def queues(draw) -> np.ndarray:
    """Task sizes: ties, equal sizes, one or two tasks, offsets, heavy tails, far clusters."""
    n = draw(st.integers(1, 600))
    kind = draw(st.sampled_from(["uniform", "ties", "equal", "offset", "lognormal",
                                 "clusters", "near-ties"]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    if kind == "uniform":
        return rng.uniform(1e6, 1e7, n).round()
    if kind == "ties":
        return rng.integers(1, draw(st.integers(2, 7)), n) * 2.5e5
    if kind == "equal":
        return np.full(n, 3e6)
    if kind == "offset":  # a tiny spread on a huge size: deviations at the last bits
        return 1e12 + rng.integers(0, 50, n).astype(float)
    if kind == "lognormal":  # a heavy tail: many bins
        return rng.lognormal(14.0, draw(st.floats(0.5, 3.0)), n)
    if kind == "clusters":  # far apart next to a tiny s: bins left out
        return rng.choice([1e6, 2e6, 5e9], n) + rng.uniform(0, 100, n)
    x = rng.uniform(1e6, 1e7, n).round()  # the best sizes repeated, and one ulp apart
    top = float(x.max())
    x[rng.integers(n, size=min(n, 5))] = top
    x[rng.integers(n, size=min(n, 3))] = np.nextafter(top, 0.0)
    return x


@settings(max_examples=60, deadline=None)  # the nightly profile multiplies it
@given(queues(), st.sampled_from(TARGETS), st.sampled_from(WEIGHTS),
       st.sampled_from([None, 1e-3, 0.05, 3.0, 1e3]),
       st.sampled_from(["signed-pairs", "absolute-pairs"]), st.sampled_from([0.0, 0.005]),
       st.sampled_from([0.2, 0.6, 1.0]), st.sampled_from([1.0, 0.5]))
def test_single_decisions_choose_as_the_pairwise_definition(noi, targets, weights, p, spread,
                                                            price, reputation, scale) -> None:
    noi_max = float(noi.max()) / scale  # the largest task at the edge of a band, or within
    options = {"targets": targets, "weights": weights, "p": p, "spread": spread}
    auto, pairwise = choices(noi, options, price, reputation, noi_max)
    assert auto == pairwise


@pytest.mark.parametrize("n", [2_500, pytest.param(5_000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("k", range(3))
def test_thousands_of_queued_tasks(n, k) -> None:
    rng = np.random.default_rng(100 * k + n)
    noi = rng.uniform(1e6, 1e7, n).round()
    if k == 1:  # copies of the best sizes
        noi[rng.integers(n, size=8)] = noi.max()
    if k == 2:  # a heavy tail: several bins
        noi = rng.lognormal(14.0, 1.5, n)
    options = {"targets": TARGETS[k], "weights": WEIGHTS[k]}
    assert len(set(choices(noi, options, 0.005 * k, [0.2, 0.6, 0.9][k],
                           float(noi.max())))) == 1


@pytest.mark.parametrize("noi", [[4e6], [4e6, 4e6], [1e6, 9e6], [9e6, 1e6, 9e6]])
def test_one_two_and_three_tasks(noi) -> None:
    for targets in TARGETS:
        auto, pairwise = choices(np.array(noi), {"targets": targets}, 0.005, 0.6, 9e6)
        assert auto == pairwise


def run(instance, method: str, seed: int, replicas: str = "tiered", **options):
    scheduler = PrometheeScheduler(strategy(preference="gaussian", **options),
                                   np.random.default_rng(seed), flows_method=method)
    solution, _ = simulate(instance, scheduler, replicas=replicas)
    assert check(instance, solution) == []
    return solution


def assert_same_schedules(instance, seed: int, **options) -> None:
    a, b = (run(instance, method, seed, **options) for method in ("auto", "pairwise"))
    for field in ("unit", "host", "start", "end", "delay", "outcome"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field


S31 = {"targets": "max,max,min",
       "weights": "0.3333333333333333,0.3333333333333333,0.3333333333333334"}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("options", [{}, S31])
def test_whole_runs_on_one_host(seed, options) -> None:
    """One host: every decision ranks a long queue."""
    instance = generate(150, ("cloud",), seed=seed, capacity=1.0)
    assert instance.n_hosts == 1
    assert_same_schedules(instance, seed, **options)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_whole_runs_on_thousands_of_hosts(seed) -> None:
    instance = generate(250, ("idg", "cloud", "beg"), seed=seed, capacity=100_000.0)
    assert instance.n_hosts >= 1_000
    assert_same_schedules(instance, seed, **S31)


READINGS = [{"spread": "absolute-pairs"}, {"noi_max": "ranked"}, {"replicas": "two-level"},
            {"replicas": "pooled"}, {"window": 0.5}, {"p": 0.01}, {"p": 100.0},
            {"p": 0.3, "spread": "absolute-pairs"}]


@pytest.mark.parametrize("seed", [10, pytest.param(11, marks=pytest.mark.slow),
                                  pytest.param(12, marks=pytest.mark.slow),
                                  pytest.param(13, marks=pytest.mark.slow)])
@pytest.mark.parametrize("reading", READINGS)
def test_whole_runs_with_every_reading(seed, reading) -> None:
    # Pooled replicas rank every queued unit at each decision: the pairwise side is slow.
    units = 50 if reading.get("replicas") == "pooled" else 120 + 20 * (seed % 3)
    instance = generate(units, seed=seed)
    strategy_options = [{}, S31, {"targets": "min,max,max", "weights": "0.5,0.3,0.2"}]
    assert_same_schedules(instance, seed, **strategy_options[seed % 3], **reading)


def wide(n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(0.0, 1.0, n)


@pytest.mark.parametrize("case", ["one-bin limit", "many bins", "bins left out", "ties",
                                  "offset", "tiny s", "huge s"])
@pytest.mark.parametrize("n", [200, 3_000])
def test_the_series_is_within_its_bound_where_it_is_stressed(case, n) -> None:
    rng = np.random.default_rng(n)
    s = 1.0
    if case == "one-bin limit":  # spread exactly ONE_BIN s: the largest r of one bin
        x = np.sort(rng.uniform(0.0, 1.0, n))
        x = (x - x[0]) / (x[-1] - x[0])
        s = 1.0 / ONE_BIN
    elif case == "many bins":  # about 30 bins of width s (at 200 values: the pairs)
        x = rng.lognormal(0.0, 0.6, n) * 5
    elif case == "bins left out":  # clusters REACH s and more apart
        x = rng.choice([0.0, 10.0, 50.0, 1e4], n) + rng.uniform(0.0, 2.0, n)
    elif case == "ties":
        x = rng.integers(0, 4, n).astype(float)
    elif case == "offset":
        x = 1e12 + rng.uniform(0.0, 3.0, n).round(2)
    elif case == "tiny s":
        x, s = wide(n, rng), 1e-9
    else:
        x, s = wide(n, rng), 1e9
    sums = assert_within_bound(x, Criterion("max", 1.0, "gaussian", s=s))
    assert sums.error < n * (PAIR_TOL + 1e-9)  # the series, or the pairs (error 0)
    if n > 200 and case != "tiny s":  # where the series is used, and how
        series = series_sums(np.sort(x), s)
        assert series is not None
        assert series.bins > 1 if case in ("many bins", "bins left out") else series.bins == 1


def test_the_bound_counts_the_terms_the_tolerance_needs() -> None:
    """The fewest terms with ``E <= PAIR_TOL``, found from the one-bin table."""
    rng = np.random.default_rng(5)
    for _ in range(3_000):
        radius = float(10 ** rng.uniform(-6, 0.7))
        reach = radius * float(rng.choice([1.0, rng.uniform(1.0, 40.0)]))
        fewest = next((p for p in range(1, MAX_TERMS + 1)
                       if truncation_bound(p, radius, reach) <= PAIR_TOL), 0)
        assert promethee_gaussian._fewest_terms(radius, reach) == fewest


def test_powers_by_doubling_are_the_products() -> None:
    x = np.random.default_rng(2).uniform(-3.0, 3.0, (4, 50))
    powers = promethee_gaussian._powers(x, 21)
    for k in range(21):
        # a product tree of k factors: within k - 1 roundings of x^k
        assert np.allclose(powers[k], x ** k, rtol=(k + 1) * 2.0 ** -52, atol=0.0)


def test_sums_below_and_above_are_the_series_of_their_pairs() -> None:
    """``taken = (n - j) - full + below``: each pair above once, ties adding nothing."""
    x = np.array([0.0, 0.0, 0.5, 1.0, 1.0, 1.0, 2.5] * 20)
    x.sort()
    width = 1.0
    series = series_sums(x, width)
    assert series is not None
    d = x[None, :] - x[:, None]  # d[i, j] = x_j - x_i
    kernel = np.exp(-0.5 * (d / width) ** 2)
    index = np.arange(len(x))
    given = np.array([j - kernel[:j, j].sum() for j in index])
    taken = np.array([(len(x) - 1 - i) - kernel[i, i + 1:].sum() for i in index])
    assert np.all(np.abs(series.given - given) <= series.error)
    assert np.all(np.abs(series.taken - taken) <= series.error)
    assert math.isclose(series.taken[-1], 0.0, abs_tol=series.error)
