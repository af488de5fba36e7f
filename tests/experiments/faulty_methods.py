"""A campaign plugin of test methods that fail in every way a run can fail.

Imported by path (``plugins = [...]`` in a spec), in the test process and on
every worker. Each method registers for ``hybrid-deadline``.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from hybridsched.budget import TimeBudget
from hybridsched.errors import MethodFailedError
from hybridsched.registry import get_method, register_method

#: Each attempt of ``test-crash`` appends a line here (set by the test).
ATTEMPTS_FILE = "HYBRIDSCHED_TEST_ATTEMPTS"


def _cdf(instance, seed, time_limit):
    return get_method("hybrid-deadline", "cdf").func(instance, seed=seed,
                                                       time_limit=time_limit)


@register_method("hybrid-deadline", "test-raise", description="raises (test)")
def raising(instance, *, seed=0, time_limit=None):
    raise ZeroDivisionError("first line\nthe last line of the error")


@register_method("hybrid-deadline", "test-timeout", description="no incumbent (test)")
def timing_out(instance, *, seed=0, time_limit=None):
    budget = TimeBudget(time_limit)
    while not budget.expired():
        time.sleep(0.01)
    raise MethodFailedError("time limit reached without a schedule")


@register_method("hybrid-deadline", "test-crash", description="kills its process (test)")
def crashing(instance, *, seed=0, time_limit=None):
    attempts = os.environ.get(ATTEMPTS_FILE)
    if attempts:
        with Path(attempts).open("a") as handle:
            handle.write(f"{os.getpid()}\n")
    os.kill(os.getpid(), signal.SIGKILL)


@register_method("hybrid-deadline", "test-sleepy", description="cdf after a nap (test)")
def sleepy(instance, *, seed=0, time_limit=None):
    time.sleep(0.05)
    return _cdf(instance, seed, time_limit)
