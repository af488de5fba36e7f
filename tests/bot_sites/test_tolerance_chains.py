"""Tolerance chains: no schedule the checker accepts beats a proven optimum, whatever n.

The instances (:func:`~hybridsched.bot_sites.generator.chain_instance`) put n
tasks of time e on one site whose tasks must run one after the other: one
BoT on one processor, a DAG chain of one-task BoTs (on one processor, or
alternating between two so that only precedence orders them), or two
processors under a storage limit that fits one task at a time. Their optimum
is ``n * e`` exactly. Hand schedules then spend every slack the old checker
granted (one block per task): each block stated to start ``TOL * max(1, end)``
before the previous one ends (an overlap on the processor, a start before the
DAG predecessor finishes, or two runs sharing the storage for that long), the
first one ``TOL`` before 0. The old checker's tolerance added up along the
chain: the issue's 10 blocks of 1.0 were accepted with makespan 9.99999995,
beating the certified 10 (and about ``n^2 / 2 * 1e-9`` for n blocks). The
family's rule (real times, :mod:`hybridsched.bot_sites.checker`) reads those
starts as snapped onto the time they must respect, or refuses them.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.bot_sites.checker import TOL, check, evaluate, real_times
from hybridsched.bot_sites.generator import chain_instance
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import retime
from hybridsched.bot_sites.solution import Solution
from hybridsched.experiments.certify import CERTIFIED, certify, same
from hybridsched.models.bot_sites.claims import CLAIM_RTOL
from hybridsched.registry import methods

#: As the hybrid-deadline property tests' ``FAST``.
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Chains whose n tasks must run one after the other (``chain_instance`` options).
KINDS = {
    "one BoT, one processor": {},
    "DAG chain, one processor": {"dag": True},
    "DAG chain, two processors": {"dag": True, "procs": 2},
    "storage limit, two processors": {"procs": 2, "storage": True},
    "DAG chain, two processors, storage limit": {"dag": True, "procs": 2, "storage": True},
}

#: Task times (decimals of at most 6 places: CP-SAT scales them exactly).
ETCS = ("1", "0.3", "0.001", "2.5", "0.333333", "1000", "7")

#: ``(overlap, first, drift)``: each block stated ``overlap * max(1, end)`` before the
#: previous end, the first at ``first``; ``drift``: that end is the previous block's stated
#: one (start + its time: the slacks add up, the old checker's largest allowance with
#: ``(TOL, -TOL)``), else the real one (``k * e``: each slack stays within the window).
SLACKS = [(overlap, first, drift) for drift in (True, False)
          for overlap, first in [(TOL, -TOL), (TOL, 0.0), (0.0, -TOL), (TOL / 2, -TOL / 2),
                                 (TOL, TOL), (-TOL, TOL)]]


def optimum(n: int, etc: str) -> float:
    """The exact optimum of a serial chain: ``n * e`` (``chain_instance``'s docstring)."""
    return float(n * Fraction(etc))


def rounding(n: int, best: float) -> float:
    """What binary64 may lose on ``n`` recomputed additions (the rule's only slack)."""
    return 4 * (n + 1) * 2.0**-53 * max(1.0, best)


def beats(value: float, best: float) -> bool:
    """Better than ``best`` by more than the claim rule's tolerance (CLAIM_RTOL, floor 1)."""
    return value < best - CLAIM_RTOL * max(1.0, best)


def cheating(instance: Instance, overlap: float, first: float, drift: bool = True
             ) -> Solution:
    """One block per task, each spending the slack of ``(overlap, first, drift)`` (SLACKS)."""
    n = instance.n_tasks
    e = float(instance.p[0, 0])
    serial_procs = int(instance.procs[0])
    start = np.empty(n)
    clock, real = first, 0.0
    for k in range(n):
        start[k] = clock
        real += e
        end = clock + e if drift else real
        clock = end - overlap * max(1.0, abs(end))
    bot = np.arange(n) if instance.n_bots == n and n > 1 else np.zeros(n, dtype=int)
    proc = np.arange(n) % serial_procs
    return Solution(bot, np.zeros(n, dtype=int), proc, np.ones(n, dtype=int), start)


def makespan(instance: Instance, solution: Solution) -> float:
    return evaluate(instance, solution).objective


@FAST
@given(n=st.integers(2, 1000), etc=st.sampled_from(ETCS), kind=st.sampled_from(sorted(KINDS)))
def test_no_accepted_schedule_beats_the_exact_optimum(n, etc, kind):
    instance = chain_instance(n, etc, **KINDS[kind])
    best = optimum(n, etc)
    honest = cheating(instance, 0.0, 0.0)
    assert check(instance, honest) == []
    assert abs(makespan(instance, honest) - best) <= rounding(n, best)
    accepted = 0
    for overlap, first, drift in SLACKS:
        hand = cheating(instance, overlap, first, drift)
        if not check(instance, hand):
            accepted += 1
            span = makespan(instance, hand)
            what = (n, etc, kind, overlap, first, drift, span, best)
            assert not beats(span, best), what
            assert span >= best - rounding(n, best), what
    assert accepted >= 1


def test_the_issue_s_schedule_is_refused():
    """One site, one processor, one BoT of 10 tasks of 1.0, certified at 10.

    Each block stated ``TOL * max(1, end)`` before the previous one's stated end: the
    old checker took the makespan as 9.99999995. Really each block starts where the
    previous one really ends, so the stated starts drift below the real ends by more
    than a window from the third block on: overlaps.
    """
    instance = chain_instance(10, "1")
    hand = cheating(instance, TOL, 0.0)
    assert float(hand.start[-1] + 1.0) < 10 - 4e-8      # the old checker's makespan
    problems = check(instance, hand)
    assert problems and all(p.startswith("overlap on site s processor 0") for p in problems)
    assert "starts at 1.999999997" in problems[0]


def test_slack_within_the_window_snaps_to_the_real_length():
    """The same blocks, each stated ``TOL * max(1, end)`` before the previous *real* end."""
    instance = chain_instance(10, "1")
    hand = cheating(instance, TOL, -TOL, drift=False)
    stated = float(hand.start[-1] + 1.0)
    assert stated == 10 - 9e-9
    assert check(instance, hand) == []
    assert makespan(instance, hand) == 10.0
    assert real_times(instance, hand).start.tolist() == [float(k) for k in range(10)]


@pytest.mark.parametrize("kind, fragment", [
    ("one BoT, one processor", "overlap on site s processor 0"),
    ("DAG chain, one processor", "overlap on site s processor 0"),
    ("DAG chain, two processors", "before its predecessor c"),
    ("storage limit, two processors", "peak storage use"),
])
def test_starts_beyond_the_window_are_violations(kind, fragment):
    instance = chain_instance(5, "1", **KINDS[kind])
    problems = check(instance, cheating(instance, 2 * TOL, 0.0))
    assert any(fragment in p for p in problems), problems
    problems = check(instance, cheating(instance, 0.0, -2 * TOL))
    assert any("starts at -2e-09 < 0" in p for p in problems), problems


def test_the_old_slack_is_refused_where_runs_would_share_a_limit():
    # Two processors, storage for one task at a time: a block stated TOL before the other
    # processor's block ends really runs with it (the old checker shortened runs by TOL).
    instance = chain_instance(3, "1", **KINDS["storage limit, two processors"])
    problems = check(instance, cheating(instance, TOL, 0.0))
    assert any("peak storage use is 2 times its limit" in p for p in problems), problems


def test_gaps_beyond_the_window_are_kept_and_within_it_snapped():
    instance = chain_instance(2, "1")             # the window around 1.0 is 1e-9
    for gap, kept in [(2e-9, True), (0.5, True), (1e-9, False), (5e-10, False),
                      (-5e-10, False), (-1e-9, False)]:
        hand = Solution([0, 0], [0, 0], [0, 0], [1, 1], [0.0, 1.0 + gap])
        assert check(instance, hand) == []
        assert makespan(instance, hand) == ((1.0 + gap) + 1.0 if kept else 2.0), gap
    problems = check(instance, Solution([0, 0], [0, 0], [0, 0], [1, 1], [0.0, 1.0 - 2e-9]))
    assert any("overlap" in p for p in problems), problems


def test_a_successor_ahead_of_its_predecessor_on_a_processor_is_refused():
    # b (after a in the DAG) runs first on the processor, a right after it: the block of a
    # waits for b, b waits for a. Read in run order, no real times exist.
    inst = Instance("loop", ("a", "b"), ("s",), [1, 1], [1], [0.0], [[1.0], [1e-12]],
                    edges=[[0, 1]])
    problems = check(inst, Solution([1, 0], [0, 0], [0, 0], [1, 1], [0.0, 5e-10]))
    assert any("runs after it on the same processor" in p for p in problems), problems
    # Stated at the same time, the predecessor runs first (topological rank): b is early.
    problems = check(inst, Solution([1, 0], [0, 0], [0, 0], [1, 1], [0.0, 0.0]))
    assert any("b starts at 0.0 before its predecessor a finishes at 1.0" in p
               for p in problems), problems


def test_retime_states_limit_delays_beyond_the_window():
    # On processor 1, c ends 1e-10 before a (processor 0) does; b, next on processor 1,
    # must wait for a (storage). Stated at a's end it would be read as starting at c's end,
    # 1e-10 inside a: retime delays it beyond the window instead.
    inst = Instance("w", ("a", "b", "c"), ("s",), [1, 1, 1], [2], [0.0],
                    [[1.0], [1.0], [1.0 - 1e-10]], storage=[1.0, 1.0, 1e-4],
                    storage_limit=[1.0005], hard_limits=True)
    solution = retime(inst, np.array([0, 2, 1]), np.array([0, 1, 1]), np.ones(3, int),
                      np.array([0.0, 0.0, 1.0]))
    assert check(inst, solution) == []
    assert real_times(inst, solution).start.tolist() == solution.start.tolist()
    assert (1.0 - 1e-10) + TOL < solution.start[2] < 1.0 + TOL


CERTIFIABLE = [kind for kind in KINDS if kind != "storage limit, two processors"]


@pytest.mark.parametrize("etc", ["1", "0.3"])
@pytest.mark.parametrize("kind", CERTIFIABLE)
@pytest.mark.parametrize("n", [2, 3, 10])
def test_certify_proves_the_closed_form_optimum_of_chains(n, kind, etc):
    # (One BoT on two processors under the storage limit is left out: HiGHS's fluid bound
    # allows the limit's LIMIT_TOL and stays 1.2e-9 relative below n * e, so only CP-SAT
    # proves it: "proven", not "certified".)
    pytest.importorskip("ortools")
    instance = chain_instance(n, etc, **KINDS[kind])
    best = optimum(n, etc)
    certificate = certify("bot-sites", instance, name=instance.name, time_limit=20)
    assert certificate.verdict == CERTIFIED, certificate.reason
    assert same(certificate.best_known, best)
    assert abs(certificate.best_known - best) <= rounding(n, best)
    for run in certificate.runs.values():
        assert check(instance, run.solution) == []
        assert not beats(run.objective, best)
    for overlap, first, drift in SLACKS:
        hand = cheating(instance, overlap, first, drift)
        if not check(instance, hand):
            span = makespan(instance, hand)
            assert not beats(span, certificate.best_known)
            assert span >= certificate.best_known - rounding(n, best)


HEURISTICS = sorted(name for name in methods("bot-sites") if name != "exact")


@pytest.mark.parametrize("method", HEURISTICS)
def test_no_heuristic_beats_the_optimum_on_chains(method):
    for kind, options in KINDS.items():
        for n in (2, 7, 40):
            instance = chain_instance(n, "0.3", **options)
            best = optimum(n, "0.3")
            result = run_method("bot-sites", method, instance)
            if options.get("storage") and not result.status.has_solution:
                continue                       # a greedy that ignores hard limits fails
            assert result.status.has_solution, (kind, n, result.message)
            assert check(instance, result.solution) == [], (kind, n)
            assert result.objective == makespan(instance, result.solution)
            assert not beats(result.objective, best), (kind, n)
            assert result.objective >= best - rounding(n, best), (kind, n)
