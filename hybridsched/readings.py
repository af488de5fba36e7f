"""Checks of the options that carry a paper's readings, shared by every family (issue 19).

Where a paper leaves a point open, the reading is a keyword option of a
method or of a generator. These helpers turn a bad value into the one-line
:class:`~hybridsched.errors.InputError` every option gives, naming the option
as the command line spells it (``option --ra-accept: must be one of ...``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from hybridsched.errors import InputError


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``, else a one-line error naming ``name``."""
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"option {_flag(name)}: must be one of {', '.join(choices)}, "
                         f"got {value!r}")
    return value


def check_number(name: str, value: Any, *, low: float, high: float = math.inf,
                 low_open: bool = False) -> float:
    """``value`` as a float within ``[low, high]`` (``(low, high]`` with ``low_open``)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(f"option {_flag(name)}: must be a finite number, got {value!r}")
    if value < low or (low_open and value == low) or value > high:
        bounds = f"{'(' if low_open else '['}{low:g}, {high:g}]"
        raise InputError(f"option {_flag(name)}: must be in {bounds}, got {value!r}")
    return float(value)


def check_known(options: Mapping[str, Any], known: Sequence[str], what: str) -> None:
    """Refuse an option ``what`` does not take (one line, listing those it takes)."""
    for name in options:
        if name not in known:
            takes = ", ".join(sorted(known)) or "no options"
            raise InputError(f"option {_flag(name)} is not accepted by {what} (it takes: "
                             f"{takes})")
