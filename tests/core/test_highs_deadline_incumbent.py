"""A HiGHS run our deadline interrupts keeps the schedule HiGHS had found.

Pyomo's APPSI reads HiGHS's "interrupted" status as "no solution" although
HiGHS holds its incumbent; the driver takes it (:func:`highs._interrupted_incumbent`).
The deadline here passes at HiGHS's first improving solution (a callback, not a
clock), on a market-split model that no solver proves at its root.
"""

from __future__ import annotations

import random

import pyomo.environ as pyo
import pytest

from hybridsched.models.solvers import highs as driver
from hybridsched.models.solvers.highs_stop import Deadline
from hybridsched.result import Status


def market_split(rows: int = 4, items: int = 30, seed: int = 3) -> pyo.ConcreteModel:
    """Cornuéjols-Dawande market split: hit half of each row's weight, minimise the misses."""
    rng = random.Random(seed)
    weights = [[rng.randint(0, 99) for _ in range(items)] for _ in range(rows)]
    model = pyo.ConcreteModel()
    model.x = pyo.Var(range(items), domain=pyo.Binary)
    model.over = pyo.Var(range(rows), domain=pyo.NonNegativeReals)
    model.under = pyo.Var(range(rows), domain=pyo.NonNegativeReals)
    model.split = pyo.Constraint(range(rows), rule=lambda m, i: sum(
        weights[i][j] * m.x[j] for j in range(items)) + m.under[i] - m.over[i]
        == sum(weights[i]) // 2)
    model.misses = pyo.Objective(expr=sum(model.over[i] + model.under[i] for i in range(rows)))
    return model


def test_the_incumbent_found_before_the_deadline_is_returned(monkeypatch):
    found = {"improving": 0}

    class AtFirstIncumbent(Deadline):
        def passed(self) -> bool:
            return found["improving"] > 0

    def watch_first_incumbent(highs, deadline=None) -> None:
        def improving(event) -> None:
            found["improving"] += 1

        def interrupt(event) -> None:
            if found["improving"]:
                event.interrupt()

        highs.cbMipImprovingSolution.subscribe(improving)
        highs.cbMipInterrupt.subscribe(interrupt)

    monkeypatch.setattr(driver, "Deadline", AtFirstIncumbent)
    monkeypatch.setattr(driver, "watch", watch_first_incumbent)
    model = market_split()
    outcome = driver.solve_with_highs(model, time_limit=120)
    assert found["improving"] >= 1
    assert outcome.status == Status.TIME_LIMIT
    assert outcome.objective is not None and outcome.has_incumbent
    # The schedule is loaded into the model, and it is the one the objective is of.
    assert pyo.value(model.misses) == pytest.approx(outcome.objective, abs=1e-6)
    assert all(abs(pyo.value(model.x[j]) - round(pyo.value(model.x[j]))) < 1e-6
               for j in model.x)
    assert outcome.bound is None or outcome.bound <= outcome.objective + 1e-6
