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
from hybridsched.result import Result, Status

#: Each attempt of ``test-crash`` appends a line here (set by the test).
ATTEMPTS_FILE = "HYBRIDSCHED_TEST_ATTEMPTS"
#: Node limit of ``test-highs-nap`` (12000 nodes: about 2 s on one core).
NAP_NODES = "HYBRIDSCHED_TEST_NAP_NODES"


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


@register_method("hybrid-deadline", "test-highs-nap",
                 description="cdf after seconds inside HiGHS (test)")
def highs_nap(instance, *, seed=0, time_limit=None):
    """Keep HiGHS busy for a few seconds (a node limit: the outcome is clock-free), then cdf.

    Ctrl-C during the solve must end the run as an interrupt: before, HiGHS
    returned "interrupted" and the run was stored as if it had a result.
    """
    import pyomo.environ as pyo

    from hybridsched.models.solvers.highs import solve_with_highs

    model = pyo.ConcreteModel()
    model.goods = pyo.RangeSet(40)
    weight = {i: 1000 + (i * 7919) % 997 for i in model.goods}
    model.x = pyo.Var(model.goods, domain=pyo.Binary)
    model.capacity = pyo.Constraint(
        expr=sum(weight[i] * model.x[i] for i in model.goods) <= sum(weight.values()) // 2 + 1)
    model.value = pyo.Objective(expr=-sum((weight[i] + i % 3) * model.x[i] for i in model.goods))
    nodes = int(os.environ.get(NAP_NODES, 12000))
    outcome = solve_with_highs(model, options={"mip_max_nodes": nodes}, verify=False)
    produced = get_method("hybrid-deadline", "cdf").func(instance, seed=seed,
                                                        time_limit=time_limit)
    return Result("test-highs-nap", "hybrid-deadline", Status.FEASIBLE, solution=produced,
                  message=f"HiGHS bound {outcome.bound:.9g} after {nodes} nodes")
