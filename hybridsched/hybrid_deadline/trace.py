"""Hybrid-deadline instances from SWF workload traces (Wang et al. 2016, Section 4.1).

As in the paper, a record's run time is taken as its run time on a 1 GHz
core (work = run time / 3600 GHz-hours), every task is available at time 0,
and a deadline is ``alpha`` times the run time on a 2 GHz core. Records
without a usable run time (``<= 0`` or unknown) are skipped and counted;
with ``limit``, records are read only until ``limit`` usable ones are found,
and only the records read count as skipped. A trace without any usable
record is an error, not an empty instance.

How records become tasks and jobs (``grouping``):

``task`` (default, the paper's reading)
    One record is one task, and its own job.
``job``
    One record is one job of as many identical tasks as it used processors
    (allocated, else requested; records with neither, or with a zero or
    negative count, are skipped and counted under their own reason).
``window``
    One record is one task; records submitted within the same window of
    ``window_s`` seconds (counted from the first submit time) form one job,
    whose deadline is ``alpha`` times its longest task's run time on a
    2 GHz core.

The paper's words these follow (Section 4.1), and what they leave open:

* "We assume that the trace data are the information of tasks running on 1
  GHz cores" and "We set the deadline of each task as alpha (1, 2, 3, or 4)
  times of its run time on a 2 GHz core": deadline ``alpha * run / 2`` hours
  counted from time 0, since the model has no release times ("Job i must be
  completed before d_i", Section 3.1). Not an option: the text is explicit;
  counting from each record's submit time would need release times the
  model does not have.
* How records become tasks is not said ("tasks" throughout): ``grouping``.
* Which part of the trace: "a 2-month trance collected from NASA Ames
  iPSC/860", while the cleaned trace spans 3 months (Oct-Dec 1993, 18,239
  records). ``days`` keeps the records submitted within that many days of
  the first (61: the paper's two months); ``skip`` and ``limit`` cut a
  window of usable records (the issue-19 campaigns pair 10 disjoint
  windows of the trace: ``skip = k x 1807, limit = 1807``).

The local pool is the 15-PM default pool unless ``pms`` says how many of it
to keep; the public cloud offers EC2 c3.large.

Whatever this module builds, the instance loader accepts: task ids come
from SWF job numbers, so a job number used twice (two traces concatenated,
say) is an error naming both lines, as is a record whose work or deadline
would not be a positive finite number (an absurd ``--alpha`` or run time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from hybridsched.errors import InputError, ParameterError
from hybridsched.hybrid_deadline.default_platform import C3_LARGE, default_pms
from hybridsched.hybrid_deadline.generator import ALPHAS, deadline_for, longest_in_job
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.hybrid_deadline.schema import MAX_HOURS, MAX_WORK
from hybridsched.io.documents import MAX_TASKS
from hybridsched.io.swf import SWFRecord, SWFTrace

Grouping = Literal["task", "job", "window"]


#: Why a record was skipped, in the order reasons are reported.
SKIP_REASONS = ("no usable run time", "no processor count")


@dataclass(frozen=True)
class TraceImport:
    """An imported instance and what happened to the records read.

    Attributes
    ----------
    instance:
        The instance.
    used_records:
        Records that became tasks.
    skipped_records:
        Records read but skipped (with ``limit``: only those read before the
        limit was reached).
    skipped:
        ``skipped_records`` by reason (see :data:`SKIP_REASONS`); reasons
        with no record are left out.
    """

    instance: Instance
    used_records: int
    skipped_records: int
    skipped: dict[str, int] = field(default_factory=dict)


def _select(trace: SWFTrace, grouping: str, limit: int | None, skip: int = 0,
            days: float | None = None) -> tuple[list[SWFRecord], dict[str, int]]:
    """The usable records and the skipped ones read before, by reason.

    At most ``limit`` usable records are kept, after the first ``skip`` usable
    ones, among those submitted within ``days`` of the first record.
    """
    usable: list[SWFRecord] = []
    skipped = dict.fromkeys(SKIP_REASONS, 0)
    tasks = 0
    passed = 0  # usable records left out by ``skip``
    lines: dict[int, int] = {}  # job number -> line of its record
    first_submit = trace.records[0].submit_time if trace.records else 0.0
    for record in trace.records:
        if limit is not None and len(usable) >= limit:
            break
        if days is not None and record.submit_time - first_submit > days * 86_400.0:
            break  # SWF records are in submit order
        if record.run_time <= 0:
            skipped["no usable run time"] += 1
            continue
        if grouping == "job" and record.processors <= 0:
            skipped["no processor count"] += 1
            continue
        first = lines.setdefault(record.job_number, record.line)
        if first != record.line:
            raise InputError(f"{trace.path}:{record.line}: job number {record.job_number} "
                             f"repeats line {first} (SWF job numbers are unique; two traces "
                             "in one file?)")
        if passed < skip:
            passed += 1
            continue
        tasks += record.processors if grouping == "job" else 1
        if tasks > MAX_TASKS:
            raise InputError(f"{trace.path}:{record.line}: the instance would have more than "
                             f"{MAX_TASKS} tasks (the most an instance may have); use --limit")
        usable.append(record)
    if not usable:
        read = sum(skipped.values())
        if passed:
            raise InputError(f"{trace.path}: no usable record after skipping {passed} (the "
                             "trace has no more; lower --skip)")
        if read == 0:
            raise InputError(f"{trace.path}: no job record (empty file or header only)")
        reasons = ", ".join(f"{n} with {why}" for why, n in skipped.items() if n)
        raise InputError(f"{trace.path}: no usable record: all {read} records skipped "
                         f"({reasons})")
    return usable, {why: n for why, n in skipped.items() if n}


def _check_positive(trace: SWFTrace, usable: list[SWFRecord], grouping: str,
                    work: np.ndarray, deadline: np.ndarray, alpha: float) -> None:
    """Refuse a task whose work or deadline the instance format refuses (naming its line).

    Run times are finite, but a tiny one can round to a zero work and a huge
    one or a huge ``alpha`` can exceed the format's limits
    (:data:`~hybridsched.hybrid_deadline.schema.MAX_WORK`, ``MAX_HOURS``), so
    what ``import-swf`` writes, the loader reads back.
    """
    bad = np.flatnonzero(~((work > 0) & (work <= MAX_WORK) & (deadline > 0)
                           & (deadline <= MAX_HOURS)))
    if not bad.size:
        return
    if grouping == "job":  # tasks are the records' processors, in record order
        record = usable[int(np.searchsorted(np.cumsum([r.processors for r in usable]),
                                            bad[0], side="right"))]
    else:
        record = usable[int(bad[0])]
    raise InputError(f"{trace.path}:{record.line}: run time {record.run_time:g} s with "
                     f"--alpha {alpha:g} gives work {work[bad[0]]:g} GHz-hours and deadline "
                     f"{deadline[bad[0]]:g} h; both must be positive, work at most "
                     f"{MAX_WORK:g} and deadline at most {MAX_HOURS:g}")


def instance_from_trace(
    trace: SWFTrace,
    *,
    alpha: float = 1,
    grouping: Grouping = "task",
    window_s: float = 3600.0,
    limit: int | None = None,
    pms: int | None = None,
    name: str | None = None,
    skip: int = 0,
    days: float | None = None,
) -> TraceImport:
    """Convert an SWF trace to an instance (see the module docstring).

    Parameters
    ----------
    trace:
        The parsed trace.
    alpha:
        Deadline factor (the paper uses 1, 2, 3, 4; any positive value works).
    grouping:
        ``"task"``, ``"job"`` or ``"window"``.
    window_s:
        Window length in seconds for ``grouping="window"``.
    limit:
        Keep only the first ``limit`` usable records (>= 1); records are read
        only until then, and only those read count as skipped.
    skip:
        Leave out the first ``skip`` usable records (before ``limit`` counts).
    days:
        Keep only the records submitted within ``days`` days of the trace's
        first record (> 0).
    pms:
        Number of PMs of the default 15-PM pool (default: all 15).
    name:
        Instance name.

    Raises
    ------
    InputError
        For a bad parameter (a ``ParameterError`` naming it), a trace without any usable
        record, or one that would make more than
        :data:`~hybridsched.io.documents.MAX_TASKS` tasks.
    """
    if not (math.isfinite(alpha) and alpha > 0):
        raise ParameterError("alpha", f"must be a finite number > 0, got {alpha}")
    if grouping not in ("task", "job", "window"):
        raise ParameterError("grouping", f"must be task, job or window, got {grouping!r}")
    if grouping == "window" and not (math.isfinite(window_s) and window_s > 0):
        raise ParameterError("window_s", f"must be a finite number of seconds > 0, "
                                         f"got {window_s}")
    if limit is not None and limit < 1:
        raise ParameterError("limit", f"must be >= 1, got {limit}")
    if skip < 0:
        raise ParameterError("skip", f"must be >= 0, got {skip}")
    if days is not None and not (math.isfinite(days) and days > 0):
        raise ParameterError("days", f"must be a finite number > 0, got {days}")
    pool = default_pms()
    if pms is not None and not 0 <= pms <= len(pool):
        raise ParameterError("pms", f"must be between 0 and {len(pool)}, got {pms}")

    usable, skipped = _select(trace, grouping, limit, skip, days)
    task_ids: list[str] = []
    task_job: list[str] = []
    run_s: list[float] = []
    if grouping == "task":
        for r in usable:
            task_ids.append(f"r{r.job_number}")
            task_job.append(f"r{r.job_number}")
            run_s.append(r.run_time)
    elif grouping == "job":
        for r in usable:
            for p in range(r.processors):
                task_ids.append(f"r{r.job_number}.{p}")
                task_job.append(f"r{r.job_number}")
                run_s.append(r.run_time)
    else:
        origin = min(r.submit_time for r in usable)
        for r in usable:
            window = (r.submit_time - origin) // window_s
            if not math.isfinite(window):
                raise InputError(f"{trace.path}:{r.line}: submitted {r.submit_time:g} s, "
                                 f"too many --window spans of {window_s:g} s after the first "
                                 f"record ({origin:g} s)")
            task_ids.append(f"r{r.job_number}")
            task_job.append(f"w{int(window)}")
            run_s.append(r.run_time)
    with np.errstate(over="ignore", under="ignore"):  # refused below, naming the line
        work = np.array(run_s, dtype=float) / 3600.0
        deadline = np.asarray(deadline_for(work, alpha), dtype=float)
        if grouping == "window":
            _, job_of = np.unique(np.array(task_job), return_inverse=True)
            deadline = np.asarray(deadline_for(longest_in_job(work, job_of), alpha),
                                  dtype=float)
    _check_positive(trace, usable, grouping, work, deadline, alpha)
    header = trace.header_fields()
    n_skipped = sum(skipped.values())
    instance = Instance(
        name=name or f"swf-{header.get('Computer', 'trace').replace(' ', '_')}-a{alpha:g}",
        task_ids=tuple(task_ids),
        task_job=tuple(task_job),
        work=work,
        deadline=deadline,
        pms=pool if pms is None else pool[:pms],
        vm_types=(C3_LARGE,),
        provenance={
            "source": trace.path,
            "swf_header": header,
            "grouping": grouping,
            "window_s": window_s if grouping == "window" else None,
            "alpha": alpha,
            "limit": limit,
            "skip": skip,
            "days": days,
            "used_records": len(usable),
            "skipped_records": n_skipped,
            "skipped_by_reason": skipped,
            "paper_alphas": list(ALPHAS),
        },
    )
    return TraceImport(instance, len(usable), n_skipped, skipped)
