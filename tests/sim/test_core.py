"""The shared SimPy layer: arrivals, availability windows, delayed actions, the event log."""

from __future__ import annotations

import math

from hybridsched.sim import EventLog, Simulation


def test_arrivals_come_together_in_index_order_at_their_times() -> None:
    sim = Simulation()
    seen: list[tuple[float, list[int]]] = []
    sim.arrivals([5, 0, 5, 2], lambda items: seen.append((sim.now, items)))
    sim.run()
    assert seen == [(0, [1]), (2, [3]), (5, [0, 2])]


def test_availability_windows_join_and_leave_and_may_stay() -> None:
    sim = Simulation()
    events: list[tuple[float, str]] = []
    sim.availability([(1, 4), (6, math.inf)], lambda: events.append((sim.now, "join")),
                     lambda: events.append((sim.now, "leave")))
    sim.run(until=100)
    assert events == [(1, "join"), (4, "leave"), (6, "join")]


def test_after_runs_an_action_later_and_the_log_is_chronological() -> None:
    sim = Simulation()
    sim.after(3, lambda: sim.log.record(sim.now, "late"))
    sim.log.record(0, "early")
    sim.arrivals([1], lambda items: sim.log.record(sim.now, "arrival", job=items[0]))
    sim.run()
    assert [r["event"] for r in sim.log.records()] == ["early", "arrival", "late"]
    assert len(sim.log) == 3


def test_an_empty_log_has_no_records() -> None:
    assert EventLog().records() == ()
