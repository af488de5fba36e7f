"""CP-SAT model of the clairvoyant offline ``pull`` problem (:mod:`.problem`).

Written from the checker's rules, with enforcement literals: per host
position ``k`` (the task taking draw ``k``) a presence literal, the unit
(one literal per unit), the window (one literal per window), whether it is
lost, its start ``S`` and end ``E``; per unit its completion ``c`` (its first
correct result); the run's end ``T >= c``. Integer data on the grid of
:func:`~.problem.prepare`, so the model is exact for the grid problem;
strict comparisons (a task starts *before* its window ends, a lost task
would end *after* it) are ``<= x - 1`` on the grid.
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
    """The model and its variables."""

    model: Any
    offline: Offline
    end: Any
    completion: list[Any]
    positions: list[list[Position]] = field(default_factory=list)


def build(offline: Offline, lower: int = 0) -> PullCpsat:
    """The model of ``offline``; ``lower``: a known lower bound on ``T`` (grid)."""
    cp = require_ortools()
    m = cp.CpModel()
    n, H, top = offline.instance.n_units, offline.horizon, offline.latest
    arrival = offline.arrival
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
            m.add(S <= T).only_enforce_if(a)
            m.add(S + duration == E).only_enforce_if(~lost)
            for w, (s, e) in enumerate(W):
                z = p.window[w]
                used[w].append(z)
                m.add(s <= S).only_enforce_if(z)
                m.add(e - 1 >= S).only_enforce_if(z)
                m.add(S + duration >= e + 1).only_enforce_if([z, lost])
                m.add(e == E).only_enforce_if([z, lost])
                m.add(S + duration <= e).only_enforce_if([z, ~lost])
            for u, x in enumerate(p.unit):
                m.add(arrival[u] <= S).only_enforce_if(x)
                m.add(c[u] >= S).only_enforce_if(x)  # no replica after the first correct result
                if int(host.outcome[k]) == 0:  # CORRECT: the first one completes the unit
                    m.add(c[u] <= E).only_enforce_if([x, ~lost])
                    f = m.new_bool_var(f"f{h}_{k}_{u}")
                    m.add_implication(f, x)
                    m.add_implication(f, ~lost)
                    m.add(c[u] >= E).only_enforce_if(f)
                    completes[u].append(f)
            _ready(m, rows, p, W, arrival, c, f"{h}_{k}")
            rows.append(p)
        _tails(m, rows, W, arrival, c, f"{h}")
        for w, (s, e) in enumerate(W):  # a window no task uses: nothing waits during it
            y = m.new_bool_var(f"used{h}_{w}")
            m.add_bool_or(used[w]).only_enforce_if(y)
            for z in used[w]:
                m.add_implication(z, y)
            for u in range(n):
                if arrival[u] < e:
                    m.add(c[u] <= s).only_enforce_if(~y)
        built.positions.append(rows)
    for u in range(n):
        m.add_exactly_one(completes[u]) if completes[u] else m.add_bool_or([])
    m.minimize(T)
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


def _ready(m: Any, rows: list[Position], p: Position, W: tuple, arrival: tuple,
           c: list[Any], name: str) -> None:
    """Back to back in a window; idle before the task only while nothing waits."""
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
    m.add(ready >= S).only_enforce_if([a, ~idle])
    for u, arrive in enumerate(arrival):
        q = m.new_bool_var(f"q{name}_{u}")
        m.add(c[u] <= ready).only_enforce_if([a, idle, q])
        m.add(arrive >= S).only_enforce_if([a, idle, ~q])


def _tails(m: Any, rows: list[Position], W: tuple, arrival: tuple, c: list[Any],
           name: str) -> None:
    """After a window's last task, the host idles to the window's end only if nothing waits."""
    for k, p in enumerate(rows):
        last = m.new_bool_var(f"last{name}_{k}")
        following = getattr(rows[k + 1], "same", None) if k + 1 < len(rows) else None
        m.add(last == p.active - (following if following is not None else 0))
        reaches = m.new_bool_var(f"t{name}_{k}")
        for w, (_, e) in enumerate(W):
            m.add(p.end >= e).only_enforce_if([last, p.window[w], reaches])
            for u, arrive in enumerate(arrival):
                if arrive < e:
                    m.add(c[u] <= p.end).only_enforce_if([last, p.window[w], ~reaches])


def add_hint(built: PullCpsat, plan: list[Task]) -> None:
    """Hint the units and presence of a known schedule's positions."""
    chosen = {(t.host, t.position): t for t in plan}
    for h, rows in enumerate(built.positions):
        for k, p in enumerate(rows):
            task = chosen.get((h, k))
            built.model.add_hint(p.active, task is not None)
            for u, x in enumerate(p.unit):
                built.model.add_hint(x, task is not None and task.unit == u)


def read(built: PullCpsat, solver: Any) -> list[Task]:
    """The plan of the incumbent."""
    plan = []
    for h, rows in enumerate(built.positions):
        for k, p in enumerate(rows):
            if solver.boolean_value(p.active):
                unit = next(u for u, x in enumerate(p.unit) if solver.boolean_value(x))
                plan.append(Task(h, k, unit, int(solver.value(p.start))))
    return plan
