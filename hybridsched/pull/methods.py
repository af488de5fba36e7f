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
declare_method(FAMILY, "promethee", f"{ADAPTERS}:promethee",
               check_options=f"{CHECKS}:check_strategy_options",
               description="PROMETHEE II ranking of the queued tasks for each pulling host")
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
