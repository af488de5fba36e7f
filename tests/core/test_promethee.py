"""PROMETHEE II: the fast path equals the definition; both equal pymcdm and pyrepo-mcda.

The ``@example`` cases are draws that once failed (issue 17): the sorted-sum
formulas worked on raw values, and lost the small results they subtract to
rounding near a large offset (values near 10^6 or 10^9 a few 10^-3 apart,
near-ties), or when two values give one deviation and a zero spread.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hybridsched.errors import InputError
from hybridsched.heuristics.promethee import (
    FAST_FUNCTIONS,
    Criterion,
    check_criteria,
    flows,
    pairwise_deviation_std,
)


@st.composite
def problems(draw: st.DrawFn, functions=FAST_FUNCTIONS, offsets=(0.0,), unit=1.0):
    """Matrices and criteria; values ``offset + unit * v`` and thresholds in ``unit``s."""
    n = draw(st.integers(2, 40))
    m = draw(st.integers(1, 4))
    ties = draw(st.booleans())
    offset = draw(st.sampled_from(offsets))
    # Random values on a binary grid, so that x_a - x_b is exact: the fast path compares
    # x_b with x_a - p, the definition rounds x_a - x_b, and only exact numbers make the
    # two agree at a threshold (with 1e-44 below a threshold the fast path is the exact one).
    # An offset (below 2^33 with a unit of 2^-10) keeps every value exact.
    values = (st.integers(0, 4).map(float) if ties
              else st.integers(-100 * 1024, 100 * 1024).map(lambda v: v / 1024))
    matrix = offset + unit * np.array([[draw(values) for _ in range(m)] for _ in range(n)])
    raw = [draw(st.integers(1, 10)) for _ in range(m)]
    weights = [r / sum(raw) for r in raw]
    criteria = []
    for k in range(m):
        q = unit * draw(st.integers(0, 3))
        p = q + unit * draw(st.integers(1, 3))
        criteria.append(Criterion(draw(st.sampled_from(["min", "max"])), weights[k],
                                  draw(st.sampled_from(functions)), q, p, p / 2))
    return matrix, criteria


def _column(offset: float, steps: tuple[int, ...], step: float) -> np.ndarray:
    """One column of values ``offset + k * step``."""
    return np.array([[offset + k * step] for k in steps])


#: Values near 10^6 and 10^9, 10^-3 apart (rounded: not on a binary grid), and near-ties
#: (equal values, one ulp apart, 10^-9 apart) near 10^6. On raw values the fast path's
#: flows were off by 1.5e-8 to 0.04 here, and sigma by 2e-6 (relative) near 10^6.
NEAR_1E6 = _column(1e6, (0, 1, 3, 4, 7, 2, 5), 1e-3)
NEAR_1E9 = _column(1e9, (0, 1, 3, 4, 7, 2, 5), 1e-3)
NEAR_TIES = np.array([[1e6], [1e6], [np.nextafter(1e6, 2e6)], [1e6 + 1e-9], [1e6 + 2e-9]])


@settings(max_examples=300, deadline=None)
@given(problem=problems())
@example(problem=(NEAR_1E6, [Criterion("max", 1.0, "linear", 1e-3, 4e-3)]))
@example(problem=(NEAR_1E6, [Criterion("min", 1.0, "vshape", 0.0, 2.5e-3)]))
@example(problem=(NEAR_1E6, [Criterion("max", 1.0, "linear", 0.0, None)]))
@example(problem=(NEAR_1E9, [Criterion("max", 1.0, "linear", 0.2, 1.0, relative=True)]))
@example(problem=(NEAR_TIES, [Criterion("max", 1.0, "linear", 0.0, None)]))
@example(problem=(NEAR_TIES, [Criterion("min", 1.0, "level", 0.5, 1.0, relative=True)]))
def test_fast_path_equals_the_pairwise_definition(problem) -> None:
    matrix, criteria = problem
    fast = flows(matrix, criteria, "fast")
    slow = flows(matrix, criteria, "pairwise")
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9, rtol=0)
    assert abs(fast[2].sum()) < 1e-9  # net flows sum to zero


def _deviations(x: np.ndarray) -> np.ndarray:
    """``|x_a - x_b|`` over the pairs ``a < b``, by the definition."""
    return np.abs(x[:, None] - x[None, :])[np.triu_indices(len(x), 1)]


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=2, max_size=60))
# CI, issue 17: 7.62939453125e-06 for one pair (no spread), from mean(d^2) - mean(d)^2.
@example(values=[-956.3996105722304, -355.1636829805947])
@example(values=[89.0, 0.002889150453748777])  # the same failure, as hypothesis shrinks it
@example(values=NEAR_1E6[:, 0].tolist())
@example(values=NEAR_1E9[:, 0].tolist())
@example(values=NEAR_TIES[:, 0].tolist())
def test_deviation_std_equals_the_pairwise_one(values) -> None:
    x = np.array(values)
    # abs: only for subnormal spreads, where no relative accuracy is defined.
    assert pairwise_deviation_std(x) == pytest.approx(float(_deviations(x).std()),
                                                      abs=1e-300, rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(offset=st.sampled_from([0.0, 1e6, -1e9, 2.0**33]),
       steps=st.lists(st.integers(-1000, 1000), min_size=2, max_size=60))
@example(offset=2.0**33, steps=[0, -1])  # hypothesis' shrunk failure of the raw sums
@example(offset=1e6, steps=[0, 1, 3, 4, 7, 2, 5])
def test_deviation_std_does_not_depend_on_an_offset(offset, steps) -> None:
    # Exact values (a 2^-20 grid below 2^33), so that the definition's deviations are exact.
    x = offset + np.array(steps) / 2**20
    expected = float(_deviations(x).std())
    assert pairwise_deviation_std(x) == pytest.approx(expected, rel=1e-12, abs=0)
    assert pairwise_deviation_std(x - offset) == pytest.approx(expected, rel=1e-12, abs=0)


@settings(max_examples=100, deadline=None)
@given(problem=problems(offsets=(1e6, -1e9, 2.0**32 + 0.5), unit=2.0**-10),
       paper=st.booleans(), relative=st.booleans())
# Hypothesis' shrunk failure of the raw prefix sums: two values 2^-20 apart near 2^32.
@example(problem=(np.array([[2.0**32 + 0.5], [2.0**32 + 0.5 - 2.0**-20]]),
                  [Criterion("min", 1.0, "vshape", 0.0, 2.0**-10)]), paper=False, relative=False)
def test_fast_path_equals_the_definition_far_from_zero(problem, paper, relative) -> None:
    # Large offsets, spreads and thresholds of a few 2^-10: what the uncentred sums lost.
    matrix, criteria = problem
    if paper or relative:  # thresholds from sigma: the paper's p = sigma, or multiples of it
        criteria = [replace(c, q=0.0, p=None) if paper
                    else replace(c, q=c.q / c.p, p=1.0, relative=True) for c in criteria]
    fast = flows(matrix, criteria, "fast")
    slow = flows(matrix, criteria, "pairwise")
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9, rtol=0)


PYMCDM_NAMES = {"usual": "usual", "vshape": "vshape", "linear": "vshape_2", "level": "level"}


@pytest.mark.filterwarnings("ignore::UserWarning")  # pymcdm warns about dominant rows
@settings(max_examples=60, deadline=None)
@given(problem=problems())
def test_same_net_flows_as_pymcdm(problem) -> None:
    from pymcdm.methods import PROMETHEE_II

    matrix, criteria = problem
    function = criteria[0].function
    criteria = [Criterion(c.target, c.weight, function, c.q, c.p, c.s) for c in criteria]
    method = PROMETHEE_II(PYMCDM_NAMES[function], p=[c.p for c in criteria],
                          q=[c.q for c in criteria])  # a new object per call
    types = np.array([1 if c.target == "max" else -1 for c in criteria])
    theirs = method(matrix, np.array([c.weight for c in criteria]), types)
    np.testing.assert_allclose(flows(matrix, criteria)[2], theirs, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(problem=problems(functions=(*FAST_FUNCTIONS, "gaussian")))
def test_same_net_flows_as_pyrepo_mcda(problem) -> None:
    from pyrepo_mcda.mcda_methods import PROMETHEE_II

    matrix, criteria = problem
    function = criteria[0].function
    # pyrepo-mcda's Gaussian uses s = (p + q) / 2.
    criteria = [Criterion(c.target, c.weight, function, c.q, c.p, (c.p + c.q) / 2)
                for c in criteria]
    method = PROMETHEE_II()
    functions = {"usual": method._usual_function, "vshape": method._vshape_function,
                 "linear": method._linear_function, "level": method._level_function,
                 "gaussian": method._gaussian_function}
    types = np.array([1 if c.target == "max" else -1 for c in criteria])
    theirs = method(matrix, np.array([c.weight for c in criteria]), types,
                    preference_functions=[functions[function]] * len(criteria),
                    p=np.array([c.p for c in criteria]), q=np.array([c.q for c in criteria]))
    np.testing.assert_allclose(flows(matrix, criteria)[2], theirs, atol=1e-9)


@pytest.mark.parametrize("criteria, words", [
    ([Criterion(weight=0.5), Criterion(weight=0.4)], "sum to 1"),
    ([Criterion(weight=1.5), Criterion(weight=-0.5)], ">= 0"),
    ([Criterion(function="cubic")], "unknown preference function"),  # type: ignore[arg-type]
    ([Criterion(function="level", q=3, p=1)], "q (3) > p (1)"),
    ([Criterion(target="up")], "target"),  # type: ignore[arg-type]
    ([], "at least one"),
])
def test_bad_criteria_are_one_line_errors(criteria, words) -> None:
    with pytest.raises(InputError, match=re.escape(words)) as caught:
        check_criteria(criteria)
    assert "\n" not in str(caught.value)


@settings(max_examples=100, deadline=None)
@given(problem=problems(functions=("vshape", "linear", "level")))
def test_the_papers_threshold_is_the_same_on_both_paths(problem) -> None:
    matrix, criteria = problem
    paper = [Criterion(c.target, c.weight, c.function, 0.0, None) for c in criteria]
    for a, b in zip(flows(matrix, paper, "fast"), flows(matrix, paper, "pairwise"),
                    strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9, rtol=0)
    explicit = [Criterion(c.target, c.weight, c.function, 0.0,
                          max(pairwise_deviation_std(matrix[:, k]), 1e-12))
                for k, c in enumerate(criteria)]
    if all(c.p > 1e-9 for c in explicit):
        np.testing.assert_allclose(flows(matrix, paper)[2], flows(matrix, explicit)[2],
                                   atol=1e-9)
