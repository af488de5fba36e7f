"""Offline gang model: most jobs finished by their deadlines, in continuous time (PuLP + HiGHS).

All jobs are known in advance; a job's arrival is its release time. A job
either runs (``z_j = 1``) on ``parallelism`` distinct VMs that meet its
demands (``y_jv``), all its tasks starting at ``S_j >= arrival`` and each
ending by the deadline (``S_j + t_jv <= due_j`` when ``y_jv = 1``), or is
unfinished. A VM runs one task at a time: for each pair of jobs that may
share VM ``v``, a binary ``o_jkv`` orders them (big-M disjunction, active only
when both use ``v``). Pairs ``(j, v)`` are left out when VM ``v`` cannot meet
the demands or finish the task by the deadline even at the arrival
(:func:`hybridsched.gang.checker.could_finish`, the checker's own rule).

Objective: minimise ``UFJ - SIN_WEIGHT * SIN / (total SIN + 1)``: the fewest
unfinished jobs, then the most instructions finished (the second term stays
below half a job, see :func:`whole_jobs`).

Same rule, same tolerance. The checker (:mod:`hybridsched.gang.checker`)
judges real times: a job really starts at the latest of its arrival and the
real ends of the tasks before it on its VMs (a stated start within
``TIME_TOL`` of that is rounded to it), and ends by ``due + TIME_TOL``: the
tolerance once, at the deadline; every other slack is binary64 rounding,
within :func:`~hybridsched.gang.checker.rounding_slack` per rule. HiGHS
accepts an integer solution whose rows, bounds and integrality are violated
by up to its MIP feasibility tolerance (1e-6,
:data:`~hybridsched.models.solvers.highs.MIP_FEASIBILITY_TOL`), far more
than that. So:

- the model (:func:`relaxed`) states the deadline rows with ``TIME_TOL``
  and every row with the binary64 rounding added: its feasible set contains
  every schedule the checker accepts (at its real starts), and HiGHS's
  tolerances only enlarge it further, so its dual bound is a valid lower
  bound on the real problem's objective;
- *capacity rows* (:func:`.milp_capacity.capacity_rows`), decided in
  exact arithmetic, state how many tasks fit on a VM in a window when the
  answer is closer to the window's length than HiGHS's tolerances (a chain
  of tasks whose sum overfills a deadline by less than 1e-6): at most ``k``
  of the jobs that arrive in the window and must end in it run a task on
  the VM;
- the schedule is read back from a solution by a forward pass (the model's
  jobs, VMs and order on each VM at their earliest real starts, the
  checker's own expressions) and *repaired*: a job that would end after
  ``due + TIME_TOL`` is dropped, which only lets the later jobs start
  earlier; the result always passes the checker;
- each dropped job yields a no-good cut (the VM and order choices that made
  it late, :func:`extract`), valid for every schedule the checker accepts
  (real starts never precede earliest ones), so it is added to the model
  itself, which is re-solved, its bound still valid, until the read-back
  needs no repair or the bound meets the best schedule (at most
  :data:`MAX_CUT_ROUNDS` rounds);
- if a repair is still needed then, a *tightened* model (:data:`TIGHTENED`:
  every row shortened by twice HiGHS's tolerance, with the cuts) is solved
  for a schedule that reads back whole; it proves nothing.

``optimal`` is claimed only when the checked schedule's UFJ meets the proven
bound. The method starts from the best heuristic schedule (given by the
caller, as a MIP start: jobs, VMs, real starts and the order binaries they
imply) and never returns a worse one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pulp

from hybridsched.budget import BudgetExpired, TimeBudget
from hybridsched.gang.checker import (
    TIME_TOL,
    check,
    could_finish,
    rank,
    rounding_slack,
    timeline,
)
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import Solution, from_starts
from hybridsched.models.gang.claims import claim, first_incumbent
from hybridsched.models.gang.milp_capacity import capacity_rows
from hybridsched.models.solvers.highs import MIP_FEASIBILITY_TOL, SOLVER_TOL
from hybridsched.models.solvers.pulp_highs import (
    ArrayHighs,
    check_budget,
    has_incumbent,
    solve_and_read,
)
from hybridsched.result import Result

#: Most ordering binaries built (pairs of jobs x shared VMs); about 7 s of PuLP building at
#: 70,000, checked against the time limit as it goes.
MAX_ORDER_BINARIES = 150_000
#: Weight of all instructions together in the objective: below one job, and far enough
#: below it that rounding the dual bound to whole jobs has a margin (:func:`whole_jobs`).
SIN_WEIGHT = 0.5
#: What is taken off HiGHS's dual bound before rounding it up to whole jobs (see
#: :func:`whole_jobs`).
DUAL_MARGIN = 0.25
#: ``(deadline slack, arrival and overlap slack)`` of the model solved for a schedule when
#: the relaxed model's read-back still needs repair: every row shortened by twice the
#: tolerance HiGHS grants its integer solutions.
TIGHTENED = (-2 * MIP_FEASIBILITY_TOL, -2 * MIP_FEASIBILITY_TOL)
#: Most rounds of no-good cuts (and re-solves) per model.
MAX_CUT_ROUNDS = 20
#: HiGHS's model status when it stopped at the time limit (its own or the method's).
TIME_LIMIT_STATUS = "Time limit reached"
#: How the read-back names the jobs it drops because they would end late.
REPAIRED = "ends after its deadline when read back from the model (solver tolerance)"


@dataclass
class GangModel:
    """The PuLP problem and its variables."""

    instance: Instance
    problem: pulp.LpProblem
    run: dict[int, pulp.LpVariable]
    use: dict[tuple[int, int], pulp.LpVariable]
    start: dict[int, pulp.LpVariable]
    order: dict[tuple[int, int, int], pulp.LpVariable]


#: A literal of a no-good cut: the key of a ``use`` (``(j, v)``) or ``order``
#: (``(j, k, v)``) binary, and whether it holds at 1 (True) or at 0 (False).
Literal = tuple[tuple[int, ...], bool]


@dataclass
class ReadBack:
    """A repaired read-back: the schedule, how many jobs the repair dropped, and why (cuts)."""

    solution: Solution
    repaired: int
    cuts: list[list[Literal]]


@dataclass
class Outcome:
    """One solve: the checked read-back, HiGHS's bound on UFJ and status, and the repairs.

    ``solution`` is None when HiGHS holds no incumbent or (``rejected``) when
    the checker rejects the read-back despite the repair.
    """

    solution: Solution | None
    bound: float
    status: str
    repaired: int = 0
    cuts: list[list[Literal]] = field(default_factory=list)
    rejected: bool = False


def order_binaries(instance: Instance) -> int:
    """How many ordering binaries the model needs."""
    ok = could_finish(instance).astype(np.int64)
    shared = ok @ ok.T
    return int(np.triu(shared, 1).sum())


def whole_jobs(dual: float) -> float:
    """The bound on UFJ that HiGHS's dual bound ``dual`` (on the objective) proves.

    Every schedule has ``objective = UFJ - w SIN`` with ``0 <= w SIN <=
    SIN_WEIGHT = 1/2``, so ``UFJ >= objective >= true dual bound``, and UFJ
    is an integer: ``UFJ >= ceil(true dual bound)``. HiGHS's reported bound
    can exceed the true one: it prunes nodes whose LP bound is within
    ``max(mip_abs_gap, mip_feasibility_tolerance) = 1e-6`` of the incumbent
    and then reports the incumbent's value as the bound, and its LP bounds
    carry the primal (1e-9) and dual (1e-7) feasibility tolerances on O(1)
    objective coefficients. Taking ``DUAL_MARGIN = 1/4`` off before rounding
    keeps the rounding valid for any such error below a quarter of a job,
    orders of magnitude above these tolerances; and since the best objective
    with ``UFJ = u`` is at least ``u - 1/2``, a finished search (bound within
    1e-6 of it) still proves ``u``. (The tolerances on the rows only enlarge
    the relaxed model, which keeps its bound valid.)
    """
    return float(math.ceil(dual - DUAL_MARGIN)) if math.isfinite(dual) else -math.inf


def relaxed(instance: Instance) -> tuple[float, float]:
    """``(deadline slack, arrival and overlap slack)`` of the model whose bound is used.

    ``TIME_TOL`` on the deadline rows (the checker's once), plus binary64
    rounding on every row (:func:`~hybridsched.gang.checker.rounding_slack`):
    the model then contains every schedule the checker accepts.
    """
    rounding = rounding_slack(instance)
    return TIME_TOL + rounding, rounding


def build(instance: Instance, due_slack: float, order_slack: float,
          budget: TimeBudget | None = None) -> GangModel:
    """The model with ``due_slack`` added to the deadline rows and ``order_slack`` to the others.

    ``order_slack`` is how much earlier than its arrival a job may start and
    how much two tasks on one VM may overlap; :func:`relaxed` and
    :data:`TIGHTENED` are the versions solved (see the module docstring).
    Both carry the capacity rows (:func:`.milp_capacity.capacity_rows`).
    """
    ok = could_finish(instance)
    times = instance.task_time()
    due, arrival = instance.due, instance.arrival
    sin = instance.parallelism * instance.instructions
    weight = SIN_WEIGHT / (float(sin.sum()) + 1.0)
    spread = abs(due_slack) + abs(order_slack)
    problem = pulp.LpProblem("gang_offline", pulp.LpMinimize)
    runnable = [j for j in range(instance.n_jobs)
                if ok[j].sum() >= instance.parallelism[j]]
    run = {j: problem.add_variable(f"z_{j}", 0, 1, cat="Integer") for j in runnable}
    # A job that does not run keeps a start within these bounds, whatever the slacks.
    start = {j: problem.add_variable(f"s_{j}", float(arrival[j]) - order_slack,
                                     float(due[j]) + spread)
             for j in runnable}
    use = {(j, v): problem.add_variable(f"y_{j}_{v}", 0, 1, cat="Integer")
           for j in runnable for v in np.flatnonzero(ok[j]).tolist()}
    problem.setObjective(pulp.lpSum((-1.0 - weight * float(sin[j])) * run[j] for j in run)
                         + float(instance.n_jobs))
    for j in runnable:
        mine = [use[j, v] for v in np.flatnonzero(ok[j]).tolist()]
        problem.addConstraint(pulp.lpSum(mine) == int(instance.parallelism[j]) * run[j],
                              f"gang_{j}")
        for v in np.flatnonzero(ok[j]).tolist():
            t = float(times[j, v])
            problem.addConstraint(start[j] + t <= float(due[j]) + due_slack
                                  + (t + 2 * spread) * (1 - use[j, v]), f"due_{j}_{v}")
    for row, (v, jobs, most) in enumerate(capacity_rows(instance, ok)):
        mine = [use[j, v] for j in jobs if (j, v) in use]
        if most < len(mine):
            problem.addConstraint(pulp.lpSum(mine) <= most, f"capacity_{row}")
    horizon = (float(due.max() - arrival.min() + times[ok].max()) + 2 * spread
               if ok.any() else 0.0)
    order = {}
    columns = len(run) + len(use) + order_binaries(instance)
    for pair, (j, k) in enumerate(combinations(runnable, 2)):
        if budget is not None and pair % 20 == 0:  # up to 2 x 120 rows per pair
            check_budget(budget, columns, "building the gang model")
        for v in np.flatnonzero(ok[j] & ok[k]).tolist():
            before = order[j, k, v] = problem.add_variable(f"o_{j}_{k}_{v}", 0, 1, cat="Integer")
            both = 2 - use[j, v] - use[k, v]
            problem.addConstraint(start[j] + float(times[j, v]) <= start[k] + order_slack
                                  + horizon * (1 - before) + horizon * both, f"jk_{j}_{k}_{v}")
            problem.addConstraint(start[k] + float(times[k, v]) <= start[j] + order_slack
                                  + horizon * before + horizon * both, f"kj_{j}_{k}_{v}")
    return GangModel(instance, problem, run, use, start, order)


def start_values(model: GangModel, solution: Solution) -> dict[pulp.LpVariable, float]:
    """The MIP start of a checked schedule: its jobs, VMs, real starts and orders.

    Jobs and VMs are the schedule's, starts its real ones (the checker's
    :func:`~hybridsched.gang.checker.timeline`); a job that does not run
    starts at its arrival; ``o_jkv = 1`` exactly when ``j`` comes first in the
    checker's order (stated starts, then job order), which on a VM both use
    is the order the schedule runs them in.
    """
    instance = model.instance
    line = timeline(instance, solution)
    position = np.full(instance.n_jobs, instance.n_jobs)
    position[line.order] = np.arange(len(line.order))
    placed: dict[int, set[int]] = {}
    for j, v in zip(solution.task_job.tolist(), solution.task_vm.tolist(), strict=True):
        placed.setdefault(j, set()).add(v)
    values: dict[pulp.LpVariable, float] = {}
    for j, var in model.run.items():
        ran = j in placed
        values[var] = float(ran)
        values[model.start[j]] = float(line.start[j]) if ran else float(instance.arrival[j])
    for (j, v), var in model.use.items():
        values[var] = float(v in placed.get(j, ()))
    for (j, k, _), var in model.order.items():
        values[var] = float(position[j] < position[k] or (position[j] == position[k] and j < k))
    return values


def _before(p: int, j: int, v: int) -> Literal:
    """The literal "``p`` runs before ``j`` on ``v``" (``o`` is keyed by the lower job first)."""
    return ((p, j, v), True) if p < j else ((j, p, v), False)


def extract(model: GangModel) -> ReadBack:
    """The schedule of the model's solution, repaired, with a no-good per job the repair drops.

    Jobs, VMs and per-VM orders are the model's (the order of its start
    times), with earliest starts: ``max(arrival, VMs free)``. A job whose
    slowest task would end after ``due + TIME_TOL``, computed as the checker
    does (``start + instructions / speed``), is dropped: it only frees its
    VMs, so no later job starts later. The same goes for a job whose VM
    choice does not read back as ``parallelism`` VMs (integrality noise).

    The no-good of a dropped job lists the choices that made it late: its
    VM, and back along the chain that set its start (the job that freed the
    binding VM last, their order on it, and so on). Every schedule the
    checker accepts with all these choices starts each job of the chain no
    earlier than here (its real starts are never before the earliest ones,
    which only grow with more work ahead; floats round monotonically), so no
    schedule the checker accepts makes them all: the cut is valid for every
    model, the relaxed one included.
    """
    instance = model.instance
    times = instance.task_time()  # instructions / speed, the checker's division
    deadline = instance.due + TIME_TOL  # the checker's expression
    chosen = [j for j, var in model.run.items() if (var.value() or 0) > 0.5]
    vms: dict[int, list[int]] = {j: [] for j in chosen}
    for (j, v), var in model.use.items():
        if j in vms and (var.value() or 0) > 0.5:
            vms[j].append(v)
    order = sorted(chosen, key=lambda j: (model.start[j].value(), j))
    free_at = np.full(instance.n_vms, -np.inf)
    last = np.full(instance.n_vms, -1)
    why: dict[int, dict[Literal, None]] = {}  # the choices that set a job's start (ordered set)
    starts: dict[int, tuple[float, list[int]]] = {}
    dropped: dict[int, str] = {}
    cuts: list[list[Literal]] = []
    for j in order:  # the model's order on every VM is the order of its start times
        placed = vms[j]
        if len(placed) != instance.parallelism[j]:
            dropped[j] = REPAIRED
            continue
        s, binding = float(instance.arrival[j]), None
        for v in placed:
            if free_at[v] > s:
                s, binding = float(free_at[v]), v
        reasons: dict[Literal, None] = {}
        if binding is not None:
            p = int(last[binding])
            reasons.update(why[p])
            reasons.update(dict.fromkeys([((p, binding), True), ((j, binding), True),
                                          _before(p, j, binding)]))
        ends = s + times[j, placed]
        if (ends > deadline[j]).any():
            dropped[j] = REPAIRED
            reasons[(j, placed[int(np.argmax(ends))]), True] = None
            cuts.append(list(reasons))
            continue
        why[j] = reasons
        starts[j] = (s, placed)
        free_at[placed] = ends
        last[placed] = j
    repaired = len(dropped)
    dropped.update({j: "not in the offline optimum" for j in range(instance.n_jobs)
                    if j not in starts and j not in dropped})
    return ReadBack(from_starts(instance.n_jobs, starts, dropped), repaired, cuts)


def add_cuts(model: GangModel, cuts: list[list[Literal]]) -> None:
    """Add each no-good: not all of its literals hold (``sum <= count - 1``)."""
    binaries: dict[tuple[int, ...], pulp.LpVariable] = {**model.use, **model.order}
    for cut in cuts:
        expression = pulp.lpSum(binaries[key] if positive else 1 - binaries[key]
                                for key, positive in cut)
        model.problem.addConstraint(expression <= len(cut) - 1)


def _solve_model(model: GangModel, budget: TimeBudget, incumbent: Solution) -> Outcome:
    """Solve ``model`` from ``incumbent`` and read it back."""
    instance = model.instance
    columns = model.problem.variables()
    solver = ArrayHighs(budget, columns, start_values(model, incumbent),
                        presolve="off", primal_feasibility_tolerance=SOLVER_TOL)
    code, info = solve_and_read(model.problem, solver, budget)
    status = model.problem.solverModel.modelStatusToString(code)
    bound = whole_jobs(float(info.mip_dual_bound))
    if not has_incumbent(info):
        return Outcome(None, bound, status)
    read = extract(model)
    # The repair leaves nothing for the checker to reject; re-checked all the same.
    rejected = bool(check(instance, read.solution))
    return Outcome(None if rejected else read.solution, bound, status, read.repaired, read.cuts,
                   rejected)


def solve(instance: Instance, time_limit: float | None = None,
          incumbent: Solution | None = None, cheap_bound: float = 0.0,
          source: str = "the warm start") -> Result:
    """Most jobs finished (then most instructions), from ``incumbent``; see the docstring.

    Parameters
    ----------
    instance:
        The instance.
    time_limit:
        Seconds for the call (0, or too little to build the model: the
        incumbent is returned).
    incumbent:
        A schedule to start from (the best heuristic's), used only if the
        checker accepts it; otherwise the schedule that runs no job.
    cheap_bound:
        A valid bound on UFJ known beforehand (the family's).
    source:
        How the message names ``incumbent`` when it is the schedule returned.

    Returns
    -------
    Result
        The best checked schedule found (never worse than ``incumbent``), its
        UFJ, and the best valid bound; ``optimal`` when they meet,
        ``time_limit`` when the time ran out first, ``feasible`` otherwise
        (e.g. a model too large to build). The message says which schedule
        was returned and why.
    """
    budget = TimeBudget(time_limit)
    incumbent, source = first_incumbent(instance, incumbent, source)
    search = _Search(instance, budget, incumbent, source)
    binaries = order_binaries(instance)
    if search.unfinished() <= cheap_bound:
        search.notes.append("the warm start meets the family's lower bound")
    elif search.stopped:
        search.notes.append("no time left for the model (time limit 0 or spent)")
    elif binaries > MAX_ORDER_BINARIES:
        search.notes.append(f"{binaries} ordering binaries, more than {MAX_ORDER_BINARIES}: "
                            "no model built")
    else:
        try:
            search.run(cheap_bound)
        except BudgetExpired as stop:
            search.stopped = True
            search.notes.append(str(stop))
    return claim(instance, search.best, search.returned, solver="HiGHS",
                 solver_bound=search.dual, cheap_bound=cheap_bound, stopped=search.stopped,
                 notes=search.notes)


class _Search:
    """The best schedule so far, HiGHS's bound and what happened, across the solves."""

    def __init__(self, instance: Instance, budget: TimeBudget, incumbent: Solution,
                 source: str):
        self.instance, self.budget = instance, budget
        self.best, self.returned = incumbent, source
        self.dual = -math.inf
        self.stopped = budget.warm_start_only or budget.expired()
        self.notes: list[str] = []

    def unfinished(self) -> float:
        """UFJ of the best schedule so far."""
        return rank(self.instance, self.best)[0]

    def _solve(self, model: GangModel) -> Outcome:
        outcome = _solve_model(model, self.budget, self.best)
        if (outcome.solution is not None
                and rank(self.instance, outcome.solution) < rank(self.instance, self.best)):
            self.best, self.returned = outcome.solution, "the model's schedule"
        self.stopped = outcome.status == TIME_LIMIT_STATUS or self.budget.expired()
        return outcome

    def run(self, cheap_bound: float) -> None:
        """The relaxed model for the bound, with cuts; the tightened one if still short."""
        model = build(self.instance, *relaxed(self.instance), self.budget)
        # The jobs left out of the model (no parallelism VMs could finish them in time, the
        # checker's could_finish) are unfinished in every accepted schedule.
        self.dual = float(self.instance.n_jobs - len(model.run))
        if not model.run:
            self.notes.append("no job can run")
            return
        outcome, rounds, learned = self._rounds(model, cheap_bound, proves=True)
        self.notes.append(f"HiGHS: {outcome.status}" + (
            f" after {rounds} round(s) and {len(learned)} no-good cut(s)" if rounds > 1 else ""))
        if outcome.repaired:
            self.notes.append(f"{outcome.repaired} job(s) dropped at read-back (ending after "
                              f"due + {TIME_TOL:g})")
        if self._done(cheap_bound) or not (outcome.repaired or outcome.rejected):
            return
        model = build(self.instance, *TIGHTENED, self.budget)
        add_cuts(model, learned)
        outcome, rounds, learned = self._rounds(model, cheap_bound, learned, proves=False)
        self.notes.append(f"re-solved with every row shortened by {-TIGHTENED[0]:g}, "
                          f"{rounds} round(s), {len(learned)} no-good cut(s): "
                          f"HiGHS {outcome.status}")

    def _done(self, cheap_bound: float) -> bool:
        return self.unfinished() <= max(cheap_bound, self.dual) or self.stopped

    def _rounds(self, model: GangModel, cheap_bound: float,
                learned: list[list[Literal]] | None = None, *, proves: bool
                ) -> tuple[Outcome, int, list[list[Literal]]]:
        """Solve ``model``, adding the read-back's cuts, until it needs no repair.

        ``proves``: the model is the relaxed one, whose bound is kept.
        """
        learned = list(learned or [])
        for rounds in range(1, MAX_CUT_ROUNDS + 1):
            outcome = self._solve(model)
            if proves:  # cuts are valid for every accepted schedule: still a relaxation
                self.dual = max(self.dual, outcome.bound)
            learned += outcome.cuts
            if self._done(cheap_bound) or not outcome.cuts or rounds == MAX_CUT_ROUNDS:
                break
            add_cuts(model, outcome.cuts)
        return outcome, rounds, learned
