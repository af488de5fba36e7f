"""The strong bot-sites makespan bound and its exact verification (issue 32).

The bound (:mod:`hybridsched.models.bot_sites.bound`) must never exceed an
optimum: checked against the independent brute force on tiny instances
(random and awkward ones) and against every recorded optimum or best-known
makespan of the library; its proof must recompute to the same value
(:mod:`hybridsched.bot_sites.bound_check`) and a tampered proof must fail.
"""

import functools
import json
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.bot_sites import files
from hybridsched.bot_sites.bound_check import (
    alone_time,
    critical_path,
    site_value,
    verify_bound,
)
from hybridsched.bot_sites.bounds import lower_bound
from hybridsched.bot_sites.checker import check, completion_times
from hybridsched.bot_sites.generator import generate, tiny_instance
from hybridsched.bot_sites.instance import Instance
from hybridsched.bound_proof import BoundCertificate, BoundProofError
from hybridsched.models.bot_sites.bound import strong_bound
from hybridsched.result import Status

from .bot_brute import brute_force

ROOT = Path(__file__).resolve().parents[2] / "instances" / "bot-sites"
REL = 1e-9

#: The strong bound may fall this far (relative) below the cheap solver-computed bound: its
#: fluid part is proven by exact weak duality, with the resource rows widened by the
#: verifier's RESOURCE_SLACK (1e-12) and the duals shrunk by 1e-13, where the solver's value
#: rests on its 1e-10 tolerances.
CHEAP_REL = 1e-9


def library(tiers: tuple[str, ...]) -> list[Path]:
    found = []
    for tier in tiers:
        found += sorted((ROOT / tier).glob("*.json")) if tier else sorted(ROOT.glob("*.json"))
    return found


def recorded_best(instance: Instance) -> float | None:
    ref = instance.reference or {}
    for key in ("optimal_makespan", "upper_bound", "best_known_makespan"):
        if ref.get(key) is not None:
            return float(ref[key])
    return None


def read(path: Path) -> Instance:
    return files.instance_from_dict(json.loads(path.read_text()), str(path))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000))
def test_strong_bound_below_brute_force_optimum(seed):
    inst = tiny_instance(seed)           # a third of the seeds are the awkward kind
    brute = brute_force(inst)
    cert = strong_bound(inst, time_limit=10)
    assert verify_bound(inst, cert) == cert.value
    assert cert.value >= lower_bound(inst) * (1 - CHEAP_REL)
    if brute is not None:
        assert cert.value <= brute.makespan * (1 + REL), (seed, cert, brute.makespan)


@pytest.mark.parametrize("path", library(("", "tiny", "small")), ids=lambda p: p.name)
def test_below_recorded_values(path):
    inst = read(path)
    best = recorded_best(inst)
    cert = strong_bound(inst, time_limit=10, upper=best)
    assert verify_bound(inst, cert) == cert.value
    assert cert.value >= lower_bound(inst) * (1 - CHEAP_REL)
    if best is not None:
        assert cert.value <= best * (1 + REL)


@pytest.mark.slow
@pytest.mark.parametrize("path", library(("medium", "large")), ids=lambda p: p.name)
def test_below_recorded_values_medium(path):
    inst = read(path)
    best = recorded_best(inst)
    cert = strong_bound(inst, time_limit=60, upper=best)
    assert verify_bound(inst, cert) == cert.value
    assert cert.value >= lower_bound(inst) * (1 - CHEAP_REL)
    assert cert.value <= best * (1 + REL)


def limited_instance() -> Instance:
    return generate(sites=3, bots=4, tasks_per_bot=(3, 6), procs_per_site=(1, 3), seed=3,
                    communication=True, storage=True, hard_limits=True, tightness=0.3)


@functools.cache
def configuration_certificate() -> tuple[Instance, BoundCertificate]:
    """An instance whose bound is proven by a configuration certificate."""
    inst = generate(sites=3, bots=5, tasks_per_bot=(2, 5), procs_per_site=(1, 2), seed=1,
                    dependency=0.0)
    cert = strong_bound(inst, time_limit=20)
    assert cert.proof.get("kind") == "configuration", cert
    return inst, cert


def test_configuration_proof_recomputes_and_beats_fluid():
    inst, cert = configuration_certificate()
    assert verify_bound(inst, BoundCertificate.from_dict(cert.to_dict())) == cert.value
    assert cert.value > lower_bound(inst)
    result = run_method("bot-sites", "exact", inst, time_limit=30)
    assert result.status is Status.OPTIMAL
    assert cert.value <= result.objective * (1 + REL)


