import copy
import json
from pathlib import Path

import numpy as np
import pytest

from hybridsched import get_family, load_instance
from hybridsched.bot_sites import files
from hybridsched.bot_sites.generator import generate, table2_inconsistent
from hybridsched.errors import InputError
from hybridsched.heuristics.bot_sites.greedy import g_min_min
from hybridsched.io.etc import parse_etc, read_etc
from hybridsched.storage import load_solution, save_instance, save_solution
from tests.library_files import instance_files

INSTANCES = Path(__file__).resolve().parents[2] / "instances" / "bot-sites"

BASE = {
    "format": "hybridsched-instance", "version": 1, "family": "bot-sites", "name": "x",
    "sites": [{"id": "A", "procs": 2, "price": 0.5}, {"id": "B", "procs": 1}],
    "bots": [{"id": "t1", "tasks": 3, "etc": [1, 2]},
             {"id": "t2", "tasks": 2, "etc": {"A": 3, "B": 1}}],
    "edges": [["t1", "t2"]],
}


def doc(**changes):
    d = copy.deepcopy(BASE)
    d.update(changes)
    return d


def test_valid_document():
    inst = files.instance_from_dict(doc(), "f.json")
    assert inst.n_bots == 2 and inst.n_sites == 2 and inst.n_procs == 3
    assert inst.compute.tolist() == [[1, 2], [3, 1]]
    assert inst.edges.tolist() == [[0, 1]]
    assert not inst.compute.flags.writeable


@pytest.mark.parametrize("change, fragment", [
    ({"bots": [{"id": "t1", "tasks": 3, "etc": [1, 2, 3]}]}, "bots.0.etc: ragged"),
    ({"bots": [{"id": "t1", "tasks": 3, "etc": {"A": 1, "C": 2}}]}, "unknown site 'C'"),
    ({"bots": [{"id": "t1", "tasks": -3, "etc": [1, 2]}]}, "field bots.0.tasks"),
    ({"bots": [{"id": "t1", "tasks": 3, "etc": [0, 2]}]}, "field bots.0.etc"),
    ({"sites": [{"id": "A", "procs": -1}]}, "field sites.0.procs"),
    ({"edges": [["t1", "t2"], ["t2", "t1"]]}, "cyclic dependencies"),
    ({"edges": [["t1", "zz"]]}, "edges.0.1: unknown BoT 'zz'"),
    ({"surprise": 1}, "field surprise"),
    ({"sites": [{"id": "A", "procs": 1}, {"id": "A", "procs": 1}]}, "duplicate id 'A'"),
])
def test_bad_documents_name_the_field(change, fragment):
    with pytest.raises(InputError) as err:
        files.instance_from_dict(doc(**change), "bad.json")
    message = str(err.value)
    assert message.startswith("bad.json: ") and fragment in message
    assert "\n" not in message


def test_round_trip_with_optional_data(tmp_path):
    inst = generate(sites=3, bots=4, tasks_per_bot=(2, 5), procs_per_site=(1, 3), seed=3,
                    communication=True, storage=True, hard_limits=True, dependency=0.5)
    path = tmp_path / "i.json"
    fam = get_family("bot-sites")
    save_instance(path, fam, inst)
    _, back = load_instance(path)
    for name in ("tasks", "procs", "price", "compute", "edges", "data", "bandwidth",
                 "site_bandwidth", "storage", "storage_limit", "p"):
        np.testing.assert_array_equal(getattr(back, name), getattr(inst, name))
    assert back.hard_limits and back.bot_ids == inst.bot_ids


def test_solution_round_trip(tmp_path):
    inst = table2_inconsistent()
    fam = get_family("bot-sites")
    sol = g_min_min(inst)
    path = tmp_path / "s.json"
    save_solution(path, fam, inst, sol, method="g-min-min")
    document = json.loads(path.read_text())
    assert document["family"] == "bot-sites" and document["makespan"] == 23.0
    back = load_solution(path, fam, inst)
    assert fam.check(inst, back) == []
    assert fam.evaluate(inst, back).objective == 23.0
    document["blocks"][0]["site"] = "nowhere"
    with pytest.raises(InputError, match=r"blocks\.0\.site: unknown site"):
        files.solution_from_dict(document, inst, "s.json")


@pytest.mark.parametrize("name", [str(p.relative_to(INSTANCES))
                                  for p in instance_files("bot-sites", "tiny", "small")])
def test_bundled_instances_load(name):
    fam, inst = load_instance(INSTANCES / name)
    assert fam.name == "bot-sites"
    assert "optimum" in fam.reference(inst)
    # Within float noise: the bound's sums may round a last bit above an optimum it meets.
    assert fam.lower_bound(inst) <= fam.reference(inst)["optimum"] * (1 + 1e-12)


def test_etc_reader(tmp_path):
    path = tmp_path / "tiny.etc"
    path.write_text("3 2 0\n1.5\n2\n3\n4\n5\n6\n")
    inst = read_etc(path)
    assert inst.compute.tolist() == [[1.5, 2], [3, 4], [5, 6]]
    assert inst.tasks.tolist() == [1, 1, 1] and inst.procs.tolist() == [1, 1]
    assert inst.price.tolist() == [0, 0]
    path.write_text("2 2 0\n1 2\n3 4\n")            # one task per line also accepted
    assert read_etc(path).compute.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("text, fragment", [
    ("2 2 0\n1\n2\n3\n", "f:4: ragged matrix: 3 values"),
    ("2 2 0\n1\n2\n3\n4\n5\n", "f:6: more than n * m"),
    ("2 2 0\n1\n-2\n3\n4\n", "f:3: execution time must be positive"),
    ("2 2 0\n1\nabc\n3\n4\n", "f:3: not a number: 'abc'"),
    ("2 2 0\n1 2 3\n", "f:2: ragged row"),
    ("two 2 0\n", "f:1: header"),
    ("", "f: empty file"),
])
def test_etc_errors_are_one_line(text, fragment):
    with pytest.raises(InputError) as err:
        parse_etc(text, "f")
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_etc_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_etc(tmp_path / "nope")
