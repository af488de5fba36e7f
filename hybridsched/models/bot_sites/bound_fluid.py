"""The family's cheap fluid bound with a proof: the fluid LP's duals at its LST level.

:func:`hybridsched.bot_sites.bounds.fluid_bound` finds, by a search over the
distinct task times, the level ``tau`` (the largest allowed ``p`` within its
value) at which the LST-strengthened fluid LP settles. Its value is proven by
LP duals (:mod:`hybridsched.bot_sites.bound_check`, kind ``fluid``): of the
fluid LP restricted to ``p <= tau`` (proves about its optimum, since the next
longer ``p`` is larger) and, when the bound is ``tau`` itself, of the one
restricted to the ``p`` just below ``tau`` (proves ``tau``: that LP does not
fit below it). The duals are HiGHS's, scaled so
that ``C``'s reduced cost is exactly positive (the verifier's rows are the
solver's up to float rounding of the resource limits); nothing here is
trusted: the claimed value is what the exact verifier recomputes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hybridsched.bot_sites import bound_check
from hybridsched.bot_sites.bound_check import LIMIT_TOL_EXACT, RESOURCE_SLACK, resource_rows
from hybridsched.bot_sites.bounds import fluid_bound, restricted_fluid_lp
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.limits import allowed_pairs
from hybridsched.bound_proof import BoundCertificate

METHOD = "fluid LP, LST-strengthened (dual certificate)"

#: Relative amount the duals are shrunk by beyond the float sum of ``C``'s column, so that
#: its exact reduced cost stays >= 0 (that sum's float error is about 1e-16 per site).
DUAL_SHRINK = 1e-13


def level_proof(instance: Instance, threshold: float) -> dict[str, Any]:
    """One level of a fluid proof: the duals of the fluid LP over the pairs ``p <= threshold``.

    Without duals (the verifier then proves the next longer ``p``) when some
    BoT has no allowed pair within ``threshold``.
    """
    ok = allowed_pairs(instance)
    level: dict[str, Any] = {"threshold": float(threshold)}
    solved = restricted_fluid_lp(instance, ok & (instance.p <= threshold))
    if solved is None:
        return level
    _, duals = solved
    multipliers = {"sites": np.maximum(-duals["sites"], 0.0)}
    column = float(np.dot(multipliers["sites"], instance.procs.astype(float)))
    widen = float((1 + LIMIT_TOL_EXACT) * (1 + RESOURCE_SLACK))
    for name, (_, limit) in resource_rows(instance).items():
        multipliers[name] = np.maximum(-duals.get(name, np.zeros(instance.n_sites)), 0.0)
        column += float(np.dot(multipliers[name], np.asarray(limit, float))) * widen
    # C's reduced cost is 1 - column: scale the whole vector so that it is >= 0 exactly
    # (a uniform scale keeps every other reduced cost's sign, so the bound loses only
    # the same relative amount).
    scale = (1 - DUAL_SHRINK) / column if column > 0 else 1.0
    level["bots"] = (duals["bots"] * scale).tolist()
    for name, values in multipliers.items():
        level[name] = (values * scale).tolist()
    return level


def fluid_certificate(instance: Instance) -> BoundCertificate:
    """The fluid bound (LST-strengthened) with its dual proof, as the exact verifier reads it."""
    value = fluid_bound(instance)
    ok = allowed_pairs(instance)
    times = np.unique(instance.p[ok])
    at = int(np.searchsorted(times, value, side="right")) - 1
    levels = []
    if at >= 0:
        levels.append(level_proof(instance, float(times[at])))
        if value <= times[at] * (1 + 1e-9):
            # The bound is tau itself: proven just below it, where the LP does not fit
            # below tau (below the shortest time no BoT has a pair: that proves it too).
            below = times[at - 1] if at >= 1 else np.nextafter(times[0], -np.inf)
            levels.append(level_proof(instance, float(below)))
    else:                                   # below every time: no restriction applies
        levels.append(level_proof(instance, float(times[-1])))
    proof = {"kind": "fluid", "levels": levels}
    return BoundCertificate(bound_check.certified_value(instance, proof), METHOD, proof)
