"""What each number of a ``pull`` schedule means: names and units for readers.

Times are seconds, work instructions and money the instance's monetary
units (Table 3 of the paper). The keys are the metrics of
:func:`hybridsched.pull.checker.evaluate` (``<dci>`` stands for a DCI's
name). Light on purpose (no numpy): ``--help`` texts read it.
"""

from __future__ import annotations

from hybridsched.family import Measure

MEASURES = {
    "makespan": Measure("makespan", "s"),
    "cost": Measure("cost", "monetary units"),
    "efficiency": Measure("efficiency E, work-unit over scheduled instructions"),
    "completed": Measure("completed work units", "count"),
    "tasks": Measure("tasks scheduled", "count"),
    "tasks_correct": Measure("tasks that returned a correct result", "count"),
    "tasks_wrong": Measure("tasks that returned a wrong result", "count"),
    "tasks_never": Measure("tasks whose result never came back", "count"),
    "tasks_lost": Measure("tasks lost when their host left", "count"),
    "tasks_cancelled": Measure("tasks cancelled at the run's end", "count"),
    "tasks_delayed": Measure("tasks slower than their ECT", "count"),
    "efficiency_*": Measure("utilisation efficiency on {}"),
    "instructions_*": Measure("instructions executed on {}", "instructions"),
    "completed_*": Measure("work units completed on {}", "count"),
}
