"""What each number of a ``malleable`` schedule means: names and units for readers.

Times are minutes; money is the instance's cost units (1 per
processor-minute on an allocated cluster). The keys are the metrics of
:func:`hybridsched.malleable.checker.evaluate` and of the simulation.
Light on purpose (no numpy): ``--help`` texts read it.
"""

from __future__ import annotations

from hybridsched.family import Measure

MEASURES = {
    "cost": Measure("cost", "cost units"),
    "total_time": Measure("total arrival-to-end time of the jobs", "min"),
    "total_delay": Measure("total delay past the deadlines", "min"),
    "late_jobs": Measure("late jobs", "count"),
    "overspend": Measure("cost above the jobs' budgets", "cost units"),
    "penalised_a": Measure("penalised cost, policy A", "cost units"),
    "penalised_b": Measure("penalised cost, policy B", "cost units"),
    "makespan": Measure("makespan", "min"),
    "utilisation_*": Measure("utilisation of the {} resources"),
    "cost_*": Measure("cost on the {} resources", "cost units"),
    "messages_per_decision": Measure("messages per decision in the agent tree", "count"),
    "critical_path": Measure("messages on a decision's critical path", "count"),
    "reschedulings": Measure("reschedulings", "count"),
}
