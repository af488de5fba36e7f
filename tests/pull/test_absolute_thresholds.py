"""Thresholds in each criterion's units (``thresholds = "absolute"``, issue 34).

The literal side (the paper's formulas, pair by pair) is in
tests/pull/test_literal_promethee.py; here: absolute thresholds equal to
``k x sigma`` are the sigma thresholds ``k``, the O(n log n) flows and the
bounded Gaussian series make the pairwise path's decisions under absolute
thresholds, and bad values are one-line errors, in Python and on the
command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hybridsched.errors import InputError
from hybridsched.heuristics.pull.policies import PrometheeScheduler, strategy
from hybridsched.heuristics.pull.promethee import pairwise_deviation_std, signed_deviation_std
from hybridsched.registry import check_options, run_method
from tests.pull.helpers import tiny

TARGETS = st.tuples(*[st.sampled_from(["min", "max"])] * 3)
WEIGHTS = st.sampled_from([(1 / 3, 1 / 3, 1 / 3), (0.6, 0.1, 0.3), (0.2, 0.4, 0.4)])


def _scheduler(method: str = "auto", **options) -> PrometheeScheduler:
    return PrometheeScheduler(strategy(**options), np.random.default_rng(0), method)


def _sigma(column: np.ndarray, target: str, spread: str) -> float:
    """Sigma as the flows take it: of the values oriented by the target."""
    oriented = column if target == "max" else -column
    return (signed_deviation_std(oriented) if spread == "signed-pairs"
            else pairwise_deviation_std(oriented))


@st.composite
def states(draw, low: int = 3, high: int = 12):
    """A pulling host with a price, its tasks, and a strategy's targets and weights."""
    n = draw(st.integers(low, high))
    return dict(noi=np.array([float(draw(st.integers(10, 100))) * 1e5 for _ in range(n)]),
                cpu=float(draw(st.sampled_from([50, 150, 250, 400]))),
                price=draw(st.sampled_from([0.001, 0.0075, 0.01])),
                noi_max=1e7, reputation=draw(st.sampled_from([0.3, 0.6, 1.0])),
                targets=draw(TARGETS), weights=draw(WEIGHTS))


def _host(case: dict) -> tuple:
    return case["noi"], case["cpu"], case["price"], case["noi_max"], case["reputation"]


@settings(max_examples=150, deadline=None)
@given(states(), st.sampled_from(["linear", "level", "gaussian"]),
       st.sampled_from([(0.0, 1.0), (0.5, 1.0), (0.25, 2.0), (1.0, 1.0)]),
       st.sampled_from(["signed-pairs", "absolute-pairs"]))
