"""Numbers as people read them: run times rounded to the machine's noise, measures named.

Every table, report and plot meant for people formats times and names
objectives here, so that they all say the same; JSON and CSV documents keep
full precision and their keys.

Times
-----
Repeated runs of one method on one instance differ far more than their
printed digits suggested: on the 2-core machine these tools are developed
on, 15 runs each of ``fifo``, ``cplmt`` (gang), ``cdf`` (hybrid-deadline),
``gmo`` (bot-sites) and the gang ``exact`` method spread by 20-200% (relative
standard deviation) below 10 ms and still by 5-35% above; the timer itself
resolves better than a microsecond, the interpreter around the call does
not. So a time shows :data:`SIGNIFICANT` significant digits below 1 s
(``0.60``, ``0.0031``), 0.1 s from 1 s on (``12.3``), and never a digit
finer than 0.1 ms (:data:`MAX_DECIMALS`): ``<0.0001`` below it.

A column of a table shows each time under that rule, right-aligned: a
column mixing 0.3 ms heuristics with a 2.5 s exact run shows ``0.0003``
and ``2.5``, not ``2.5000``, whose last digits the noise would make up.

Measures
--------
:func:`objective_label` and :func:`measure_label` give what a family's
objective or metric is, with its unit (``"rent cost ($)"``), from the
family's :class:`~hybridsched.family.Measure` table; a family that cannot
be loaded leaves the raw name.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

#: Significant digits of a time below one second.
SIGNIFICANT = 2
#: Most decimals of a time in seconds (a resolution of 0.1 ms).
MAX_DECIMALS = 4
#: Decimals of a time of one second or more (a resolution of 0.1 s).
LONG_DECIMALS = 1


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or ``None`` (missing, NaN, not a number)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def seconds_decimals(value: float) -> int:
    """Decimals that show ``value`` seconds to the machine's noise (module docstring).

    Examples
    --------
    >>> [seconds_decimals(v) for v in (0.0, 0.00003, 0.0031, 0.6, 0.996, 12.34)]
    [1, 4, 4, 2, 1, 1]
    """
    if value <= 0:
        return LONG_DECIMALS
    rounded = float(f"{value:.{SIGNIFICANT}g}")  # 0.996 -> 1.0: one decimal, not three
    if rounded >= 1:
        return LONG_DECIMALS
    needed = SIGNIFICANT - 1 - math.floor(math.log10(rounded))
    return min(max(needed, LONG_DECIMALS), MAX_DECIMALS)


def seconds(value: Any, decimals: int | None = None, *, missing: str = "-",
            unit: bool = False) -> str:
    """``value`` seconds as text: the module's rule, or ``decimals`` when given.

    A positive time below the resolution shows as ``<0.0001`` (never as a
    zero it is not); ``unit`` appends ``" s"``.

    Examples
    --------
    >>> seconds(0.602624), seconds(0.0031), seconds(12.345), seconds(None)
    ('0.60', '0.0031', '12.3', '-')
    >>> seconds(0.00002, unit=True), seconds(2.5, 4)
    ('<0.0001 s', '2.5000')
    """
    number = _number(value)
    if number is None:
        return missing
    places = seconds_decimals(number) if decimals is None else decimals
    if 0 < number < 0.5 * 10.0 ** -places:
        text = f"<{10.0 ** -places:.{places}f}"
    else:
        text = f"{number:.{places}f}"
    return f"{text} s" if unit else text


def seconds_column(values: Iterable[Any], *, missing: str = "-") -> list[str]:
    """Times of one column, each to the machine's noise (the module's rule).

    Examples
    --------
    >>> seconds_column([0.000311, 0.00159, 0.545, 2.51599, None])
    ['0.0003', '0.0016', '0.55', '2.5', '-']
    >>> seconds_column([1.23, 17.89])
    ['1.2', '17.9']
    """
    return [seconds(value, missing=missing) for value in values]


def _family(name: Any) -> Any:
    """The family called ``name``, or ``None`` when there is none to ask."""
    if not isinstance(name, str) or not name:
        return None
    from hybridsched.catalogue import get_family
    from hybridsched.errors import InputError

    try:
        return get_family(name)
    except InputError:
        return None


def objective_label(family: Any, objective: Any = None) -> str:
    """What an objective value of ``family`` (a name) is, with its unit.

    ``objective`` is the objective chosen (an ``objective`` option), or the
    ``objective_name`` a campaign stored; ``None`` for the family's default
    (see :meth:`hybridsched.family.Family.objective_label`).

    Examples
    --------
    >>> objective_label("hybrid-deadline"), objective_label("bot-sites", "cost")
    ('rent cost ($)', 'cost ($)')
    >>> objective_label("no-such-family", "speed")
    'speed'
    """
    objective = objective if isinstance(objective, str) and objective else None
    found = _family(family)
    if found is None:
        return objective or "objective"
    return found.objective_label(objective)


def measure_label(family: Any, key: str) -> str | None:
    """What metric ``key`` of ``family`` (a name) is, with its unit (``None``: unknown).

    Examples
    --------
    >>> measure_label("gang", "awt")
    'average waiting time of the finished jobs (time units)'
    """
    found = _family(family)
    if found is None:
        return None
    measure = found.measure(key)
    return None if measure is None else measure.label


def size_name(family: Any) -> str:
    """What an instance's size counts in ``family`` (``"tasks"``; ``"items"`` when unknown)."""
    found = _family(family)
    return "items" if found is None else found.size_name
