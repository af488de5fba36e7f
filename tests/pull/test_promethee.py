"""PROMETHEE II: the fast path equals the definition; both equal pymcdm and pyrepo-mcda.

The pairwise path is the reference. The fast path must give identical flows
for the counting functions (usual, ushape, level) and flows within 1e-12
for linear and vshape, with the same best choice (up to ties within that
tolerance), on any finite data: decimal grids whose deviations are not
exact, thresholds equal to exact deviations of the data (pairs sit on
them), offsets up to 10^12.

The ``@example`` cases are draws that once failed: issue 17 (sorted sums on
raw values lost the small results near a large offset; two values give one
deviation and a zero spread) and issue 18 (a deviation exactly on a
threshold in decimal data, a linear band one ulp wide).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hybridsched.errors import InputError
from hybridsched.heuristics.pull import promethee
from hybridsched.heuristics.pull.promethee import (
    FAST_FUNCTIONS,
    Criterion,
    check_criteria,
    criterion_sums,
    flows,
    pairwise_deviation_std,
    signed_deviation_std,
)

#: Functions whose sums are counts and halves: both paths give the same floats.
COUNTING = ("usual", "ushape", "level")
#: Agreement of the two paths' flows (which lie in [-1, 1]) for linear and vshape.
TOL = 1e-12


def _thresholds(draw: st.DrawFn, function: str, deviations: list[float], unit: float
                ) -> tuple[float, float | None]:
    """``(q, p)`` for ``function``: exact deviations of the data, or grid multiples."""
    def one() -> float:
        if deviations and draw(st.booleans()):
            return draw(st.sampled_from(deviations))
        return unit * draw(st.integers(0, 6))

    q, p = sorted((one(), one()))
    if function == "ushape":
        return q, q
    if function == "vshape":
        return 0.0, p if p > 0 else unit
    if function == "linear" and p == q:
        p = q + unit * draw(st.integers(1, 3))
    if function == "gaussian" and p == 0:  # s = p, or (p + q) / 2 in pyrepo-mcda
        p = unit
    return q, p


@st.composite
def problems(draw: st.DrawFn, functions=FAST_FUNCTIONS, offsets=(0.0,), unit=1.0,
             decimal: bool = False, max_rows: int = 40):
    """Matrices and criteria.

    Values are ``offset + unit * v``: with ``decimal``, ``v = k / 10`` rounded
    (deviations are not exact), otherwise on a binary grid (they are).
    Thresholds are exact deviations of the column or grid multiples.
    """
    n = draw(st.integers(2, max_rows))
    m = draw(st.integers(1, 3))
    ties = draw(st.booleans())
    offset = draw(st.sampled_from(offsets))
    step = unit / 10 if decimal else unit / 1024
    span = 4 if ties else 1000
    # Tenths as a float division (1.1 is not 11 x 0.1): the data a user would type.
    columns = [offset + np.array([draw(st.integers(-span, span)) for _ in range(n)])
               * unit / (10 if decimal else 1024) for _ in range(m)]
    matrix = np.column_stack(columns)
    raw = [draw(st.integers(1, 10)) for _ in range(m)]
    weights = [r / sum(raw) for r in raw]
    criteria = []
    for k in range(m):
        function = draw(st.sampled_from(functions))
        x = matrix[:, k]
        deviations = sorted({float(a - b) for a in x for b in x if a > b})
        q, p = _thresholds(draw, function, deviations, step)
        criteria.append(Criterion(draw(st.sampled_from(["min", "max"])), weights[k],
                                  function, q, p, p if p else step))
    return matrix, criteria


def _assert_paths_agree(matrix: np.ndarray, criteria: list[Criterion]) -> None:
    """Same flows (identical for counting functions) and the same best choice."""
    fast = flows(matrix, criteria, "fast")
    slow = flows(matrix, criteria, "pairwise")
    if all(c.function in COUNTING for c in criteria):
        for a, b in zip(fast, slow, strict=True):
            np.testing.assert_array_equal(a, b)
        assert np.argmax(fast[2]) == np.argmax(slow[2])
    else:
        for a, b in zip(fast, slow, strict=True):
            np.testing.assert_allclose(a, b, atol=TOL, rtol=0)
        # The fast path's best row is a best row of the reference, up to the tolerance.
        assert slow[2][np.argmax(fast[2])] >= slow[2].max() - 2 * TOL
    assert abs(fast[2].sum()) < 1e-9  # net flows sum to zero


def _column(offset: float, steps: tuple[int, ...], step: float) -> np.ndarray:
    """One column of values ``offset + k * step``."""
    return np.array([[offset + k * step] for k in steps])


#: Values near 10^6 and 10^9, 10^-3 apart (rounded: not on a binary grid), and near-ties
#: (equal values, one ulp apart, 10^-9 apart) near 10^6. On raw values the fast path's
#: flows were off by 1.5e-8 to 0.04 here, and sigma by 2e-6 (relative) near 10^6.
NEAR_1E6 = _column(1e6, (0, 1, 3, 4, 7, 2, 5), 1e-3)
NEAR_1E9 = _column(1e9, (0, 1, 3, 4, 7, 2, 5), 1e-3)
NEAR_TIES = np.array([[1e6], [1e6], [np.nextafter(1e6, 2e6)], [1e6 + 1e-9], [1e6 + 2e-9]])
#: Issue 18: tenths whose deviation 0.1 is, as floats, above or below 0.1 or on another one.
TENTHS = np.array([[1.1], [1.0], [0.4], [0.3], [1.3], [-1.0], [0.2]])
ONE_ULP_ABOVE = float(np.float64(0.4) - np.float64(0.3))  # 0.10000000000000003


@settings(max_examples=300, deadline=None)
@given(problem=problems())
@example(problem=(NEAR_1E6, [Criterion("max", 1.0, "linear", 1e-3, 4e-3)]))
@example(problem=(NEAR_1E6, [Criterion("min", 1.0, "vshape", 0.0, 2.5e-3)]))
@example(problem=(NEAR_1E6, [Criterion("max", 1.0, "linear", 0.0, None)]))
@example(problem=(NEAR_1E9, [Criterion("max", 1.0, "linear", 0.2, 1.0, relative=True)]))
@example(problem=(NEAR_TIES, [Criterion("max", 1.0, "linear", 0.0, None)]))
@example(problem=(NEAR_TIES, [Criterion("min", 1.0, "level", 0.5, 1.0, relative=True)]))
def test_fast_path_equals_the_pairwise_definition(problem) -> None:
    _assert_paths_agree(*problem)


@settings(max_examples=300, deadline=None)
@given(problem=problems(decimal=True))
# Issue 18: U-shape, level and linear at q = 0.1 on tenths (flows were off by up to 0.5).
@example(problem=(TENTHS[:2], [Criterion("max", 1.0, "ushape", 0.1, 0.1)]))
@example(problem=(TENTHS, [Criterion("min", 1.0, "level", 0.1, 0.2)]))
@example(problem=(TENTHS, [Criterion("max", 1.0, "level", 0.1, ONE_ULP_ABOVE)]))
@example(problem=(TENTHS, [Criterion("max", 1.0, "linear", 0.1, 0.30000000000000004)]))
# A linear band one ulp wide: nearly a step, summed pair by pair.
@example(problem=(TENTHS[2:6], [Criterion("max", 1.0, "linear", 0.1, ONE_ULP_ABOVE)]))
def test_fast_path_equals_the_definition_on_decimal_data(problem) -> None:
    _assert_paths_agree(*problem)


@settings(max_examples=150, deadline=None)
@given(problem=problems(offsets=(1e6, -1e9, 1e12, -1e12), decimal=True),
       mode=st.sampled_from(["explicit", "paper", "relative"]))
def test_fast_path_equals_the_definition_at_large_offsets(problem, mode) -> None:
    # Tenths near 10^12 are multiples of 2^-13, their deviations exact: the prefix sums
    # were what lost them (5.4e-4 in the flows), and x_a - p rounded at 10^12 x 2^-53.
    matrix, criteria = problem
    if mode == "paper":  # p = sigma (never below q)
        criteria = [replace(c, p=None) for c in criteria]
    elif mode == "relative":
        criteria = [replace(c, q=1.0 if c.function == "ushape" else 0.25, p=1.0, s=1.0,
                            relative=True) for c in criteria]
    _assert_paths_agree(matrix, criteria)


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
                    else replace(c, q=c.q / c.p if c.p else 0.0, p=1.0, relative=True)
                    for c in criteria]
    _assert_paths_agree(matrix, criteria)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 6), min_size=2, max_size=60),
       band=st.sampled_from([(0.1, ONE_ULP_ABOVE), (0.2, 0.20000000000000004)]),
       chunk=st.integers(1, 50))
def test_a_narrow_band_in_small_chunks(values, band, chunk) -> None:
    # Many equal deviations in a band one ulp wide, summed in chunks of a few pairs.
    matrix = np.array(values, dtype=float)[:, None] / 10
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(promethee, "BAND_CHUNK", chunk)
        _assert_paths_agree(matrix, [Criterion("max", 1.0, "linear", *band)])


def _exact_flows(x: list[float], c: Criterion) -> list[Fraction]:
    """Net flows of one criterion in rational arithmetic, on exact deviations."""
    def pref(d: Fraction) -> Fraction:
        q, p = Fraction(c.q), Fraction(c.p)
        if c.function == "vshape":
            q = Fraction(0)
        return Fraction(0) if d <= q else Fraction(1) if d > p else (d - q) / (p - q)

    values = [Fraction(v) if c.target == "max" else -Fraction(v) for v in x]
    n = len(values)
    return [sum((pref(a - b) - pref(b - a) for b in values), Fraction(0)) / (n - 1)
            for a in values]


@pytest.mark.parametrize("criterion", [Criterion("max", 1.0, "linear", 0.3, 2.5),
                                       Criterion("min", 1.0, "vshape", 0.0, 1.7),
                                       Criterion("max", 1.0, "linear", 0.1, 0.8)])
def test_flows_at_an_offset_of_1e12_are_the_exact_ones(criterion) -> None:
    # Tenths near 10^12: each deviation is exact (Sterbenz), so the definition in rational
    # arithmetic is the truth. Before issue 18 the fast path's flows were 5.4e-4 off here.
    x = [1e12 + k / 10 for k in (0, 3, 7, 12, 1, 25, 33, 4, 18, 9, 30, 21)]
    exact = _exact_flows(x, criterion)
    for method in ("fast", "pairwise"):
        net = flows(np.array(x)[:, None], [criterion], method)[2]
        assert max(abs(float(Fraction(v) - e)) for v, e in zip(net, exact, strict=True)) < TOL


@pytest.mark.parametrize("function, q, p, expected", [
    ("ushape", 0.1, 0.1, [1.0, -1.0]),  # fl(1.1 - 1.0) = 0.10000000000000009 > 0.1
    ("level", 0.1, 0.2, [0.5, -0.5]),
    ("linear", 0.1, 0.2, [8.326672684688674e-16, -8.326672684688674e-16]),
    ("ushape", 1.1 - 1.0, 1.1 - 1.0, [0.0, 0.0]),  # the deviation itself: indifference
    ("level", 0.0, 1.1 - 1.0, [0.5, -0.5]),  # on p: the partial range (q, p]
])
def test_a_deviation_on_a_threshold_follows_the_floats(function, q, p, expected) -> None:
    matrix = np.array([[1.1], [1.0]])
    for method in ("fast", "pairwise"):
        net = flows(matrix, [Criterion("max", 1.0, function, q, p)], method)[2]
        np.testing.assert_allclose(net, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("function", ["linear", "level"])
def test_an_unset_p_is_never_below_q(function) -> None:
    # sigma of 0..3 is 0.745 < q = 2: p = q, the U-shape at q (d = 3 is the only preference).
    matrix = np.arange(4.0)[:, None]
    ushape = flows(matrix, [Criterion("max", 1.0, "ushape", 2.0)], "pairwise")[2]
    np.testing.assert_allclose(ushape, [-1 / 3, 0, 0, 1 / 3])
    for method in ("fast", "pairwise"):
        net = flows(matrix, [Criterion("max", 1.0, function, 2.0, None)], method)[2]
        np.testing.assert_array_equal(net, ushape)
    # Below sigma, q keeps its role: p = sigma.
    sigma = pairwise_deviation_std(matrix[:, 0])
    explicit = flows(matrix, [Criterion("max", 1.0, function, 0.5, sigma)])[2]
    np.testing.assert_allclose(flows(matrix, [Criterion("max", 1.0, function, 0.5, None)])[2],
                               explicit, atol=1e-15)


@pytest.mark.parametrize("p", [None, 1.5])
def test_vshape_has_no_q(p) -> None:
    matrix = np.arange(4.0)[:, None]
    for method in ("fast", "pairwise"):
        plain = flows(matrix, [Criterion("max", 1.0, "vshape", 0.0, p)], method)[2]
        with_q = flows(matrix, [Criterion("max", 1.0, "vshape", 5.0, p)], method)[2]
        np.testing.assert_array_equal(plain, with_q)
        assert plain[-1] > 0.5  # q = 5 would have made every preference small or nil


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("call, words", [
    (lambda: flows(np.array([[1.0], [NAN], [2.0]]), [Criterion()]),
     "matrix column 0: value nan in row 1 is not a finite number"),
    (lambda: flows(np.array([[1.0, INF], [2.0, 0.0]]), [Criterion(weight=0.5)] * 2, "pairwise"),
     "matrix column 1: value inf in row 0"),
    (lambda: flows(np.array([[1.0], [-INF]]), [Criterion("min", 1.0, "linear", 0.0, 1.0)]),
     "value -inf in row 1"),
    (lambda: flows(np.array([[1e308], [-1e308]]), [Criterion()]), "spread overflows"),
    (lambda: flows(np.ones((3, 2)), [Criterion()]), "expected 1 column(s)"),
    (lambda: criterion_sums(np.array([NAN, 1.0]), Criterion()), "values: value nan in row 0"),
    (lambda: pairwise_deviation_std(np.array([1.0, 2.0, NAN])), "value nan in row 2"),
    (lambda: flows(np.ones((3, 1)), [Criterion("max", 1.0, "linear", NAN, 1.0)]),
     "threshold q must be a finite number >= 0, got nan"),
    (lambda: flows(np.ones((3, 1)), [Criterion("max", 1.0, "level", 0.0, INF)], "fast"),
     "threshold p must be a finite number >= 0, got inf"),
    (lambda: flows(np.ones((3, 1)), [Criterion("max", 1.0, "gaussian", s=NAN)]),
     "threshold s must be a finite number >= 0, got nan"),
    (lambda: criterion_sums(np.ones(3), Criterion("max", 1.0, "vshape", 0.0, -1.0)),
     "threshold p must be a finite number >= 0, got -1.0"),
    (lambda: flows(np.ones((3, 1)), [Criterion(weight=NAN)]), "weights must be finite"),
])
def test_non_finite_input_is_a_one_line_error(call, words) -> None:
    with pytest.raises(InputError, match=re.escape(words)) as caught:
        call()
    assert "\n" not in str(caught.value)


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


@settings(max_examples=40, deadline=None)
@given(offset=st.sampled_from([1e6, -1e9, 1e12]),
       steps=st.lists(st.integers(-500, 500), min_size=3, max_size=25))
def test_deviation_std_of_tenths_at_1e12_is_the_exact_one(offset, steps) -> None:
    # Tenths near the offset (rounded there): deviations exact, so rational arithmetic
    # on them is the truth; the raw sums were 5.4e-6 off (relative) at 10^12.
    x = offset + np.array(steps) / 10
    d = [Fraction(a) - Fraction(b) for i, a in enumerate(x) for b in x[i + 1:]]
    d = [abs(v) for v in d]
    mean = sum(d, Fraction(0)) / len(d)
    variance = sum(((v - mean) ** 2 for v in d), Fraction(0)) / len(d)
    assert pairwise_deviation_std(x) == pytest.approx(float(variance) ** 0.5, rel=1e-12, abs=0)


PYMCDM_NAMES = {"usual": "usual", "ushape": "ushape", "vshape": "vshape",
                "linear": "vshape_2", "level": "level"}


@pytest.mark.filterwarnings("ignore::UserWarning")  # pymcdm warns about dominant rows
@settings(max_examples=80, deadline=None)
@given(problem=st.one_of(problems(), problems(decimal=True),
                         problems(offsets=(1e6, 1e12), decimal=True)))
def test_same_net_flows_as_pymcdm(problem) -> None:
    # pymcdm computes d as the same float difference and has the same rule at a
    # threshold (d <= q indifferent, d > p full): thresholds on deviations agree too.
    from pymcdm.methods import PROMETHEE_II

    matrix, criteria = problem
    function = criteria[0].function  # pymcdm: one function for every criterion
    criteria = [replace(c, function=function, q=q, p=p)
                for c, (q, p) in zip(criteria, _same_function(criteria, function), strict=True)]
    method = PROMETHEE_II(PYMCDM_NAMES[function], p=[c.p for c in criteria],
                          q=[c.q for c in criteria])  # a new object per call
    types = np.array([1 if c.target == "max" else -1 for c in criteria])
    theirs = method(matrix, np.array([c.weight for c in criteria]), types)
    np.testing.assert_allclose(flows(matrix, criteria)[2], theirs, atol=TOL, rtol=0)


def _same_function(criteria: list[Criterion], function: str) -> list[tuple[float, float]]:
    """Each criterion's ``(q, p)`` made valid for ``function``."""
    out = []
    for c in criteria:
        q, p = c.q, c.p if c.p else 1.0
        if function == "ushape":
            p = q
        elif function == "vshape":
            q = 0.0
        elif function == "linear" and p <= q:
            q, p = min(q, p), max(q, p) + 1.0
        elif function == "level":
            q, p = min(q, p), max(q, p)
        out.append((q, p))
    return out


