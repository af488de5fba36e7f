"""Reputation, EEI (Table 1) and the Promethee scheduler's choices and options."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.errors import InputError
from hybridsched.heuristics.pull.policies import (
    Criterion,
    Fcfs,
    PrometheeScheduler,
    strategy,
)
from hybridsched.heuristics.pull.promethee import preference
from hybridsched.pull.reputation import Reputation, eei


def test_reputation_weighs_size_and_recency() -> None:
    rep = Reputation(3)
    assert rep.of(0) == 1.0  # no result yet
    rep.record(0, 100, False)
    rep.record(0, 100, True)  # the most recent: weight 5 against 4
    assert rep.of(0) == pytest.approx(5 / 9)
    rep.record(1, 900, False)
    rep.record(1, 100, True)
    assert rep.of(1) == pytest.approx(5 * 100 / (5 * 100 + 4 * 900))  # the big error weighs
    for _ in range(5):
        rep.record(2, 10, True)
    rep.record(2, 10, False)
    rep.record(2, 10, True)
    assert rep.of(2) == pytest.approx((5 + 3 + 2 + 1) / 15)  # only the last 5 count
    for _ in range(5):
        rep.record(2, 10, True)
    assert rep.of(2) == 1.0


@pytest.mark.parametrize("reputation, utility, factor", [
    (0.3, 0.4, 2), (0.3, 0.6, 4), (0.3, 0.9, 8), (0.0, 0.5, 2),
    (0.6, 0.4, 0.5), (0.6, 0.6, 2), (0.6, 0.9, 4),
    (0.8, 0.4, 0.25), (0.8, 0.6, 0.5), (0.8, 1.0, 1), (0.7, 0.7, 2),
])
def test_eei_follows_table_1(reputation, utility, factor) -> None:
    assert eei(np.array([utility * 10]), 10.0, reputation)[0] == pytest.approx(utility * factor)


def pick(targets, noi, price=0.0, weights="0.6,0.1,0.3", **options):
    scheduler = PrometheeScheduler(strategy(targets=targets, weights=weights, **options),
                                   np.random.default_rng(0))
    noi = np.asarray(noi, dtype=float)
    return scheduler(np.arange(len(noi)), noi, 100.0, price, float(noi.max()), 1.0)


def test_targets_choose_large_or_small_tasks() -> None:
    noi = [5e6, 1e6, 9e6, 3e6]
    assert pick("max,max,max", noi) == 2
    assert pick("min,min,min", noi) == 1
    for preference_name in ("level", "gaussian"):
        assert pick("max,max,max", noi, preference=preference_name) == 2
    # ECT weighs 0.6 towards small, EEI 0.3 and price 0.1 towards large: small wins.
    assert pick("min,max,max", noi, price=0.01) == 1


@pytest.mark.parametrize("spread", ["signed-pairs", "absolute-pairs"])
def test_rank_is_the_pairwise_definition_with_sigma_thresholds(spread: str) -> None:
    rng = np.random.default_rng(3)
    matrix = rng.uniform(0, 10, (40, 3))
    scheduler = PrometheeScheduler(strategy(targets="min,max,min", weights="0.2,0.3,0.5",
                                            spread=spread), rng)
    net = scheduler.rank(matrix)
    expected = np.zeros(40)
    for k, (target, weight) in enumerate(zip(("min", "max", "min"), (0.2, 0.3, 0.5),
                                             strict=True)):
        x = matrix[:, k] if target == "max" else -matrix[:, k]
        d = x[:, None] - x[None, :]
        # The paper: "the standard deviation of the differences d for all pairs of tasks".
        pairs = (d[~np.eye(40, dtype=bool)] if spread == "signed-pairs"
                 else np.abs(d[np.triu_indices(40, 1)]))
        c = Criterion(target, weight, "vshape", 0.0, float(pairs.std()))
        expected += weight * (preference(d, c).sum(1) - preference(-d, c).sum(1)) / 39
    np.testing.assert_allclose(net, expected, atol=1e-9)


def test_each_reading_of_sigma_is_the_papers_linear_function_with_its_sigma() -> None:
    """ECT alone (weight 1, min) of tasks 1, 2 and 11 (x 1,000 s): the signed sigma is
    sqrt(2) times the sample standard deviation (7.8 x 1,000), the absolute one the
    standard deviation of the pairs' |d| = 1, 9, 10 (4.0 x 1,000); the flows follow
    P(d) = min(d / sigma, 1) with each, and differ.
    """
    noi = np.array([1e5, 2e5, 11e5])
    net = {spread: PrometheeScheduler(strategy(targets="min,min,min", weights="1,0,0",
                                               spread=spread), np.random.default_rng(0))
           .net_flows(noi, 100.0, 0.0, float(noi.max()), 1.0)
           for spread in ("signed-pairs", "absolute-pairs")}
    sigma_signed = float(np.std(np.array([1.0, 2.0, 11.0]), ddof=1) * np.sqrt(2)) * 1e3
    sigma_abs = float(np.std([1.0, 10.0, 9.0])) * 1e3
    ect = noi / 100.0
    for spread, sigma in (("signed-pairs", sigma_signed), ("absolute-pairs", sigma_abs)):
        d = ect[None, :] - ect[:, None]  # min target: the smaller ECT is preferred
        pref = np.clip(d / sigma, 0.0, 1.0)
        expected = (pref.sum(1) - pref.sum(0)) / 2
        np.testing.assert_allclose(net[spread], expected, atol=1e-12)
    assert not np.allclose(net["signed-pairs"], net["absolute-pairs"])


def test_two_tasks_use_the_limit_of_the_function() -> None:
    assert pick("max,max,max", [1e6, 2e6]) == 1
    assert pick("min,min,min", [1e6, 2e6]) == 0


def test_the_window_ranks_a_seeded_random_subset() -> None:
    noi = np.arange(1.0, 101.0) * 1e5
    chosen = strategy(targets="max,max,max", window=0.1)
    picks = [PrometheeScheduler(chosen, np.random.default_rng(s))(
        np.arange(100), noi, 100.0, 0.0, 1e7, 1.0) for s in range(20)]
    assert len(set(picks)) > 1  # the largest task is not always in the window
    assert pick("max,max,max", noi) == 99  # without a window it always is
    again = [PrometheeScheduler(chosen, np.random.default_rng(s))(
        np.arange(100), noi, 100.0, 0.0, 1e7, 1.0) for s in range(20)]
    assert picks == again


def test_fcfs_is_a_seeded_uniform_pick() -> None:
    fcfs = Fcfs(np.random.default_rng(0))
    picks = [fcfs(np.arange(4), np.ones(4), 1.0, 0.0, 1.0, 1.0) for _ in range(400)]
    assert set(picks) == {0, 1, 2, 3} and fcfs.decisions.count == 400


@pytest.mark.parametrize("options, words", [
    ({"weights": "0.5,0.3,0.3"}, "must sum to 1"),
    ({"weights": "1.2,-0.1,-0.1"}, "finite and >= 0"),
    ({"weights": "0.5,0.5"}, "give 3 weights"),
    ({"weights": "a,b,c"}, "not a list of numbers"),
    ({"targets": "min,up,max"}, "min or max, got 'up'"),
    ({"preference": "cubic"}, "unknown preference function 'cubic'"),
    ({"preference": "level", "q": 2.0, "p": 1.0}, "q (2) must not exceed p (1)"),
    ({"q": 1.0, "p": 1.0}, "linear needs q < p"),
    ({"window": 0.0}, "in (0, 1]"),
    ({"window": 1.5}, "in (0, 1]"),
    ({"q": float("nan")}, "finite number >= 0"),
    ({"spread": "std"}, "option --spread: unknown reading of sigma 'std'"),
])
def test_bad_strategies(options, words) -> None:
    with pytest.raises(InputError) as error:
        strategy(**options)
    assert words in str(error.value) and "\n" not in str(error.value)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 10), min_size=1, max_size=30),
       st.sampled_from(["linear", "gaussian"]))  # level has ties (indifference)
def test_all_max_always_picks_a_largest_task(sizes, preference_name) -> None:
    noi = np.array(sizes, dtype=float) * 1e6
    chosen = pick("max,max,max", noi, preference=preference_name)
    assert noi[chosen] == noi.max()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=40),
       st.sampled_from(["linear", "level", "gaussian"]),
       st.sampled_from(["min,max,min", "max,min,max", "min,min,min", "max,max,max"]),
       st.sampled_from([0.0, 0.005]), st.sampled_from([0.2, 0.6, 0.9]))
def test_the_shared_ect_price_ranking_equals_the_full_matrix(sizes, preference_name, targets,
                                                             price, reputation) -> None:
    noi = np.array(sizes, dtype=float) * 2.5e5
    scheduler = PrometheeScheduler(strategy(targets=targets, weights="0.3,0.3,0.4",
                                            preference=preference_name),
                                   np.random.default_rng(0))
    full = scheduler.rank(scheduler.matrix(noi, 150.0, price, 1e7, reputation))
    np.testing.assert_allclose(scheduler.net_flows(noi, 150.0, price, 1e7, reputation), full,
                               atol=1e-9)
