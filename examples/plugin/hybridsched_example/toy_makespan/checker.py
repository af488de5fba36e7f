"""The one checker of ``toy-makespan``: what a valid schedule is, and its makespan."""

from __future__ import annotations

from hybridsched.family import Evaluation, wrong_claims
from hybridsched_example.toy_makespan.instance import Instance
from hybridsched_example.toy_makespan.solution import Schedule


def loads(instance: Instance, schedule: Schedule) -> list[float]:
    """Total duration on each machine (machines out of range are skipped)."""
    load = [0.0] * instance.machines
    for duration, machine in zip(instance.durations, schedule.machine_of, strict=True):
        if 0 <= machine < instance.machines:
            load[machine] += duration
    return load


def makespan(instance: Instance, schedule: Schedule) -> float:
    """When the last machine finishes."""
    return max(loads(instance, schedule))


def check(instance: Instance, schedule: Schedule) -> list[str]:
    """Every violation: a task on a machine that does not exist, a wrong stated makespan."""
    problems = [f"task {task!r} on machine {machine}, which does not exist"
                for task, machine in zip(instance.task_ids, schedule.machine_of, strict=True)
                if not 0 <= machine < instance.machines]
    if problems:
        return problems
    return wrong_claims([("makespan", schedule.stated_makespan, makespan(instance, schedule))])


def evaluate(instance: Instance, schedule: Schedule) -> Evaluation:
    """The makespan, and the machines' loads as metrics."""
    load = loads(instance, schedule)
    return Evaluation(max(load), {"makespan": max(load), "least_load": min(load)})
