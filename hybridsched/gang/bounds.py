"""Lower bounds on the gang objective (unfinished jobs) that every accepted schedule respects."""

from __future__ import annotations

import numpy as np

from hybridsched.gang.checker import could_finish
from hybridsched.gang.instance import Instance


def lower_bound(instance: Instance) -> float:
    """Jobs that fewer than ``parallelism`` VMs could ever finish in time are unfinished.

    "In time" is the checker's rule (:func:`could_finish`: a task started at the
    job's arrival, the earliest real start, ends by ``due + TIME_TOL``), so the
    bound never exceeds the objective of a schedule the checker accepts.
    """
    return float(np.sum(could_finish(instance).sum(axis=1) < instance.parallelism))
