"""The CP-SAT backend of ``exact`` (issue 22): same optima as HiGHS and the brute force.

Every schedule goes through the family checker (``solve_checked``). Solves
are tiny (bundled instances that CP-SAT proves in well under a second, and
``tiny_instance`` draws); the one limited run uses CP-SAT's deterministic time.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched.errors import InputError
from hybridsched.hybrid_deadline import PM, check
from hybridsched.hybrid_deadline.adapters import best_heuristic_solution
from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.hybrid_deadline.generator import generate, tiny_instance
from hybridsched.registry import check_options
from hybridsched.result import Status
from hybridsched.storage import load_instance

from .helpers import make_instance, solve_checked
from .test_exact_soundness import brute_force

pytest.importorskip("ortools")

BUNDLED = Path(__file__).resolve().parents[2] / "instances" / "hybrid-deadline"
#: Bundled instances CP-SAT proves in well under a second (small-07 and -11 take seconds).
QUICK = ("small-01", "small-02", "small-03", "small-04", "small-05", "small-08",
         "small-09", "small-10", "small-12")


def cpsat(instance, **options):
    return solve_checked(instance, "exact", backend="cpsat", **options)


@pytest.mark.parametrize("name", QUICK)
def test_bundled_instances_reach_the_recorded_optimum(name):
    _, instance = load_instance(BUNDLED / f"{name}.json")
    result = cpsat(instance, time_limit=30)
    assert result.status is Status.OPTIMAL, result.message
    assert result.objective == pytest.approx(instance.reference["optimal_cost"], abs=1e-9)
    assert result.bound == pytest.approx(result.objective, abs=1e-9)


def test_the_model_is_exact_on_generated_data():
    """Generated deadlines are float products (3.5623499999999995): still an exact model."""
    from hybridsched.models.hybrid_deadline.cpsat_scale import scale_data

    _, instance = load_instance(BUNDLED / "small-04.json")
    data = scale_data(instance)
    assert data.exact and data.factor == 10_000
    near = make_instance([0.4999999995, 0.5000000025], 1.0, pms=[PM("p", 1, 1.0)])
    assert scale_data(near).exact and scale_data(near).factor == 10**10


def _agree(instance) -> None:
    highs = solve_checked(instance, "exact", time_limit=10)
    ours = cpsat(instance, time_limit=10)
    expected = brute_force(instance)
    if expected is None:
        assert highs.status is Status.INFEASIBLE, highs.message
        assert ours.status is Status.INFEASIBLE, ours.message
        return
    assert highs.status is Status.OPTIMAL, highs.message
    assert ours.status is Status.OPTIMAL, ours.message
    assert ours.objective == pytest.approx(expected, rel=1e-6, abs=1e-9)
    assert highs.objective == pytest.approx(ours.objective, rel=1e-6, abs=1e-9)
    assert ours.bound <= ours.objective + 1e-12


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
def test_both_backends_and_the_brute_force_agree_on_tiny_instances(seed):
    _agree(tiny_instance(seed))


@pytest.mark.parametrize("seed", [2, 5, 8, 11, 14, 17, 20, 23])
def test_every_awkward_kind_agrees(seed):
    """Seeds 2 mod 3 are the awkward draws; these cover each kind twice."""
    _agree(tiny_instance(seed))


def test_tiny_instance_is_deterministic_and_refuses_bad_seeds():
    a, b = tiny_instance(7), tiny_instance(7)
    assert a.work.tolist() == b.work.tolist() and a.pms == b.pms and a.vm_types == b.vm_types
    with pytest.raises(InputError):
        tiny_instance(-1)


def test_the_same_seed_gives_the_same_schedule():
    instance = generate(20, "mixed", 4)
    one, two = cpsat(instance, seed=3), cpsat(instance, seed=3)
    assert one.status is two.status
    for name in ("machine", "core", "start", "finish"):
        assert getattr(one.solution, name).tolist() == getattr(two.solution, name).tolist()


def test_a_time_limit_is_honoured_with_a_valid_bound():
    # A limit that does not depend on the machine: CP-SAT's deterministic time (one worker
    # and a fixed seed search the same way everywhere; the local search counts rounds).
    # With a wall-clock limit (0.3 s, on 100 tasks) the machine chose the path: here the
    # limit ran out while building the model; a machine 8 times faster proves the optimum.
    from hybridsched.models.hybrid_deadline import cpsat as cpsat_model

    instance = generate(70, "mixed", 1)  # still unproven after 0.5 units
    result = cpsat_model.solve(instance, best_heuristic_solution(instance),
                               extra_parameters={"max_deterministic_time": 0.02})
    assert result.status is Status.TIME_LIMIT
    assert result.solution is not None and not check(instance, result.solution)
    assert result.bound is not None
    assert result.bound < rent_cost(instance, result.solution) - 1e-12


def test_time_limit_zero_returns_the_warm_start():
    instance = generate(30, "mixed", 0)
    result = cpsat(instance, time_limit=0)
    assert result.solution is not None and result.bound is not None


def test_a_task_no_core_can_finish_is_proven_infeasible():
    instance = make_instance([3.0, 0.5], [1.0, 2.0], pms=[PM("p", 1, 1.0)])
    assert cpsat(instance).status is Status.INFEASIBLE
    limited = make_instance([0.9, 0.9], 1.0, pms=[PM("p", 1, 1.0)], max_vms=0)
    assert cpsat(limited).status is Status.INFEASIBLE


@pytest.mark.parametrize("options, words", [
    ({"backend": "foo"}, "--backend"),
    ({"threads": 2}, "--threads"),
    ({"backend": "cpsat", "threads": 0}, "--threads"),
])
def test_option_errors_are_one_line(options, words):
    with pytest.raises(InputError) as error:
        check_options("hybrid-deadline", "exact", options)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_the_cli_solves_with_cpsat(cli):
    code, out, err = cli("solve", BUNDLED / "small-03.json", "--method", "exact",
                         "--backend", "cpsat", "--option", "threads=2", "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["status"] == "optimal"


@settings(max_examples=10, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 30), min_size=2, max_size=9), st.integers(0, 10**6))
def test_conflict_cliques_hold_only_tasks_no_core_can_share(work, seed):
    """Every pair of a clique misses the later deadline in both orders (exhaustively tested)."""
    import random

    from hybridsched.models.hybrid_deadline.cpsat_cliques import conflict_cliques

    rng = random.Random(seed)
    limit = [w + rng.choice([0, 0, 1, 3, 10, 40]) for w in work]
    tasks = list(range(len(work)))
    for clique in conflict_cliques(work, limit, tasks):
        assert len(clique) == len(set(clique)) > 1
        for a in clique:
            for b in clique:
                if a != b:
                    assert work[a] + work[b] > limit[b] and work[a] + work[b] > limit[a]


def test_a_warm_start_at_the_optimum_is_proven_by_an_infeasible_cutoff_model():
    """Only schedules cheaper than the start are modelled: none exist, so it is optimal."""
    from hybridsched.hybrid_deadline.bounds import lower_bound
    from hybridsched.models.hybrid_deadline import cpsat as cpsat_model

    _, instance = load_instance(BUNDLED / "small-09.json")  # optimum above the cheap bound
    optimum = cpsat(instance, time_limit=30)
    assert optimum.status is Status.OPTIMAL and optimum.objective > lower_bound(instance)
    built = cpsat_model.build(instance, optimum.solution, strict=True)
    assert built.cutoff is not None
    result = cpsat_model.solve(instance, optimum.solution, time_limit=30)
    assert result.status is Status.OPTIMAL, result.message
    assert "no schedule is cheaper" in result.message
    assert result.bound == pytest.approx(optimum.objective, abs=1e-9)
