"""Tasks that cannot share a core: cliques for the hybrid-deadline CP-SAT model's LP.

Two tasks ``i`` and ``j`` on one core run one after the other from time 0,
so the later one ends at ``W_i + W_j`` work units at the earliest; they can
share a core of a given capacity only if that fits the later one's deadline
limit in one of the two orders, i.e. ``W_i + W_j <= max(L_i, L_j)``. When
not, they *conflict* on every core of that capacity, and of a set of
pairwise conflicting tasks (a clique) each core holds at most one.

The no-overlap constraints imply this, but only once the placements are
fixed; stated as ``at most one`` rows, the LP relaxation sees it too. Tight
tasks (a deadline close to the run time, e.g. ``alpha = 1`` tasks, which
only start at time 0 on a 2 GHz PM core) form large cliques: with one row
per core, the LP knows that at most one of them runs on each such core and
the rest go elsewhere, where the energy rows alone let it split them.
"""

from __future__ import annotations

#: Cliques kept per capacity (the largest first), so the model stays linear in size.
MAX_CLIQUES = 64


def conflict_cliques(work: list[int], limit: list[int], tasks: list[int]) -> list[list[int]]:
    """Maximal sets of pairwise conflicting ``tasks`` (at least two each), largest first.

    Parameters
    ----------
    work, limit:
        ``W_i`` and the deadline limit ``L_i`` of every task on the cores of
        one capacity (work units).
    tasks:
        The tasks that fit on such a core alone.

    Greedy: one clique grown from each task in turn (candidates by latest
    start ``L - W``, the tightest first), duplicates dropped. Every set
    returned is a clique (exactly tested), not necessarily a maximum one.
    """
    order = sorted(tasks, key=lambda i: (limit[i] - work[i], i))

    def conflict(i: int, j: int) -> bool:
        return work[i] + work[j] > max(limit[i], limit[j])

    neighbours = {i: {j for j in order if j != i and conflict(i, j)} for i in order}
    found: dict[frozenset[int], list[int]] = {}
    for seed in order:
        if not neighbours[seed]:
            continue
        clique = [seed]
        candidates = neighbours[seed]
        for j in order:
            if j in candidates:
                clique.append(j)
                candidates = candidates & neighbours[j]
        if len(clique) > 1:
            found.setdefault(frozenset(clique), clique)
    ranked = sorted(found.values(), key=lambda c: (-len(c), sorted(c)))
    return ranked[:MAX_CLIQUES]
