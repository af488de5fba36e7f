"""Cost-makespan Pareto fronts of bot-sites instances (epsilon-constraint method).

The front is computed with the exact model of
:mod:`hybridsched.models.bot_makespan`, one model re-solved with different
caps:

1. minimum makespan ``C1``, then minimum cost among schedules with makespan
   ``<= C1``: the first non-dominated point;
2. repeatedly, minimum makespan with cost ``<=`` the previous point's cost
   minus a relative step :data:`COST_STEP` (``1e-4``: well above HiGHS's
   feasibility tolerance, below any meaningful cost difference), then minimum
   cost at that makespan;
3. until the cost reaches its global minimum (every task on a cheapest site).

Each point is *proven* when both of its solves were optimal on an
unrestricted model (no DAG, no hard limits); with a time limit the front is
a set of feasible, possibly dominated, points. Heuristics' (makespan, cost)
points are computed with the family checker and overlaid on the plot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hybridsched.bot_sites.checker import evaluate
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.models import bot_makespan
from hybridsched.models.bot_bounds import min_cost
from hybridsched.models.highs import solve_with_highs
from hybridsched.result import Status

#: Relative decrease of the cost cap between successive points of the front.
COST_STEP = 1e-4


@dataclass(frozen=True)
class ParetoPoint:
    """One point of the front: checked makespan and cost of its schedule."""

    makespan: float
    cost: float
    proven: bool
    solution: Solution = field(repr=False)


@dataclass(frozen=True)
class ParetoReport:
    """A front and the heuristics' points, ready to print, save or plot."""

    instance: str
    front: list[ParetoPoint]
    heuristics: dict[str, tuple[float, float]]
    complete: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (schedules left out)."""
        return {
            "instance": self.instance,
            "complete": self.complete,
            "front": [{"makespan": p.makespan, "cost": p.cost, "proven": p.proven}
                      for p in self.front],
            "heuristics": {name: {"makespan": ms, "cost": c}
                           for name, (ms, c) in self.heuristics.items()},
        }


def _solve(bm: bot_makespan.BotModel, time_limit: float | None) -> tuple[bool, bool]:
    """Solve the model as set up; return (has incumbent, proven optimal)."""
    try:
        out = solve_with_highs(bm.model, time_limit=time_limit, mip_rel_gap=1e-6,
                               warm_start=True)
    except RuntimeError:  # numerical trouble without incumbent: end the front here
        return False, False
    if out.status is Status.INFEASIBLE:
        return False, True
    proven = out.status is Status.OPTIMAL and not bot_makespan._restricted(bm.instance)
    return out.has_incumbent, proven


def pareto_front(instance: Instance, *, time_limit: float | None = None,
                 max_points: int = 50, start: Solution | None = None) -> tuple[
                     list[ParetoPoint], bool]:
    """Non-dominated (makespan, cost) points by the epsilon-constraint method.

    Parameters
    ----------
    instance:
        A small instance (the model has one integer per BoT and processor).
    time_limit:
        Seconds per MILP solve (``None``: no limit).
    max_points:
        Stop after this many points.
    start:
        A schedule to warm-start the first solve.

    Returns
    -------
    points, complete
        Points by increasing makespan (decreasing cost), and whether the
        front reached the minimum cost with every solve proven optimal.
    """
    horizon = bot_makespan._horizon(instance, None)
    bm = bot_makespan.build(instance, horizon=horizon)
    if start is not None:
        bot_makespan.warm_start(bm, start)
    floor = min_cost(instance)
    points: list[ParetoPoint] = []
    complete = True
    cost_cap: float | None = None
    while len(points) < max_points:
        bot_makespan.set_objective(bm, "makespan", cost_cap=cost_cap)
        found, proven_a = _solve(bm, time_limit)
        if not found:
            complete = complete and proven_a
            break
        first = bot_makespan.extract(bm)
        span = evaluate(instance, first).objective
        bot_makespan.set_objective(bm, "cost", makespan_cap=span * (1 + 1e-7) + 1e-9,
                                   cost_cap=cost_cap)
        found, proven_b = _solve(bm, time_limit)
        solution = bot_makespan.extract(bm) if found else first
        ev = evaluate(instance, solution)
        point = ParetoPoint(ev.objective, float(ev.metrics["cost"]), proven_a and proven_b,
                            solution)
        complete = complete and point.proven
        if points and point.cost >= points[-1].cost - 1e-12:
            break                                  # no progress (solver tolerances)
        points.append(point)
        if point.cost <= floor * (1 + 1e-9) + 1e-9:
            break
        cost_cap = point.cost - COST_STEP * max(1.0, point.cost)
    else:
        complete = False
    return points, complete


def heuristic_points(instance: Instance, names: list[str] | None = None,
                     cost_variants: bool = True) -> dict[str, tuple[float, float]]:
    """(makespan, cost) of each heuristic of the family, recomputed by the checker.

    With ``cost_variants`` the cost-driven variants are added as ``NAME/cost``.
    """
    from hybridsched.registry import methods

    registered = methods("bot-sites")
    names = names or [n for n, m in registered.items() if not m.exact]
    out: dict[str, tuple[float, float]] = {}
    for name in names:
        for objective in ("makespan", "cost") if cost_variants else ("makespan",):
            solution = registered[name].func(instance, objective=objective)
            ev = evaluate(instance, solution)
            label = name if objective == "makespan" else f"{name}/cost"
            out[label] = (ev.objective, float(ev.metrics["cost"]))
    return out


def pareto_report(instance: Instance, *, time_limit: float | None = None,
                  max_points: int = 50, cost_variants: bool = True) -> ParetoReport:
    """The exact front and every heuristic's point (what ``hybridsched pareto`` prints)."""
    from hybridsched.bot_sites.methods import best_start

    heur = heuristic_points(instance, cost_variants=cost_variants)
    front, complete = pareto_front(instance, time_limit=time_limit, max_points=max_points,
                                   start=best_start(instance))
    return ParetoReport(instance.name, front, heur, complete)


def plot_pareto(report: ParetoReport, path: str | Path | None = None, ax: Any = None) -> Any:
    """Plot the front (staircase) with each heuristic's point; save to ``path`` if given.

    Returns the matplotlib ``Axes``.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    xs = [p.makespan for p in report.front]
    ys = [p.cost for p in report.front]
    if xs:
        ax.step(xs, ys, where="post", color="black", lw=1, alpha=0.6)
        ax.plot(xs, ys, "ko", label="exact front" + ("" if report.complete else " (partial)"))
    markers = "s^vD<>pPX*hH+x1234"
    for n, (name, (ms, c)) in enumerate(sorted(report.heuristics.items())):
        ax.plot([ms], [c], markers[n % len(markers)], label=name, alpha=0.85)
    ax.set_xlabel("makespan")
    ax.set_ylabel("cost (Eq. 6)")
    ax.set_title(f"Pareto front: {report.instance}")
    ax.legend(fontsize="x-small", ncol=2)
    ax.grid(alpha=0.3)
    if path is not None:
        ax.figure.tight_layout()
        ax.figure.savefig(path, dpi=120)
    return ax