def test_tampered_certificates_fail():
    inst, cert = configuration_certificate()
    raised = BoundCertificate(cert.value * 1.01, cert.method, cert.proof)
    with pytest.raises(BoundProofError):
        verify_bound(inst, raised)
    # At twice the capacity the relaxation is feasible: no multipliers can prove it.
    doubled = dict(cert.proof, capacity=cert.proof["capacity"] * 2)
    with pytest.raises(BoundProofError):
        verify_bound(inst, BoundCertificate(cert.value * 2, cert.method, doubled))
    scaled = dict(cert.proof, bots=[10.0 * x for x in cert.proof["bots"]],
                  capacity=cert.proof["capacity"] * 1.5)
    with pytest.raises(BoundProofError):
        verify_bound(inst, BoundCertificate(cert.value * 1.5, cert.method, scaled))
    broken = {k: v for k, v in cert.proof.items() if k != "grid"}
    with pytest.raises(BoundProofError):
        verify_bound(inst, BoundCertificate(cert.value, cert.method, broken))


def test_critical_path_proof_and_alone_time():
    # A -> B; A has 4 tasks of time 3 on one site of 2 processors: alone it needs 6.
    inst = Instance("chain", ("A", "B"), ("s",), [4, 1], [2], [0.0], [[3.0], [5.0]],
                    edges=[[0, 1]])
    assert alone_time(inst, 0) == 6
    assert critical_path(inst) == 11
    cert = strong_bound(inst, time_limit=0)
    assert verify_bound(inst, cert) == cert.value
    assert cert.value == pytest.approx(11, rel=1e-9)
    assert cert.value <= 11


def test_site_value_is_an_upper_bound():
    p = [Fraction(3), Fraction(5), Fraction(7, 2)]
    values = [Fraction(2), Fraction(3), Fraction(5, 2)]
    # Best with capacity 10: 3 + 3.5 -> 4.5, or 5 + 3.5 -> 5.5, or 3 + 5 -> 5 (one each)...
    # with counts (2, 1, 1): 3 + 3 + 3.5 = 9.5 -> 6.5.
    assert site_value(p, values, [2, 1, 1], Fraction(10), 1 << 12) >= Fraction(13, 2)
    assert site_value(p, values, [2, 1, 1], Fraction(10), 1 << 12) <= Fraction(13, 2) * 1.01


def test_time_limit_zero_is_quick_and_valid():
    inst = generate(sites=10, bots=10, tasks_per_bot=(1000, 2000), procs_per_site=(8, 16),
                    seed=2)
    started = time.perf_counter()
    cert = strong_bound(inst, time_limit=0)
    assert time.perf_counter() - started < 3.0
    assert cert.value >= lower_bound(inst) * (1 - CHEAP_REL)
    assert verify_bound(inst, cert) == cert.value


def test_same_seed_same_result():
    inst = limited_instance()
    first = strong_bound(inst, time_limit=None, seed=4)
    again = strong_bound(inst, time_limit=None, seed=4)
    assert first == again


def test_bound_method_returns_checked_schedule():
    inst = limited_instance()
    result = run_method("bot-sites", "bound", inst, time_limit=20)
    assert result.solution is not None and not check(inst, result.solution)
    assert result.objective == pytest.approx(
        float(completion_times(inst, result.solution).max()), rel=1e-12)
    cert = BoundCertificate.from_dict(result.metrics["bound_certificate"])
    assert verify_bound(inst, cert) == result.bound
    brute = None if inst.n_tasks > 6 else brute_force(inst)
    if brute is not None:
        assert result.bound <= brute.makespan * (1 + REL)


@pytest.mark.parametrize("backend", ["highs", "cpsat"])
def test_memory_guard(monkeypatch, backend):
    inst = generate(sites=4, bots=6, tasks_per_bot=(20, 60), procs_per_site=(2, 6), seed=1,
                    communication=True, storage=True, hard_limits=True)
    monkeypatch.setenv("HYBRIDSCHED_MEMORY_GB", "0.001")
    result = run_method("bot-sites", "exact", inst, time_limit=20, backend=backend)
    assert "memory budget" in result.message
    assert result.status in (Status.FEASIBLE, Status.TIME_LIMIT)
    assert result.solution is not None and not check(inst, result.solution)
    assert result.bound is not None and result.bound <= result.objective
    bounded = run_method("bot-sites", "bound", inst, time_limit=20)
    assert "memory budget" in bounded.metrics["bound_method"]
    assert bounded.solution is not None and not check(inst, bounded.solution)
    assert bounded.bound == pytest.approx(lower_bound(inst), rel=CHEAP_REL) or \
        bounded.bound >= lower_bound(inst)


@pytest.mark.slow
def test_braun_bound_between_fluid_and_best_known(braun):
    from hybridsched.io.etc import read_etc

    inst = read_etc(braun / "u_c_hilo.0")
    best = inst.reference["best_known_makespan"]
    cert = strong_bound(inst, time_limit=120, upper=best)
    assert lower_bound(inst) * (1 - CHEAP_REL) <= cert.value <= best
    assert verify_bound(inst, cert) == cert.value


