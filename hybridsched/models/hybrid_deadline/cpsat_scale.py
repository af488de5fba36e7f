"""Integer data of the hybrid-deadline CP-SAT model: scaled work, deadlines and billing.

CP-SAT takes integers only. The checker's rules
(:mod:`hybridsched.hybrid_deadline.timeline`: exact arithmetic on the
decimal numbers of the file), for a core of capacity ``r`` whose tasks run
back to back from time 0, are

* a task ends at ``(work before it and its own) / r <= D + TIME_TOL``;
* a VM billed ``H`` hours covers its tasks when every core's last end
  ``load / r <= H + TIME_TOL`` (``ceil(lease - TIME_TOL)`` billed hours).

Multiplied by ``r G`` (``G``: a power of ten), both are comparisons of work
with a limit: ``sum_j w_j G <= r G (D + TIME_TOL)`` and
``sum_j w_j G <= (r G) H + r G TIME_TOL``. So every core measures time in
*work units* (GHz-hours times ``G``), the run time of a task is the same
integer ``W_j = w_j G`` on every core, and only the limits depend on the
capacity.

:func:`scale_data` chooses ``G`` as the smallest power of ten that makes
every ``w_j G`` and ``r G`` an integer (the numbers that multiply model
variables), reading each number by its shortest decimal text (as
:func:`~hybridsched.models.solvers.cpsat.decimal_scale` does). Deadlines need not
be decimal: the limits ``r G (D + TIME_TOL)`` and ``r G TIME_TOL`` are
constants, computed in exact rational arithmetic and *floored*, and an
integer load ``S`` satisfies ``S <= X`` exactly when ``S <= floor(X)``. So
the model's feasible set is the checker's (read with back-to-back tasks),
and its optimum the real problem's. (Generated deadlines are products of
floats such as ``3.5623499999999995``; they stay exact this way.)

When no such ``G`` exists (more than :data:`MAX_DECIMALS` places, or
magnitudes beyond :data:`LARGEST`), works are rounded *down* and the hour
unit ``r G`` *up*: every real schedule stays feasible (a relaxation), and
``exact`` is False so only a bound is claimed. Prices are scaled the same
way (rounded down when inexact: the model's cost never exceeds the real one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from hybridsched.hybrid_deadline.instance import TIME_TOL, Instance
from hybridsched.hybrid_deadline.timeline import decimal
from hybridsched.models.solvers.cpsat import decimal_scale

#: Decimal places of the data tried before it counts as not decimal (above the driver's 6:
#: the checker's tolerance is 1e-9 h, and near-tolerance data has 10 places).
MAX_DECIMALS = 12

#: Largest scaled magnitude allowed (loads of all tasks included), well inside int64.
LARGEST = 2**50


@dataclass(frozen=True)
class ScaledData:
    """The instance's numbers as CP-SAT integers.

    Attributes
    ----------
    factor:
        ``G``: work units per GHz-hour.
    exact:
        Whether every number became an integer exactly (else: a relaxation).
    work:
        ``W_j``, each task's work in work units (its run time on every core,
        in that core's units).
    price_factor, price:
        Prices times ``price_factor``, as integers (rounded down if inexact).
    """

    factor: int
    exact: bool
    work: tuple[int, ...]
    price_factor: int
    price: tuple[int, ...]
    _tol: Fraction
    _capacity_units: dict[float, Fraction]

    def hour_units(self, capacity: float) -> int:
        """Work units one hour holds on a core of ``capacity`` (``r G``, rounded up)."""
        return math.ceil(self._capacity_units[capacity])

    def hour_slack(self, capacity: float) -> int:
        """Work units of ``TIME_TOL`` past an hour boundary (``r G TIME_TOL``, floored if exact)."""
        units = self._capacity_units[capacity] * self._tol
        return math.floor(units) if self.exact else math.ceil(units)

    def deadline_limit(self, capacity: float, deadline: float) -> int:
        """Largest load (work units) a core of ``capacity`` finishes by ``deadline + TIME_TOL``."""
        units = self._capacity_units[capacity] * (decimal(deadline) + self._tol)
        return math.floor(units) if self.exact else math.ceil(units)

    def cost(self, scaled: float) -> float:
        """A scaled objective value (or bound) in dollars."""
        return scaled / self.price_factor


def _power(values: list[float]) -> tuple[int, bool]:
    if not values:
        return 1, True
    scaling = decimal_scale(values, max_decimals=MAX_DECIMALS, largest=LARGEST)
    return scaling.factor, scaling.exact


def scale_data(instance: Instance) -> ScaledData:
    """Scale ``instance``'s work, capacities and prices to integers (module docstring)."""
    capacities = sorted({pm.capacity for pm in instance.pms}
                        | {vm.capacity for vm in instance.vm_types})
    work = [float(w) for w in instance.work]
    f_work, e_work = _power(work)
    f_cap, e_cap = _power(capacities)
    factor = max(f_work, f_cap)  # powers of ten: the larger is a multiple of both
    top = (sum(decimal(w) for w in work)
           + max(capacities, default=1.0) * (max(work + [float(d) for d in instance.deadline],
                                                 default=0.0) + 1.0)) + 1
    exact = e_work and e_cap
    while factor > 1 and top * factor > LARGEST:
        factor //= 10
        exact = False
    big = Fraction(factor)
    scaled = [decimal(w) * big for w in work]
    exact = exact and all(v.denominator == 1 for v in scaled)
    units = {c: decimal(c) * big for c in capacities}
    exact = exact and all(v.denominator == 1 for v in units.values())
    prices = [float(vm.price) for vm in instance.vm_types]
    f_price, e_price = _power(prices)
    price_values = [decimal(p) * f_price for p in prices]
    return ScaledData(
        factor=factor,
        exact=exact and e_price and all(v.denominator == 1 for v in price_values),
        work=tuple(math.floor(v) for v in scaled),
        price_factor=f_price,
        price=tuple(math.floor(v) for v in price_values),
        _tol=decimal(TIME_TOL),
        _capacity_units=units,
    )
