"""The CP-SAT backend of the malleable exact method (issue 22): same problem, same optima.

- the bundled batch whose optimum CP-SAT proves in seconds: the recorded optimum;
- random tiny batches (``tiny_instance``): both backends prove the same optimum;
- the brute force over per-minute widths of the HiGHS tests agrees with CP-SAT;
- schedules pass the checker, a seed repeats its schedule, a time limit is honoured;
- option errors are one line; the CLI prints one JSON document.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("ortools")

from hybridsched import load_instance, run_method  # noqa: E402
from hybridsched.errors import InputError  # noqa: E402
from hybridsched.malleable.checker import check, evaluate  # noqa: E402
from hybridsched.malleable.generator import batch_platform, generate, tiny_instance  # noqa: E402
from hybridsched.malleable.instance import Resource, ResourceType  # noqa: E402
from hybridsched.models.malleable import cpsat as cpsat_model  # noqa: E402
from hybridsched.models.malleable import cpsat_build  # noqa: E402
from hybridsched.registry import check_options  # noqa: E402
from hybridsched.result import Status  # noqa: E402
from tests.malleable.test_malleable_problem import brute_force, make  # noqa: E402

BATCH_04 = Path(__file__).parents[2] / "instances" / "malleable" / "batch-04.json"


def cpsat(instance, **options):
    return run_method("malleable", "exact", instance, backend="cpsat", **options)


def test_bundled_batch_04_policy_b_is_reproven() -> None:
    family, instance = load_instance(BATCH_04)
    result = cpsat(instance, objective="penalised_b", time_limit=120)
    assert result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(family.reference(instance)["optimum_penalised_b"])
    assert check(instance, result.solution) == []


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_both_backends_prove_the_same_optimum_on_tiny_batches(seed: int) -> None:
    instance = tiny_instance(seed)
    highs = run_method("malleable", "exact", instance, time_limit=20)
    mine = cpsat(instance, time_limit=20)
    for result in (highs, mine):
        assert check(instance, result.solution) == []
        assert result.bound <= result.objective + 1e-6
    assert highs.status is Status.OPTIMAL and mine.status is Status.OPTIMAL
    assert mine.objective == pytest.approx(highs.objective, rel=1e-6, abs=1e-6)


def test_tiny_instance_is_deterministic() -> None:
    a, b = tiny_instance(7), tiny_instance(7)
    assert np.array_equal(a.size, b.size) and np.array_equal(a.deadline, b.deadline)
    assert a.resources == b.resources


@settings(max_examples=8, deadline=None)
@given(jobs=st.lists(st.tuples(st.sampled_from([1.0, 2.0, 3.0, 4.0]), st.integers(0, 1),
                               st.integers(0, 3), st.sampled_from([0.0, 1.0, 2.5])),
                     min_size=1, max_size=2),
       kind=st.sampled_from([ResourceType.DEDICATED, ResourceType.ALLOCATED]),
       cpus=st.integers(1, 2),
       objective=st.sampled_from(["penalised_a", "penalised_b", "total_time"]))
def test_cpsat_agrees_with_the_brute_force(jobs, kind, cpus, objective) -> None:
    price = 1.0 if kind is ResourceType.ALLOCATED else 0.0
    instance = make([(s, a, a + d, b, 0.0) for s, a, d, b in jobs],
                    (Resource("c", kind, cpus, price=price),))
    result = cpsat(instance, objective=objective, time_limit=20)
    best = brute_force(instance, objective, 8)
    assert result.status is Status.OPTIMAL and check(instance, result.solution) == []
    assert result.objective <= best + 1e-6
    if result.solution.end.max() <= 8:
        assert result.objective == pytest.approx(best, abs=1e-6)


def test_amdahl_rates_give_a_bound_only() -> None:
    instance = make([(3.0, 0, 2, 1.0, 0.3)], (Resource("c", ResourceType.DEDICATED, 2),))
    work, _, exact = cpsat_build.scalings(instance)
    assert not exact and not work.exact
    result = cpsat(instance, time_limit=5)
    assert check(instance, result.solution) == []
    assert result.bound <= result.objective + 1e-9


def test_same_seed_same_schedule_and_time_limit_honoured() -> None:
    instance = tiny_instance(17)
    one, two = cpsat(instance, seed=3), cpsat(instance, seed=3)
    for field in ("job", "start", "end", "cpu", "count"):
        assert np.array_equal(getattr(one.solution, field), getattr(two.solution, field))
    # A limit that does not depend on the machine: CP-SAT's deterministic time (one worker
    # and a fixed seed search the same way everywhere); with a wall-clock limit, whether
    # it binds would be up to the machine's speed.
    hard = generate(6, "small", 3, resources=batch_platform())
    limited = cpsat_model.solve(hard, "penalised_a",
                                parameters={"max_deterministic_time": 0.05})
    assert limited.status is Status.TIME_LIMIT
    assert limited.bound <= limited.objective
    assert check(hard, limited.solution) == []
    assert limited.objective == pytest.approx(evaluate(hard, limited.solution).metrics[
        "penalised_a"])


@pytest.mark.parametrize("options, text", [({"backend": "foo"}, "--backend"),
                                           ({"threads": 2}, "--threads")])
def test_option_errors_are_one_line(options, text) -> None:
    with pytest.raises(InputError, match=text) as error:
        check_options("malleable", "exact", options)
    assert "\n" not in str(error.value)


def test_cli_solves_with_cpsat(tmp_path: Path, cli) -> None:
    document = json.loads(BATCH_04.read_text())
    document["jobs"] = document["jobs"][:2]
    document.pop("reference")
    path = tmp_path / "two.json"
    path.write_text(json.dumps(document))
    code, out, err = cli("solve", path, "--method", "exact", "--backend", "cpsat", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "optimal"
