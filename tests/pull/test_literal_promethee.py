"""The pull decision written straight from Moca et al. (2016), against the scheduler.

The literal side is deliberately naive: Python loops over pairs, the paper's
own formulas, no sorting, no shared rankings. For the host that pulls, it

1. builds the evaluation matrix A (section 3.2): ECT = NOI / CPU of the
   pulling host, price = ECT x its price per second, EEI by Algorithm 1 and
   Table 1 (Upsilon = NOI / NOI_max, banded with the host's reputation);
2. for each criterion, takes sigma, "the standard deviation of the
   differences d for all pairs of tasks" (section 6.3.2), under each reading
   (``signed-pairs``: every ordered pair's ``a_1 - a_2``; ``absolute-pairs``:
   every unordered pair's ``|a_1 - a_2|``), and the preference matrix G of
   the paper's Linear, Level or Gaussian function with thresholds in sigmas
   or, under ``thresholds = "absolute"``, in the criterion's own units (ECT
   seconds, price, EEI), one value per criterion or one for all, drawn from
   the criteria's ranges or equal to a deviation of the data (section 3.1:
   a deviation against the target gives 0);
3. sums G by line (Phi+) and by column (Phi-), and adds up the weighted net
   flows (section 3.1, Figure 2); the task "with the highest score is
   scheduled to the pulling host".

The scheduler must choose a task of the highest literal score (ties: any),
and its net flows must be the literal ones divided by ``n - 1``, under
every reading. The replicas' priority and FCFS have crafted tests at the
end; every schedule a test simulates passes the checker.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.errors import InputError
from hybridsched.heuristics.pull.policies import PrometheeScheduler, strategy
from hybridsched.heuristics.pull.simulation import candidates_of
from hybridsched.pull import check
from hybridsched.pull.solution import CORRECT
from hybridsched.registry import check_options, run_method
from tests.pull.helpers import tiny

#: Table 1: rows are reputation bands, columns utility bands.
TABLE_1 = [[2.0, 4.0, 8.0], [0.5, 2.0, 4.0], [0.25, 0.5, 1.0]]
#: Default thresholds (q, p) in sigmas, as the scheduler documents them.
DEFAULT_QP = {"linear": (0.0, 1.0), "level": (0.5, 1.0), "gaussian": (0.0, 1.0)}


def table_1_band(x: float) -> int:
    """(0, 0.5] -> 0, (0.5, 0.7] -> 1, (0.7, 1] -> 2 (a reputation of 0 joins the first)."""
    if x <= 0.5:
        return 0
    return 1 if x <= 0.7 else 2


def literal_matrix(noi: list[float], cpu: float, price: float, noi_max: float,
                   reputation: float) -> list[list[float]]:
    """Rows of A: ``[ECT, price, EEI]`` of each task for this host (section 3.2, Alg. 1)."""
    rows = []
    for size in noi:
        ect = size / cpu
        utility = size / noi_max
        eei = utility * TABLE_1[table_1_band(reputation)][table_1_band(utility)]
        rows.append([ect, ect * price, eei])
    return rows


def literal_sigma(values: list[float], spread: str) -> float:
    """The standard deviation of the pairs' differences, by enumerating the pairs."""
    n = len(values)
    if spread == "signed-pairs":
        ds = [values[a] - values[b] for a in range(n) for b in range(n) if a != b]
    else:
        ds = [abs(values[a] - values[b]) for a in range(n) for b in range(a + 1, n)]
    if not ds:
        return 0.0
    mean = sum(ds) / len(ds)
    return math.sqrt(sum((d - mean) ** 2 for d in ds) / len(ds))


def literal_preference(d: float, function: str, q: float, p: float) -> float:
    """The paper's preference functions (section 6.3.2), ``q`` and ``p`` absolute.

    A deviation against the target (``d < 0``) gives 0 (section 3.1). Linear
    with ``q = 0`` is the paper's ``d / sigma`` up to ``sigma = p``; with ``q >
    0`` Brans' linear with indifference. The Gaussian's ``2 sigma^2`` is
    ``2 p^2``. Level is the paper's, equalities in the band above.
    """
    if d < 0:
        return 0.0
    if function == "level":
        if d < q:
            return 0.0
        return 0.5 if d < p else 1.0
    if d == 0:
        return 0.0
    if function == "gaussian":
        return 1.0 - math.exp(-d * d / (2 * p * p)) if p > 0 else 1.0
    if d <= q:
        return 0.0
    return (d - q) / (p - q) if d <= p else 1.0


