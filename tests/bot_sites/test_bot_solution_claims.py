"""Block counts that could wrap around, and the summary a solution file states (issue 6
items 4 and 9)."""

import copy
import json

import numpy as np
import pytest

from hybridsched import get_family
from hybridsched.bot_sites import files
from hybridsched.bot_sites.checker import check
from hybridsched.bot_sites.generator import table2_inconsistent
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.errors import InputError
from hybridsched.heuristics.bot_sites.greedy import g_min_min
from hybridsched.storage import save_instance, save_solution

BIG = 2**64 + 5


def five_task_instance():
    return Instance("five", ("a",), ("s",), [5], [3], [0.0], [[1.0]])


def test_counts_that_sum_past_int64_are_rejected():
    # 2**63 - 1 + 2**63 - 1 + 7 == 2**64 + 5, which int64 sums wrap to 5: the old checker
    # accepted this schedule of "5" tasks.
    inst = five_task_instance()
    sol = Solution([0, 0, 0], [0, 0, 0], [0, 1, 2], [2**63 - 1, 2**63 - 1, 7], [0, 0, 0])
    problems = check(inst, sol)
    assert any("exceeds the 5 tasks of BoT a" in p for p in problems), problems


@pytest.mark.parametrize("count", [BIG, np.uint64(2**63 + 5), 2.5, True, float("inf")])
def test_solution_refuses_counts_that_do_not_convert_exactly(count):
    with pytest.raises(ValueError, match="solution count"):
        Solution([0], [0], [0], np.array([count], dtype=object), [0.0])


def document(sol, inst):
    return files.solution_to_dict(sol, inst, method="test")


def test_solution_file_with_a_huge_count_is_bad_input():
    inst = five_task_instance()
    doc = document(Solution([0], [0], [0], [5], [0.0]), inst)
    doc["blocks"][0]["count"] = BIG
    with pytest.raises(InputError, match=r"blocks\.0\.count") as err:
        files.solution_from_dict(doc, inst, "s.json")
    assert "\n" not in str(err.value)
    doc["blocks"][0]["count"] = 6      # fits int64, but more than the BoT has
    with pytest.raises(InputError, match="more than the 5 tasks of BoT 'a'"):
        files.solution_from_dict(doc, inst, "s.json")


def test_stated_summary_is_checked():
    inst = table2_inconsistent()
    doc = document(g_min_min(inst), inst)
    assert check(inst, files.solution_from_dict(doc, inst)) == []
    for field, value in (("makespan", 22.0), ("cost", 1.0)):
        wrong = copy.deepcopy(doc)
        wrong[field] = value
        problems = check(inst, files.solution_from_dict(wrong, inst))
        assert problems == [f"reported {field} {value!r} != recomputed "
                            f"{doc[field]!r}"], problems
    within = copy.deepcopy(doc)
    within["makespan"] = doc["makespan"] * (1 + 1e-12)            # float noise passes
    assert check(inst, files.solution_from_dict(within, inst)) == []
    bare = copy.deepcopy(doc)
    del bare["makespan"], bare["cost"]                            # nothing stated: fine
    assert check(inst, files.solution_from_dict(bare, inst)) == []
    for bad in ("23", True, None):
        odd = copy.deepcopy(doc)
        odd["makespan"] = bad
        if bad is None:
            assert files.solution_from_dict(odd, inst).reported_makespan is None
        else:
            with pytest.raises(InputError, match="field makespan"):
                files.solution_from_dict(odd, inst)


def test_validate_rejects_a_wrong_summary(tmp_path, cli):
    fam = get_family("bot-sites")
    inst = table2_inconsistent()
    save_instance(tmp_path / "i.json", fam, inst)
    save_solution(tmp_path / "s.json", fam, inst, g_min_min(inst), method="g-min-min")
    assert cli("validate", tmp_path / "i.json", tmp_path / "s.json")[0] == 0
    doc = json.loads((tmp_path / "s.json").read_text())
    doc["makespan"] = 20.0
    (tmp_path / "s.json").write_text(json.dumps(doc))
    code, out, err = cli("validate", tmp_path / "i.json", tmp_path / "s.json")
    assert code == 1 and "reported makespan 20.0" in out + err
    doc["blocks"][0]["count"] = BIG
    (tmp_path / "s.json").write_text(json.dumps(doc))
    code, out, err = cli("validate", tmp_path / "i.json", tmp_path / "s.json")
    assert code == 2 and "Traceback" not in out + err
