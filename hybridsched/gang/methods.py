"""Registration of the ``gang`` family and its methods (the family's entry point).

Loaded by the catalogue the first time the family is asked for. It names the
family's :class:`~hybridsched.family.Family` and every method with its
description; the methods themselves (:mod:`hybridsched.gang.adapters`) are
imported when one runs, so listing them costs nothing.

Every online method takes its readings of the paper as keyword options
(issue 19), validated before anything runs: CPLMT's
(:mod:`hybridsched.heuristics.gang.cplmt`), each baseline's
(:mod:`hybridsched.heuristics.gang.baselines`, among them whether a baseline
starts gangs that cannot end by their deadline: ``deadline``) and, for all of
them, when a waiting job is dropped (``drop``,
:mod:`hybridsched.heuristics.gang.simulation`).
"""

from __future__ import annotations

from hybridsched.catalogue import declare_family
from hybridsched.registry import declare_method

FAMILY = "gang"
ADAPTERS = "hybridsched.gang.adapters"

#: The online policies and what each does.
POLICIES = {
    "cplmt": "CPLMT: scarce jobs first, min mt, tasks near the standard time",
    "fifo": "First in, first out on the first usable VMs (strict)",
    "fair": "Fair: max-min fair share of the free VMs among waiting jobs",
    "asjs": "ASJS: each job waits for its best-scored VMs (speed and bandwidth)",
    "cmms": "Cloud Min-min: smallest completion time first, fastest VMs",
}

#: The paper's words behind the baselines' ``deadline`` reading, which ``methods gang
#: --options`` prints (hybridsched.heuristics.gang.baselines says more).
DEADLINE_NOTES = {
    "deadline": "aware (default): start only gangs that end by their deadline; the paper "
                "lists it among a task's requirements: 'HD, MEM, BW and DL are the hard disk, "
                "memory, bandwidth and the deadline to the requirement of the resource of the "
                "task' (Eq. 4). oblivious-kill | oblivious-complete: start a gang that cannot "
                "end in time, stopped at its deadline (VMs freed then) or run to completion "
                "(VMs held), 'UFJ: the number of unfinished jobs' either way. The paper never "
                "says how its baselines treat deadlines: 'FIFO does not take account of the "
                "details of the VMs and the job'; only CPLMT's flow 'checks whether there are "
                "more jobs can be finished before their deadlines' (Fig. 3)",
}
BASELINES = ("fifo", "fair", "asjs", "cmms")

declare_family(FAMILY, "hybridsched.gang.family:FAMILY",
               schema="hybridsched.gang.schema")
for _name, _description in POLICIES.items():
    declare_method(FAMILY, _name, f"{ADAPTERS}:POLICIES.{_name}", description=_description,
                   check_options=f"{ADAPTERS}:POLICIES.{_name}.check_options",
                   option_notes=DEADLINE_NOTES if _name in BASELINES else None)
declare_method(FAMILY, "exact", f"{ADAPTERS}:exact", exact=True,
               description="Offline MILP (or CP-SAT: backend=cpsat) from the best heuristic: "
                           "most jobs finished, then most instructions",
               check_options="hybridsched.backends:check_exact_options")
declare_method(FAMILY, "bound", f"{ADAPTERS}:bound", exact=True,
               description="The best heuristic schedule with the time-indexed LP bound "
                           "(proven by its duals in exact arithmetic)")
declare_method(FAMILY, "grid", f"{ADAPTERS}:grid", exact=True,
               description="Best heuristic, then a MIP with every start on a time grid "
                           "(HiGHS), with the time-indexed LP bound")