def literal_scores(noi: list[float], cpu: float, price: float, noi_max: float,
                   reputation: float, targets: tuple[str, ...], weights: tuple[float, ...],
                   function: str, q_given: float | Sequence[float],
                   p_given: float | Sequence[float], spread: str, absolute: bool = False
                   ) -> list[float]:
    """The aggregated flow of each task (section 3.1), unnormalised.

    ``q_given`` and ``p_given``: one value for every criterion or one per
    criterion, in sigmas, or in the criterion's units with ``absolute``.
    """
    a = literal_matrix(noi, cpu, price, noi_max, reputation)
    n = len(noi)
    score = [0.0] * n
    for c, (target, weight) in enumerate(zip(targets, weights, strict=True)):
        column = [row[c] for row in a]
        q_c = q_given[c] if isinstance(q_given, Sequence) else q_given
        p_c = p_given[c] if isinstance(p_given, Sequence) else p_given
        sigma = 1.0 if absolute else literal_sigma(column, spread)
        q, p = q_c * sigma, p_c * sigma
        g = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i != j:
                    d = column[i] - column[j]
                    g[i][j] = literal_preference(d if target == "max" else -d, function, q, p)
        for i in range(n):
            plus = sum(g[i][j] for j in range(n))
            minus = sum(g[j][i] for j in range(n))
            score[i] += weight * (plus - minus)
    return score


WEIGHTS = st.sampled_from([(1 / 3, 1 / 3, 1 / 3), (0.6, 0.1, 0.3), (0.2, 0.4, 0.4),
                           (0.5, 0.0, 0.5), (0.1, 0.7, 0.2)])
TARGETS = st.tuples(*[st.sampled_from(["min", "max"])] * 3)


#: Absolute preference thresholds p drawn per criterion, from each one's range on the
#: generator's hosts (ECT 2,500 to 200,000 s, price 0 to 250, EEI 0.025 to 8).
ABSOLUTE_P = ([500.0, 5000.0, 20000.0, 80000.0], [0.5, 5.0, 50.0], [0.01, 0.1, 0.5, 2.0])


@st.composite
def absolute_pair(draw, column: list[float], scale: list[float], function: str):
    """``(q, p)`` of one criterion in its units: from its range, or deviations of the data.

    A threshold equal to a deviation puts pairs exactly on it (the paper's closed
    Level: ``d >= q``); level may have ``q = p``, linear needs ``q < p``.
    """
    deviations = sorted({abs(a - b) for a in column for b in column} - {0.0})
    if deviations and draw(st.booleans()):
        p = draw(st.sampled_from(deviations))
        below = [0.0, *(d for d in deviations if d < p)]
        return draw(st.sampled_from(below + ([p] if function == "level" else []))), p
    p = draw(st.sampled_from(scale))
    fractions = [0.0, 0.25, 0.5] + ([1.0] if function == "level" else [])
    return p * draw(st.sampled_from(fractions)), p


@st.composite
def decisions(draw):
    """A pulling host, the tasks ranked, and a strategy under some reading."""
    n = draw(st.integers(1, 9))
    noi = [float(draw(st.integers(10, 100))) * 1e5 for _ in range(n)]
    function = draw(st.sampled_from(["linear", "level", "gaussian"]))
    case = dict(noi=noi, cpu=float(draw(st.sampled_from([50, 150, 250, 400]))),
                price=draw(st.sampled_from([0.0, 0.001, 0.01])),
                workload_max=max(noi) * draw(st.sampled_from([1.0, 1.0, 1.6, 3.0])),
                reputation=draw(st.sampled_from([0.0, 0.3, 0.5, 0.6, 0.7, 0.9, 1.0])),
                targets=draw(TARGETS), weights=draw(WEIGHTS), function=function,
                spread=draw(st.sampled_from(["signed-pairs", "absolute-pairs"])),
                noi_max=draw(st.sampled_from(["workload", "ranked"])),
                thresholds=draw(st.sampled_from(["sigma", "absolute"])))
    if case["thresholds"] == "absolute":
        top = max(noi) if case["noi_max"] == "ranked" else case["workload_max"]
        a = literal_matrix(noi, case["cpu"], case["price"], top, case["reputation"])
        pairs = [draw(absolute_pair([row[c] for row in a], ABSOLUTE_P[c], function))
                 for c in range(3)]
        case["q"], case["p"] = (tuple(x) for x in zip(*pairs, strict=True))
        return case
    q, p = DEFAULT_QP[function]
    if draw(st.booleans()):
        p = draw(st.sampled_from([0.5, 1.0, 2.0]))
        q = draw(st.sampled_from([0.0, 0.25])) if function != "gaussian" else 0.0
    if draw(st.booleans()):  # sigmas per criterion: ECT and price ranked apart
        p = (p, *draw(st.tuples(*[st.sampled_from([0.5, 1.0, 2.0])] * 2)))
        q = (q, q, q)
    case["q"], case["p"] = q, p
    return case