@settings(max_examples=30, deadline=None)
@given(problem=st.one_of(
    problems(functions=(*FAST_FUNCTIONS, "gaussian"), max_rows=12),
    problems(functions=(*FAST_FUNCTIONS, "gaussian"), decimal=True, max_rows=12),
    problems(functions=(*FAST_FUNCTIONS, "gaussian"), offsets=(1e12,), decimal=True,
             max_rows=12)))
def test_same_net_flows_as_pyrepo_mcda(problem) -> None:
    from pyrepo_mcda.mcda_methods import PROMETHEE_II

    matrix, criteria = problem
    method = PROMETHEE_II()
    functions = {"usual": method._usual_function, "ushape": method._ushape_function,
                 "vshape": method._vshape_function, "linear": method._linear_function,
                 "level": method._level_function, "gaussian": method._gaussian_function}
    # pyrepo-mcda's Gaussian uses s = (p + q) / 2.
    criteria = [replace(c, s=(c.p + c.q) / 2) if c.function == "gaussian" else c
                for c in criteria]
    types = np.array([1 if c.target == "max" else -1 for c in criteria])
    theirs = method(matrix, np.array([c.weight for c in criteria]), types,
                    preference_functions=[functions[c.function] for c in criteria],
                    p=np.array([c.p for c in criteria]), q=np.array([c.q for c in criteria]))
    np.testing.assert_allclose(flows(matrix, criteria)[2], theirs, atol=TOL, rtol=0)


