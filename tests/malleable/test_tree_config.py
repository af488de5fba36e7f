"""Platforms with their agent tree from TOML configs, GraphML and JSON files.

Errors are one line naming the file and the line (TOML), the node (GraphML) or the
field (JSON), as :class:`InputError`.
"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest

from hybridsched.errors import InputError
from hybridsched.heuristics.malleable.agent_tree import compile_tree
from hybridsched.malleable import files, generator
from hybridsched.malleable.instance import ResourceType
from hybridsched.malleable.tree import to_digraph
from hybridsched.malleable.tree_config import MAX_LEAVES, load_platform

ROOT = Path(__file__).resolve().parents[2]
TREES = ROOT / "examples" / "trees"
BATCH = ROOT / "instances" / "malleable" / "batch-04.json"


def depth(platform) -> int:
    return compile_tree(to_digraph(platform.tree, platform.resources)).depth


def load_error(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_platform(path)
    message = str(caught.value)
    assert "\n" not in message, message
    assert message.startswith(str(path)), message
    return message


# -- the bundled configs ------------------------------------------------------------------

def test_paper_toml() -> None:
    platform = load_platform(TREES / "paper.toml")
    assert platform.name == "paper"
    assert [r.id for r in platform.resources] == ["dedicated-1", "allocated-1",
                                                   "allocated-2", "cloud-1"]
    assert [r.type for r in platform.resources] == [
        ResourceType.DEDICATED, ResourceType.ALLOCATED, ResourceType.ALLOCATED,
        ResourceType.CLOUD]
    cloud = platform.resources[3]
    assert (cloud.cpus, cloud.price, cloud.max_vms, cloud.spot_vms, cloud.on_demand_price) \
        == (8, 960, 32, 16, 1440)
    assert platform.tree.root == "root"
    assert platform.tree.edges == (
        ("root", "agent-1-1"), ("root", "agent-1-2"), ("agent-1-1", "dedicated-1"),
        ("agent-1-1", "allocated-1"), ("agent-1-2", "allocated-2"),
        ("agent-1-2", "cloud-1"))
    assert [n for n, _ in platform.tree.leaves] == [r.id for r in platform.resources]
    assert depth(platform) == 2


def test_hundred_leaves_toml() -> None:
    platform = load_platform(TREES / "hundred-leaves.toml")
    assert platform.name == "hundred-leaves" and len(platform.resources) == 100
    assert len(platform.tree.edges) == 10 + 100
    assert len({r.id for r in platform.resources}) == 100
    kinds = [r.type for r in platform.resources]
    assert kinds.count(ResourceType.DEDICATED) == 25
    assert kinds.count(ResourceType.ALLOCATED) == 50
    assert kinds.count(ResourceType.CLOUD) == 25
    children = platform.tree.children()
    assert len(children["root"]) == 10
    assert all(len(children[a]) == 10 for a in children["root"])
    assert depth(platform) == 2


def test_a_flat_toml_is_a_star(tmp_path: Path) -> None:
    path = tmp_path / "flat.toml"
    path.write_text('fanout = [5]\n[[leaves]]\ntype = "allocated"\ncpus = 4\nprice = 2\n')
    platform = load_platform(path)
    assert platform.name == "tree" and len(platform.resources) == 5
    assert all(p == "root" for p, _ in platform.tree.edges) and depth(platform) == 1
    assert [r.id for r in platform.resources] == [f"allocated-{k}" for k in range(1, 6)]


# -- GraphML and JSON -----------------------------------------------------------------------

def graph() -> nx.DiGraph:
    g = nx.DiGraph(name="hand")
    g.add_node("root", kind="agent")
    g.add_node("clusters", kind="agent")
    g.add_node("ded", kind="scheduler", type="dedicated", cpus=16)
    g.add_node("alloc", type="allocated", cpus=8, price=1.5, performance=2.0)
    g.add_node("cloud", kind="scheduler", type="cloud", cpus=4, price=100.0, max_vms=3,
               spot_vms=1, on_demand_price=150.0)
    g.add_edges_from([("root", "clusters"), ("clusters", "ded"), ("clusters", "alloc"),
                      ("root", "cloud")])
    return g


def test_graphml_loads(tmp_path: Path) -> None:
    path = tmp_path / "hand.graphml"
    nx.write_graphml(graph(), path)
    platform = load_platform(path)
    assert platform.name == "hand"
    by_id = {r.id: r for r in platform.resources}
    assert set(by_id) == {"ded", "alloc", "cloud"}
    assert by_id["alloc"].performance == 2.0 and by_id["alloc"].price == 1.5
    assert (by_id["cloud"].max_vms, by_id["cloud"].spot_vms,
            by_id["cloud"].on_demand_price) == (3, 1, 150.0)
    assert platform.tree.root == "root"
    assert set(platform.tree.edges) == {("root", "clusters"), ("clusters", "ded"),
                                        ("clusters", "alloc"), ("root", "cloud")}
    assert depth(platform) == 2


def test_graphml_with_xml_extension_and_no_name(tmp_path: Path) -> None:
    g = graph()
    del g.graph["name"]
    path = tmp_path / "plat.xml"
    nx.write_graphml(g, path)
    assert load_platform(path).name == "plat"


def test_json_platform_file(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps({
        "name": "jp",
        "resources": [{"id": "d", "type": "dedicated", "cpus": 4},
                      {"id": "c", "type": "cloud", "cpus": 2, "price": 60, "max_vms": 2}],
        "tree": {"edges": [["root", "d"], ["root", "c"]]}}))
    platform = load_platform(path)
    assert platform.name == "jp" and [r.id for r in platform.resources] == ["d", "c"]
    assert platform.resources[1].spot_vms == 2 and platform.resources[1].on_demand_price == 60
    assert platform.tree.leaves == (("d", 0), ("c", 1))


def test_a_malleable_instance_file_with_a_tree_works_as_json(tmp_path: Path) -> None:
    paper = load_platform(TREES / "paper.toml")
    instance = generator.generate(5, "small", seed=1, resources=paper.resources,
                                  tree=paper.tree)
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(files.instance_to_dict(instance)))
    platform = load_platform(path)
    assert platform.resources == paper.resources and platform.tree == paper.tree
    assert platform.name == instance.name


def test_a_malleable_instance_file_without_a_tree() -> None:
    platform = load_platform(BATCH)
    assert len(platform.resources) == 4 and len(platform.tree.leaves) == 4


# -- errors ---------------------------------------------------------------------------------

GOOD_TOML = 'name = "t"\nfanout = [2, 2]\n\n[[leaves]]\ntype = "dedicated"\ncpus = 8\n'


# A bad leaf kind is located at its ``[[leaves]]`` header (line 4 of GOOD_TOML).
@pytest.mark.parametrize("text, fragments", [
    ('name = "t"\nfanout = [2\n', (":2:", "invalid TOML")),
    ('name = "t"\nfanout = [2, 2]\nname = "u"\n', (":3:", "invalid TOML")),
    ('name = "t"\ncolour = 1\n' + GOOD_TOML.split("\n", 1)[1], (":2:", "colour")),
    (GOOD_TOML.replace("cpus = 8", "cpus = 8\nshape = 1"), (":4:", "leaves[0]", "shape")),
    (GOOD_TOML.replace("[2, 2]", "[0]"), (":2:", "fanout[0]")),
    (GOOD_TOML.replace("[2, 2]", "[2, 0]"), (":2:", "fanout[1]")),
    (GOOD_TOML.replace("[2, 2]", "[]"), (":2:", "fanout")),
    (GOOD_TOML.replace("[2, 2]", '"two"'), (":2:", "fanout")),
    (GOOD_TOML.replace("[2, 2]", "[1000, 1000]"), (":2:", "1000000 leaves", str(MAX_LEAVES))),
    (GOOD_TOML.replace("[2, 2]", f"[{MAX_LEAVES + 1}]"), (":2:", "fanout")),
    (GOOD_TOML.replace('"dedicated"', '"gpu"'), (":4:", "leaves[0]", "type")),
    (GOOD_TOML.replace("cpus = 8", "cpus = 0"), (":4:", "leaves[0]", "cpus")),
    (GOOD_TOML.replace("cpus = 8", "cpus = true"), (":4:", "leaves[0]", "cpus")),
    (GOOD_TOML.replace("cpus = 8", 'cpus = "8"'), (":4:", "leaves[0]", "cpus")),
    (GOOD_TOML + '\n[[leaves]]\ntype = "dedicated"\ncpus = 8\nprice = 2\n',
     ("leaves[1]", "price")),
    (GOOD_TOML + '\n[[leaves]]\ntype = "cloud"\ncpus = 4\n', ("leaves[1]", "max_vms")),
    ('name = "t"\nfanout = [2]\nleaves = []\n', (":3:", "leaves")),
    ('name = "t"\n[[leaves]]\ntype = "dedicated"\ncpus = 8\n', ("fanout",)),
])
def test_toml_errors_name_file_and_line(tmp_path: Path, text: str,
                                        fragments: tuple[str, ...]) -> None:
    path = tmp_path / "cfg.toml"
    path.write_text(text)
    message = load_error(path)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_a_toml_leaf_kind_error_does_not_name_a_placeholder(tmp_path: Path) -> None:
    path = tmp_path / "cfg.toml"
    path.write_text(GOOD_TOML + '\n[[leaves]]\ntype = "cloud"\ncpus = 4\n')
    message = load_error(path)
    assert "'x'" not in message and "(document)" not in message, message


def write_graph(path: Path, g: nx.Graph) -> Path:
    nx.write_graphml(g, path)
    return path


def with_cycle(g: nx.DiGraph) -> None:
    g.add_edge("clusters", "root")


def with_childless_agent(g: nx.DiGraph) -> None:
    g.add_node("idle", kind="agent")
    g.add_edge("root", "idle")


def with_bare_leaf(g: nx.DiGraph) -> None:
    g.add_edge("root", "bare")


def with_bad_leaf_type(g: nx.DiGraph) -> None:
    g.add_node("gpu", type="gpu", cpus=2)
    g.add_edge("root", "gpu")


def with_zero_cpus(g: nx.DiGraph) -> None:
    g.nodes["ded"]["cpus"] = 0


def with_scheduler_with_children(g: nx.DiGraph) -> None:
    g.add_node("sub", type="dedicated", cpus=1)
    g.add_edge("ded", "sub")


def with_two_roots(g: nx.DiGraph) -> None:
    g.add_node("other", kind="agent")
    g.add_node("solo", type="dedicated", cpus=1)
    g.add_edge("other", "solo")


def with_unknown_kind(g: nx.DiGraph) -> None:
    g.nodes["ded"]["kind"] = "robot"


def with_priced_dedicated(g: nx.DiGraph) -> None:
    g.nodes["ded"]["price"] = 2.0


@pytest.mark.parametrize("edit, fragments", [
    (with_cycle, ("cycle", "root", "clusters")),
    (with_childless_agent, ("'idle'", "no children")),
    (with_bare_leaf, ("'bare'", "not a local scheduler")),
    (with_bad_leaf_type, ("node 'gpu'", "type")),
    (with_zero_cpus, ("node 'ded'", "cpus")),
    (with_scheduler_with_children, ("'ded'", "cannot have children")),
    (with_two_roots, ("one root", "'other'")),
    (with_unknown_kind, ("node 'ded'", "robot")),
    (with_priced_dedicated, ("node 'ded'", "price")),
])
def test_graphml_errors_name_the_node(tmp_path: Path, edit, fragments: tuple[str, ...]
                                      ) -> None:
    g = graph()
    edit(g)
    message = load_error(write_graph(tmp_path / "bad.graphml", g))
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_undirected_graphml_is_refused(tmp_path: Path) -> None:
    message = load_error(write_graph(tmp_path / "und.graphml", nx.Graph(graph())))
    assert "directed" in message


@pytest.mark.parametrize("content", [b"<graphml><graph", b"not xml at all", b"",
                                     b"\xff\xfe\x00<"])
def test_broken_xml_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.graphml"
    path.write_bytes(content)
    assert "invalid GraphML" in load_error(path)


@pytest.mark.parametrize("name", ["tree.txt", "tree", "tree.yaml"])
def test_unknown_extension(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("fanout = [2]\n")
    message = load_error(path)
    assert "unknown tree format" in message and ".toml" in message


@pytest.mark.parametrize("name", ["missing.toml", "missing.graphml", "missing.json"])
def test_missing_file(tmp_path: Path, name: str) -> None:
    assert "no such file" in load_error(tmp_path / name)


@pytest.mark.parametrize("document, fragments", [
    ({"resources": [{"id": "d", "type": "dedicated", "cpus": 4}],
      "tree": {"edges": [["root", "e"]]}}, ("field tree", "'e'")),
    ({"resources": [{"id": "d", "type": "dedicated", "cpus": 0}],
      "tree": {"edges": [["root", "d"]]}}, ("field resources.0", "cpus")),
    ({"resources": [{"type": "dedicated", "cpus": 4}],
      "tree": {"edges": [["root", "d"]]}}, ("field resources.0",)),
    ({"resources": [], "tree": {"edges": [["root", "d"]]}}, ("field resources",)),
    ({"resources": [{"id": "d", "type": "dedicated", "cpus": 4}],
      "tree": {"edges": [["d", "d"]]}}, ("field tree", "cycle")),
    ([1, 2], ("JSON object",)),
])
def test_json_platform_errors(tmp_path: Path, document, fragments: tuple[str, ...]) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(document))
    message = load_error(path)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_malformed_json_platform(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"resources": [')
    assert "malformed JSON" in load_error(path)
