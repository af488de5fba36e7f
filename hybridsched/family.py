"""The problem-family contract: how a family reads, checks and scores schedules.

Each family (``hybrid-deadline``, ``bot-sites``, ...) defines one
:class:`Family`; the command line, ``compare`` and the registry only talk to
this interface, so adding a family never touches them. This module is the
ground floor of the package: it imports nothing of it but :mod:`hybridsched.errors`,
so every family's checker can import it (the catalogue that finds families,
:mod:`hybridsched.catalogue`, is a separate module).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Relative and absolute tolerance between a value a solution file states (cost,
#: makespan, ...) and the value the checker recomputes: files store 17 significant digits.
CLAIM_RTOL = 1e-9
CLAIM_ATOL = 1e-9


def wrong_claims(claims: Iterable[tuple[str, float | None, float]]) -> list[str]:
    """One line per ``(what, stated, recomputed)`` whose stated value is off.

    ``stated`` ``None`` means the solution makes no such claim. Every family's
    checker uses this rule, so ``validate`` treats summaries alike.
    """
    return [f"reported {what} {stated!r} != recomputed {actual!r}"
            for what, stated, actual in claims
            if stated is not None
            and not math.isclose(stated, actual, rel_tol=CLAIM_RTOL, abs_tol=CLAIM_ATOL)]


@dataclass(frozen=True)
class Evaluation:
    """Objective and metrics recomputed from a schedule by the checker."""

    objective: float
    metrics: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Measure:
    """What one number a family reports means to a reader: its name and its unit.

    ``unit`` is empty for a ratio or a share (no unit); ``"count"`` for a
    number of things. Tables and plots name a column or an axis with
    :attr:`label` (``"rent cost ($)"``).
    """

    name: str
    unit: str = ""

    @property
    def label(self) -> str:
        """``name (unit)``, or the name alone when the number has no unit."""
        return f"{self.name} ({self.unit})" if self.unit else self.name


def find_measure(measures: Mapping[str, Measure], key: str) -> Measure | None:
    """The measure of ``key`` in ``measures``, where a key ending in ``*`` is a prefix.

    A prefix entry (``"efficiency_*"``) stands for every key it starts
    (``efficiency_cloud``); its name may hold ``{}``, replaced by the rest
    of the key (``"efficiency on {}"`` gives ``"efficiency on cloud"``).
    """
    if key in measures:
        return measures[key]
    for pattern, measure in measures.items():
        if pattern.endswith("*") and key.startswith(pattern[:-1]) and len(key) >= len(pattern):
            return Measure(measure.name.replace("{}", key[len(pattern) - 1:]), measure.unit)
    return None


#: Numbers every family's results may carry (run times, the simulators' counters, the
#: summary of a :class:`~hybridsched.result.Result`); a family's own measures come first.
COMMON_MEASURES = {
    "runtime_s": Measure("wall-clock time of the algorithm", "s"),
    "cpu_s": Measure("CPU time of the algorithm", "s"),
    "bound": Measure("proven lower bound on the objective"),
    "gap": Measure("gap between the objective and the method's own bound", "%"),
    "decisions": Measure("scheduling decisions", "count"),
    "decisions_per_second": Measure("scheduling decisions per second of run time", "1/s"),
    "events": Measure("simulation events", "count"),
    "events_per_second": Measure("simulation events per second of run time", "1/s"),
    "optimised": Measure("objective the method optimised"),
    "bound_method": Measure("how the bound was proven"),
    "schedule_from": Measure("method whose schedule is returned"),
    "backend": Measure("exact backend that ran"),
    "scale": Measure("decimal scaling factor of the integer model"),
    "scale_exact": Measure("whether the scaled integer model is exact"),
}


@dataclass(frozen=True)
class Family:
    """Everything generic code needs to know about one problem family.

    Attributes
    ----------
    name:
        Family name used in files and on the command line.
    objective_name:
        What ``objective`` means for this family (e.g. ``"rent cost"``).
    instance_from_dict, instance_to_dict:
        Validated conversion between JSON documents and frozen instances;
        ``instance_from_dict(doc, source)`` raises :class:`InputError` naming
        ``source`` and the field path.
    solution_from_dict, solution_to_dict:
        The same for solutions, which need their instance:
        ``solution_from_dict(doc, instance, source)`` and
        ``solution_to_dict(solution, instance, **summary)``, where ``summary``
        holds header fields to store alongside (``method``, ``status``,
        ``produced_by``, ...).
    check:
        ``check(instance, solution) -> list[str]``: every violation found;
        empty means valid.
    evaluate:
        ``evaluate(instance, solution) -> Evaluation``.
    infeasible_items:
        ``infeasible_items(instance) -> list[str]``: items that make the
        instance infeasible whatever the method (empty when none is known).
    reference:
        ``reference(instance) -> dict``: what is recorded with the instance,
        under the keys ``"optimum"`` (proven optimal objective) and/or
        ``"lower_bound"``; empty when nothing is recorded.
    lower_bound:
        Optional ``lower_bound(instance) -> float``: a bound cheap enough to
        compute for ``compare`` on instances too large for the exact model.
    objectives:
        Metric names a user may choose to optimise with the ``objective``
        option (``("makespan", "cost")`` for bot-sites); empty when the
        family has one objective, which is then the only one.
    size:
        Optional ``size(instance) -> int``: the number that run times scale
        with, for campaign reports (tasks for hybrid-deadline, BoTs for
        bot-sites).
    strong_bound:
        Optional ``strong_bound(instance, *, time_limit, seed) ->
        BoundCertificate`` (:mod:`hybridsched.bound_proof`), or where it lives
        (``"module:attribute"``, imported when it first runs, so that a
        family's domain module names its model without importing the
        algorithms floor): the family's best
        lower bound at scale, within ``time_limit`` seconds and the memory
        budget (:mod:`hybridsched.memory`), with the proof
        ``verify_bound`` checks. ``hybridsched bound`` and the ``bound``
        method run it.
    verify_bound:
        Optional ``verify_bound(instance, certificate) -> float``: recomputes
        a certificate's bound from the instance and its proof with exact
        arithmetic and returns it (rounded down); raises
        :class:`~hybridsched.bound_proof.BoundProofError` when the proof
        does not prove a positive bound it claims.
    objective_metric:
        The metric (a key of ``Evaluation.metrics``) that the default
        objective is; a recorded optimum of it is ``optimal_<metric>`` in an
        instance's reference block (``certify --record`` writes it there).
    measures:
        What each metric means to a reader (:class:`Measure`: name and unit),
        by metric key (a key ending in ``*`` is a prefix, see
        :func:`find_measure`); the one owner of the names and units that
        tables, plots and ``--help`` show. ``objective_name`` stays the
        key campaigns store runs under.
    size_name:
        What :attr:`size` counts, plural (``"tasks"``): the unit of the
        instance-size axis of the run-time plots.
    """

    name: str
    objective_name: str
    instance_from_dict: Callable[[dict, str], Any]
    instance_to_dict: Callable[[Any], dict]
    solution_from_dict: Callable[[dict, Any, str], Any]
    solution_to_dict: Callable[[Any, Any], dict]
    check: Callable[[Any, Any], list[str]]
    evaluate: Callable[[Any, Any], Evaluation]
    infeasible_items: Callable[[Any], list[str]]
    reference: Callable[[Any], dict[str, float]]
    lower_bound: Callable[[Any], float] | None = None
    objectives: tuple[str, ...] = ()
    size: Callable[[Any], int] | None = None
    strong_bound: Callable[..., Any] | str | None = None
    verify_bound: Callable[[Any, Any], float] | None = None
    objective_metric: str = "objective"
    measures: Mapping[str, Measure] = field(default_factory=dict, hash=False)
    size_name: str = "items"

    def measure(self, key: str) -> Measure | None:
        """The :class:`Measure` of metric ``key``, the family's or a common one (or ``None``)."""
        return find_measure(self.measures, key) or COMMON_MEASURES.get(key)

    def objective_label(self, objective: str | None = None) -> str:
        """What an objective value of this family is, with its unit (``"makespan (s)"``).

        ``objective`` is the objective a run optimised: an entry of
        :attr:`objectives` (the ``objective`` option), the stored
        ``objective_name`` of a campaign's runs (:attr:`objective_name` for
        the default one), or ``None`` for the default objective.
        """
        if objective is None or objective == self.objective_name:
            objective = self.objective_metric
        found = self.measure(objective)
        if found is not None:
            return found.label
        return self.objective_name if objective == self.objective_metric else objective


#: The document converters every family's ``files`` module defines.
CONVERTERS = ("instance_from_dict", "instance_to_dict", "solution_from_dict", "solution_to_dict")


def converters(files: Any) -> dict[str, Callable[..., Any]]:
    """The four converters of a family's ``files`` module, as :class:`Family` keywords."""
    return {name: getattr(files, name) for name in CONVERTERS}
