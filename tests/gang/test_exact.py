"""The offline gang model against an independent brute force; bundled optima re-proven."""

from __future__ import annotations

from itertools import combinations, permutations, product
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched import load_instance, run_method
from hybridsched.gang.checker import check, evaluate
from hybridsched.gang.instance import Instance
from hybridsched.result import Status
from tests.library_files import instance_files

BUNDLED = instance_files("gang", "small")
ONLINE = ("cplmt", "fifo", "fair", "asjs", "cmms")


def brute_force(instance: Instance) -> tuple[int, float]:
    """(fewest unfinished, then most instructions) over every choice of jobs, VMs and order.

    For a chosen set of jobs with their VMs, some feasible schedule exists iff
    the earliest-start pass in some order of the jobs meets every deadline (a
    feasible schedule's start order is such an order).
    """
    n, m = instance.n_jobs, instance.n_vms
    fits = instance.fits()
    times = instance.task_time()
    choices = []
    for j in range(n):
        sets = [None] + [vms for vms in combinations(range(m), int(instance.parallelism[j]))
                         if fits[j, list(vms)].all()]
        choices.append(sets)
    best = (n, 0.0)
    for pick in product(*choices):
        jobs = [j for j in range(n) if pick[j] is not None]
        unfinished = n - len(jobs)
        sin = float(sum(instance.parallelism[j] * instance.instructions[j] for j in jobs))
        if (unfinished, -sin) >= (best[0], -best[1]):
            continue
        for order in permutations(jobs):
            free = np.zeros(m)
            ok = True
            for j in order:
                vms = list(pick[j])
                s = max(float(instance.arrival[j]), float(free[vms].max()))
                if s + times[j, vms].max() > instance.due[j] + 1e-9:
                    ok = False
                    break
                free[vms] = s + times[j, vms]
            if ok:
                best = (unfinished, sin)
                break
    return best


def tiny(draw: st.DrawFn) -> Instance:
    n = draw(st.integers(1, 3))
    m = draw(st.integers(1, 3))
    num = st.sampled_from([1.0, 2.0, 3.0])
    return Instance(
        "tiny", tuple(f"j{k}" for k in range(n)),
        arrival=np.array([draw(st.sampled_from([0.0, 0.5, 1.0])) for _ in range(n)]),
        parallelism=np.array([draw(st.integers(1, m)) for _ in range(n)]),
        instructions=np.array([draw(num) for _ in range(n)]),
        memory=np.array([draw(num) for _ in range(n)]), bandwidth=np.ones(n),
        disk=np.zeros(n), deadline=np.array([draw(st.sampled_from([1.0, 2.0, 3.0]))
                                             for _ in range(n)]),
        vm_ids=tuple(f"v{k}" for k in range(m)),
        speed=np.array([draw(st.sampled_from([1.0, 2.0])) for _ in range(m)]),
        vm_memory=np.array([draw(num) for _ in range(m)]), vm_bandwidth=np.ones(m),
        vm_disk=np.full(m, np.inf))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_model_equals_the_brute_force(data: st.DataObject) -> None:
    instance = data.draw(st.composite(tiny)())
    result = run_method("gang", "exact", instance, time_limit=30)
    assert result.status is Status.OPTIMAL
    assert check(instance, result.solution) == []
    unfinished, sin = brute_force(instance)
    assert result.objective == unfinished
    assert evaluate(instance, result.solution).metrics["sin"] == pytest.approx(sin)
    for method in ONLINE:
        assert run_method("gang", method, instance).objective >= unfinished


def test_a_job_too_wide_for_the_platform_is_unfinished_not_an_error() -> None:
    instance = Instance(
        "wide", ("w",), arrival=np.zeros(1), parallelism=np.array([3]),
        instructions=np.ones(1), memory=np.ones(1), bandwidth=np.ones(1), disk=np.zeros(1),
        deadline=np.ones(1) * 5, vm_ids=("a", "b"), speed=np.ones(2), vm_memory=np.ones(2),
        vm_bandwidth=np.ones(2), vm_disk=np.full(2, np.inf))
    for method in (*ONLINE, "exact"):
        result = run_method("gang", method, instance)
        assert result.objective == 1 and check(instance, result.solution) == []
        if method != "exact":
            assert "needs 3" in result.solution.dropped[0]


def test_the_bundle_is_there() -> None:
    assert len(BUNDLED) >= 3


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_recorded_optimum_is_reproven(path: Path) -> None:
    family, instance = load_instance(path)
    recorded = family.reference(instance)["optimum"]
    result = run_method("gang", "exact", instance, time_limit=60)
    assert result.status is Status.OPTIMAL and result.objective == recorded
    for method in ONLINE:
        assert run_method("gang", method, instance).objective >= recorded
