"""The CP-SAT backend of the bot-sites exact method (issue 22).

Cross-checked against the HiGHS backend and the independent brute force
(:mod:`.bot_brute`) on tiny instances with DAGs and hard limits; every
schedule goes through the checker inside ``run_method``.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("ortools", reason="the cpsat extra (OR-Tools) is not installed")

from hybridsched import run_method  # noqa: E402
from hybridsched.bot_sites.adapters import best_start  # noqa: E402
from hybridsched.bot_sites.checker import check, evaluate  # noqa: E402
from hybridsched.bot_sites.generator import generate, tiny_instance  # noqa: E402
from hybridsched.bot_sites.instance import Instance  # noqa: E402
from hybridsched.errors import InputError  # noqa: E402
from hybridsched.models.bot_sites import cpsat as cpsat_model  # noqa: E402
from hybridsched.models.bot_sites.cpsat_build import build, time_scaling  # noqa: E402
from hybridsched.registry import check_options  # noqa: E402
from hybridsched.result import Status  # noqa: E402
from hybridsched.storage import load_instance  # noqa: E402
from tests.library_files import instance_files

from .bot_brute import brute_force  # noqa: E402
from .test_bot_exact_soundness import split_around_critical_task  # noqa: E402
from .test_bot_exact_soundness import tiny_instance as limits_instance  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = instance_files("bot-sites", "small", "tiny")
REL = 1e-9


def close(a, b, rel=REL):
    return abs(a - b) <= rel * max(1.0, abs(b))


def cpsat(inst, **options):
    return run_method("bot-sites", "exact", inst, backend="cpsat", **options)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_instances_reach_the_recorded_optima(path):
    _, inst = load_instance(path)
    ref = inst.reference
    span = cpsat(inst)
    assert span.status is Status.OPTIMAL and close(span.objective, ref["optimal_makespan"])
    assert span.bound == span.objective
    cost = cpsat(inst, objective="cost")
    assert cost.status is Status.OPTIMAL
    if "optimal_cost" in ref:
        assert close(cost.objective, ref["optimal_cost"])
        assert cost.metrics["makespan_proven_minimal"]
        assert close(cost.metrics["makespan"], ref["makespan_at_optimal_cost"])


# Eight draws by default (the brute force takes seconds on some); the nightly profile and
# `benchmarks/bench_certify.py` (500 instances) run many more.
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_backends_agree_with_each_other_and_the_brute_force(seed):
    inst = tiny_instance(seed)
    truth = brute_force(inst)
    highs = run_method("bot-sites", "exact", inst)
    mine = cpsat(inst)
    if truth is None:
        assert highs.status is Status.INFEASIBLE and mine.status is Status.INFEASIBLE
        return
    for result in (highs, mine):
        assert result.bound <= truth.makespan * (1 + REL)
        assert result.objective >= truth.makespan * (1 - REL)
    # The limits CP-SAT states over time are exact: it proves every tiny instance.
    assert mine.status is Status.OPTIMAL and close(mine.objective, truth.makespan)
    if highs.status is Status.OPTIMAL:
        assert close(highs.objective, mine.objective, 1e-6)
    cost = cpsat(inst, objective="cost")
    assert cost.status is Status.OPTIMAL and close(cost.objective, truth.cost)
    assert cost.metrics["makespan_proven_minimal"]
    assert close(cost.metrics["makespan"], truth.makespan_at_min_cost)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_hard_limits_with_rounded_data_claim_only_what_is_true(seed):
    # Effective times data / bandwidth are not decimal: the model is a relaxation.
    inst = limits_instance(np.random.default_rng(seed), limits=True)
    truth = brute_force(inst)
    span = cpsat(inst)
    if truth is None:
        assert span.status is Status.INFEASIBLE
        return
    assert span.bound <= truth.makespan * (1 + REL) <= span.objective * (1 + 2 * REL)
    if span.status is Status.OPTIMAL:
        assert close(span.objective, truth.makespan)


def test_a_bot_split_around_a_critical_task():
    # Every optimal schedule runs BoT C in two blocks on s0 (the one-block model gives 7).
    result = cpsat(split_around_critical_task())
    assert result.status is Status.OPTIMAL and result.objective == 5.0 == result.bound


def test_non_decimal_times_scale_to_a_relaxation():
    inst = Instance("third", ("a", "b"), ("s",), [2, 1], [2], [0.0], [[1 / 3], [0.5]],
                    edges=[[0, 1]])
    scaling = time_scaling(inst, 2.0)
    assert not scaling.exact and scaling.factor >= 10**12
    bm = build(inst, horizon=2.0)
    assert bm.timed and bm.duration[0, 0] == scaling.factor // 3
    result = cpsat(inst)
    assert result.status is Status.OPTIMAL and close(result.objective, 1 / 3 + 0.5)
    assert result.metrics["scale_exact"] is False


def test_dag_schedule_is_valid_and_repeats_with_the_seed():
    inst = generate(sites=3, bots=5, tasks_per_bot=(3, 6), procs_per_site=(1, 3), seed=4,
                    dependency=0.4)
    first = cpsat(inst, seed=3)
    again = cpsat(inst, seed=3)
    assert first.status is Status.OPTIMAL and check(inst, first.solution) == []
    for name in ("bot", "site", "proc", "count", "start"):
        assert np.array_equal(getattr(first.solution, name), getattr(again.solution, name))
    highs = run_method("bot-sites", "exact", inst)
    assert highs.status is Status.OPTIMAL and close(highs.objective, first.objective, 1e-6)


def test_time_limit_returns_a_bound():
    # A limit that does not depend on the machine: CP-SAT's deterministic time (one worker
    # and a fixed seed search the same way everywhere). A wall-clock limit does not do:
    # a fast machine proved this instance optimal within 0.5 s (0.2 units prove it).
    inst = generate(sites=8, bots=60, tasks_per_bot=(1, 1), procs_per_site=(1, 1), seed=3,
                    dependency=0.0)
    start = best_start(inst)
    result = cpsat_model.solve(inst, start=start, parameters={"max_deterministic_time": 0.02})
    assert result.status is Status.TIME_LIMIT and result.metrics["cpsat_status"] == "time_limit"
    assert check(inst, result.solution) == []
    makespan = evaluate(inst, result.solution).objective
    assert result.bound is not None and result.bound < makespan
    assert makespan <= evaluate(inst, start).objective


def test_time_limit_zero_is_the_warm_start():
    inst = generate(sites=2, bots=3, tasks_per_bot=(3, 5), procs_per_site=(1, 2), seed=1)
    result = cpsat(inst, time_limit=0)
    assert "warm start only" in result.message and result.bound is not None


def test_option_errors_are_one_line():
    with pytest.raises(InputError, match="--backend") as error:
        check_options("bot-sites", "exact", {"backend": "foo"})
    assert "\n" not in str(error.value)
    with pytest.raises(InputError, match="--threads") as error:
        check_options("bot-sites", "exact", {"backend": "highs", "threads": 2})
    assert "\n" not in str(error.value)
    check_options("bot-sites", "exact", {"backend": "cpsat", "threads": 2})


def test_cli_solve_with_cpsat(cli):
    path = ROOT / "instances" / "bot-sites" / "small-lolo-c-2s-3b.json"
    code, out, _ = cli("solve", path, "--method", "exact", "--backend", "cpsat", "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["status"] == "optimal"
    assert summary["objective"] == pytest.approx(json.loads(path.read_text())["reference"][
        "optimal_makespan"])


@pytest.mark.slow
def test_braun_u_c_hihi_improves_on_min_min(braun):
    from hybridsched.io.etc import read_etc

    inst = read_etc(braun / "u_c_hihi.0")
    result = cpsat(inst, time_limit=20)
    assert result.status.has_solution and check(inst, result.solution) == []
    assert result.bound <= inst.reference["best_known_makespan"] <= result.objective * (1 + REL)
    assert result.objective < 8460675.0


# --- hard limits: the task-interval model in two phases ------------------------------

@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_task_model_proves_tiny_hard_limit_instances(seed):
    # Rounded data (data / bandwidth): the coarse bound is closed on the claim grid.
    inst = limits_instance(np.random.default_rng(seed), limits=True)
    truth = brute_force(inst)
    span = cpsat(inst)
    if truth is None:
        assert span.status is Status.INFEASIBLE
        return
    assert check(inst, span.solution) == []
    assert span.status is Status.OPTIMAL and close(span.objective, truth.makespan)


def test_generated_hard_limits_two_phases_repeat_with_the_seed():
    inst = generate(sites=2, bots=3, tasks_per_bot=(2, 3), procs_per_site=(1, 2),
                    communication=True, storage=True, hard_limits=True, tightness=0.3, seed=5)
    first = cpsat(inst, seed=2)
    again = cpsat(inst, seed=2)
    assert first.status is Status.OPTIMAL and check(inst, first.solution) == []
    assert first.metrics["coarse_scale"] < first.metrics["scale"]
    for name in ("bot", "site", "proc", "count", "start"):
        assert np.array_equal(getattr(first.solution, name), getattr(again.solution, name))
    highs = run_method("bot-sites", "exact", inst)
    assert first.objective <= highs.objective * (1 + REL) and highs.bound <= first.objective


def test_conflicting_bots_form_maximal_cliques():
    from hybridsched.models.bot_sites.cpsat_limits import _maximal_cliques

    clash = np.array([[1, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]], dtype=bool)
    # BoT 3 does not clash with itself: two of its tasks may run together.
    assert _maximal_cliques(clash, [0, 1, 2, 3]) == [{0, 1}, {2}]


def test_order_retime_keeps_the_model_order_with_real_durations():
    from hybridsched.models.bot_sites.cpsat_limits_extract import order_retime

    inst = Instance("two", ("a", "b"), ("s",), [2, 1], [2], [0.0], [[1 / 3], [0.5]],
                    edges=[[0, 1]])
    duration = np.array([[3], [5]])          # one tenth of a unit, rounded down
    bot, site = np.array([0, 0, 1]), np.array([0, 0, 0])
    solution = order_retime(inst, bot, site, np.array([0, 0, 3]), duration)
    assert check(inst, solution) == []
    assert solution.start.tolist() == [0.0, 0.0, 1 / 3]
    assert solution.proc.tolist() == [0, 1, 0]
