"""Algorithm 4: scheduling agents aggregate candidates up a tree (NetworkX ``DiGraph``).

Each agent broadcasts the job to its children and gathers their lists. If
some candidate is good, it sends the cheapest good one up; otherwise it
sends candidate1 (least budget overspend, then earliest end) and
candidate2 (least deadline overrun, then cheapest) - one candidate when
they are the same. The root's caller takes the good candidate, or
candidate1 under policy A (money saving) or candidate2 under policy B (time
saving). The flat broadcast is the star graph.

With the total orders of :mod:`hybridsched.malleable.candidates` (each key
ends with the resource index and option), every reduction is an argmin of
a total order over a union of its children's argmins, so any tree selects
exactly what the flat broadcast selects (a property test checks it).

Messages: every decision sends the job down each edge and one reply up each
edge (``2 * edges``); the paper's ``O(mn)`` is the critical path, the sum of
the fan-outs along the deepest chain of agents (:attr:`CompiledTree.critical_path`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hybridsched.malleable.candidates import Candidate, budget_key, deadline_key, good_key

if TYPE_CHECKING:
    import networkx as nx

    from hybridsched.malleable.instance import AgentTree

#: The two policies of the paper.
POLICIES = ("A", "B")


@dataclass(frozen=True)
class CompiledTree:
    """A validated agent tree in index form, for fast aggregation.

    ``children[v]`` lists node ``v``'s children; ``resource[v]`` is the
    resource index of a leaf (-1 for agents); ``postorder`` visits children
    before parents and ends with the root.
    """

    names: tuple[str, ...]
    children: tuple[tuple[int, ...], ...]
    resource: tuple[int, ...]
    postorder: tuple[int, ...]
    root: int

    @property
    def n_edges(self) -> int:
        """Number of parent-child links."""
        return len(self.names) - 1

    @property
    def messages_per_decision(self) -> int:
        """Job broadcasts down plus replies up, one of each per edge."""
        return 2 * self.n_edges

    @property
    def critical_path(self) -> int:
        """Largest sum of fan-outs from the root to a leaf (the paper's ``O(mn)``)."""
        best = [0] * len(self.names)
        for v in self.postorder:
            kids = self.children[v]
            if kids:
                best[v] = len(kids) + max(best[c] for c in kids)
        return best[self.root]

    @property
    def depth(self) -> int:
        """Largest number of edges from the root to a leaf."""
        depth = [0] * len(self.names)
        for v in self.postorder:
            if self.children[v]:
                depth[v] = 1 + max(depth[c] for c in self.children[v])
        return depth[self.root]


def compile_tree(graph: nx.DiGraph) -> CompiledTree:
    """Index form of a tree built by :func:`hybridsched.malleable.tree.to_digraph`.

    Leaves must carry their ``resource`` index; children keep the graph's order.
    """
    names = list(graph.nodes)
    index = {n: i for i, n in enumerate(names)}
    children = tuple(tuple(index[c] for c in graph.successors(n)) for n in names)
    resource = tuple(int(graph.nodes[n].get("resource", -1)) if not children[index[n]]
                     else -1 for n in names)
    roots = [index[n] for n in names if graph.in_degree(n) == 0]
    return _compiled(names, children, resource, roots)


def compile_agent_tree(tree: AgentTree) -> CompiledTree:
    """:func:`compile_tree` of ``to_digraph(tree, ...)``, straight from the edges.

    The same nodes in the same order (first appearance in the edges, as the
    ``DiGraph`` adds them) and the same children, without importing NetworkX
    (a large share of a short command's start-up).
    """
    index: dict[str, int] = {}
    kids: list[list[int]] = []
    has_parent: list[bool] = []
    for parent, child in tree.edges:
        for node in (parent, child):
            if node not in index:
                index[node] = len(index)
                kids.append([])
                has_parent.append(False)
        kids[index[parent]].append(index[child])
        has_parent[index[child]] = True
    names = list(index)
    leaf_resource = dict(tree.leaves)
    children = tuple(map(tuple, kids))
    resource = tuple(int(leaf_resource.get(n, -1)) if not children[i] else -1
                     for i, n in enumerate(names))
    roots = [i for i in range(len(names)) if not has_parent[i]]
    return _compiled(names, children, resource, roots)


def _compiled(names: list, children: tuple[tuple[int, ...], ...], resource: tuple[int, ...],
              roots: list[int]) -> CompiledTree:
    if len(roots) != 1:
        raise ValueError(f"an agent tree has one root, not {len(roots)}")
    post: list[int] = []
    stack = [(roots[0], False)]
    while stack:
        v, expanded = stack.pop()
        if expanded:
            post.append(v)
        else:
            stack.append((v, True))
            stack.extend((c, False) for c in reversed(children[v]))
    return CompiledTree(tuple(map(str, names)), children, resource, tuple(post), roots[0])


def reduce_candidates(hosts: Sequence[Candidate], budget: float, deadline: int
                      ) -> list[Candidate]:
    """What one agent sends up for the candidates ``hosts`` it gathered."""
    good = [h for h in hosts if h.good]
    if good:
        return [min(good, key=good_key)]
    if not hosts:
        return []
    first = min(hosts, key=lambda h: budget_key(h, budget))
    second = min(hosts, key=lambda h: deadline_key(h, deadline))
    return [first] if first == second else [first, second]


def choose(sent: Sequence[Candidate], policy: str, budget: float, deadline: int
           ) -> Candidate | None:
    """The caller's pick among the root's list: good, else policy A or B."""
    if not sent:
        return None
    good = [c for c in sent if c.good]
    if good:
        return min(good, key=good_key)
    if policy == "A":
        return min(sent, key=lambda c: budget_key(c, budget))
    return min(sent, key=lambda c: deadline_key(c, deadline))


def aggregate(tree: CompiledTree, offers: Callable[[int], list[Candidate]], budget: float,
              deadline: int) -> list[Candidate]:
    """Run Algorithm 4 bottom-up; ``offers(resource)`` gives a leaf's list."""
    sent: list[list[Candidate]] = [[] for _ in tree.names]
    for v in tree.postorder:
        kids = tree.children[v]
        if not kids:
            sent[v] = offers(tree.resource[v])
            continue
        sent[v] = reduce_candidates([c for k in kids for c in sent[k]], budget, deadline)
    return sent[tree.root]


def select(tree: CompiledTree, offers: Callable[[int], list[Candidate]], policy: str,
           budget: float, deadline: int) -> Candidate | None:
    """The candidate the tree selects under ``policy`` (``None``: no leaf offered any)."""
    return choose(aggregate(tree, offers, budget, deadline), policy, budget, deadline)


def select_flat(offers: Sequence[Candidate], policy: str, budget: float, deadline: int
                ) -> Candidate | None:
    """What the flat broadcast selects from every leaf's candidates at once."""
    return choose(reduce_candidates(offers, budget, deadline), policy, budget, deadline)
