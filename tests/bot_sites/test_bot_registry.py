from pathlib import Path

import pytest

from hybridsched import get_family, load_instance, methods, run_method
from hybridsched.bot_sites import lower_bound
from hybridsched.bot_sites.generator import generate
from hybridsched.result import Status

INSTANCES = Path(__file__).resolve().parents[2] / "instances" / "bot-sites"
NAMES = ["exact", "gmo", "g-met", "g-mct", "g-olb", "g-min-min", "g-max-min", "g-sufferage",
         "bound"]


def test_registered():
    assert list(methods("bot-sites")) == ["gmo", "g-met", "g-mct", "g-olb", "g-min-min",
                                          "g-max-min", "g-sufferage", "exact", "bound"]
    assert methods("bot-sites")["exact"].exact
    assert methods("bot-sites")["bound"].exact
    fam = get_family("bot-sites")
    assert fam.objective_name == "makespan"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("objective", ["makespan", "cost"])
def test_run_method_on_bundled(name, objective):
    _, inst = load_instance(INSTANCES / "small-lolo-c-2s-3b.json")
    result = run_method("bot-sites", name, inst, seed=3, objective=objective)
    assert result.status.has_solution and result.runtime_s > 0
    assert result.objective == result.metrics[objective]      # the optimised objective
    for key in ("cost", "aggregated_makespan", "jain_fairness", "efficiency",
                "bandwidth_ok", "storage_ok"):
        assert key in result.metrics
    assert result.metrics["makespan"] >= inst.reference["optimal_makespan"] * (1 - 1e-9)
    if objective == "cost" and name == "exact":
        assert result.status is Status.OPTIMAL
        assert result.objective == pytest.approx(inst.reference["optimal_cost"])
        assert result.bound == pytest.approx(inst.reference["optimal_cost"])


def test_reference_and_lower_bound():
    fam, inst = load_instance(INSTANCES / "gmo-table2-inconsistent.json")
    assert fam.reference(inst) == {"optimum": 23.0}
    assert 0 < lower_bound(inst) <= 23.0


def test_lower_bound_scales():
    inst = generate(sites=10, bots=10, seed=0)          # about 1.5 * 10^5 tasks
    assert inst.n_tasks > 100000
    bound = lower_bound(inst)
    gmo = run_method("bot-sites", "gmo", inst)
    assert 0 < bound <= gmo.objective


def test_hard_limit_violations_are_failures_not_crashes():
    inst = generate(sites=3, bots=4, tasks_per_bot=(20, 40), procs_per_site=(4, 8), seed=6,
                    communication=True, storage=True, hard_limits=True, tightness=0.2)
    statuses = {n: run_method("bot-sites", n, inst).status for n in NAMES if n != "exact"}
    assert statuses["gmo"] is Status.FEASIBLE
    assert set(statuses.values()) <= {Status.FEASIBLE, Status.NO_SOLUTION}
