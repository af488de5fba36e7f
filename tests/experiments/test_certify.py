"""``certify`` on real instances of every family: both backends, each schedule checked.

The property test draws random tiny instances of each family from its
``tiny_instance`` (a third of them awkward: near-tolerance numbers, ties,
exact fits, tight limits, DAGs) and certifies them: two independent models
must never contradict each other, and an instance both prove is certified.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hybridsched.cli import run
from hybridsched.experiments import certify as certify_module
from hybridsched.experiments.certify import CERTIFIED, DEFECT, certify
from hybridsched.experiments.library import TINY_GENERATORS, tiny_instance
from hybridsched.io.jsonio import read_json
from hybridsched.result import Result, Status
from hybridsched.storage import load_instance

ROOT = Path(__file__).resolve().parents[2]



@pytest.mark.parametrize("family", list(TINY_GENERATORS))
@settings(max_examples=5, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_backends_never_contradict_each_other(family: str, seed: int):
    instance = tiny_instance(family, seed)
    cert = certify(family, instance, name=f"{family}#{seed}", time_limit=20.0)
    assert cert.verdict != DEFECT, cert.reason
    statuses = {run.status for run in cert.runs.values()}
    if statuses <= {Status.OPTIMAL, Status.INFEASIBLE} and len(statuses) == 1:
        assert cert.verdict == CERTIFIED
    if cert.best_known is not None and cert.best_bound is not None:
        assert cert.best_bound <= cert.best_known + 1e-6 * max(1.0, abs(cert.best_known))


def test_certify_cli_prints_one_document_and_records(tmp_path: Path, capsys):
    copy = tmp_path / "small-02.json"
    shutil.copy(ROOT / "instances" / "hybrid-deadline" / "small-02.json", copy)
    code = run(["certify", str(copy), "--time-limit", "30", "--json", "--record", "-q"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    (entry,) = document["certificates"]
    assert entry["verdict"] == CERTIFIED and entry["proven_by"] == ["highs", "cpsat"]
    assert entry["backends"]["cpsat"]["version"] and entry["backends"]["highs"]["version"]
    assert document["produced_by"]["ortools"] == entry["backends"]["cpsat"]["version"]
    recorded = read_json(copy)["reference"]
    assert recorded["tier"] == "small"
    assert recorded["optimal_cost"] == pytest.approx(entry["best_known"])
    assert recorded["certificates"]["cost"]["verdict"] == CERTIFIED
    family, instance = load_instance(copy)  # the recorded block still reads
    assert family.reference(instance)["optimum"] == pytest.approx(entry["best_known"])


def test_a_defect_exits_1_and_saves_both_schedules(tmp_path: Path, capsys, monkeypatch):
    path = ROOT / "instances" / "hybrid-deadline" / "small-02.json"
    real_run = certify_module.run_method

    def contradicting(family, name, instance, **kwargs):
        result = real_run(family, name, instance, **kwargs)
        if kwargs.get("backend") == "cpsat":  # a wrong proof: a bound above the optimum
            assert result.status is Status.OPTIMAL
            result = Result(result.method, family, Status.OPTIMAL, result.solution,
                            result.objective + 1.0, result.objective + 1.0)
        return result

    monkeypatch.setattr(certify_module, "run_method", contradicting)
    saved = tmp_path / "defects"
    code = run(["certify", str(path), "--time-limit", "30", "--save-dir", str(saved), "-q"])
    err = capsys.readouterr().err
    assert code == 1 and "DEFECT: cpsat proves a bound" in err
    assert sorted(p.name for p in saved.iterdir()) == ["small-02.cpsat.json",
                                                       "small-02.highs.json"]
    assert run(["validate", str(path), str(saved / "small-02.highs.json"), "-q"]) == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["certify", "{missing}"], "missing.json"),
    (["certify", "{instance}", "--option", "policy=Z"], "option"),
    (["certify", "{instance}", "--time-limit", "-1"], "time-limit"),
    (["certify", "{instance}", "--objective", "energy"], "--objective"),
])
def test_certify_bad_input_is_one_line(tmp_path: Path, capsys, argv, message):
    values = {"missing": str(tmp_path / "missing.json"),
              "instance": str(ROOT / "instances" / "hybrid-deadline" / "small-02.json")}
    code = run([a.format(**values) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0]
