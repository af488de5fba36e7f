"""Malleable on the command line, tree configs in three formats, and bad input of every kind.

Every bad input ends with exit code 2 and one line on standard error naming the
file, line, field, item or option, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import pytest

from hybridsched.errors import InputError
from hybridsched.malleable.tree_config import load_platform

ROOT = Path(__file__).resolve().parents[2]
TREES = ROOT / "examples" / "trees"
BATCH = ROOT / "instances" / "malleable" / "batch-04.json"
OTHER_FAMILY = ROOT / "instances" / "bot-sites" / "small-lolo-c-2s-3b.json"
GOOD = json.loads(BATCH.read_text())


def write(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_text(text)
    return str(path)


def instance(tmp: Path, change: Callable[[dict], object]) -> str:
    document = json.loads(json.dumps(GOOD))
    change(document)
    return write(tmp, "bad.json", json.dumps(document))


def set_job(field: str, value: object) -> Callable[[dict], object]:
    return lambda d: d["jobs"][1].__setitem__(field, value)


def set_resource(k: int, field: str, value: object) -> Callable[[dict], object]:
    return lambda d: d["resources"][k].__setitem__(field, value)


def tree(*edges: tuple[str, str]) -> Callable[[dict], object]:
    return lambda d: d.__setitem__("tree", {"edges": [list(e) for e in edges]})


ALL_LEAVES = [("root", "dedicated"), ("root", "alloc-1"), ("root", "alloc-2"),
              ("root", "cloud")]

TOML_GOOD = 'name = "t"\nfanout = [2, 2]\n[[leaves]]\ntype = "dedicated"\ncpus = 8\n'

BAD_CASES = {
    "cycle": (lambda t: ["simulate", "malleable", instance(t, tree(
        *ALL_LEAVES, ("a", "b"), ("b", "a")))], "cycle"),
    "cycle through the tree": (lambda t: ["simulate", "malleable", instance(t, tree(
        *ALL_LEAVES, ("root", "a"), ("a", "b"), ("b", "a")))], "two parents"),
    "leaf not a scheduler": (lambda t: ["simulate", "malleable", instance(t, tree(
        *ALL_LEAVES, ("root", "lonely")))], "'lonely'"),
    "resource with children": (lambda t: ["simulate", "malleable", instance(t, tree(
        *ALL_LEAVES, ("cloud", "x")))], "'cloud'"),
    "resource missing": (lambda t: ["simulate", "malleable", instance(t, tree(
        *ALL_LEAVES[:3]))], "'cloud'"),
    "two roots": (lambda t: ["simulate", "malleable", instance(t, tree(
        *ALL_LEAVES[:2], ("other", "alloc-2"), ("other", "cloud")))], "root"),
    "unknown type": (lambda t: ["simulate", "malleable", instance(
        t, set_resource(0, "type", "gpu"))], "resources.0.type"),
    "zero size": (lambda t: ["simulate", "malleable", instance(t, set_job("size", 0))],
                  "jobs.1.size"),
    "negative size": (lambda t: ["simulate", "malleable", instance(t, set_job("size", -4))],
                      "'j1'"),
    "huge size": (lambda t: ["simulate", "malleable", instance(t, set_job("size", 1e300))],
                  "jobs.1.size"),
    "size as text": (lambda t: ["simulate", "malleable", instance(t, set_job("size", "9"))],
                     "jobs.1.size"),
    "zero cpus": (lambda t: ["simulate", "malleable", instance(t, set_resource(1, "cpus", 0))],
                  "resources.1.cpus"),
    "huge cpus": (lambda t: ["simulate", "malleable", instance(
        t, set_resource(1, "cpus", 10**12))], "resources.1.cpus"),
    "negative budget": (lambda t: ["simulate", "malleable", instance(
        t, set_job("budget", -1))], "jobs.1.budget"),
    "deadline before arrival": (lambda t: ["simulate", "malleable", instance(
        t, lambda d: d["jobs"][1].update(arrival=50, deadline=10))], "before its arrival"),
    "amdahl 1": (lambda t: ["simulate", "malleable", instance(
        t, set_job("serial_fraction", 1.0))], "serial_fraction"),
    "amdahl negative": (lambda t: ["simulate", "malleable", instance(
        t, set_job("serial_fraction", -0.1))], "serial_fraction"),
    "priced dedicated": (lambda t: ["simulate", "malleable", instance(
        t, set_resource(0, "price", 3))], "dedicated"),
    "cloud without max_vms": (lambda t: ["simulate", "malleable", instance(
        t, lambda d: d["resources"][3].pop("max_vms"))], "max_vms"),
    "spot above max": (lambda t: ["simulate", "malleable", instance(
        t, set_resource(3, "spot_vms", 99))], "spot_vms"),
    "duplicate job": (lambda t: ["simulate", "malleable", instance(
        t, lambda d: d["jobs"][1].__setitem__("id", d["jobs"][0]["id"]))], "duplicate"),
    "missing file": (lambda t: ["simulate", "malleable", str(t / "nope.json")], "nope.json"),
    "malformed json": (lambda t: ["simulate", "malleable", write(t, "m.json", '{"jobs": [')],
                       "m.json"),
    "other family": (lambda t: ["simulate", "malleable", str(OTHER_FAMILY)], "bot-sites"),
    "file and options": (lambda t: ["simulate", "malleable", str(BATCH), "--jobs", "3"],
                         "--jobs"),
    "negative jobs": (lambda t: ["simulate", "malleable", "--jobs", "-1"], "--jobs"),
    "unknown mix": (lambda t: ["simulate", "malleable", "--mix", "huge"], "--mix"),
    "unknown policy": (lambda t: ["simulate", "malleable", "--policy", "C"], "--policy"),
    "unknown scheduler": (lambda t: ["simulate", "malleable", "--scheduler", "nope"],
                          "--scheduler"),
    "nan fraction": (lambda t: ["simulate", "malleable", "--serial-fraction", "nan"],
                     "--serial-fraction"),
    "fraction 1": (lambda t: ["generate", "malleable", "--serial-fraction", "1", "-o",
                              str(t / "x.json")], "--serial-fraction"),
    "output folder missing": (lambda t: ["simulate", "malleable", "--jobs", "3", "-o",
                                         str(t / "no" / "s.json")], "-o"),
    "same two outputs": (lambda t: ["simulate", "malleable", "--jobs", "3", "-o",
                                    str(t / "s.json"), "--save-instance",
                                    str(t / "s.json")], "same file"),
    "toml syntax": (lambda t: ["tree", write(t, "s.toml", 'fanout = [2\n')], "s.toml:"),
    "toml unknown key": (lambda t: ["tree", write(t, "u.toml", TOML_GOOD + "colour = 1\n")],
                         "colour"),
    "toml zero fanout": (lambda t: ["tree", write(t, "z.toml", TOML_GOOD.replace(
        "[2, 2]", "[0]"))], "fanout"),
    "toml too many leaves": (lambda t: ["tree", write(t, "m.toml", TOML_GOOD.replace(
        "[2, 2]", "[1000, 1000]"))], "leaves"),
    "toml bad leaf": (lambda t: ["tree", write(t, "l.toml", TOML_GOOD.replace(
        "cpus = 8", "cpus = 0"))], "leaves[0]"),
    "generate with a bad tree": (lambda t: ["generate", "malleable", "--tree", write(
        t, "g.toml", 'fanout = [2\n'), "-o", str(t / "x.json")], "g.toml"),
    "broken graphml": (lambda t: ["tree", write(t, "b.graphml", "<graphml><graph")],
                       "b.graphml"),
    "unknown tree format": (lambda t: ["tree", write(t, "x.txt", "")], ".txt"),
    "plot extension": (lambda t: ["tree", str(TREES / "paper.toml"), "-o",
                                  str(t / "x.unknownext")], "-o"),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_input_is_one_line_with_exit_code_2(case: str, tmp_path: Path, cli) -> None:
    make, fragment = BAD_CASES[case]
    code, _, err = cli(*make(tmp_path))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert fragment in lines[0], lines[0]


def test_generate_simulate_validate_and_draw(tmp_path: Path, cli) -> None:
    inst, sched = tmp_path / "i.json", tmp_path / "s.json"
    assert cli("generate", "malleable", "--jobs", "30", "--mix", "small", "--seed", "3",
               "-o", inst)[0] == 0
    code, out, _ = cli("simulate", "malleable", inst, "--scheduler", "flat", "--policy", "B",
                       "-o", sched, "--json")
    assert code == 0 and json.loads(out)["status"] == "feasible"
    assert cli("validate", inst, sched)[0] == 0
    assert cli("gantt", inst, sched, "-o", tmp_path / "g.png")[0] == 0
    first = tmp_path / "first.json"
    assert cli("simulate", "malleable", "--jobs", "25", "--seed", "4", "--tree",
               TREES / "paper.toml", "--save-instance", first, "-o", tmp_path / "a.json",
               "--scheduler", "round-robin")[0] == 0
    assert cli("simulate", "malleable", "--jobs", "25", "--seed", "4", "--tree",
               TREES / "paper.toml", "-o", tmp_path / "b.json",
               "--scheduler", "round-robin")[0] == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert cli("validate", first, tmp_path / "a.json")[0] == 0
    code, out, _ = cli("tree", TREES / "hundred-leaves.toml", "-o", tmp_path / "t.png")
    assert code == 0 and "100 local schedulers" in out and "220 messages" in out
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"


def test_validate_rejects_a_tampered_schedule(tmp_path: Path, cli) -> None:
    sched = tmp_path / "s.json"
    assert cli("simulate", "malleable", BATCH, "-o", sched)[0] == 0
    document = json.loads(sched.read_text())
    document["jobs"][0]["pieces"][0]["end"] += 1  # a minute more than the job needs
    sched.write_text(json.dumps(document))
    code, out, _ = cli("validate", BATCH, sched)
    assert code == 1 and "one minute less" in out


def test_the_three_tree_formats_give_the_same_platform(tmp_path: Path) -> None:
    toml = load_platform(TREES / "paper.toml")
    assert len(toml.resources) == 4 and toml.tree.root == "root"
    graph = nx.DiGraph()
    graph.add_edges_from(toml.tree.edges)
    for r in toml.resources:
        fields = {"type": r.type.value, "cpus": r.cpus, "price": r.price}
        if r.is_cloud:
            fields.update(max_vms=r.max_vms, spot_vms=r.spot_vms,
                          on_demand_price=r.on_demand_price)
        graph.nodes[r.id].update(kind="scheduler", **fields)
    for node in graph:
        graph.nodes[node].setdefault("kind", "agent")
    nx.write_graphml(graph, tmp_path / "p.graphml")
    from_graphml = load_platform(tmp_path / "p.graphml")
    assert set(from_graphml.resources) == set(toml.resources)
    assert set(from_graphml.tree.edges) == set(toml.tree.edges)
    from hybridsched.malleable.files import resource_to_doc

    (tmp_path / "p.json").write_text(json.dumps({
        "resources": [resource_to_doc(r) for r in toml.resources],
        "tree": {"edges": [list(e) for e in toml.tree.edges]}}))
    from_json = load_platform(tmp_path / "p.json")
    assert from_json.resources == toml.resources and from_json.tree == toml.tree


@pytest.mark.parametrize("edit, fragment", [
    (lambda g: g.add_edge("cloud-1", "root"), "cycle"),
    (lambda g: g.add_node("idle", kind="agent") or g.add_edge("root", "idle"), "no children"),
    (lambda g: g.add_edge("root", "bare"), "not a local scheduler"),
])
def test_graphml_errors_name_the_node(tmp_path: Path, edit, fragment: str) -> None:
    toml = load_platform(TREES / "paper.toml")
    graph = nx.DiGraph()
    graph.add_edges_from(toml.tree.edges)
    for r in toml.resources:
        graph.nodes[r.id].update(type=r.type.value, cpus=r.cpus)
        if r.is_cloud:
            graph.nodes[r.id]["max_vms"] = r.max_vms
    edit(graph)
    nx.write_graphml(graph, tmp_path / "bad.graphml")
    with pytest.raises(InputError, match=fragment) as caught:
        load_platform(tmp_path / "bad.graphml")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("name", ["paper.graphml", "paper.json"])
def test_the_example_tree_files_match_the_toml_config(name: str) -> None:
    toml = load_platform(TREES / "paper.toml")
    other = load_platform(TREES / name)
    assert set(other.resources) == set(toml.resources)
    assert set(other.tree.edges) == set(toml.tree.edges)
