"""The Pareto report of a bot-sites instance: the exact front and every heuristic's point.

What ``hybridsched pareto`` prints (and, through
:func:`hybridsched.plots.pareto.plot_pareto`, draws): the front of
:func:`hybridsched.models.bot_sites.milp_pareto.pareto_front` and the (makespan, cost)
point of each heuristic of the family, recomputed by the family checker.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from hybridsched.bot_sites.checker import check, evaluate
from hybridsched.bot_sites.instance import Instance
from hybridsched.budget import TimeBudget
from hybridsched.models.bot_sites.milp_pareto import OnPoint, ParetoPoint, pareto_front


@dataclass(frozen=True)
class ParetoReport:
    """A front and the heuristics' points, ready to print, save or plot."""

    instance: str
    front: list[ParetoPoint]
    heuristics: dict[str, tuple[float, float]]
    complete: bool
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (schedules left out; every number is finite)."""
        return {
            "instance": self.instance,
            "complete": self.complete,
            "reason": self.reason,
            "front": [{"makespan": p.makespan, "cost": p.cost, "proven": p.proven}
                      for p in self.front],
            "heuristics": {name: {"makespan": _finite(ms), "cost": _finite(c)}
                           for name, (ms, c) in self.heuristics.items()},
        }


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def heuristic_points(instance: Instance, names: list[str] | None = None,
                     cost_variants: bool = True) -> dict[str, tuple[float, float]]:
    """(makespan, cost) of each heuristic of the family, recomputed by the checker.

    With ``cost_variants`` the cost-driven variants are added as ``NAME/cost``.
    Heuristics that build no valid schedule (e.g. they ignore hard limits, a
    :class:`~hybridsched.errors.MethodFailedError`) are left out.
    """
    from hybridsched.errors import MethodFailedError
    from hybridsched.registry import methods

    registered = methods("bot-sites")
    names = names or [n for n, m in registered.items() if not m.exact]
    out: dict[str, tuple[float, float]] = {}
    for name in names:
        for objective in ("makespan", "cost") if cost_variants else ("makespan",):
            try:
                solution = registered[name].func(instance, objective=objective)
            except MethodFailedError:
                continue
            if check(instance, solution):
                continue
            ev = evaluate(instance, solution)
            label = name if objective == "makespan" else f"{name}/cost"
            out[label] = (ev.objective, float(ev.metrics["cost"]))
    return out


def pareto_report(instance: Instance, *, time_limit: float | None = None,
                  max_points: int = 50, cost_variants: bool = True,
                  on_point: OnPoint | None = None) -> ParetoReport:
    """The exact front and every heuristic's point (what ``hybridsched pareto`` prints).

    ``time_limit`` bounds the whole report (heuristics and front);
    ``max_points`` and ``on_point`` are passed to :func:`pareto_front`.
    """
    if max_points < 1:
        raise ValueError(f"max_points must be at least 1, got {max_points}")
    budget = TimeBudget(time_limit)
    heur = heuristic_points(instance, cost_variants=cost_variants)
    front = pareto_front(instance, max_points=max_points, on_point=on_point, budget=budget)
    return ParetoReport(instance.name, front.points, heur, front.complete, front.reason)
