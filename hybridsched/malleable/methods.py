"""Registration of the ``malleable`` family and its methods (the family's entry point).

Loaded by the catalogue the first time the family is asked for; the methods
(:mod:`hybridsched.malleable.adapters`) are imported when one runs.
"""

from __future__ import annotations

from hybridsched.catalogue import declare_family
from hybridsched.registry import declare_method

FAMILY = "malleable"
ADAPTERS = "hybridsched.malleable.adapters"

#: The online schedulers and what each does.
SCHEDULERS = {
    "tree": "Agent tree over DCA/ACA/CCA local schedulers (Algorithm 4)",
    "flat": "Flat broadcast to every local scheduler (the star tree)",
    "round-robin": "Each job to a uniformly drawn resource (seeded)",
}

declare_family(FAMILY, "hybridsched.malleable.family:FAMILY",
               schema="hybridsched.malleable.schema")
for _name, _description in SCHEDULERS.items():
    declare_method(FAMILY, _name, f"{ADAPTERS}:SCHEDULERS.{_name}", description=_description,
                   check_options=f"{ADAPTERS}:check_policy")
declare_method(FAMILY, "exact", f"{ADAPTERS}:exact", exact=True,
               check_options=f"{ADAPTERS}:check_exact",
               description="Best of the heuristics, then the time-indexed malleable model "
                           "(PuLP + HiGHS, or --backend cpsat: OR-Tools CP-SAT)")
declare_method(FAMILY, "bound", f"{ADAPTERS}:bound", exact=True,
               check_options=f"{ADAPTERS}:check_policy",
               description="The exact method's warm start with the time-bucket LP bound "
                           "(proven by its duals in exact arithmetic)")
