"""The result object every method returns, heuristic or exact."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


class Status(StrEnum):
    """Outcome of one method on one instance.

    ``TIME_LIMIT`` carries an incumbent (feasible, not proven optimal) with a
    bound; ``NO_SOLUTION`` means the method stopped without any schedule
    (time limit before an incumbent, or a heuristic that ran out of
    resources), which is *not* a proof of infeasibility.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    TIME_LIMIT = "time_limit"
    INFEASIBLE = "infeasible"
    NO_SOLUTION = "no_solution"

    @property
    def has_solution(self) -> bool:
        """Whether a result with this status carries a schedule."""
        return self in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT)


def relative_gap(value: float | None, reference: float | None) -> float | None:
    """Return ``(value - reference) / |reference|``; 0 when both are 0.

    A positive reference of 0 with a positive value gives ``inf``, which keeps
    "cost 0.2 where the optimum is free" visibly worse than any finite gap.
    """
    if value is None or reference is None:
        return None
    if math.isclose(value, reference, rel_tol=1e-9, abs_tol=1e-9):
        return 0.0
    if reference == 0:
        return math.inf
    return (value - reference) / abs(reference)


@dataclass
class Result:
    """What a method produced on an instance, with the proof it can offer.

    Attributes
    ----------
    method, family:
        Registry name of the method and of the problem family.
    status:
        See :class:`Status`.
    solution:
        The family's solution object (``None`` unless ``status.has_solution``).
    objective:
        Objective value recomputed by the family's checker, never the
        algorithm's own bookkeeping.
    bound:
        Proven lower bound (minimisation) when the method provides one.
    runtime_s:
        Wall-clock time of the algorithm alone (no file IO), in seconds.
    cpu_s:
        CPU time of this process during the algorithm (includes the solver).
    seed:
        The seed the method ran with (drawn from the generator when
        ``run_method`` was given one: :mod:`hybridsched.seeding`).
    metrics:
        Further criteria recomputed by the checker (makespan, energy, ...).
    message:
        What the method reports (why it stopped, which start it kept, ...).
    """

    method: str
    family: str
    status: Status
    solution: Any = None
    objective: float | None = None
    bound: float | None = None
    runtime_s: float = 0.0
    cpu_s: float = 0.0
    seed: int | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    message: str = ""

    @property
    def gap(self) -> float | None:
        """Relative gap between the objective and the method's own bound."""
        return relative_gap(self.objective, self.bound)

    def to_frame(self, instance: Any = None) -> pd.DataFrame:
        """The schedule as a table, one row per assignment, labelled with this run.

        The columns are ``method``, ``family`` and ``seed``, then those of
        the family's ``Solution.to_frame`` (one row per task, block, job
        task, piece or replica, with the times' unit in the column names:
        see :meth:`hybridsched.hybrid_deadline.solution.Solution.to_frame`
        and its siblings), so that the tables of several runs concatenate.
        A result without a schedule gives a table without rows and with the
        three run columns only; :meth:`summary` holds the metrics.

        Parameters
        ----------
        instance : optional
            The instance the method ran on: adds names, deadlines and the
            other per-row columns that need it.

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        TypeError
            The solution of a plug-in family without ``to_frame``.

        Examples
        --------
        >>> import pandas as pd
        >>> from hybridsched import load_instance, run_method
        >>> family, inst = load_instance("instances/hybrid-deadline/small-01.json")
        >>> results = [run_method(family.name, m, inst) for m in ("cdf", "ffd")]
        >>> frame = pd.concat([r.to_frame(inst) for r in results], ignore_index=True)
        >>> len(frame) == 2 * inst.n_tasks, list(frame.columns[:4])
        (True, ['method', 'family', 'seed', 'task'])
        >>> per_method = frame.groupby("method")["finish_h"].max()  # makespans, in hours
        >>> summary = pd.DataFrame([r.summary() for r in results])  # one row per run
        >>> list(summary["method"])
        ['cdf', 'ffd']
        """
        import pandas as pd

        labels = {"method": self.method, "family": self.family, "seed": self.seed}
        if self.solution is None:
            return pd.DataFrame({k: pd.Series([], dtype=object if k != "seed" else "Int64")
                                 for k in labels})
        to_frame = getattr(self.solution, "to_frame", None)
        if to_frame is None:
            raise TypeError(f"the solutions of family {self.family!r} have no to_frame() "
                            "(a plug-in family's solution class may add one)")
        frame = to_frame(instance) if instance is not None else to_frame()
        for position, (name, value) in enumerate(labels.items()):
            frame.insert(position, name, value)
        return frame

    def summary(self) -> dict[str, Any]:
        """JSON-ready summary (without the schedule itself)."""
        return {
            "method": self.method,
            "family": self.family,
            "status": self.status.value,
            "objective": self.objective,
            "bound": self.bound,
            "gap": self.gap,
            "runtime_s": self.runtime_s,
            "cpu_s": self.cpu_s,
            "seed": self.seed,
            "metrics": self.metrics,
            "message": self.message,
        }
