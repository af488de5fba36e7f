"""Candidates (Section III) and the total orders that select among them.

A candidate is what a local scheduler offers for a job: the resource, the
schedule parameters ``P = (cost, processor intervals, tasks_to_migrate)``
(here: start, end, width and the jobs to migrate) and whether it is *good*:

``IsGood = deadline >= end and budget >= cost and size >= total size migrated``.

Selection (Algorithm 4 and Step 4) uses three keys, each ending with the
resource index and the option number so that they are total orders; with
them, any agent tree selects exactly what the flat broadcast selects:

- :func:`good_key`: cheapest, then earliest end;
- :func:`budget_key` (candidate1, policy A): least budget overspend
  ``(cost - budget)+``, then earliest end, then cheapest;
- :func:`deadline_key` (candidate2, policy B): least deadline overrun
  ``(end - deadline)+``, then cheapest, then earliest end.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Candidate:
    """One offer of a local scheduler for one job.

    ``option`` is 0 for the deadline-driven (or only) schedule and 1 for a
    cloud's budget-limited one; ``width`` is the number of processors and
    ``migrate`` the queued jobs that would be rescheduled elsewhere.
    """

    job: int
    resource: int
    option: int
    start: int
    end: int
    cost: float
    width: int
    good: bool
    migrate: tuple[int, ...] = ()


def is_good(end: int, cost: float, migrated_size: float, deadline: int, budget: float,
            size: float) -> bool:
    """The paper's ``IsGood``."""
    return end <= deadline and cost <= budget and migrated_size <= size


def good_key(c: Candidate) -> tuple[float, int, int, int]:
    """Order of good candidates: cheapest, then earliest end."""
    return (c.cost, c.end, c.resource, c.option)


def budget_key(c: Candidate, budget: float) -> tuple[float, int, float, int, int]:
    """Order of candidate1: least overspend, then earliest end, then cheapest."""
    return (max(c.cost - budget, 0.0), c.end, c.cost, c.resource, c.option)


def deadline_key(c: Candidate, deadline: int) -> tuple[int, float, int, int, int]:
    """Order of candidate2: least deadline overrun, then cheapest, then earliest end."""
    return (max(c.end - deadline, 0), c.cost, c.end, c.resource, c.option)