@settings(max_examples=300, deadline=None)
@given(decisions())
def test_the_scheduler_makes_the_literal_decision(case) -> None:
    chosen = strategy(preference=case["function"], weights=case["weights"],
                      targets=case["targets"], q=case["q"], p=case["p"],
                      spread=case["spread"], noi_max=case["noi_max"],
                      thresholds=case["thresholds"])
    scheduler = PrometheeScheduler(chosen, np.random.default_rng(0))
    noi = np.array(case["noi"])
    n = len(noi)
    pick = scheduler(np.arange(n), noi, case["cpu"], case["price"], case["workload_max"],
                     case["reputation"])
    noi_max = max(case["noi"]) if case["noi_max"] == "ranked" else case["workload_max"]
    score = literal_scores(case["noi"], case["cpu"], case["price"], noi_max,
                           case["reputation"], case["targets"], case["weights"],
                           case["function"], case["q"], case["p"], case["spread"],
                           absolute=case["thresholds"] == "absolute")
    assert score[pick] >= max(score) - 1e-9  # a best task (ties: any of them)
    if n > 1:
        net = scheduler.net_flows(noi, case["cpu"], case["price"], noi_max,
                                  case["reputation"])
        np.testing.assert_allclose(net * (n - 1), score, atol=1e-9)
        # The shared ECT/price ranking (module doc) equals the full matrix, whatever the
        # reading: an identity of relative thresholds, not a reading (absolute ones, or
        # sigmas per criterion, rank the two columns apart: the same again).
        full = scheduler.rank(scheduler.matrix(noi, case["cpu"], case["price"], noi_max,
                                               case["reputation"]))
        np.testing.assert_allclose(net, full, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(10, 100), min_size=2, max_size=30),
       st.sampled_from([0.1, 0.3, 0.5]), st.integers(0, 9))
def test_the_window_is_the_literal_decision_on_a_random_fraction(sizes, window, seed) -> None:
    """Section 6.3.4: "a window of the BoT, mu, defined as a fraction of tasks, randomly
    chosen from the BoT"; the decision on it is the literal one."""
    noi = np.array(sizes, dtype=float) * 1e5
    candidates = np.arange(len(noi))
    chosen = strategy(targets="max,max,min", weights="0.4,0.3,0.3", window=window)
    pick = PrometheeScheduler(chosen, np.random.default_rng(seed))(
        candidates, noi, 100.0, 0.005, 1e7, 0.6)
    size = max(1, math.ceil(window * len(noi)))
    drawn = sorted(np.random.default_rng(seed).choice(candidates, size, replace=False))
    assert pick in drawn
    score = literal_scores([noi[u] for u in drawn], 100.0, 0.005, 1e7, 0.6,
                           ("max", "max", "min"), (0.4, 0.3, 0.3), "linear", 0.0, 1.0,
                           "signed-pairs")
    assert score[drawn.index(pick)] >= max(score) - 1e-9


def test_two_tasks_sit_on_the_level_threshold_and_the_paper_closes_it() -> None:
    """With two tasks, the signed sigma is their distance, so d = p = sigma: the paper's
    Level gives 1 (d >= p), Brans' 1/2. EEI's half preference for the small task then
    outweighs the large task's ECT preference only under Brans' boundaries."""
    noi = [2e6, 3e6]
    args = (100.0, 0.0, 1e7, 1.0, ("max", "max", "min"), (0.4, 0.0, 0.6), "level", 0.5,
            1.0, "signed-pairs")
    score = literal_scores(noi, *args)
    assert score == pytest.approx([0.2, -0.2])  # EEI's full preference (0.6) beats ECT's 0.4
    scheduler = PrometheeScheduler(strategy(preference="level", targets="max,max,min",
                                            weights="0.4,0,0.6"), np.random.default_rng(0))
    net = scheduler.net_flows(np.array(noi), 100.0, 0.0, 1e7, 1.0)
    np.testing.assert_allclose(net, score, atol=1e-12)


