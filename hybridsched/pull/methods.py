"""Registration of the ``pull`` family and its methods (the family's entry point).

Loaded by the catalogue the first time the family is asked for; the methods
(:mod:`hybridsched.pull.adapters`) are imported when one runs.
"""

from __future__ import annotations

from hybridsched.catalogue import declare_family
from hybridsched.registry import declare_method

FAMILY = "pull"
ADAPTERS = "hybridsched.pull.adapters"
CHECKS = "hybridsched.heuristics.pull.policies"

declare_family(FAMILY, "hybridsched.pull.family:FAMILY",
               schema="hybridsched.pull.schema")
#: The paper's words behind the readings ``methods pull --options`` notes (section 6.3.2;
#: hybridsched.heuristics.pull.promethee_thresholds says more).
PROMETHEE_NOTES = {
    "thresholds": "unit of q and p (gaussian: s): sigma (default), 'the standard deviation of "
                  "the differences d for all pairs of tasks', or absolute, each criterion's "
                  "own units (ECT s, price, EEI); one value, or one per criterion as "
                  "'q=3600,10,0.1'. The paper: 'q is the degree of indifference; any "
                  "deviation below q leads to considering t1 and t2 equivalent', 'p is the "
                  "degree of preference'; it gives no values (6.3.2)",
}
declare_method(FAMILY, "promethee", f"{ADAPTERS}:promethee",
               check_options=f"{CHECKS}:check_strategy_options",
               description="PROMETHEE II ranking of the queued tasks for each pulling host",
               option_notes=PROMETHEE_NOTES)
declare_method(FAMILY, "fcfs", f"{ADAPTERS}:fcfs", check_options=f"{CHECKS}:check_fcfs_options",
               description="FCFS as the paper defines it: a random queued task for each "
                           "pulling host")
declare_method(FAMILY, "exact", f"{ADAPTERS}:exact", exact=True,
               check_options="hybridsched.backends:check_exact_options",
               description="clairvoyant offline optimum (windows, arrivals and every result "
                           "known in advance): MILP (HiGHS) or CP-SAT, tiny instances")
declare_method(FAMILY, "bound", f"{ADAPTERS}:bound", exact=True,
               description="best heuristic schedule (online policies, clairvoyant greedy) "
                           "with the certified window-LP makespan bound")
