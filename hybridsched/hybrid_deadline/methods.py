"""Registered methods of the hybrid-deadline family."""

from __future__ import annotations

from hybridsched.heuristics.cdf import cdf
from hybridsched.heuristics.ffd import ffd
from hybridsched.heuristics.reassign import reassign
from hybridsched.hybrid_deadline.checker import rent_cost
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.models import bnp
from hybridsched.registry import MethodFailedError, register_method
from hybridsched.result import Result

FAMILY = "hybrid-deadline"

register_method(FAMILY, "cdf", description="Closest Deadline First (the paper's HA)")(cdf)


@register_method(FAMILY, "cdf+ra", description="CDF followed by the reassigning algorithm RA")
def cdf_ra(instance: Instance, *, seed: int | None = None,
           time_limit: float | None = None) -> Solution:
    """CDF, then RA on every machine."""
    return reassign(instance, cdf(instance))


register_method(FAMILY, "ffd", description="First Fit Decreasing baseline")(ffd)


@register_method(FAMILY, "ffd+ra", description="FFD followed by RA")
def ffd_ra(instance: Instance, *, seed: int | None = None,
           time_limit: float | None = None) -> Solution:
    """FFD, then RA on every machine."""
    return reassign(instance, ffd(instance))


def best_heuristic_solution(instance: Instance) -> Solution | None:
    """The cheaper of CDF+RA and FFD+RA (``None`` if both fail)."""
    candidates = []
    for method in (cdf_ra, ffd_ra):
        try:
            candidates.append(method(instance))
        except MethodFailedError:
            continue
    return min(candidates, key=lambda s: rent_cost(instance, s), default=None)


@register_method(FAMILY, "exact", exact=True,
                 description="Linearised BNP solved by HiGHS (proven optimum or bound)")
def exact(instance: Instance, *, seed: int | None = None,
          time_limit: float | None = None) -> Result:
    """Solve the linearised BNP, warm-started from the best heuristic."""
    return bnp.solve(instance, best_heuristic_solution(instance), time_limit=time_limit)
