"""Platforms with their agent tree, from a TOML config, a GraphML file or a JSON file.

TOML (a generated tree)::

    name = "hundred-leaves"
    fanout = [10, 10]          # children per agent, level by level from the root
    [[leaves]]                 # leaf kinds, given in turn to the leaves, left to right
    type = "dedicated"
    cpus = 64
    [[leaves]]
    type = "cloud"
    cpus = 8
    price = 960
    max_vms = 32

``fanout = [10, 10]`` gives a root with 10 agents of 10 local schedulers
each (100 leaves); ``fanout = [100]`` is the flat broadcast. Leaves are
named ``<type>-<n>``, agents ``agent-<level>-<n>``.

GraphML: one node per agent or local scheduler, edges from parent to
child; scheduler nodes carry the resource fields (``type``, ``cpus``,
``price``, ...) as data keys, agents carry none (an optional ``kind`` of
``agent`` or ``scheduler`` is checked when present).

JSON: ``{"name": ..., "resources": [...], "tree": {"edges": [...]}}``, the
platform part of a ``malleable`` instance document (an instance file works
too; without a tree it gets the default one, one agent per resource type).

Every source goes through one validator, :func:`~hybridsched.malleable.tree.build_tree`,
and resources through the instance schema.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hybridsched.errors import InputError
from hybridsched.io.jsonio import describe_validation_error, read_json
from hybridsched.io.toml_lines import join_path, load_model, located
from hybridsched.malleable.files import platform_from_dict, resource_from_doc
from hybridsched.malleable.instance import AgentTree, Resource
from hybridsched.malleable.schema import ResourceDoc
from hybridsched.malleable.tree import ROOT, build_tree, default_tree

#: Most leaves a generated tree may have.
MAX_LEAVES = 100_000
#: Id a leaf kind is validated under (never shown: leaves get their own ids).
PLACEHOLDER = "leaf-kind"
#: Extensions read as each format.
FORMATS = {".toml": "toml", ".graphml": "graphml", ".xml": "graphml", ".json": "json"}


@dataclass(frozen=True)
class Platform:
    """Resources and the agent tree over them."""

    name: str
    resources: tuple[Resource, ...]
    tree: AgentTree


class _LeafKind(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    type: str
    cpus: Any = None
    performance: Any = None
    price: Any = None
    max_vms: Any = None
    spot_vms: Any = None
    on_demand_price: Any = None


class _TreeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: Annotated[str, Field(min_length=1)] = "tree"
    fanout: Annotated[list[Annotated[int, Field(ge=1, le=MAX_LEAVES)]],
                      Field(min_length=1, max_length=20)]
    leaves: Annotated[list[dict[str, Any]], Field(min_length=1)]


def load_platform(path: str | Path) -> Platform:
    """Read a platform with its tree from a ``.toml``, ``.graphml`` or ``.json`` file.

    Raises
    ------
    InputError
        One line naming the file (and the line or field, or the node).
    """
    kind = FORMATS.get(Path(path).suffix.lower())
    if Path(path).is_dir():
        raise InputError(f"{path}: is a folder, not a file")
    if kind is None:
        raise InputError(f"{path}: unknown tree format {Path(path).suffix or '(none)'!r} "
                         f"(use {', '.join(sorted(FORMATS))})")
    if kind == "toml":
        return _from_toml(path)
    if kind == "graphml":
        return _from_graphml(path)
    return _from_json(path)


def _resource(fields: dict[str, Any], rid: str, where: str) -> Resource:
    if "id" in fields:  # the id comes from the node or the leaf's position, never a field
        raise InputError(f"{where}: field id: not a field here (the resource is named "
                         f"{'by its node id' if rid != PLACEHOLDER else '<type>-<n>'})")
    try:
        doc = ResourceDoc.model_validate({**fields, "id": rid})
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, where)) from None
    return resource_from_doc(doc)


def _from_toml(path: str | Path) -> Platform:
    config, text = load_model(_TreeConfig, path)
    leaves = math.prod(config.fanout)
    if leaves > MAX_LEAVES:
        raise InputError(located(path, text, "fanout", f"{leaves} leaves, more than "
                                                       f"{MAX_LEAVES}"))
    kinds = []
    for k, fields in enumerate(config.leaves):
        try:
            kinds.append(_resource(fields, PLACEHOLDER, "leaves"))
        except InputError as exc:
            reason = (str(exc).split(": field ", 1)[-1].replace("(document): ", "")
                      .replace(f"resource {PLACEHOLDER!r}: ", ""))
            raise InputError(located(path, text, join_path("leaves", k), reason)) from None
    counters: dict[str, int] = {}
    resources = []
    for n in range(leaves):
        kind = kinds[n % len(kinds)]
        counters[kind.type.value] = counters.get(kind.type.value, 0) + 1
        rid = f"{kind.type.value}-{counters[kind.type.value]}"
        resources.append(Resource(rid, kind.type, kind.cpus, kind.performance, kind.price,
                                  kind.max_vms, kind.spot_vms, kind.on_demand_price))
    edges, level = [], [ROOT]
    for depth, fanout in enumerate(config.fanout):
        last = depth == len(config.fanout) - 1
        children = ([r.id for r in resources] if last else
                    [f"agent-{depth + 1}-{k + 1}" for k in range(len(level) * fanout)])
        edges += [(level[k // fanout], child) for k, child in enumerate(children)]
        level = children
    tree = build_tree(edges, [r.id for r in resources], str(path))
    return Platform(config.name, tuple(resources), tree)


def _from_graphml(path: str | Path) -> Platform:
    import networkx as nx

    from hybridsched.io.jsonio import read_bytes

    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
        graph = nx.parse_graphml(text)
    except (nx.NetworkXError, UnicodeDecodeError, ValueError, KeyError) as exc:
        raise InputError(f"{path}: invalid GraphML: {' '.join(str(exc).split())}") from None
    except Exception as exc:  # the XML parser's own errors (ParseError, ...)
        raise InputError(f"{path}: invalid GraphML: {exc.__class__.__name__}: "
                         f"{' '.join(str(exc).split())}") from None
    _unique_node_ids(text, path)
    if not graph.is_directed():
        raise InputError(f"{path}: the GraphML graph must be directed (parent -> child)")
    if graph.is_multigraph():
        parallel = next((u, v) for u, v, k in graph.edges(keys=True) if k != 0)
        raise InputError(f"{path}: edge {parallel[0]!r} -> {parallel[1]!r} is given twice")
    resources = []
    busy_agent: tuple[Any, list[str]] | None = None
    for node, attrs in graph.nodes(data=True):
        fields = {k: v for k, v in attrs.items() if k != "kind"}
        kind = attrs.get("kind")
        is_leaf = graph.out_degree(node) == 0
        if kind not in (None, "agent", "scheduler"):
            raise InputError(f"{path}: node {node!r}: kind must be agent or scheduler, got "
                             f"{kind!r}")
        if kind == "agent" and is_leaf:
            raise InputError(f"{path}: agent {node!r} has no children (every agent needs at "
                             "least one)")
        if kind == "scheduler" and not is_leaf:
            raise InputError(f"{path}: node {node!r} is a local scheduler (a leaf): it cannot "
                             "have children")
        if fields and not is_leaf and busy_agent is None:
            busy_agent = (node, sorted(fields))
        if is_leaf:
            if not fields:
                raise InputError(f"{path}: leaf {node!r} is not a local scheduler (no "
                                 "resource fields; every agent needs at least one child)")
            resources.append(_resource(fields, str(node), f"{path}: node {node!r}"))
    tree = build_tree(graph.edges, [r.id for r in resources], str(path))
    if busy_agent is not None:  # after the tree's own errors (in a cycle, every node has children)
        raise InputError(f"{path}: node {busy_agent[0]!r} has children, so it is an agent, but "
                         f"carries resource fields ({', '.join(busy_agent[1])})")
    return Platform(str(graph.graph.get("name") or Path(path).stem), tuple(resources), tree)


def _unique_node_ids(text: str, path: str | Path) -> None:
    """Refuse a node id declared twice (NetworkX would merge the two nodes silently)."""
    from xml.etree.ElementTree import fromstring

    seen: set[str] = set()
    for element in fromstring(text).iter():
        if element.tag.rsplit("}", 1)[-1] == "node":
            node = element.get("id", "")
            if node in seen:
                raise InputError(f"{path}: node {node!r} is declared twice (node ids, and so "
                                 "resource ids, must differ)")
            seen.add(node)


def _from_json(path: str | Path) -> Platform:
    name, resources, tree = platform_from_dict(read_json(path), str(path))
    return Platform(name or Path(path).stem, resources,
                    default_tree(resources) if tree is None else tree)
