"""The callables the registry runs for ``toy-makespan``: methods as the contract wants them.

Each takes the instance, ``seed`` and ``time_limit`` (plus its own options)
and returns a solution or a :class:`~hybridsched.result.Result`; the
algorithms themselves stay plain functions of the instance.
"""

from __future__ import annotations

from hybridsched.result import Result
from hybridsched_example.heuristics.toy_makespan.lpt import lpt as lpt_schedule
from hybridsched_example.models.toy_makespan.enumeration import enumerate_all
from hybridsched_example.toy_makespan.instance import Instance
from hybridsched_example.toy_makespan.solution import Schedule


def lpt(instance: Instance, *, seed: int | None = None,
        time_limit: float | None = None) -> Schedule:
    """LPT (deterministic: ``seed`` is not used; fast enough to ignore ``time_limit``)."""
    return lpt_schedule(instance)


def enumerate_method(instance: Instance, *, seed: int | None = None,
                     time_limit: float | None = None) -> Result:
    """The exact enumeration within ``time_limit``."""
    return enumerate_all(instance, time_limit=time_limit)