def test_noi_max_changes_the_bands_and_the_decision() -> None:
    """Algorithm 1's NOI_max: the workload's largest unit puts every task of this queue in
    Table 1's first band (EEI proportional to NOI, cancelling ECT); the largest ranked task
    spreads them over three bands, and the scheduler picks another task."""
    noi = np.array([5e5, 2.5e6, 3.5e6, 4e6])
    picks = {}
    for reading in ("workload", "ranked"):
        scheduler = PrometheeScheduler(strategy(targets="max,max,min", weights="0.5,0,0.5",
                                                noi_max=reading), np.random.default_rng(0))
        picks[reading] = scheduler(np.arange(4), noi, 100.0, 0.0, 1e7, 0.3)
        top = noi.max() if reading == "ranked" else 1e7
        score = literal_scores(noi.tolist(), 100.0, 0.0, top, 0.3, ("max", "max", "min"),
                               (0.5, 0.0, 0.5), "linear", 0.0, 1.0, "signed-pairs")
        assert score[picks[reading]] >= max(score) - 1e-9
    assert picks == {"workload": 0, "ranked": 1}


def test_replica_tiers_under_each_reading() -> None:
    """Section 2.2: the replica r + 1 "will have a lower priority for scheduling whilst the
    scheduler still waits to receive a result for the t_{s,r} task"."""
    queued = np.array([True, True, True, False, True])
    inflight = np.array([1, 2, 1, 0, 3])
    assert candidates_of(queued, inflight, "tiered").tolist() == [0, 2]
    assert candidates_of(queued, inflight, "two-level").tolist() == [0, 1, 2, 4]
    assert candidates_of(queued, inflight, "pooled").tolist() == [0, 1, 2, 4]
    inflight[1] = 0
    for reading in ("tiered", "two-level"):
        assert candidates_of(queued, inflight, reading).tolist() == [1]
    assert candidates_of(queued, inflight, "pooled").tolist() == [0, 1, 2, 4]


def _run(instance, method, **options):
    result = run_method("pull", method, instance, seed=0, **options)
    assert result.solution is not None and check(instance, result.solution) == []
    return result.solution


def test_replicas_reading_changes_the_schedule() -> None:
    """Units of 2,000 and 1,000 instructions, four hosts pulling at time 0: the fourth host
    gets the small unit's second task when replicas are tiered (it has one task in flight,
    the large unit two), the large unit's third when the waiting units are alike, and
    every host the large unit without priorities."""
    always = ((0.0, math.inf),)
    hosts = tuple(("cloud", 100.0, 0.0, 0.0, always) for _ in range(4))
    instance = tiny(noi=(2000.0, 1000.0), hosts=hosts)
    first = {}
    for reading in ("tiered", "two-level", "pooled"):
        s = _run(instance, "promethee", targets="max,max,max", replicas=reading)
        at_zero = s.start == 0.0
        first[reading] = sorted(s.unit[at_zero].tolist())
    # Pooled: the best-ranked unit for every host, in flight or not.
    assert first == {"tiered": [0, 0, 1, 1], "two-level": [0, 0, 0, 1],
                     "pooled": [0, 0, 0, 0]}


def test_fcfs_oldest_serves_the_bot_in_creation_order() -> None:
    """One error-prone host, units arriving together: FCFS read as 'oldest' serves the BoT
    as a queue of task creations, a wrong result's replica behind the tasks created before
    it; read as 'randomly selects', the order depends on the seed."""
    always = ((0.0, math.inf),)
    instance = tiny(noi=(1000.0, 1000.0, 1000.0, 1000.0),
                    hosts=(("idg", 100.0, 0.0, 0.5, always),))
    s = _run(instance, "fcfs", order="oldest")
    pending = [0, 1, 2, 3]  # the BoT in creation order
    for u, outcome in zip(s.unit.tolist(), s.outcome.tolist(), strict=True):
        assert u == pending.pop(0)
        if outcome != CORRECT:
            pending.append(u)  # its replica, created now
    assert not pending and (s.outcome != CORRECT).any()  # a replica did queue up
    orders = {tuple(run_method("pull", "fcfs", instance, seed=seed).solution.unit.tolist())
              for seed in range(6)}
    assert len(orders) > 1


@pytest.mark.parametrize("method, options, words", [
    ("promethee", {"replicas": "fifo"}, "option --replicas: unknown reading"),
    ("fcfs", {"replicas": "none"}, "option --replicas: unknown reading"),
    ("promethee", {"noi_max": "bot"}, "option --noi-max: unknown reading of NOI_max 'bot'"),
    ("fcfs", {"order": "lifo"}, "option --order: unknown reading of FCFS 'lifo'"),
])
def test_bad_readings_are_one_line_errors(method, options, words) -> None:
    with pytest.raises(InputError) as error:
        check_options("pull", method, options)
    assert words in str(error.value) and "\n" not in str(error.value)
