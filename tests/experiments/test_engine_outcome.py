"""Fetching a finished batch's rows from the cluster never waits without bound.

A row lives on the worker that ran it until fetched; when that worker dies
first, Dask runs the run again and the fetch waits for a worker. A campaign
once hung there with every worker dead, because nothing restarted them while
the fetch waited. These tests drive :func:`engine._outcome` with stand-in
futures, so that the waits and deaths are exact rather than timed.
"""

from __future__ import annotations

from concurrent.futures import CancelledError
from typing import Any

import pytest

from hybridsched.errors import ClusterError
from hybridsched.experiments import engine


class StandInFuture:
    """A Dask future's ``status``, ``result(timeout)`` and ``exception()``, scripted."""

    def __init__(self, outcomes: list[Any], status: str = "finished",
                 error: BaseException | None = None) -> None:
        self.outcomes, self.status, self.error = list(outcomes), status, error
        self.timeouts: list[float | None] = []

    def result(self, timeout: float | None = None) -> Any:
        self.timeouts.append(timeout)
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def exception(self) -> BaseException | None:
        return self.error


@pytest.fixture
def error_rows(monkeypatch) -> list[Any]:
    """The errors :func:`engine._error_rows` was given (it returns one marker row)."""
    seen: list[Any] = []

    def error_rows(batch: Any, error: Any) -> list[dict[str, Any]]:
        seen.append(error)
        return [{"status": "failed", "error": str(error)}]

    monkeypatch.setattr(engine, "_error_rows", error_rows)
    return seen


def test_a_slow_fetch_keeps_the_workers_alive_meanwhile(error_rows):
    checks = []
    future = StandInFuture([TimeoutError(), TimeoutError(), [{"status": "optimal"}]])
    rows = engine._outcome(future, ["run"], lambda: checks.append("checked"))
    assert rows == [{"status": "optimal"}]
    assert checks == ["checked", "checked"]
    assert future.timeouts == [engine.WATCH_EVERY_S] * 3  # never an unbounded wait
    assert error_rows == []


def test_a_fetch_stops_when_the_keeper_gives_up(error_rows):
    def give_up() -> None:
        raise ClusterError("lost every worker")

    future = StandInFuture([TimeoutError()] * 3)
    with pytest.raises(ClusterError, match="lost every worker"):
        engine._outcome(future, ["run"], give_up)


def test_a_failed_run_gives_its_error_row_without_fetching(error_rows):
    future = StandInFuture([], status="error", error=RuntimeError("killed"))
    rows = engine._outcome(future, ["run"], lambda: pytest.fail("nothing to wait for"))
    assert rows[0]["status"] == "failed" and future.timeouts == []
    assert [str(e) for e in error_rows] == ["killed"]


def test_a_run_raising_timeout_error_itself_is_a_failed_row_not_a_wait(error_rows):
    future = StandInFuture([TimeoutError("the run's own")], error=TimeoutError("the run's own"))

    def raising_run_fetch(timeout: float | None = None) -> Any:
        future.status = "error"  # the client learns of the error as the fetch raises it
        raise TimeoutError("the run's own")

    future.result = raising_run_fetch  # type: ignore[method-assign]
    rows = engine._outcome(future, ["run"], lambda: pytest.fail("not a wait"))
    assert rows[0]["status"] == "failed"
    assert [str(e) for e in error_rows] == ["the run's own"]


def test_an_error_met_while_fetching_is_the_run_s_failed_row(error_rows):
    future = StandInFuture([TimeoutError(), OSError("worker lost")])
    rows = engine._outcome(future, ["run"], lambda: None)
    assert rows[0]["status"] == "failed"
    assert [str(e) for e in error_rows] == ["worker lost"]


@pytest.mark.parametrize("how", ["status", "fetch"])
def test_a_cancelled_run_means_the_cluster_was_lost(error_rows, how):
    future = (StandInFuture([], status="cancelled") if how == "status"
              else StandInFuture([CancelledError()]))
    with pytest.raises(ClusterError, match="lost the Dask cluster"):
        engine._outcome(future, ["run"], lambda: None)


def test_a_batch_that_killed_its_worker_has_no_rows_and_other_errors_fail_each_run():
    from distributed import KilledWorker

    assert engine._error_rows(["run"], KilledWorker("runs-x", "tcp://w", 1)) is None
    with pytest.raises(ClusterError, match="lost the Dask cluster"):
        engine._error_rows(["run"], OSError("connection closed"))
