"""Issue 6 item 9: every claim a solution file states is checked."""

import json
from pathlib import Path

import pytest

from hybridsched import load_instance, run_method
from hybridsched.catalogue import get_family
from hybridsched.hybrid_deadline.files import solution_from_dict, solution_to_dict

INSTANCES = Path(__file__).resolve().parents[2] / "instances"

SMALL = INSTANCES / "hybrid-deadline" / "small-08.json"


@pytest.fixture(scope="module")
def solved():
    family, instance = load_instance(SMALL)
    result = run_method(family.name, "cdf", instance)
    document = solution_to_dict(result.solution, instance, method="cdf",
                                objective=result.objective)
    assert len(document["vms"]) >= 2, "the test needs two rented VMs"
    return family, instance, document


def violations(family, instance, document):
    return family.check(instance, solution_from_dict(document, instance))


def test_written_solution_states_true_claims(solved):
    family, instance, document = solved
    assert violations(family, instance, document) == []
    assert document["makespan"] > 0


def test_understated_lease_is_caught_when_another_vm_omits_its_claim(solved):
    family, instance, document = solved
    doc = json.loads(json.dumps(document))
    del doc["vms"][0]["lease_hours"]
    doc["vms"][1]["lease_hours"] = 0
    found = violations(family, instance, doc)
    assert any("VM 1" in v and "lease hours" in v for v in found), found


@pytest.mark.parametrize("field", ["cost", "makespan"])
def test_wrong_summary_is_caught(solved, field):
    family, instance, document = solved
    doc = dict(document, **{field: document[field] * 0.5})
    if field == "cost":
        doc.pop("objective")
    found = violations(family, instance, doc)
    assert any(f"reported {field}" in v for v in found), found


def test_objective_alone_is_read_as_a_cost_claim(solved):
    family, instance, document = solved
    doc = dict(document, objective=0.0)
    doc.pop("cost")
    found = violations(family, instance, doc)
    assert any("reported cost" in v for v in found), found


def test_objective_contradicting_cost_is_bad_input(solved):
    from hybridsched.errors import InputError

    _, instance, document = solved
    with pytest.raises(InputError, match="field objective"):
        solution_from_dict(dict(document, objective=document["cost"] + 1), instance, "s.json")


def test_family_round_trip_uses_the_same_rule(solved):
    family, instance, document = solved
    assert get_family("hybrid-deadline") is family
    solution = family.solution_from_dict(document, instance, "s.json")
    assert solution.reported_makespan == pytest.approx(document["makespan"])
