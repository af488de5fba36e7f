"""The Promethee scheduler's thresholds ``q`` and ``p``: in sigmas, or in each criterion's units.

The paper (Moca et al. 2016, section 6.3.2) writes its Linear and Gaussian
functions with sigma, "the standard deviation of the differences d for all
pairs of tasks", and its Level with two thresholds compared with the
deviation itself: "q is the degree of indifference; any deviation below q
leads to considering t1 and t2 equivalent", "p is the degree of preference;
any deviation greater than q gives a strict preference, either 0.5 (for
deviations between q and p) or 1". It gives no values for ``q`` and ``p``.

Option ``thresholds`` says what unit ``q`` and ``p`` are in:

``sigma``     (the default) multiples of the criterion's sigma at each
              decision, the unit of the paper's Linear and Gaussian, so that
              one value suits every criterion (defaults: :data:`SIGMA_DEFAULTS`);
``absolute``  each criterion's own units, as a deviation is: ECT in seconds,
              price in monetary units, EEI in its own (a relative utility
              times a factor of Table 1). ``p`` is required (the paper gives
              no value, and no single default suits seconds, money and EEI);
              ``q`` defaults to 0. The Gaussian's ``s`` (the paper's sigma in
              ``2 sigma^2``) is ``p``. ``spread`` (which sigma) plays no part.

Why ``sigma`` stays the default although the Level's text compares ``d`` with
``q`` directly: the text gives no values, so an absolute default would be
ours, not the paper's, while sigma is the paper's own unit for Linear and
Gaussian (and it was the toolkit's only unit before issue 34).

Values: one number for every criterion, or one per criterion in the order
ECT, price, EEI (``"3600,10,0.1"``, or a sequence), under either unit. Per
criterion, ``q <= p`` (linear: ``q < p``; gaussian: ``p > 0``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from hybridsched.errors import InputError

#: What ``q`` and ``p`` are measured in (module doc).
THRESHOLDS = ("sigma", "absolute")
DEFAULT_THRESHOLDS = "sigma"
#: The criteria thresholds are given for, in order, as messages name them.
CRITERION_NAMES = ("ECT", "price", "EEI")
#: Default ``(q, p)`` in sigmas of each preference function (the paper gives no values
#: but the Linear's and the Gaussian's sigma).
SIGMA_DEFAULTS = {"linear": (0.0, 1.0), "level": (0.5, 1.0), "gaussian": (0.0, 1.0)}
Threshold = float | tuple[float, ...] | None


def parse_threshold(value: object, name: str) -> Threshold:
    """``None``, one number ``>= 0``, or one per criterion (one-line :class:`InputError`).

    ``value``: a number, a string of one or ``len(CRITERION_NAMES)``
    comma-separated numbers, or a sequence of them; one value is returned
    as a float, several as a tuple.
    """
    if value is None:
        return None
    items: Sequence[object]
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",")]
    elif isinstance(value, list | tuple):
        items = value
    else:
        items = [value]
    numbers = [_number(v, name, value) for v in items]
    if len(numbers) == 1:
        return numbers[0]
    if len(numbers) != len(CRITERION_NAMES):
        raise InputError(f"option --{name}: give one value (every criterion) or "
                         f"{len(CRITERION_NAMES)} ({', '.join(CRITERION_NAMES)}), "
                         f"got {len(numbers)}")
    return tuple(numbers)


def _number(v: object, name: str, whole: object) -> float:
    """One threshold: a finite number ``>= 0`` (a bool is never one)."""
    number = v
    if isinstance(v, str):
        try:
            number = float(v)
        except ValueError:
            raise InputError(f"option --{name}: {whole!r} is not a number or a list of "
                             f"{len(CRITERION_NAMES)} numbers") from None
    if (isinstance(number, bool) or not isinstance(number, int | float)
            or not math.isfinite(number) or number < 0):
        shown = v if isinstance(v, str) else repr(v)  # as typed
        raise InputError(f"option --{name}: must be a finite number >= 0, got {shown}")
    return float(number)


def check_kind(thresholds: object) -> str:
    """``thresholds`` if it is a known unit (one-line :class:`InputError` otherwise)."""
    if thresholds not in THRESHOLDS:
        raise InputError(f"option --thresholds: unknown unit of q and p {thresholds!r} "
                         f"(choose from: {', '.join(THRESHOLDS)})")
    return str(thresholds)


def per_criterion(preference: str, thresholds: str, q: Threshold, p: Threshold
                  ) -> tuple[tuple[float, float], ...]:
    """``(q, p)`` of each criterion, defaults filled in and checked (module doc).

    ``q`` and ``p`` as :func:`parse_threshold` returns them; an error names
    the criterion when the values are per criterion.
    """
    if thresholds == "absolute":
        if p is None:
            raise InputError("option --p: thresholds=absolute needs p in each criterion's "
                             "units (ECT seconds, price, EEI), e.g. p=3600,10,0.1")
        q0, p0 = 0.0, 0.0
    else:
        q0, p0 = SIGMA_DEFAULTS[preference]
    count = len(CRITERION_NAMES)
    qs = _spread_out(q0 if q is None else q, count)
    ps = _spread_out(p0 if p is None else p, count)
    several = isinstance(q, tuple) or isinstance(p, tuple)
    pairs = tuple(zip(qs, ps, strict=True))
    for name, (q_, p_) in zip(CRITERION_NAMES, pairs, strict=True):
        where = f" for {name}" if several else ""
        if preference == "gaussian":
            if p_ <= 0:
                raise InputError(f"option --p: the gaussian needs p > 0{where}")
        elif q_ > p_:
            raise InputError(f"option --q: q ({q_:g}) must not exceed p ({p_:g}){where}")
        elif preference == "linear" and q_ == p_:
            raise InputError(f"option --p: linear needs q < p, got q = p = {p_:g}{where}")
    return pairs


def _spread_out(value: float | tuple[float, ...], count: int) -> tuple[float, ...]:
    """One value for every criterion, or the values per criterion as they are."""
    return value if isinstance(value, tuple) else (value,) * count
