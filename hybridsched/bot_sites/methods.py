"""Registration of the ``bot-sites`` family and its methods (the family's entry point).

Loaded by the catalogue the first time the family is asked for; the methods
(:mod:`hybridsched.bot_sites.adapters`) are imported when one runs.

Every method accepts ``objective="makespan"`` (default) or ``"cost"``
besides ``seed`` and ``time_limit``: the exact model then minimises cost
(then makespan), GMO selects allocations by cost gain and the greedy
heuristics use their cost-driven variants. GMO also takes its readings of
the paper as options (``regame``, ``placement``, ``utility``, ``threshold``,
``keep``, ``moves``, ``epsilon``, ``max_stages``; see
:mod:`hybridsched.heuristics.bot_sites.gmo`), checked before any run.
"""

from __future__ import annotations

from hybridsched.catalogue import declare_family
from hybridsched.registry import declare_method

FAMILY = "bot-sites"
ADAPTERS = "hybridsched.bot_sites.adapters"

#: The greedy heuristics and what each does.
GREEDY = {
    "g-met": "Greedy minimum execution time",
    "g-mct": "Greedy minimum completion time",
    "g-olb": "Greedy opportunistic load balancing",
    "g-min-min": "Greedy Min-min",
    "g-max-min": "Greedy Max-min",
    "g-sufferage": "Greedy Sufferage",
}

declare_family(FAMILY, "hybridsched.bot_sites.family:FAMILY",
               schema="hybridsched.bot_sites.schema")
declare_method(FAMILY, "gmo", f"{ADAPTERS}:gmo",
               check_options="hybridsched.heuristics.bot_sites.gmo:check_options",
               description="GMO game-theoretic multi-objective scheduler (Duan et al. 2014)")
for _name, _description in GREEDY.items():
    declare_method(FAMILY, _name, f"{ADAPTERS}:GREEDY_METHODS.{_name}", description=_description)
declare_method(FAMILY, "exact", f"{ADAPTERS}:exact", exact=True,
               check_options="hybridsched.backends:check_exact_options",
               description="MILP solved by HiGHS, or CP-SAT with --backend cpsat "
                           "(proven optimum or bound)")
declare_method(FAMILY, "bound", f"{ADAPTERS}:bound", exact=True,
               description="Best heuristic schedule with the strong makespan bound "
                           "(configuration LP, verifiable proof)")