def test_absolute_k_sigma_is_sigma_k(case, function, qp, spread) -> None:
    """q = k sigma and p = m sigma given in the criterion's units are the thresholds k and m
    in sigmas: the same flows on the matrix, bit for bit, and the same decision."""
    k, m = qp
    assume(function == "level" or k < m)
    common = dict(preference=function, targets=case["targets"], weights=case["weights"],
                  spread=spread)
    relative = _scheduler(q=k, p=m, **common)
    matrix = relative.matrix(*_host(case))
    sigmas = [_sigma(matrix[:, c], case["targets"][c], spread) for c in range(3)]
    assume(min(sigmas) > 0)  # sigma 0 reads as the usual criterion, absolute 0 does not
    absolute = _scheduler(q=tuple(k * s for s in sigmas), p=tuple(m * s for s in sigmas),
                          thresholds="absolute", **common)
    np.testing.assert_array_equal(absolute.rank(matrix), relative.rank(matrix))
    full = relative.rank(matrix)
    pick = absolute(np.arange(len(case["noi"])), *_host(case))
    assert full[pick] >= full.max() - 1e-12  # a best task of the sigma flows
    # ECT and price ranked apart (absolute) or once as NOI (sigmas): the same flows.
    np.testing.assert_allclose(absolute.net_flows(*_host(case)),
                               relative.net_flows(*_host(case)), atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(states(2, 300), st.sampled_from(["linear", "level"]),
       st.sampled_from([(0.0, 3600.0), (3600.0, 14400.0), (20000.0, 20000.0), (0.0, 1e9)]),
       st.sampled_from([(0.0, 5.0), (2.0, 50.0)]), st.sampled_from([(0.0, 0.1), (0.05, 0.5)]))
def test_fast_flows_make_the_pairwise_decisions(case, function, ect, price, risk) -> None:
    """The sort-and-count flows (the default) under thresholds in seconds, money and EEI:
    the pairwise path's flows within 1e-12 and a best task of them."""
    assume(function == "level" or ect[0] < ect[1])
    options = dict(preference=function, targets=case["targets"], weights=case["weights"],
                   thresholds="absolute", q=(ect[0], price[0], risk[0]),
                   p=(ect[1], price[1], risk[1]))
    fast, pairs = _scheduler("auto", **options), _scheduler("pairwise", **options)
    reference = pairs.net_flows(*_host(case))
    np.testing.assert_allclose(fast.net_flows(*_host(case)), reference, atol=1e-12)
    pick = fast(np.arange(len(case["noi"])), *_host(case))
    assert reference[pick] >= reference.max() - 1e-12


@settings(max_examples=40, deadline=None)
@given(states(2, 200), st.sampled_from([(500.0, 5.0, 0.05), (20000.0, 50.0, 0.5),
                                        (1e6, 1.0, 0.01)]))
def test_gaussian_series_makes_the_pairwise_decision(case, s) -> None:
    """The Gaussian's s in each criterion's units: the bounded series (ECT and price each
    their own) picks the task the pairwise flows pick, exactly."""
    options = dict(preference="gaussian", targets=case["targets"], weights=case["weights"],
                   thresholds="absolute", p=s)
    pairs = _scheduler("pairwise", **options)
    candidates = np.arange(len(case["noi"]))
    assert _scheduler("auto", **options)(candidates, *_host(case)) == pairs(candidates,
                                                                            *_host(case))


@pytest.mark.filterwarnings("error")  # no overflow warning reaches the user
@pytest.mark.parametrize("function, p, scale, best", [
    ("gaussian", 1e-200, 1.0, 4), ("gaussian", 1e-150, 1.0, 4), ("linear", 1e-300, 1.0, 4),
    ("level", 1e-300, 1.0, 4),
    ("gaussian", 1e200, 0.0, 0),  # 1 - exp(-d^2 / 2 s^2) is 0 in floats: all alike, the first
    ("linear", 1e300, 0.0, 4),  # d / p: tiny flows, still strict
    ("level", 1e300, 0.5, 4),  # the paper's Level with q = 0: 1/2 for any d >= 0
])
def test_extreme_absolute_thresholds_read_as_their_limits(function, p, scale, best) -> None:
    """An s or p far below every deviation is the usual criterion (any d > 0 a full
    preference), far above is none (level: 1/2), on the series, the sort-and-count and the
    pairwise paths alike, without a warning (1 / (2 s^2) overflows below s = 1e-154)."""
    noi = np.array([1e6, 2e6, 2e6, 5e6, 7e6])
    host = (noi, 100.0, 0.01, 1e7, 1.0)
    options = dict(preference=function, thresholds="absolute", p=p, targets="max,min,min")
    # Every criterion grows with NOI: tasks beaten minus beating, ECT (max, weight 0.6)
    # against price and EEI (min, 0.1 and 0.3), over n - 1 = 4.
    usual = np.array([-4.0, -1.0, -1.0, 2.0, 4.0]) * (0.6 - 0.1 - 0.3) / 4
    for method in ("pairwise", "auto"):
        scheduler = _scheduler(method, **options)
        np.testing.assert_allclose(scheduler.net_flows(*host), scale * usual, atol=1e-12)
        assert scheduler(np.arange(5), *host) == best


def test_one_value_is_every_criterion_s() -> None:
    noi = np.array([1e6, 2.5e6, 4e6, 7e6, 9.5e6])
    host = (noi, 200.0, 0.01, 1e7, 1.0)
    one = _scheduler(preference="level", thresholds="absolute", q=0.1, p=0.4,
                     targets="min,max,min").net_flows(*host)
    three = _scheduler(preference="level", thresholds="absolute", q="0.1,0.1,0.1",
                       p=[0.4, 0.4, 0.4], targets="min,max,min").net_flows(*host)
    np.testing.assert_array_equal(one, three)


def test_absolute_thresholds_change_the_decision() -> None:
    """Level, ECT max alone, a 200 instructions/s host: ECTs 5,000, 40,000, 45,000 and
    10,000 s. With q = 0 and p = 10,000 s the largest task (45,000 s) beats the next by
    1/2 and wins; an indifference of 10,000 s makes the two equal, and the first queued
    (40,000 s) wins, as with the default q = 0.5 sigma (sigma about 28,900 s here)."""
    noi = np.array([1e6, 8e6, 9e6, 2e6])
    host = (noi, 200.0, 0.0, 1e7, 1.0)
    common = dict(preference="level", targets="max,max,max", weights="1,0,0")
    narrow = _scheduler(thresholds="absolute", q=0.0, p=10000.0, **common)
    wide = _scheduler(thresholds="absolute", q=10000.0, p=20000.0, **common)
    assert narrow(np.arange(4), *host) == 2
    assert wide(np.arange(4), *host) == 1
    tied = wide.net_flows(*host)
    assert tied[1] == tied[2] == tied.max()  # 5,000 s apart: indifferent
    assert _scheduler(**common)(np.arange(4), *host) == 1


def test_a_run_under_absolute_thresholds_is_a_valid_schedule() -> None:
    from hybridsched.pull import check

    instance = tiny(noi=(1000.0, 5000.0, 2000.0, 8000.0))
    result = run_method("pull", "promethee", instance, seed=0, preference="level",
                        thresholds="absolute", q="1,0.01,0.05", p="20,0.1,0.3")
    assert result.solution is not None and check(instance, result.solution) == []


@pytest.mark.parametrize("options, words", [
    ({"thresholds": "percent"}, "option --thresholds: unknown unit of q and p 'percent'"),
    ({"thresholds": "absolute"}, "option --p: thresholds=absolute needs p"),
    ({"thresholds": "absolute", "p": "10,1"}, "option --p: give one value (every criterion) "
                                              "or 3 (ECT, price, EEI), got 2"),
    ({"q": [0.1, 0.2, 0.3, 0.4]}, "option --q: give one value"),
    ({"thresholds": "absolute", "p": "10,-1,0.1"}, "option --p: must be a finite number >= 0, "
                                                   "got -1"),
    ({"thresholds": "absolute", "p": "10,inf,0.1"}, "finite number >= 0, got inf"),
    ({"thresholds": "absolute", "p": "10,x,0.1"}, "is not a number or a list of 3 numbers"),
    ({"thresholds": "absolute", "p": (10, True, 0.1)}, "finite number >= 0, got True"),
    ({"thresholds": "absolute", "preference": "level", "q": "20,0,0", "p": "10,1,0.1"},
     "option --q: q (20) must not exceed p (10) for ECT"),
    ({"thresholds": "absolute", "q": "0,1,0", "p": "10,1,0.1"},
     "option --p: linear needs q < p, got q = p = 1 for price"),
    ({"thresholds": "absolute", "preference": "gaussian", "p": "10,1,0"},
     "option --p: the gaussian needs p > 0 for EEI"),
    ({"q": "0.5,2,0.5", "p": 1.0}, "q (2) must not exceed p (1) for price"),
])
def test_bad_thresholds(options, words) -> None:
    with pytest.raises(InputError) as error:
        check_options("pull", "promethee", options)
    assert words in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("argv, words", [
    (["--thresholds", "absolute"], "option --p: thresholds=absolute needs p"),
    (["--thresholds", "kelvin"], "--thresholds"),
    (["--thresholds", "absolute", "--p", "3600,10"], "give one value (every criterion) or 3"),
    (["--thresholds", "absolute", "--p", "3600,-10,0.1"], "must be a finite number >= 0"),
    (["--thresholds", "absolute", "--q", "7200,0,0", "--p", "3600,10,0.1", "--preference",
      "level"], "q (7200) must not exceed p (3600) for ECT"),
    (["--q", "a,b,c"], "'a,b,c' is not a number"),
    (["--method", "fcfs", "--thresholds", "absolute"], "--thresholds: only the promethee"),
])
def test_bad_threshold_flags(argv, words, cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("simulate", "pull", "--units", "5", *argv)
    assert code == 2, (out, err)
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_absolute_flags_reach_the_method(cli, tmp_path: Path) -> None:
    """The same seed under two absolute Levels: both run, and the thresholds matter."""
    makespans = []
    for q, p in (("0,0,0", "600,1,0.01"), ("20000,50,0.5", "60000,200,2")):
        code, out, err = cli("simulate", "pull", "--units", "60", "--capacity", "800",
                             "--seed", "2", "--preference", "level", "--targets",
                             "max,max,min", "--weights", "0.4,0.3,0.3", "--thresholds",
                             "absolute", "--q", q, "--p", p, "--json")
        assert code == 0, err
        makespans.append(json.loads(out)["objective"])
    assert makespans[0] != makespans[1]


def test_methods_options_list_the_unit_with_the_papers_words(cli) -> None:
    code, out, err = cli("methods", "pull", "--options")
    assert code == 0, err
    assert "thresholds=sigma" in out
    assert ("thresholds: unit of q and p" in out
            and "the standard deviation of the differences d for all pairs of tasks" in out
            and "'q is the degree of indifference; any deviation below q leads to "
                "considering t1 and t2 equivalent'" in out)
