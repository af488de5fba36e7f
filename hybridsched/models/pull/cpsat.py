"""CP-SAT model of the clairvoyant offline ``pull`` problem (:mod:`.problem`).

Written from the checker's rules, with enforcement literals: per host
position ``k`` (the task taking draw ``k``) a presence literal, the unit
(one literal per unit), the window (one literal per window), whether it is
lost, its start ``S`` and end ``E``; per unit its completion ``c`` (its first
correct result); the run's end ``T >= c``. Integer data on the grid of
:func:`~.problem.prepare`, so the model is exact for the grid problem;
strict comparisons are ``<= x - 1`` on the grid. Each comparison of a
time with a window's end, an arrival or a completion carries the checker's
``TIME_TOL`` and the grid slack of :class:`~.problem.Margins` (neither when
nothing is rounded and the grid step is above 1e-6 s: a task starts ``<= e -
1``, ends ``<= e`` or is lost when it would end ``>= e + 1``), so that every
schedule the checker accepts is a solution (:mod:`.problem`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hybridsched.models.pull.problem import Offline, Task
from hybridsched.models.solvers.cpsat import require_ortools


@dataclass
class Position:
    """The variables of one host position."""

    active: Any
    unit: list[Any]
    window: list[Any]
    lost: Any
    start: Any
    end: Any


@dataclass
class PullCpsat:
    """The model and its variables.

    The objective is ``T x weight + (late starts)``: ``T`` first, then as few
    starts at a window's very end as possible (:func:`build`); :meth:`run_end`
    and :meth:`run_end_bound` read ``T`` back.
    """

    model: Any
    offline: Offline
    end: Any
    completion: list[Any]
    positions: list[list[Position]] = field(default_factory=list)
    late: list[Any] = field(default_factory=list)

    @property
    def weight(self) -> int:
        """Weight of ``T`` in the objective: more than all the late starts together."""
        return len(self.late) + 1

    def run_end_bound(self, objective_bound: float) -> float:
        """A lower bound on ``T`` (grid) from a bound on the objective."""
        return max(0.0, (objective_bound - len(self.late)) / self.weight)


def build(offline: Offline, lower: int = 0) -> PullCpsat:
    """The model of ``offline``; ``lower``: a known lower bound on ``T`` (grid)."""
    cp = require_ortools()
    m = cp.CpModel()
    n, H, top = offline.instance.n_units, offline.horizon, offline.latest
    arrival = offline.arrival
    margins = offline.margins
    T = m.new_int_var(max(0, min(lower, H)), H, "T")
    c = [m.new_int_var(arrival[u], H, f"c{u}") for u in range(n)]
    for u in range(n):
        m.add(c[u] <= T)
    completes: list[list[Any]] = [[] for _ in range(n)]
    built = PullCpsat(m, offline, T, c)
    for h, host in enumerate(offline.hosts):
        W = host.windows
        rows: list[Position] = []
        used = [[] for _ in W]
        for k in range(host.positions):
            p = Position(m.new_bool_var(f"a{h}_{k}"), [m.new_bool_var(f"x{h}_{k}_{u}")
                                                        for u in range(n)],
                         [m.new_bool_var(f"z{h}_{k}_{w}") for w in range(len(W))],
                         m.new_bool_var(f"l{h}_{k}"), m.new_int_var(0, top, f"S{h}_{k}"),
                         m.new_int_var(0, top, f"E{h}_{k}"))
            a, S, E, lost = p.active, p.start, p.end, p.lost
            m.add(sum(p.unit) == a)
            m.add(sum(p.window) == a)
            if k:
                m.add_implication(a, rows[-1].active)
            m.add_implication(lost, a)
            duration = sum(d * x for d, x in zip(host.duration[k], p.unit, strict=True))
            local, cross = margins.local(h, k), margins.cross(h, k)
            m.add(T + margins.up2(cross) >= S).only_enforce_if(a)
            m.add(S + duration == E).only_enforce_if(~lost)
            # A task starts more than TIME_TOL before its window ends. A start at a data
            # value (a window's start, an arrival; or a lost task's end, its window's end)
            # drifts only by the data's rounding; one at the previous task's natural end
            # by that task's drift: ``late`` says the task starts there, when it matters.
            slack = margins.before(2 * margins.data)
            late_slack = margins.before(margins.local(h, k - 1)) if k else slack
            late = None
            if late_slack > slack:
                late = m.new_bool_var(f"b{h}_{k}")
                m.add(rows[-1].end >= S).only_enforce_if(late)
                m.add_implication(late, ~rows[-1].lost)
                built.late.append(late)
            for w, (s, e) in enumerate(W):
                z = p.window[w]
                used[w].append(z)
                m.add(s <= S).only_enforce_if(z)
                if late is None:
                    m.add(e + slack >= S).only_enforce_if(z)
                else:
                    m.add(e + slack >= S).only_enforce_if([z, ~late])
                    m.add(e + late_slack >= S).only_enforce_if([z, late])
                m.add(S + duration >= e + margins.down(local) + 1).only_enforce_if([z, lost])
                m.add(e == E).only_enforce_if([z, lost])
                m.add(S + duration <= e + margins.up(local)).only_enforce_if([z, ~lost])
            for u, x in enumerate(p.unit):
                m.add(arrival[u] <= S).only_enforce_if(x)
                # no replica after the first correct result
                m.add(c[u] + margins.up2(cross) >= S).only_enforce_if(x)
                if int(host.outcome[k]) == 0:  # CORRECT: the first one completes the unit
                    m.add(c[u] <= E).only_enforce_if([x, ~lost])
                    f = m.new_bool_var(f"f{h}_{k}_{u}")
                    m.add_implication(f, x)
                    m.add_implication(f, ~lost)
                    m.add(c[u] >= E).only_enforce_if(f)
                    completes[u].append(f)
            _ready(m, rows, p, W, arrival, c, f"{h}_{k}", margins.up2(local),
                   margins.up(cross), margins.up(local))
            rows.append(p)
        _tails(m, rows, W, _waiting(offline, W), c, f"{h}",
               [margins.up2(margins.local(h, k)) for k in range(len(rows))],
               [margins.up2(margins.cross(h, k)) for k in range(len(rows))])
        spare = margins.up2(margins.top + margins.data + margins.rounding)
        for w, (s, e) in enumerate(W):  # a window no task uses: nothing waits during it
            if e - s <= margins.up2(2 * margins.data + margins.rounding):
                continue  # shorter than the idle rule's 2 TIME_TOL: no span to judge
            y = m.new_bool_var(f"used{h}_{w}")
            m.add_bool_or(used[w]).only_enforce_if(y)
            for z in used[w]:
                m.add_implication(z, y)
            for u in _waiting(offline, W)[w]:
                m.add(c[u] <= s + spare).only_enforce_if(~y)
        built.positions.append(rows)
    for u in range(n):
        m.add_exactly_one(completes[u]) if completes[u] else m.add_bool_or([])
    # ``T`` first; then no start at a window's very end that only the grid's drift admits
    # (a relaxation for soundness, which the real times rarely bear out: among plans
    # ending together, the solver keeps one that does not lean on it).
    m.minimize(T * built.weight + sum(built.late))
    return built


def _same(m: Any, before: Any, after: Any, name: str) -> Any:
    """A literal: position ``after`` is present and in the same window as ``before``."""
    both = []
    for w, (z0, z1) in enumerate(zip(before.window, after.window, strict=True)):
        y = m.new_bool_var(f"same{name}_{w}")
        m.add_bool_and([z0, z1]).only_enforce_if(y)
        m.add_bool_or([~z0, ~z1, y])
        both.append(y)
    same = m.new_bool_var(f"same{name}")
    m.add(sum(both) == same)
    return same


def _waiting(offline: Offline, W: tuple) -> list[list[int]]:
    """Per window, the units the idle rule counts in it (grid; :mod:`.problem`).

    A unit arriving within ``TIME_TOL`` (plus drift) of the window's end, or
    one whose run may last under ``2 TIME_TOL`` (it may arrive within the
    tolerance of the run's end), is not counted: dropping a constraint only
    relaxes.
    """
    margins = offline.margins
    near = margins.up(2 * margins.data + margins.rounding)
    return [[u for u, a in enumerate(offline.arrival)
             if a < e - near and not offline.brief[u]] for _, e in W]


def _ready(m: Any, rows: list[Position], p: Position, W: tuple, arrival: tuple,
           c: list[Any], name: str, busy: int, done: int, come: int) -> None:
    """Back to back in a window; idle before the task only while nothing waits.

    Grid slack (:mod:`.problem`): ``busy`` for a start after the ready time
    that the idle rule ignores, ``done`` for a unit completed by the ready
    time, ``come`` for one arriving at the start.
    """
    a, S = p.active, p.start
    ready = m.new_int_var(0, max((e for _, e in W), default=0), f"R{name}")
    if rows:
        previous = rows[-1]
        m.add(previous.end <= S).only_enforce_if(a)
        same = _same(m, previous, p, name)
        p.same = same  # type: ignore[attr-defined]
        m.add(ready <= previous.end).only_enforce_if(same)
        m.add(ready >= previous.end).only_enforce_if(same)
        first = ~same
        # windows never go back: a later position is in the same or a later window
        m.add(sum(w * z for w, z in enumerate(p.window))
              >= sum(w * z for w, z in enumerate(previous.window))).only_enforce_if(a)
    else:
        first = None
    for w, (s, _) in enumerate(W):
        m.add(ready == s).only_enforce_if([p.window[w]] + ([first] if first is not None else []))
    idle = m.new_bool_var(f"g{name}")
    m.add(ready + busy >= S).only_enforce_if([a, ~idle])
    for u, arrive in enumerate(arrival):
        q = m.new_bool_var(f"q{name}_{u}")
        m.add(c[u] <= ready + done).only_enforce_if([a, idle, q])
        m.add(arrive + come >= S).only_enforce_if([a, idle, ~q])


def _tails(m: Any, rows: list[Position], W: tuple, waiting: list[list[int]], c: list[Any],
           name: str, reach: list[int], done: list[int]) -> None:
    """After a window's last task, the host idles to the window's end only if nothing waits.

    ``waiting``: per window, the units counted (:func:`_waiting`); ``reach`` and
    ``done``: per position, the grid slack of an end at the window's end and of a
    unit completed by then (:mod:`.problem`).
    """
    for k, p in enumerate(rows):
        last = m.new_bool_var(f"last{name}_{k}")
        following = getattr(rows[k + 1], "same", None) if k + 1 < len(rows) else None
        m.add(last == p.active - (following if following is not None else 0))
        reaches = m.new_bool_var(f"t{name}_{k}")
        for w, (_, e) in enumerate(W):
            m.add(p.end >= e - reach[k]).only_enforce_if([last, p.window[w], reaches])
            for u in waiting[w]:
                m.add(c[u] <= p.end + done[k]).only_enforce_if([last, p.window[w], ~reaches])


def add_hint(built: PullCpsat, plan: list[Task]) -> None:
    """Hint the units and presence of a known schedule's positions."""
    chosen = {(t.host, t.position): t for t in plan}
    for h, rows in enumerate(built.positions):
        for k, p in enumerate(rows):
            task = chosen.get((h, k))
            built.model.add_hint(p.active, int(task is not None))
            for u, x in enumerate(p.unit):
                built.model.add_hint(x, int(task is not None and task.unit == u))


def read(built: PullCpsat, solver: Any) -> list[Task]:
    """The plan of the incumbent."""
    plan = []
    for h, rows in enumerate(built.positions):
        for k, p in enumerate(rows):
            if solver.boolean_value(p.active):
                unit = next(u for u, x in enumerate(p.unit) if solver.boolean_value(x))
                plan.append(Task(h, k, unit, int(solver.value(p.start))))
    return plan
