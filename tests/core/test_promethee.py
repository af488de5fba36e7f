"""PROMETHEE II: the fast path equals the definition; both equal pymcdm and pyrepo-mcda."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
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
def problems(draw: st.DrawFn, functions=FAST_FUNCTIONS):
    n = draw(st.integers(2, 40))
    m = draw(st.integers(1, 4))
    ties = draw(st.booleans())
    # Random values on a binary grid, so that x_a - x_b is exact: the fast path compares
    # x_b with x_a - p, the definition rounds x_a - x_b, and only exact numbers make the
    # two agree at a threshold (with 1e-44 below a threshold the fast path is the exact one).
    values = (st.integers(0, 4).map(float) if ties
              else st.integers(-100 * 1024, 100 * 1024).map(lambda v: v / 1024))
    matrix = np.array([[draw(values) for _ in range(m)] for _ in range(n)])
    raw = [draw(st.integers(1, 10)) for _ in range(m)]
    weights = [r / sum(raw) for r in raw]
    criteria = []
    for k in range(m):
        q = float(draw(st.integers(0, 3)))
        p = q + float(draw(st.integers(1, 3)))
        criteria.append(Criterion(draw(st.sampled_from(["min", "max"])), weights[k],
                                  draw(st.sampled_from(functions)), q, p, p / 2))
    return matrix, criteria


@settings(max_examples=300, deadline=None)
@given(problem=problems())
def test_fast_path_equals_the_pairwise_definition(problem) -> None:
    matrix, criteria = problem
    fast = flows(matrix, criteria, "fast")
    slow = flows(matrix, criteria, "pairwise")
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9, rtol=0)
    assert abs(fast[2].sum()) < 1e-9  # net flows sum to zero


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=2, max_size=60))
def test_deviation_std_equals_the_pairwise_one(values) -> None:
    x = np.array(values)
    d = np.abs(x[:, None] - x[None, :])[np.triu_indices(len(x), 1)]
    assert pairwise_deviation_std(x) == pytest.approx(float(d.std()), abs=1e-6, rel=1e-9)


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