@pytest.mark.parametrize("criteria, words", [
    ([Criterion(weight=0.5), Criterion(weight=0.4)], "sum to 1"),
    ([Criterion(weight=1.5), Criterion(weight=-0.5)], ">= 0"),
    ([Criterion(function="cubic")], "unknown preference function"),  # type: ignore[arg-type]
    ([Criterion(function="level", q=3, p=1)], "q (3) > p (1)"),
    ([Criterion(function="linear", q=1, p=1)], "linear needs q < p"),
    ([Criterion(function="vshape", p=0.0)], "vshape needs p > 0"),
    ([Criterion(function="gaussian", s=0.0)], "gaussian needs s > 0"),
    ([Criterion(q=True)], "threshold q must be a finite number"),  # type: ignore[arg-type]
    ([Criterion(target="up")], "target"),  # type: ignore[arg-type]
    ([], "at least one"),
])
def test_bad_criteria_are_one_line_errors(criteria, words) -> None:
    with pytest.raises(InputError, match=re.escape(words)) as caught:
        check_criteria(criteria)
    assert "\n" not in str(caught.value)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=2, max_size=60),
       offset=st.sampled_from([0.0, 1e6, -1e9]))
def test_signed_deviation_std_is_the_definition_over_ordered_pairs(values, offset) -> None:
    x = np.array(values) + offset
    ordered = (x[:, None] - x[None, :])[~np.eye(len(x), dtype=bool)]
    spread = float(np.array(values).std()) * math.sqrt(2 * len(x) / (len(x) - 1))
    assert signed_deviation_std(x) == pytest.approx(float(ordered.std()), abs=1e-6, rel=1e-9)
    assert signed_deviation_std(x) == pytest.approx(spread, abs=1e-6, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(problem=problems(functions=("vshape", "linear", "level")))
def test_both_readings_of_sigma_are_the_same_on_both_paths(problem) -> None:
    matrix, criteria = problem
    for spread in ("signed-pairs", "absolute-pairs"):
        paper = [Criterion(c.target, c.weight, c.function, 0.0, None, spread=spread)
                 for c in criteria]
        _assert_paths_agree(matrix, paper)
        sigma = signed_deviation_std if spread == "signed-pairs" else pairwise_deviation_std
        explicit = [Criterion(c.target, c.weight, c.function, 0.0,
                              max(sigma(matrix[:, k]), 1e-12)) for k, c in enumerate(criteria)]
        if all(c.p > 1e-9 for c in explicit):
            np.testing.assert_allclose(flows(matrix, paper)[2], flows(matrix, explicit)[2],
                                       atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(problem=problems(functions=("vshape", "linear", "level")))
def test_the_papers_threshold_is_the_same_on_both_paths(problem) -> None:
    matrix, criteria = problem
    paper = [Criterion(c.target, c.weight, c.function, 0.0, None) for c in criteria]
    _assert_paths_agree(matrix, paper)
    explicit = [Criterion(c.target, c.weight, c.function, 0.0,
                          max(pairwise_deviation_std(matrix[:, k]), 1e-12))
                for k, c in enumerate(criteria)]
    if all(c.p > 1e-9 for c in explicit):
        np.testing.assert_allclose(flows(matrix, paper)[2], flows(matrix, explicit)[2],
                                   atol=1e-9)
