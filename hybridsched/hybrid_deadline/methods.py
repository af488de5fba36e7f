"""Registration of the ``hybrid-deadline`` family and its methods (the family's entry point).

Loaded by the catalogue the first time the family is asked for; the methods
(:mod:`hybridsched.hybrid_deadline.adapters` and the heuristics they wrap) are
imported when one runs.

The heuristics take the paper's open readings as options (issue 19), each
documented with the paper's words in its module: ``cdf`` takes ``fit``
(``"append"`` | ``"edf"``) and ``scan`` (``"all"`` | ``"current"``)
(:mod:`hybridsched.heuristics.hybrid_deadline.cdf`); ``ffd`` takes ``fit`` (``"edf"`` |
``"append"``) (:mod:`hybridsched.heuristics.hybrid_deadline.ffd`); ``cdf+ra`` and ``ffd+ra``
take those and ``ra_accept`` (``"task"`` | ``"machine"``)
(:mod:`hybridsched.heuristics.hybrid_deadline.reassign`). ``exact`` warm-starts from the
default readings.
"""

from __future__ import annotations

from hybridsched.catalogue import declare_family
from hybridsched.registry import declare_method

FAMILY = "hybrid-deadline"
ADAPTERS = "hybridsched.hybrid_deadline.adapters"

declare_family(FAMILY, "hybridsched.hybrid_deadline.family:FAMILY",
               schema="hybridsched.hybrid_deadline.schema")
declare_method(FAMILY, "cdf", "hybridsched.heuristics.hybrid_deadline.cdf:cdf",
               check_options=f"{ADAPTERS}:check_cdf",
               description="Closest Deadline First (the paper's HA)")
declare_method(FAMILY, "cdf+ra", f"{ADAPTERS}:cdf_ra", check_options=f"{ADAPTERS}:check_cdf_ra",
               description="CDF followed by the reassigning algorithm RA")
declare_method(FAMILY, "ffd", "hybridsched.heuristics.hybrid_deadline.ffd:ffd",
               check_options=f"{ADAPTERS}:check_ffd",
               description="First Fit Decreasing baseline")
declare_method(FAMILY, "ffd+ra", f"{ADAPTERS}:ffd_ra", check_options=f"{ADAPTERS}:check_ffd_ra",
               description="FFD followed by RA")
declare_method(FAMILY, "exact", f"{ADAPTERS}:exact", exact=True,
               check_options="hybridsched.backends:check_exact_options",
               description="BNP solved exactly by HiGHS (linearised MILP) or CP-SAT "
                           "(--backend cpsat): proven optimum or bound")
declare_method(FAMILY, "bound", f"{ADAPTERS}:bound", exact=True,
               description="Best of CDF+RA / FFD+RA with the certified energetic-LP lower "
                           "bound (optimal when they meet)")
