"""Algorithm 4: any tree selects what the flat broadcast selects (total orders)."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.heuristics.malleable.agent_tree import (
    aggregate,
    choose,
    compile_tree,
    reduce_candidates,
    select,
    select_flat,
)
from hybridsched.malleable.candidates import Candidate


@st.composite
def trees(draw: st.DrawFn) -> tuple[nx.DiGraph, int]:
    """A random rooted tree whose leaves are local schedulers 0..m-1 (agents have children)."""
    leaves = draw(st.integers(1, 12))
    graph = nx.DiGraph()
    graph.add_node("a0")
    agents = ["a0"]
    for k in range(draw(st.integers(0, 6))):
        parent = draw(st.sampled_from(agents))
        graph.add_edge(parent, f"a{k + 1}")
        agents.append(f"a{k + 1}")
    for r in range(leaves):
        parent = draw(st.sampled_from(agents))
        graph.add_edge(parent, f"leaf{r}")
        graph.nodes[f"leaf{r}"]["resource"] = r
    # An agent without children would be invalid: give each such agent the leaf of a new
    # resource.
    extra = leaves
    for agent in agents:
        if graph.out_degree(agent) == 0:
            graph.add_edge(agent, f"leaf{extra}")
            graph.nodes[f"leaf{extra}"]["resource"] = extra
            extra += 1
    return graph, extra


# Few distinct values, so that ties are frequent and the tie-breaking order matters.
costs = st.sampled_from([0.0, 10.0, 10.0, 25.5, 40.0, 100.0])
ends = st.sampled_from([5, 10, 10, 20, 30])


@st.composite
def offers(draw: st.DrawFn, resources: int) -> dict[int, list[Candidate]]:
    out = {}
    for r in range(resources):
        count = draw(st.integers(0, 2))
        out[r] = [Candidate(job=0, resource=r, option=o, start=0, end=draw(ends),
                            cost=draw(costs), width=1, good=draw(st.booleans()))
                  for o in range(count)]
    return out


@settings(max_examples=300, deadline=None)
@given(data=st.data(), policy=st.sampled_from(["A", "B"]),
       budget=st.sampled_from([0.0, 10.0, 30.0]), deadline=st.sampled_from([0, 10, 25]))
def test_any_tree_selects_what_the_flat_broadcast_selects(data: st.DataObject, policy: str,
                                                          budget: float, deadline: int) -> None:
    graph, resources = data.draw(trees())
    leaf_offers = data.draw(offers(resources))
    tree = compile_tree(graph)
    chosen = select(tree, lambda r: leaf_offers[r], policy, budget, deadline)
    flat = select_flat([c for r in range(resources) for c in leaf_offers[r]], policy, budget,
                       deadline)
    assert chosen == flat
    everything = [c for r in range(resources) for c in leaf_offers[r]]
    if any(c.good for c in everything):
        assert chosen is not None and chosen.good
        assert chosen.cost == min(c.cost for c in everything if c.good)


def test_policies_pick_candidate1_and_candidate2() -> None:
    cheap_late = Candidate(0, 0, 0, 0, end=50, cost=10.0, width=1, good=False)
    dear_early = Candidate(0, 1, 0, 0, end=12, cost=90.0, width=1, good=False)
    sent = reduce_candidates([cheap_late, dear_early], budget=20.0, deadline=10)
    assert set(sent) == {cheap_late, dear_early}
    assert choose(sent, "A", 20.0, 10) == cheap_late   # least overspend (0)
    assert choose(sent, "B", 20.0, 10) == dear_early   # least overrun (2)


def test_good_candidate_wins_and_cheapest_good_goes_up() -> None:
    good_dear = Candidate(0, 0, 0, 0, end=5, cost=30.0, width=1, good=True)
    good_cheap = Candidate(0, 1, 0, 0, end=9, cost=20.0, width=1, good=True)
    bad = Candidate(0, 2, 0, 0, end=1, cost=0.0, width=1, good=False)
    assert reduce_candidates([good_dear, bad, good_cheap], 50.0, 10) == [good_cheap]


def test_ties_break_by_resource_then_option() -> None:
    a = Candidate(0, 3, 0, 0, end=5, cost=10.0, width=1, good=True)
    b = Candidate(0, 1, 1, 0, end=5, cost=10.0, width=1, good=True)
    c = Candidate(0, 1, 0, 0, end=5, cost=10.0, width=1, good=True)
    assert reduce_candidates([a, b, c], 50.0, 10) == [c]


def test_messages_and_critical_path() -> None:
    graph = nx.DiGraph([("root", "x"), ("root", "y"), ("x", "l0"), ("x", "l1"), ("x", "l2"),
                        ("y", "l3")])
    for r in range(4):
        graph.nodes[f"l{r}"]["resource"] = r
    tree = compile_tree(graph)
    assert tree.messages_per_decision == 2 * 6
    assert tree.critical_path == 2 + 3
    assert tree.depth == 2
    got = aggregate(tree, lambda r: [], 0.0, 0)
    assert got == []


def test_compile_rejects_a_forest() -> None:
    graph = nx.DiGraph([("a", "l0"), ("b", "l1")])
    with pytest.raises(ValueError):
        compile_tree(graph)
