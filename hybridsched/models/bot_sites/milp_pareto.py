"""Cost-makespan Pareto fronts of bot-sites instances (epsilon-constraint method).

The front is computed with the exact model of
:mod:`hybridsched.models.bot_sites.milp_build`, one model re-solved with different
caps, from the cheap end to the fast end:

1. ``B``: minimum cost among schedules with makespan *strictly* below the
   previous point's makespan ``C_j`` (no cap for the first point);
2. ``A``: minimum makespan among schedules whose cost is at most the cost
   found by ``B``: the next non-dominated point ``(C_{j+1}, cost_{j+1})``;
3. until ``B`` is infeasible: no schedule is faster than the last point.

With ``max_points`` the cheapest points are kept. The solves get no MIP
start: with a start and the tight tolerances of
:data:`~hybridsched.models.solvers.highs.SOLVER_TOL`, HiGHS 1.15 was seen to stop at
a wrong "optimum" on a tiny DAG instance.

Why a front marked complete holds *every* non-dominated pair
--------------------------------------------------------------
The strict inequality of step ``B`` is where a fixed step skips points (the
old code lowered a cost cap by a relative ``1e-4``, so two front points whose
costs were closer than that collapsed into one). Here the strict side is the
makespan, because its achievable values can be listed: without a DAG the
makespan of a left-shifted schedule is the load of one processor, a sum
``sum_k p[k, i] * a_k`` with ``0 <= a_k <= tasks[k]`` (with a DAG or
resource limits, a sum of task times along a chain, ``a[k, i] <= tasks[k]``).
:mod:`~hybridsched.models.bot_sites.pareto_values` lists that (super)set exactly, so
``"makespan < C_j"`` becomes ``"makespan <= (prev + C_j) / 2"`` where
``prev`` is the largest achievable value below ``C_j``. This cap keeps every
schedule faster than ``C_j`` and excludes ``C_j`` by half the true gap,
whatever the gap: no step can skip a point (if the solver still returns a
schedule of makespan ``C_j``, within its tolerance, the cap ``prev`` itself
is tried, then the front is declared incomplete). Likewise step ``A``'s cost cap
sits halfway to the next achievable cost (costs are sums of one composition
cost per BoT, enumerated the same way), so the solver's feasibility
tolerance can never admit a costlier schedule unnoticed.

Every model's feasible set therefore *contains* the schedules it must
consider, so HiGHS's bounds and infeasibility proofs hold for the real
problem. Each incumbent is read back and re-checked by the family checker
(:func:`~hybridsched.bot_sites.checker.check`, :func:`evaluate`); a schedule
that breaks a cap (sub-tolerance violation) stops the claim of completeness.
A solve counts as *proven* when HiGHS proves it optimal (relative and
absolute MIP gaps 0) and no achievable value lies between its bound (less
the proof resolution :data:`PROOF_REL` / :data:`PROOF_ABS`, tied to the
solver tolerance) and the checker's value of the incumbent. A front is
complete when every point is proven, the last ``B`` is proven infeasible,
the model is exact for the instance (not the static approximation of hard
limits, see :func:`~hybridsched.models.bot_sites.milp_build.restricted`) and both
value sets could be enumerated (at most
:data:`~hybridsched.models.bot_sites.pareto_values.ENUM_LIMIT` partial sums per
half). Otherwise ``complete`` is false and ``reason`` says why: time limit,
``max_points``, restricted model, numerical trouble, or resolution (values
too close, or too many of them, to certify).

Interpretations: values that differ by less than :data:`NOISE_REL`
(relative) are the same value (the checker's float sums cannot tell them
apart); a schedule's makespan is that of its left-shifted version (the model
never delays a task). The checker judges real times (its snap window never
shortens a run nor lets two overlap), so no schedule it accepts is shorter
than the exact schedule of the same blocks: none lies beyond the front.

The heuristics' points beside the front, and the report that ``hybridsched
pareto`` prints, are in :mod:`hybridsched.models.bot_sites.pareto_report`; drawing
a front is :func:`hybridsched.plots.pareto.plot_pareto`'s job.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from hybridsched.bot_sites.checker import check, evaluate
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.models.bot_sites.milp_build import (
    BotModel,
    build,
    horizon_for,
    restricted,
    set_objective,
)
from hybridsched.models.bot_sites.milp_schedule import extract
from hybridsched.models.bot_sites.pareto_values import ValueSet, cost_values, makespan_values
from hybridsched.models.solvers.highs import SOLVER_TOL, SolveOutcome, solve_with_highs
from hybridsched.result import Status

#: Values closer than this (relative) are the same value: sums of non-negative
#: floats computed in different orders differ by far less.
NOISE_REL = 1e-11

#: Relative resolution of HiGHS's optimality proofs: the true optimum is taken
#: to be at least ``bound - PROOF_REL * |bound| - PROOF_ABS``.
PROOF_REL = 1e-7

#: Absolute resolution of HiGHS's proofs (its tolerances are absolute).
PROOF_ABS = 100 * SOLVER_TOL

#: Relative makespan step used when the achievable makespans cannot be listed.
FALLBACK_STEP = 1e-7

#: ``on_point(index, makespan, cost)``: called after each point is found.
OnPoint = Callable[[int, float, float], None]


@dataclass(frozen=True)
class ParetoPoint:
    """One point of the front: checked makespan and cost of its schedule.

    ``proven``: both solves behind the point were proven optimal for the real
    problem (see the module docstring).
    """

    makespan: float
    cost: float
    proven: bool
    solution: Solution = field(repr=False)


@dataclass(frozen=True)
class ParetoFront:
    """Points by increasing makespan, whether they are the whole front, and why not.

    ``reason`` is ``None`` when ``complete``; otherwise one line per cause,
    joined by ``"; "``, each starting with ``time limit``, ``max_points``,
    ``restricted model``, ``numerical trouble`` or ``resolution``.
    """

    points: list[ParetoPoint]
    complete: bool
    reason: str | None = None


def _noise(value: float) -> float:
    return NOISE_REL * abs(value)


def _resolution(bound: float) -> float:
    return PROOF_REL * abs(bound) + PROOF_ABS


# --- the epsilon-constraint search ----------------------------------------------------


@dataclass
class _Step:
    """One solve read back: the outcome and the checked schedule (if any)."""

    outcome: SolveOutcome
    solution: Solution | None = None
    makespan: float = math.nan
    cost: float = math.nan
    valid: bool = False
    cap: float | None = None        # the makespan cap it was solved under


def _certify(values: ValueSet | None, outcome: SolveOutcome, value: float, what: str
             ) -> str | None:
    """Why ``value`` (checked) is not proven minimal by ``outcome``; ``None`` if it is.

    ``what`` names the criterion (``"costs"``, ``"makespans"``) for the message.
    """
    if outcome.status is not Status.OPTIMAL or outcome.bound is None:
        return f"numerical trouble: HiGHS did not prove optimality ({outcome.status.value}" + (
            f": {outcome.message})" if outcome.message else ")")
    if values is None:                     # trust HiGHS at its resolution only
        if value <= outcome.bound + _resolution(outcome.bound):
            return None
    elif not values.any_in(outcome.bound - _resolution(outcome.bound),
                           value - _noise(value)):
        return None
    return (f"resolution: achievable {what} closer to an optimum than HiGHS can prove "
            f"(relative {PROOF_REL:g}, absolute {PROOF_ABS:g})")


class _Search:
    """State of one front computation (see :func:`pareto_front`)."""

    def __init__(self, instance: Instance, budget: TimeBudget, on_point: OnPoint | None):
        self.instance = instance
        self.budget = budget
        self.on_point = on_point
        self.points: list[ParetoPoint] = []
        self.reasons: list[str] = []
        self.restricted = bool(restricted(instance))

    def why(self, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)

    def solve(self, bm: BotModel) -> _Step | None:
        """Solve as set up, read the incumbent back and check it; ``None``: stop."""
        try:
            # No MIP start: with a start and tight tolerances HiGHS 1.15 can stop at a
            # wrong "optimum" (seen on a tiny DAG instance: 8.03 instead of 5.873).
            outcome = solve_with_highs(bm.model, mip_rel_gap=0.0, warm_start=False,
                                       budget=self.budget, options={"mip_abs_gap": 0.0})
        except BudgetExpired:
            self.why(self.time_reason())
            return None
        except RuntimeError as exc:        # HiGHS stopped with an error and no schedule
            self.why(f"numerical trouble: {exc}")
            return None
        step = _Step(outcome)
        if outcome.has_incumbent:
            solution = extract(bm)
            ev = evaluate(self.instance, solution)
            step.solution, step.makespan = solution, float(ev.metrics["makespan"])
            step.cost = float(ev.metrics["cost"])
            step.valid = not check(self.instance, solution)
            if not step.valid:
                self.why("numerical trouble: a solver schedule fails the checker")
        if outcome.status is Status.TIME_LIMIT:
            self.why(self.time_reason())
        return step

    def time_reason(self) -> str:
        seconds = self.budget.seconds
        if seconds is None:                 # HiGHS stopped on an iteration limit
            return "time limit: the solver stopped on an iteration limit"
        return f"time limit ({seconds:g} s) reached"

    def add(self, makespan: float, cost: float, proven: bool, solution: Solution) -> None:
        self.points.append(ParetoPoint(makespan, cost, proven and not self.restricted,
                                       solution))
        if self.on_point is not None:
            self.on_point(len(self.points) - 1, makespan, cost)

    def strict_caps(self, span: float, spans: ValueSet | None) -> list[float]:
        """Makespan caps that keep every schedule faster than ``span`` and exclude it.

        The first is halfway between ``span`` and the largest achievable value
        below it; the second (tried when the solver breaks the first within
        its tolerance) is that value itself, as far from ``span`` as a cap can be.
        """
        if spans is None:
            self.why("resolution: too many achievable makespans to list; the step "
                     f"{FALLBACK_STEP:g} (relative) may skip points")
            return [span - max(FALLBACK_STEP * span, PROOF_ABS)]
        prev = max(spans.below(span - _noise(span)), 0.0)
        return [(prev + span) / 2, prev]

    def cost_caps(self, cost: float, costs: ValueSet | None) -> list[float]:
        """Cost caps that keep every schedule of cost at most ``cost`` (loosest first)."""
        tight = cost + _noise(cost)
        following = costs.above(tight) if costs is not None else math.inf
        return [(cost + following) / 2, tight] if following < math.inf else [tight]

    def run(self, max_points: int) -> ParetoFront:
        instance = self.instance
        if self.restricted:
            self.why("restricted model: the MILP leaves out some valid schedules of this "
                     "instance (static hard limits), so the front may miss points and no "
                     "point is proven")
        ended = False
        try:
            self.budget.check("building the model")
            bm = build(instance, horizon=horizon_for(instance, None), budget=self.budget)
            spans, costs = makespan_values(instance), cost_values(instance)
            self.budget.check("listing the achievable values")
            if costs is None:
                self.why("resolution: too many achievable costs to certify the proofs")
            ended = self._loop(bm, max_points, spans, costs)
        except BudgetExpired:
            self.why(self.time_reason())
        points = _non_dominated(self.points)
        if any(p.proven for p in self.points if p not in points):
            self.why("numerical trouble: a proven point is dominated by another point")
        complete = ended and not self.reasons and all(p.proven for p in points)
        if ended and not self.reasons and not complete:
            self.why("numerical trouble: a solve could not be proven optimal")
        return ParetoFront(points, complete, "; ".join(self.reasons) or None)

    def _loop(self, bm: BotModel, max_points: int, spans: ValueSet | None,
              costs: ValueSet | None) -> bool:
        """Find points until the front ends (True) or something stops it (False)."""
        caps: list[float | None] = [None]   # strict makespan caps below the last point
        last = math.inf                     # makespan of the last point
        while True:
            b = self._cheapest(bm, caps, last)
            if b is None:
                return False
            if b.outcome.status is Status.INFEASIBLE:
                if not self.points:             # the instance has a schedule, or the
                    self.why("numerical trouble: the model admits no schedule at all")
                    return False                # model is restricted: nothing proven
                return True                 # nothing is faster than the last point
            if b.solution is None:
                return False
            if len(self.points) >= max_points:
                self.why(f"max_points ({max_points}) reached; the front goes on")
                return False
            if b.outcome.status is Status.TIME_LIMIT:
                self.add(b.makespan, b.cost, False, b.solution)
                return False
            why_b = _certify(costs, b.outcome, b.cost, "costs")
            a = self._fastest(bm, self.cost_caps(b.cost, costs), b)
            if a is None or a.outcome.status is Status.TIME_LIMIT:
                self.add(b.makespan, b.cost, False, b.solution)   # time is up
                return False
            best, why_a = b.solution, "numerical trouble: no valid fastest schedule at that cost"
            span, cost = b.makespan, b.cost
            if a.solution is not None and a.valid and a.cost <= b.cost + _noise(b.cost) \
                    and a.makespan <= b.makespan + _noise(b.makespan):
                best, span, cost = a.solution, a.makespan, a.cost
                why_a = _certify(spans, a.outcome, a.makespan, "makespans")
                if a.cost < b.cost - _noise(b.cost) and why_b is None:
                    why_b = ("numerical trouble: a cheaper schedule than the proven minimum "
                             "cost was found")
            for reason in (why_b, why_a):
                if reason is not None:
                    self.why(reason)
            self.add(span, cost, why_a is None and why_b is None, best)
            last = span
            caps = list(self.strict_caps(last, spans))

    def _cheapest(self, bm: BotModel, caps: list[float | None], last: float
                  ) -> _Step | None:
        """Step B: minimum cost with makespan below ``last``; ``None``: stop.

        The caps are tried in turn while the solver's schedule breaks them.
        """
        for cap in caps:
            self.budget.check("searching the next front point")
            set_objective(bm, "cost", makespan_cap=cap)
            step = self.solve(bm)
            if step is None:
                return None
            step.cap = cap
            if step.outcome.status is Status.INFEASIBLE:
                return step
            if step.solution is None or not step.valid:
                if step.solution is None and step.outcome.status is not Status.TIME_LIMIT:
                    self.why(f"numerical trouble: {step.outcome.message or 'no schedule'}")
                return None
            if cap is None or step.makespan < last - _noise(last):
                return step
        self.why("numerical trouble: the solver broke the makespan cap (achievable "
                 "makespans closer than its tolerance)")
        return None

    def _fastest(self, bm: BotModel, caps: list[float], b: _Step
                 ) -> _Step | None:
        """Step A: minimum makespan with cost at most ``b``'s; ``None``: time is up.

        ``b``'s makespan cap stays (``b`` meets it, so it removes no candidate).
        The cost caps are tried in turn while the solver's schedule breaks them.
        """
        step = None
        for cap in caps:
            set_objective(bm, "makespan", cost_cap=cap, makespan_cap=b.cap)
            step = self.solve(bm)
            if step is None or step.solution is None or step.cost <= b.cost + _noise(b.cost):
                return step
        self.why("numerical trouble: the solver broke the cost cap (achievable costs "
                 "closer than its tolerance)")
        return step


def _non_dominated(points: list[ParetoPoint]) -> list[ParetoPoint]:
    """Points no other point dominates (within :data:`NOISE_REL`), by increasing makespan.

    Of points with the same makespan and cost the proven one (then the first) is kept.
    """
    order = sorted(points, key=lambda p: (p.makespan, p.cost, not p.proven))
    kept: list[ParetoPoint] = []
    for p in order:
        if kept and p.cost >= kept[-1].cost - _noise(kept[-1].cost):
            continue                         # no cheaper than a point at most as long
        if kept and p.makespan <= kept[-1].makespan + _noise(kept[-1].makespan):
            kept.pop()                       # same makespan, cheaper: replaces it
        kept.append(p)
    return kept


def pareto_front(instance: Instance, *, time_limit: float | None = None,
                 max_points: int = 50, on_point: OnPoint | None = None,
                 budget: TimeBudget | None = None) -> ParetoFront:
    """Non-dominated (makespan, cost) points by the epsilon-constraint method.

    Parameters
    ----------
    instance:
        A small instance (the model has one integer per BoT and processor).
    time_limit:
        Seconds for the *whole* front (model building and every solve; each
        solve gets what remains). ``None``: no limit; ``0``: no solve.
    max_points:
        Most points to compute (>= 1). When the front has more, the
        ``max_points`` cheapest points are returned with ``complete=False``.
    on_point:
        ``on_point(index, makespan, cost)`` is called as each point is found
        (index in order of discovery: from the cheapest point to the fastest).
    budget:
        An already running time budget to use instead of ``time_limit``.

    Returns
    -------
    ParetoFront
        Points by increasing makespan (decreasing cost), whether they are
        every non-dominated pair (see the module docstring for the argument),
        and otherwise why not.

    Raises
    ------
    ValueError
        When ``max_points < 1``.

    Examples
    --------
    >>> from hybridsched.bot_sites.generator import table2_inconsistent
    >>> front = pareto_front(table2_inconsistent())
    >>> front.complete, [(p.makespan, p.cost) for p in front.points]
    (True, [(23.0, 0.0)])
    """
    if max_points < 1:
        raise ValueError(f"max_points must be at least 1, got {max_points}")
    search = _Search(instance, budget or TimeBudget(time_limit), on_point)
    return search.run(max_points)
