"""MILP (HiGHS, through PuLP) of the clairvoyant offline ``pull`` problem (:mod:`.problem`).

The same definition as :mod:`.cpsat`, written with big-M rows: per host
position ``k`` binaries for presence ``a``, unit ``x_u``, window ``z_w``,
lost ``l``, completing ``f_u`` (correct draws only), same window as the
previous position, idle before it (``g``, with ``q_u``: unit ``u`` was done
by then rather than arriving later), reaching its window's end (``t``),
starting at the previous task's natural end (``b``, :mod:`.problem`);
continuous start ``S``, end ``E`` and ready time ``R``; per unit its
completion ``c``; the run's end ``T``, minimised first (then the ``b``,
weighing less than a grid step together). Times are in seconds on the grid
of :func:`~.problem.prepare` (every data time is a multiple of ``1 /
factor``), so strict comparisons are ``<= x - 1 / factor``, and every
comparison where the checker grants ``TIME_TOL`` carries it and the grid
slack of :class:`~.problem.Margins` (in seconds: steps / factor), exactly
as in :mod:`.cpsat`; ``M`` is the latest time a task can end. HiGHS runs
with tight primal and integrality tolerances and no presolve
(:data:`OPTIONS`) so that ``M x`` (binary slack) stays below one grid step;
the plan read back is written with real times and checked all the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulp

from hybridsched.budget import TimeBudget
from hybridsched.models.pull.problem import Offline, Task
from hybridsched.models.solvers.pulp_highs import has_incumbent, solve_and_read

#: Tight tolerances (a grid step is 1e-7 s, ``M`` tens of seconds); presolve off: with it,
#: HiGHS called a window end 3e-7 s after a task's end infeasible (tiny_instance(7797)).
OPTIONS = {"primal_feasibility_tolerance": 1e-9, "mip_feasibility_tolerance": 1e-9,
           "presolve": "off", "random_seed": 0}


@dataclass
class PullMilp:
    """The problem and the variables the plan is read from."""

    problem: pulp.LpProblem
    offline: Offline
    end: pulp.LpVariable
    active: dict[tuple[int, int], pulp.LpVariable]
    unit: dict[tuple[int, int, int], pulp.LpVariable]
    start: dict[tuple[int, int], pulp.LpVariable]
    #: Starts at a window's very end that only the grid's drift admits (as in :mod:`.cpsat`).
    late: list[pulp.LpVariable] | None = None
    #: The objective's most that is not ``T`` (seconds): a bound less it bounds ``T``.
    penalty: float = 0.0


def build(offline: Offline, lower: float = 0.0) -> PullMilp:
    """The MILP of ``offline``; ``lower``: a known lower bound on ``T`` (seconds)."""
    F = offline.scaling.factor
    n, H, M = offline.instance.n_units, offline.horizon / F, offline.latest / F
    step = 1.0 / F
    arrival = [a / F for a in offline.arrival]
    margins = offline.margins
    waiting = _waiting(offline)
    prob = pulp.LpProblem("pull_offline", pulp.LpMinimize)

    def cont(name: str, low: float = 0.0, high: float = M) -> pulp.LpVariable:
        return prob.add_variable(name, low, high)

    def binary(name: str) -> pulp.LpVariable:
        return prob.add_variable(name, cat=pulp.LpBinary)

    def off(*literals: Any) -> Any:
        """``M`` times the number of false literals: zero when all hold."""
        return M * pulp.lpSum(lit[0] if isinstance(lit, tuple) else 1 - lit
                              for lit in literals)

    def neg(lit: Any) -> tuple:
        return (lit,)  # a negated literal: false when ``lit`` is 1

    T = cont("T", min(lower, H), H)
    c = [cont(f"c{u}", arrival[u], H) for u in range(n)]
    for u in range(n):
        prob += c[u] <= T
    completes: list[list[Any]] = [[] for _ in range(n)]
    built = PullMilp(prob, offline, T, {}, {}, {}, [])
    for h, host in enumerate(offline.hosts):
        W = [(s / F, e / F) for s, e in host.windows]
        used: list[list[Any]] = [[] for _ in W]
        previous = None
        rows = []
        for k in range(host.positions):
            a, lost = binary(f"a{h}_{k}"), binary(f"l{h}_{k}")
            x = [binary(f"x{h}_{k}_{u}") for u in range(n)]
            z = [binary(f"z{h}_{k}_{w}") for w in range(len(W))]
            S, E, R = cont(f"S{h}_{k}"), cont(f"E{h}_{k}"), cont(f"R{h}_{k}")
            built.active[h, k], built.start[h, k] = a, S
            for u in range(n):
                built.unit[h, k, u] = x[u]
            prob += pulp.lpSum(x) == a
            prob += pulp.lpSum(z) == a
            prob += lost <= a
            if previous is not None:
                prob += a <= previous["a"]
            duration = pulp.lpSum(host.duration[k][u] / F * x[u] for u in range(n))
            local, cross = margins.local(h, k), margins.cross(h, k)
            prob += T + margins.up2(cross) * step + off(a) >= S
            prob += S + duration >= E
            prob += S + duration - M * lost <= E
            # More than TIME_TOL before the window's end; a start at the previous task's
            # natural end drifts by its drift (``late``, as in :mod:`.cpsat`).
            slack = margins.before(2 * margins.data)
            late_slack = margins.before(margins.local(h, k - 1)) if k else slack
            late = None
            if late_slack > slack:
                late = binary(f"b{h}_{k}")
                prob += previous["E"] + off(late) >= S
                prob += late <= 1 - previous["lost"]
                built.late.append(late)
            for w, (s, e) in enumerate(W):
                used[w].append(z[w])
                prob += s - off(z[w]) <= S
                if late is None:
                    prob += e + slack * step + off(z[w]) >= S
                else:
                    prob += e + slack * step + off(z[w], neg(late)) >= S
                    prob += e + late_slack * step + off(z[w]) >= S
                prob += S + duration >= e + (margins.down(local) + 1) * step - off(z[w], lost)
                prob += e - off(z[w], lost) <= E
                prob += e + off(z[w], lost) >= E
                prob += S + duration <= e + margins.up(local) * step + off(z[w], neg(lost))
            for u in range(n):
                prob += arrival[u] - off(x[u]) <= S
                prob += c[u] + margins.up2(cross) * step + off(x[u]) >= S
                if int(host.outcome[k]) == 0:  # CORRECT
                    prob += c[u] <= E + off(x[u], neg(lost))
                    f = binary(f"f{h}_{k}_{u}")
                    prob += f <= x[u]
                    prob += f <= 1 - lost
                    prob += c[u] >= E - off(f)
                    completes[u].append(f)
            same = None
            if previous is not None:
                prob += previous["E"] - off(a) <= S
                same = binary(f"same{h}_{k}")
                pairs = []
                for w in range(len(W)):
                    y = binary(f"same{h}_{k}_{w}")
                    prob += y <= z[w]
                    prob += y <= previous["z"][w]
                    prob += y >= z[w] + previous["z"][w] - 1
                    pairs.append(y)
                prob += same == pulp.lpSum(pairs)
                prob += previous["E"] + off(same) >= R
                prob += (pulp.lpSum(w * z[w] for w in range(len(W)))
                         >= pulp.lpSum(w * previous["z"][w] for w in range(len(W))) - off(a))
                previous["same_next"] = same
            for w, (s, _) in enumerate(W):
                prob += s + off(z[w]) + (M * same if same is not None else 0) >= R
            g = binary(f"g{h}_{k}")
            prob += R + margins.up2(local) * step + off(a, neg(g)) >= S
            for u in range(n):
                q = binary(f"q{h}_{k}_{u}")
                prob += c[u] <= R + margins.up(cross) * step + off(a, g, q)
                prob += arrival[u] + margins.up(local) * step + off(a, g, neg(q)) >= S
            previous = {"a": a, "E": E, "z": z, "lost": lost}
            rows.append(previous)
        for k, row in enumerate(rows):  # after a window's last task: idle only if none waits
            last = row["a"] - row.get("same_next", 0)
            reaches = binary(f"t{h}_{k}")
            reach = margins.up2(margins.local(h, k)) * step
            done = margins.up2(margins.cross(h, k)) * step
            for w, (_, e) in enumerate(W):
                gap = M * (1 - last) + M * (1 - row["z"][w])
                prob += row["E"] >= e - reach - gap - M * (1 - reaches)
                for u in waiting[h][w]:
                    prob += c[u] <= row["E"] + done + gap + M * reaches
        spare = margins.up2(margins.top + margins.data + margins.rounding) * step
        short = margins.up2(2 * margins.data + margins.rounding) * step
        for w, (s, e) in enumerate(W):
            if e - s <= short:
                continue  # shorter than the idle rule's 2 TIME_TOL: no span to judge
            y = binary(f"used{h}_{w}")
            prob += y <= pulp.lpSum(used[w])
            for zw in used[w]:
                prob += y >= zw
            for u in waiting[h][w]:
                prob += c[u] <= s + spare + M * y
    for u in range(n):
        prob += pulp.lpSum(completes[u]) == 1
    # ``T`` first, then as few late starts as possible: all of them weigh under a grid step.
    built.penalty = step * len(built.late) / (len(built.late) + 1)
    prob += T + step / (len(built.late) + 1) * pulp.lpSum(built.late)
    return built


def _waiting(offline: Offline) -> list[list[list[int]]]:
    """Per host and window, the units the idle rule counts (as :func:`.cpsat._waiting`)."""
    margins = offline.margins
    near = margins.up(2 * margins.data + margins.rounding)
    return [[[u for u, a in enumerate(offline.arrival)
              if a < e - near and not offline.brief[u]] for _, e in host.windows]
            for host in offline.hosts]


@dataclass(frozen=True)
class MilpOutcome:
    """HiGHS's verdict in seconds, and the plan of its incumbent (``None``: none)."""

    optimal: bool
    objective: float | None
    bound: float | None
    plan: list[Task] | None
    status: str


def solve(built: PullMilp, budget: TimeBudget) -> MilpOutcome:
    """Solve with HiGHS within ``budget`` and read the plan back."""
    solver = pulp.HiGHS(msg=False, threads=1, gapRel=0.0, gapAbs=0.0,
                        timeLimit=budget.remaining(), **OPTIONS)
    code, info = solve_and_read(built.problem, solver, budget)
    status = built.problem.solverModel.modelStatusToString(code)
    optimal = status == "Optimal"
    bound = float(info.mip_dual_bound) - built.penalty if (
        info.mip_dual_bound == info.mip_dual_bound) else None
    if not has_incumbent(info):
        return MilpOutcome(False, None, bound, None, status)
    F = built.offline.scaling.factor
    plan = []
    for (h, k), a in built.active.items():
        if (a.varValue or 0) > 0.5:
            unit = next(u for u in range(built.offline.instance.n_units)
                        if (built.unit[h, k, u].varValue or 0) > 0.5)
            plan.append(Task(h, k, unit, int(round(built.start[h, k].varValue * F))))
    return MilpOutcome(optimal, float(built.end.varValue), bound, plan, status)
