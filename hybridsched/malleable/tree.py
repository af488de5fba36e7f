"""The agent tree: validation, the default and flat (star) trees, NetworkX view.

Agents are internal nodes; local schedulers (one per resource) are leaves,
named by their resource id. :func:`build_tree` is the one validator every
source of trees goes through (instance files, TOML configs, GraphML and JSON
files): one root, which is an agent; every node but the root with exactly
one parent; no cycles; every agent with at least one child; every leaf a
resource and every resource a leaf.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from hybridsched.errors import InputError
from hybridsched.malleable.instance import AgentTree, Resource

if TYPE_CHECKING:
    import networkx as nx

#: Name of the root agent of generated trees.
ROOT = "root"


def build_tree(edges: Iterable[tuple[str, str]], resource_ids: Sequence[str],
               source: str = "tree") -> AgentTree:
    """Validate ``(parent, child)`` edges and return the :class:`AgentTree`.

    Raises
    ------
    InputError
        One line naming ``source`` and the offending node.
    """
    edges = [(str(p), str(c)) for p, c in edges]
    resources = {r: i for i, r in enumerate(resource_ids)}
    parent: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    for p, c in edges:
        if p == c:
            raise InputError(f"{source}: cycle: node {p!r} is its own child")
        if c in parent and parent[c] != p:
            raise InputError(f"{source}: node {c!r} has two parents ({parent[c]!r} and {p!r}): "
                             "not a tree")
        if c in parent:
            raise InputError(f"{source}: edge {p!r} -> {c!r} is given twice")
        parent[c] = p
        children.setdefault(p, []).append(c)
    nodes = set(parent) | set(children)
    reaches_root: set[str] = set()
    for node in sorted(nodes):  # follow parents: a cycle comes back to a node of the walk
        walk, on_walk = [node], {node}
        while walk[-1] in parent and walk[-1] not in reaches_root:
            up = parent[walk[-1]]
            if up in on_walk:
                cycle = walk[walk.index(up):] + [up]
                raise InputError(f"{source}: cycle {' -> '.join(reversed(cycle))}")
            walk.append(up)
            on_walk.add(up)
        reaches_root.update(walk)  # each node is walked once: linear in the tree's size
    roots = sorted(n for n in nodes if n not in parent)
    if len(roots) != 1:
        raise InputError(f"{source}: a tree has one root, found {len(roots)} "
                         f"({', '.join(map(repr, roots[:5]))})")
    root = roots[0]
    for node in sorted(nodes):
        if node in resources and node in children:
            raise InputError(f"{source}: node {node!r} is a resource (a local scheduler, a "
                             "leaf): it cannot have children")
        if node not in resources and node not in children:
            raise InputError(f"{source}: leaf {node!r} is not a resource: every leaf must be "
                             "a local scheduler and every agent needs at least one child")
    missing = [r for r in resource_ids if r not in nodes]
    if missing:
        raise InputError(f"{source}: resource {missing[0]!r} is not a leaf of the tree")
    leaves = tuple((n, resources[n]) for n in _preorder(root, children) if n in resources)
    return AgentTree(root=root, edges=tuple(edges), leaves=leaves)


def _preorder(root: str, children: dict[str, list[str]]) -> list[str]:
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(children.get(node, [])))
    return order


def free_name(wanted: str, taken: set[str]) -> str:
    """``wanted``, or ``wanted_``, ``wanted__``, ... : the first name not in ``taken``."""
    name = wanted
    while name in taken:
        name += "_"
    return name


def star_tree(resources: Sequence[Resource]) -> AgentTree:
    """The flat broadcast: one root agent with every local scheduler as a child.

    The root is named :data:`ROOT`, or ``root_`` ... when a resource is.
    """
    ids = [r.id for r in resources]
    root = free_name(ROOT, set(ids))
    return build_tree([(root, r) for r in ids], ids)


def default_tree(resources: Sequence[Resource]) -> AgentTree:
    """One agent per resource type under the root (used when an instance has no tree).

    Agents are named ``<type>-agent`` and the root :data:`ROOT`; a name a
    resource already has gets underscores appended, so any resource ids work.
    """
    ids = [r.id for r in resources]
    taken = set(ids)
    root = free_name(ROOT, taken)
    taken.add(root)
    edges = []
    for kind in dict.fromkeys(r.type.value for r in resources):
        agent = free_name(f"{kind}-agent", taken)
        taken.add(agent)
        edges.append((root, agent))
        edges += [(agent, r.id) for r in resources if r.type.value == kind]
    return build_tree(edges, ids)


def to_digraph(tree: AgentTree, resources: Sequence[Resource]) -> nx.DiGraph:
    """The tree as a NetworkX ``DiGraph``: ``kind`` is ``"agent"`` or ``"scheduler"``.

    Scheduler nodes also carry ``resource`` (the index), ``type`` and ``cpus``.
    """
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_edges_from(tree.edges)
    for node in graph.nodes:
        graph.nodes[node]["kind"] = "agent"
    for node, index in tree.leaves:
        r = resources[index]
        graph.nodes[node].update(kind="scheduler", resource=index, type=r.type.value,
                                 cpus=r.cpus)
    return graph
