"""A memory budget that every exact and bound model is checked against before it is built.

Models grow with the instance (the hybrid-deadline MILP has a variable per
(task, core) pair), and a model that does not fit ends in a swap storm or the
kernel's kill, not in an error. So a method estimates its model's size from
the instance first and calls :func:`require`; when the estimate exceeds the
budget it gets :class:`ModelTooLarge` and falls back (warm start and a cheaper
bound) with a one-line message instead of building.

The budget, in order of precedence:

1. ``HYBRIDSCHED_MEMORY_GB`` (set by the global ``--memory-limit`` option, so
   campaign workers inherit it);
2. otherwise :data:`DEFAULT_GIB` (8 GiB) or half the machine's memory,
   whichever is smaller.

Either way it is capped by what an address-space limit (``ulimit -v``) still
leaves: the limit minus the address space the process already maps.

Example
-------
>>> require("the assignment MILP", estimated_bytes=2_000)  # fits: returns quietly
"""

from __future__ import annotations

import math
import os
import resource

from hybridsched.errors import InputError

#: Environment variable holding the budget in GiB (``--memory-limit`` sets it).
ENV = "HYBRIDSCHED_MEMORY_GB"

#: Default budget in GiB when nothing is set (the issue's "under 8 GiB at paper scale").
DEFAULT_GIB = 8.0

GIB = 1024**3


class ModelTooLarge(Exception):  # noqa: N818 (a signal to fall back, like BudgetExpired)
    """A model's estimated size exceeds the memory budget; the message is one line."""

    def __init__(self, what: str, needed: float, budget: float, configured: float | None = None):
        of = "" if configured is None else f" left of {format_bytes(configured)}"
        super().__init__(
            f"{what} would need about {format_bytes(needed)}, over the memory budget of "
            f"{format_bytes(budget)}{of} (--memory-limit or {ENV} sets it)")
        self.what = what
        self.needed = needed
        self.budget = budget


def format_bytes(size: float) -> str:
    """``size`` in the largest unit that keeps it at least 1 (``"3.4 GiB"``)."""
    for unit, scale in (("GiB", GIB), ("MiB", 1024**2), ("KiB", 1024)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size:.0f} B"


def parse_gib(text: str, source: str = ENV) -> float:
    """A budget in GiB from ``text``; a one-line :class:`InputError` naming ``source``."""
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{source}: expected a number of GiB, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"{source}: the memory budget must be a positive number of GiB, "
                         f"got {text!r}")
    return value


def _physical_bytes() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return math.inf


def _status_kib(field: str) -> float:
    """A ``/proc/self/status`` field in KiB (0 where there is no such file)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return float(line.split()[1])
    except OSError:
        pass
    return 0.0


def configured_bytes() -> float:
    """The budget before subtracting what the process already uses."""
    text = os.environ.get(ENV)
    if text:
        return parse_gib(text) * GIB
    return min(DEFAULT_GIB * GIB, 0.5 * _physical_bytes())


def available_bytes() -> float:
    """Bytes a new model may take now: the budget minus resident memory, within ``ulimit -v``."""
    budget = configured_bytes() - _status_kib("VmRSS") * 1024
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        budget = min(budget, soft - _status_kib("VmSize") * 1024)
    return max(0.0, budget)


def fits(estimated_bytes: float) -> bool:
    """Whether a model of ``estimated_bytes`` fits what :func:`available_bytes` leaves."""
    return estimated_bytes <= available_bytes()


def require(what: str, estimated_bytes: float) -> None:
    """Raise :class:`ModelTooLarge` naming ``what`` unless ``estimated_bytes`` fits the budget."""
    available = available_bytes()
    if estimated_bytes > available:
        raise ModelTooLarge(what, estimated_bytes, available, configured_bytes())