@pytest.mark.parametrize("seed", range(4))
def test_fluid_rounding_schedules_pass_checker(seed):
    from hybridsched.heuristics.bot_sites.fluid_rounding import fluid_rounding

    limits = seed % 2 == 1
    inst = generate(sites=4, bots=6, tasks_per_bot=(20, 200), procs_per_site=(2, 8), seed=seed,
                    dependency=0.3, communication=limits, storage=limits, hard_limits=limits)
    solution = fluid_rounding(inst)
    assert solution is not None
    assert not check(inst, solution)
    span = float(completion_times(inst, solution).max())
    assert span >= strong_bound(inst, time_limit=0).value


def test_cost_bound_is_exact_minimum_cost():
    from hybridsched.bot_sites.bounds import min_cost
    from hybridsched.bot_sites.checker import schedule_cost

    inst = limited_instance()
    result = run_method("bot-sites", "bound", inst, objective="cost", time_limit=10)
    cert = BoundCertificate.from_dict(result.metrics["bound_certificate"])
    assert verify_bound(inst, cert) == pytest.approx(min_cost(inst), rel=1e-9)
    assert not check(inst, result.solution)
    assert schedule_cost(inst, result.solution) >= cert.value


def fluid_instances() -> list[Instance]:
    found = [tiny_instance(seed) for seed in range(6)]
    for seed in range(4):
        limits = seed % 2 == 1
        found.append(generate(sites=4, bots=6, tasks_per_bot=(20, 200), procs_per_site=(2, 8),
                              seed=seed, dependency=0.3, communication=limits, storage=limits,
                              hard_limits=limits, tightness=0.3))
    return found


@pytest.mark.parametrize("index", range(10))
def test_fluid_proof_verifies_to_the_solvers_value(index):
    from hybridsched.bot_sites.bounds import fluid_bound
    from hybridsched.models.bot_sites.bound_fluid import fluid_certificate

    inst = fluid_instances()[index]
    solver = fluid_bound(inst)
    cert = fluid_certificate(inst)
    assert cert.proof["kind"] == "fluid" and cert.proof["levels"]
    value = verify_bound(inst, BoundCertificate.from_dict(json.loads(json.dumps(cert.to_dict()))))
    assert value == cert.value
    assert value <= solver                      # the exact value never exceeds the solver's
    assert value >= solver * (1 - REL)


def test_tampered_fluid_proof_fails():
    from hybridsched.models.bot_sites.bound_fluid import fluid_certificate

    inst = fluid_instances()[7]                 # hard limits: resource rows in the proof
    cert = fluid_certificate(inst)
    assert {"bandwidth", "storage"} <= set(cert.proof["levels"][0])
    with pytest.raises(BoundProofError):
        verify_bound(inst, BoundCertificate(cert.value * (1 + 1e-6), cert.method, cert.proof))

    def scaled(level, factor, keys):
        return {k: [factor * x for x in v] if k in keys else v for k, v in level.items()}

    rows = ("bots", "sites", "bandwidth", "storage")
    for factor, keys in ((2.0, rows), (2.0, ("bots",)), (0.5, rows[1:])):
        levels = [scaled(level, factor, keys) for level in cert.proof["levels"]]
        tampered = BoundCertificate(cert.value, cert.method, dict(cert.proof, levels=levels))
        with pytest.raises(BoundProofError):
            verify_bound(inst, tampered)
    # At the shortest time as threshold a level proves at most the next longer time.
    assert cert.value > 2 * float(inst.p.max())
    levels = [dict(level, threshold=float(inst.p.min())) for level in cert.proof["levels"]]
    with pytest.raises(BoundProofError):
        verify_bound(inst, BoundCertificate(cert.value, cert.method, dict(cert.proof,
                                                                           levels=levels)))
    for broken in ({"kind": "fluid"}, {"kind": "fluid", "levels": [{"threshold": "x"}]},
                   {"kind": "fluid", "levels": [dict(cert.proof["levels"][0], bots=[1.0])]}):
        with pytest.raises(BoundProofError):
            verify_bound(inst, BoundCertificate(cert.value, cert.method, broken))


def test_bound_check_imports_no_solver():
    code = ("import sys, hybridsched.bot_sites.bound_check\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in "
            "('highspy', 'pyomo', 'pulp', 'ortools') or m.startswith('hybridsched.models')]\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_fluid_proof_verifies_fast_on_braun(braun):
    from hybridsched.bot_sites.bounds import fluid_bound
    from hybridsched.io.etc import read_etc
    from hybridsched.models.bot_sites.bound_fluid import fluid_certificate

    inst = read_etc(braun / "u_c_hihi.0")
    assert (inst.n_bots, inst.n_sites) == (512, 16)
    cert = fluid_certificate(inst)
    started = time.perf_counter()
    value = verify_bound(inst, cert)
    took = time.perf_counter() - started
    print(f"fluid proof of u_c_hihi.0 verified in {took:.3f} s")
    assert took < 2.0
    assert value == cert.value
    assert fluid_bound(inst) * (1 - REL) <= value <= fluid_bound(inst)
