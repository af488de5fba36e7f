"""What each number of a ``bot-sites`` schedule means: names and units for readers.

Times are seconds and prices dollars per second of computation, as the
paper reads them (the instance files say ``"time": "second"``; only ratios
matter to the algorithms). The keys are the metrics of
:func:`hybridsched.bot_sites.checker.evaluate`. Light on purpose (no numpy):
``--help`` texts read it.
"""

from __future__ import annotations

from hybridsched.family import Measure

MEASURES = {
    "makespan": Measure("makespan", "s"),
    "aggregated_makespan": Measure("sum of the BoTs' completion times", "s"),
    "cost": Measure("cost", "$"),
    "jain_fairness": Measure("Jain's fairness over workflows, 1 is fair"),
    "jain_fairness_bots": Measure("Jain's fairness over BoT completion times"),
    "jain_fairness_execution": Measure("Jain's fairness over BoT execution times"),
    "jain_fairness_slowdown": Measure("Jain's fairness over BoT slowdowns"),
    "efficiency": Measure("efficiency, 1 when every task runs on its BoT's best site"),
    "utilisation": Measure("processor utilisation"),
    "bandwidth_ok": Measure("peak bandwidth within every site's limit"),
    "peak_bandwidth_ratio": Measure("largest peak bandwidth over its site's limit"),
    "storage_ok": Measure("peak storage within every site's limit"),
    "peak_storage_ratio": Measure("largest peak storage over its site's limit"),
    "blocks": Measure("blocks of tasks scheduled", "count"),
    "makespan_bound": Measure("proven lower bound on the makespan of the min-cost schedules",
                              "s"),
    "makespan_proven_minimal": Measure("makespan proven minimal among the min-cost schedules"),
}
