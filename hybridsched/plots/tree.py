"""Drawing of an agent tree (``hybridsched tree CONFIG -o tree.png``).

A layered drawing: the root on top, leaves evenly spaced at the bottom,
each agent centred over its children. Local schedulers are coloured by
resource type; above 60 leaves their labels are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hybridsched.malleable.instance import AgentTree, Resource

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Colours of local schedulers by resource type, and of agents.
COLOURS = {"dedicated": "#4c72b0", "allocated": "#55a868", "cloud": "#dd8452",
           "agent": "#8c8c8c"}
#: Above this many leaves, node labels are left out.
MAX_LABELLED_LEAVES = 60


def layout(tree: AgentTree) -> dict[str, tuple[float, float]]:
    """``node -> (x, y)``: leaves at x = 0, 1, 2, ... in tree order, y = -depth."""
    children = tree.children()
    pos: dict[str, tuple[float, float]] = {}
    next_leaf = 0.0

    # Post-order without recursion (trees may be deep).
    stack: list[tuple[str, int, bool]] = [(tree.root, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        kids = children.get(node, [])
        if not kids:
            pos[node] = (next_leaf, -depth)
            next_leaf += 1
        elif done:
            xs = [pos[c][0] for c in kids]
            pos[node] = ((min(xs) + max(xs)) / 2, -depth)
        else:
            stack.append((node, depth, True))
            stack.extend((c, depth + 1, False) for c in reversed(kids))
    return pos


def plot_tree(tree: AgentTree, resources: Sequence[Resource], title: str = "") -> Figure:
    """Draw ``tree``; leaves coloured by the type of their resource."""
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    pos = layout(tree)
    kinds = {name: resources[index].type.value for name, index in tree.leaves}
    leaves = len(tree.leaves)
    depth = -min(y for _, y in pos.values())
    figure = Figure(figsize=(min(max(6.0, leaves * 0.35), 24.0), 1.6 + 1.3 * depth))
    axes = figure.add_subplot()
    # One artist for all edges and one per kind of node: an artist per node took minutes
    # for 10^4 leaves (configs may have 10^5).
    axes.add_collection(LineCollection([(pos[p], pos[c]) for p, c in tree.edges],
                                       colors="#bbbbbb", linewidths=0.8, zorder=1))
    by_kind: dict[str, list[tuple[float, float]]] = {}
    for node, xy in pos.items():
        by_kind.setdefault(kinds.get(node, "agent"), []).append(xy)
    for kind, points in by_kind.items():
        xs, ys = zip(*points, strict=True)
        axes.scatter(xs, ys, s=140 if kind == "agent" else 90, color=COLOURS[kind],
                     marker="s" if kind == "agent" else "o", zorder=2)
    labelled = leaves <= MAX_LABELLED_LEAVES
    for node, (x, y) in pos.items():
        kind = kinds.get(node, "agent")
        if labelled or kind == "agent" and y == 0:
            axes.annotate(node, (x, y), xytext=(0, -11 if kind != "agent" else 9),
                          textcoords="offset points", ha="center", fontsize=7,
                          rotation=90 if kind != "agent" and leaves > 12 else 0,
                          va="top" if kind != "agent" else "bottom")
    handles = [Line2D([], [], marker="s" if k == "agent" else "o", linestyle="", color=c,
                      label=k if k == "agent" else f"{k} cluster" if k != "cloud" else k)
               for k, c in COLOURS.items() if k == "agent" or k in kinds.values()]
    axes.legend(handles=handles, loc="upper right", fontsize=8, frameon=False)
    agents = len({p for p, _ in tree.edges})
    axes.set_title(title or f"{agents} agents, {leaves} local schedulers, depth {depth}")
    axes.set_axis_off()
    axes.margins(0.05, 0.25)
    figure.tight_layout()
    return figure
