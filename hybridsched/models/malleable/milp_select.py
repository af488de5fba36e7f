"""Candidate selection of one decision as a small MILP (PuLP, solved by HiGHS).

Binary ``z_c`` per candidate of every leaf, ``sum z_c = 1``; the policy is a
lexicographic objective solved in stages, each stage keeping only choices
as good as its optimum:

1. the number of bad candidates chosen (a good candidate wins if any);
2. with a good candidate: cost, end, resource index, option;
   policy A: budget overspend ``(cost - budget)+``, end, cost, resource, option;
   policy B: deadline overrun ``(end - deadline)+``, cost, end, resource, option.

These are the total orders of :mod:`hybridsched.malleable.candidates`, so the
model selects what Algorithm 4 selects through any tree; it is the exact
reference the tests hold the agent tree to, decision by decision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pulp

from hybridsched.malleable.candidates import Candidate

#: Tolerance of a stage's optimum when it constrains the next stages.
STAGE_TOLERANCE = 1e-9


def stages(policy: str, budget: float, deadline: int, any_good: bool
           ) -> list[Callable[[Candidate], float]]:
    """Objective coefficients of each stage after the first (good before bad)."""
    ident: list[Callable[[Candidate], float]] = [lambda c: c.resource, lambda c: c.option]
    if any_good:
        return [lambda c: c.cost, lambda c: c.end, *ident]
    if policy == "A":
        return [lambda c: max(c.cost - budget, 0.0), lambda c: c.end, lambda c: c.cost, *ident]
    return [lambda c: max(c.end - deadline, 0), lambda c: c.cost, lambda c: c.end, *ident]


def select_by_milp(candidates: Sequence[Candidate], policy: str, budget: float,
                   deadline: int) -> Candidate | None:
    """The candidate the lexicographic MILP selects (``None`` without candidates)."""
    if not candidates:
        return None
    problem = pulp.LpProblem("candidate_selection", pulp.LpMinimize)
    z = [problem.add_variable(f"z{k}", cat="Binary") for k in range(len(candidates))]
    problem += pulp.lpSum(z) == 1, "one_choice"
    solver = pulp.HiGHS(msg=False, threads=1)

    def stage(coefficients: list[float], name: str) -> float:
        expression = pulp.lpSum(a * v for a, v in zip(coefficients, z, strict=True))
        problem.setObjective(expression)
        problem.solve(solver)
        if pulp.LpStatus[problem.status] != "Optimal":
            raise RuntimeError(f"candidate selection: HiGHS ended {pulp.LpStatus[problem.status]}")
        best = float(pulp.value(expression))
        problem.addConstraint(expression <= best + STAGE_TOLERANCE * max(1.0, abs(best)), name)
        return best

    bad = stage([0.0 if c.good else 1.0 for c in candidates], "stage_good")
    keys = stages(policy, budget, deadline, any_good=bad < 0.5)
    for k, key in enumerate(keys):
        stage([float(key(c)) for c in candidates], f"stage_{k}")
    chosen = [c for c, v in zip(candidates, z, strict=True) if (v.value() or 0.0) > 0.5]
    return chosen[0]
