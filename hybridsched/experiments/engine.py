"""Where runs execute: in process (serial), on a Dask LocalCluster, or on a Dask cluster.

Dask's ``distributed`` does the scheduling; this module only feeds it runs
and hands back rows. The same runs give the same rows (objectives, statuses)
in every mode: a run is a pure function of its :class:`~.runs.Run`.

* ``serial``: one run after the other in this process (for debugging and
  for a handful of runs, where starting a cluster costs more than it saves).
* ``auto`` (the default): in process, with help from a cluster when it pays,
  never waiting for one. After each run in process the time the runs left
  would take serially is estimated per ``(family, method)`` group, from the
  runs of that group (each group's imports are paid apart, before its first
  run, and not counted; a group not seen yet counts as the fastest seen, and
  nothing is decided before two groups have run). Once it exceeds
  :data:`AUTO_START_S`, a LocalCluster of one worker per core but
  one starts *in the background* (:class:`~.cluster_host.BackgroundCluster`,
  a process of its own) while runs go on here. When it is ready, this
  process keeps taking runs from the front while the cluster takes small
  batches from the back (:func:`_share`). A campaign that ends before the
  cluster is ready pays only its start-up, on the other cores.
* ``local``: a :class:`distributed.LocalCluster` with one single-threaded
  worker *process* per core (HiGHS is told to use one thread as well:
  :data:`hybridsched.models.solvers.highs.HIGHS_OPTIONS`).
* a scheduler address (``tcp://host:8786``): an existing cluster, started by
  hand with ``dask scheduler`` and ``dask worker``.

Runs travel to workers in batches sized by how long runs take
(:mod:`~.batches`). A task that kills its worker process is tried once more
on a fresh worker (Dask's ``distributed.scheduler.allowed-failures``, set to
:data:`~.cluster.RETRIES` for the clusters :mod:`~.cluster` starts; an
existing scheduler keeps its own settings, see the README: start it with
:data:`~.cluster.CLUSTER_CONFIG` as environment variables for the same
behaviour). The runs of a task Dask gives up on go again one by one, each
alone on the cluster, so that only the run that kills its worker is recorded
as failed (see :func:`_run_on`). Batches are submitted in a
window of a few per worker, so a campaign of millions of runs never builds a
huge task graph.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hybridsched.errors import ClusterError
from hybridsched.experiments.batches import BATCH_MAX, BatchSizer, execute_batch
from hybridsched.experiments.cluster import client_for
from hybridsched.experiments.cluster_host import BackgroundCluster
from hybridsched.experiments.runner import FAILED, execute_run, failed_row, last_line, warm_up
from hybridsched.experiments.runs import Run
from hybridsched.provenance import cores

#: Runs kept submitted per worker thread (keeps workers busy between round trips).
WINDOW_PER_THREAD = 8
#: Seconds without a finished run after which the local cluster's workers are checked.
WATCH_EVERY_S = 2.0
#: ``auto`` starts a cluster beside the runs once those left would take longer than this
#: serially. Its start-up (a host process and its worker importing the package, 1-2.5 s
#: on 2 cores) runs on the other core while this process goes on, so a start costs only
#: that contention. Measured on 2 cores (benchmarks/bench_campaign.py, 200 runs): at 5 s
#: the default stays serial (1.01x), at 5.5 s it gains 1.31x, at 10 s 1.60x; at 10 s as
#: the threshold, campaigns of 8-10 s stayed serial (1.00x) and missed 1.5x.
AUTO_START_S = 5.0


@dataclass
class Counts:
    """Progress of an execution: runs done (failed included), running and failed."""

    total: int
    done: int = 0
    running: int = 0
    failed: int = 0


@dataclass
class Execution:
    """How an execution went: where it ran and how long the cluster took to start."""

    mode: str
    workers: int = 1
    startup_s: float = 0.0
    elapsed_s: float = 0.0
    counts: Counts = field(default_factory=lambda: Counts(0))
    #: How ``auto`` chose (empty in the other modes).
    note: str = ""


Progress = Callable[[Counts, str | None], None]


def execute(runs: Sequence[Run], on_row: Callable[[dict[str, Any]], None], *,
            mode: str = "serial", workers: int | None = None,
            scheduler: str | None = None, progress: Progress | None = None) -> Execution:
    """Execute ``runs`` and give each finished row to ``on_row`` as soon as it is done.

    Parameters
    ----------
    runs:
        What to run.
    on_row:
        Receives every row (stored at once by campaigns).
    mode:
        ``"serial"``, ``"local"`` or ``"auto"`` (see the module docstring);
        ignored when ``scheduler`` is given.
    workers:
        Worker processes of the local cluster (default: one per core).
    scheduler:
        Address of an existing Dask scheduler.
    progress:
        Called as ``progress(counts, current)`` when anything changes.

    Raises
    ------
    ClusterError
        When the cluster is lost (rows given to ``on_row`` before are kept).
    KeyboardInterrupt
        Passed on after the cluster is shut down.
    """
    counts = Counts(len(runs))
    report = progress or (lambda counts, current: None)

    def finished(row: dict[str, Any]) -> None:
        counts.done += 1
        counts.failed += row["status"] == FAILED
        on_row(row)

    started = time.perf_counter()
    if scheduler is None and mode == "serial":
        _run_serially(runs, finished, report, counts)
        return Execution("serial", 1, 0.0, time.perf_counter() - started, counts)
    if scheduler is None and mode == "auto":
        return _auto(runs, finished, report, counts, workers or cores(), started)
    cluster_from = time.perf_counter()
    with client_for(scheduler, workers) as (client, n_workers, where, keeper):
        _warm_workers(client, runs)
        startup = time.perf_counter() - cluster_from
        _run_on(client, runs, counts, finished, report, n_workers, keeper)
    return Execution(where, n_workers, startup, time.perf_counter() - started, counts)


def _auto(runs: Sequence[Run], finished: Callable[[dict[str, Any]], None], report: Progress,
          counts: Counts, n_workers: int, started: float) -> Execution:
    """The default mode (module docstring): in process, a cluster beside it when it pays."""
    estimate = _Estimate(runs)
    helpers = max(1, n_workers - 1)  # this process keeps running too
    background: BackgroundCluster | None = None
    note = "auto: one core" if n_workers < 2 else ""
    declined = n_workers < 2
    share_from = None
    try:
        for k, run in enumerate(runs):
            if (background is None and not declined and estimate.settled()
                    and estimate.left() > AUTO_START_S):
                background = BackgroundCluster(helpers)
                started_at, left_then = k, estimate.left()
            if background is not None and background.address() is not None:
                share_from = k
                break
            if background is not None and background.failed():
                background.stop()
                background, declined = None, True
                note = "auto: in process (the cluster started beside the runs failed)"
            estimate.warm(run)
            estimate.observe(run, _run_one(run, finished, report, counts))
        if share_from is None:
            if background is not None:
                note = (f"auto: in process; a cluster of {helpers} worker"
                        f"{'s' * (helpers != 1)} starting beside the runs since run "
                        f"{started_at + 1} (estimated {left_then:.0f} s left) was not ready "
                        "before the end: stopped unused")
            elif not note:
                note = (f"auto: in process (estimated {estimate.total():.1f} s of runs, "
                        f"below the {AUTO_START_S:g} s that pay for a cluster)")
            return Execution("serial", 1, 0.0, time.perf_counter() - started, counts, note)
        assert background is not None
        ready = background.ready_after_s or 0.0
        with client_for(background.address(), None) as (client, threads, _, keeper):
            here, there = _share(runs[share_from:], client, threads, keeper, estimate,
                                 finished, report, counts)
        elapsed = time.perf_counter() - started
        note = (f"auto: {share_from + here} run{'s' * (share_from + here != 1)} in process "
                f"and {there} on a cluster of {threads} worker{'s' * (threads != 1)} started "
                f"beside them (ready after {ready:.1f} s): the runs' serial time "
                f"{estimate.total():.1f} s, done in {elapsed:.1f} s")
        return Execution("local", threads + 1, 0.0, elapsed, counts, note)
    except BaseException:
        if background is not None:
            background.stop(hurry=True)
            background = None
        raise
    finally:
        if background is not None:
            background.stop()


#: In the default mode, batches kept on the cluster per worker thread while this process
#: runs too, and the estimated seconds of work each holds at most (small: the end of the
#: campaign must not wait on a long batch that this process could have shared).
SHARE_WINDOW = 2
SHARE_BATCH_S = 0.5


class _Crashed(Exception):  # noqa: N818 (a signal)
    """A batch killed its worker (its runs are suspects)."""


def _share(runs: Sequence[Run], client: Any, threads: int, keep_workers: Callable[[], None],
           estimate: _Estimate, finished: Callable[[dict[str, Any]], None],
           report: Progress, counts: Counts) -> tuple[int, int]:
    """Run ``runs`` here and on the cluster together; return how many ran in each place.

    This process takes runs from the front, one at a time, as in serial mode;
    the cluster takes small batches from the back (:data:`SHARE_BATCH_S` of
    estimated work, :data:`SHARE_WINDOW` per worker thread in flight). So
    this process never waits for the cluster while runs are left, and the
    cluster only ever takes work off its hands. A batch that kills its
    worker ends the sharing: the runs left, the suspects first, go to
    :func:`_run_on` and its quarantine.
    """
    from distributed import wait

    waiting = deque(runs)
    in_flight: dict[Any, tuple[Run, ...]] = {}
    numbers = itertools.count()
    here = there = 0
    suspects: list[Run] = []

    def submit() -> None:
        left = estimate.left()
        budget = min(SHARE_BATCH_S, left / (2 * (threads + 1))) if left else SHARE_BATCH_S
        batch, work = [], 0.0
        while waiting and len(batch) < BATCH_MAX and (not batch or work + estimate.of(
                waiting[-1]) <= budget):
            batch.append(waiting.pop())
            work += estimate.of(batch[-1])
        future = client.submit(execute_batch, tuple(batch), pure=False,
                               key=f"runs-{batch[0].key}-{next(numbers)}")
        in_flight[future] = tuple(batch)

    def collect(block: bool) -> None:
        nonlocal there
        if block:
            try:
                with client.as_current():
                    done = wait(list(in_flight), timeout=WATCH_EVERY_S,
                                return_when="FIRST_COMPLETED").done
            except TimeoutError:
                keep_workers()
                return
        else:
            done = [future for future in in_flight if future.done()]
        for future in done:
            batch = in_flight.pop(future)
            rows = _outcome(future, batch, keep_workers)
            future.release()
            if rows is None:
                suspects.extend(batch)
                continue
            for run, row in zip(batch, rows, strict=True):
                estimate.observe(run, float(row.get("wall_s") or 0.0))
                finished(row)
                there += 1

    while (waiting or in_flight) and not suspects:
        while waiting and len(in_flight) < max(1, threads) * SHARE_WINDOW:
            submit()
        collect(block=False)
        counts.running = min(len(in_flight), threads)
        if waiting and not suspects:
            run = waiting.popleft()
            estimate.warm(run)
            estimate.observe(run, _run_one(run, finished, report, counts))
            here += 1
        elif in_flight:
            report(counts, None)
            collect(block=True)
    while in_flight:  # a batch crashed: let the others finish before the quarantine
        collect(block=True)
    if suspects or waiting:
        _run_on(client, [*suspects, *waiting], counts, finished, report, threads,
                keep_workers, seen=estimate.seen())
        there += len(suspects) + len(waiting)
    return here, there


class _Estimate:
    """Seconds the runs left would take in this process, per ``(family, method)`` group.

    A group's runs are estimated by the mean of its runs measured so far; a
    group not seen yet, by the fastest group's mean (:meth:`_typical`). Each group's
    imports are paid before its first run (:meth:`warm`) and not counted: a
    campaign that opens with one exact solve and goes on with thousands of
    heuristic runs of milliseconds is estimated as what it is. Constant work
    per run (a campaign may hold millions).
    """

    def __init__(self, runs: Sequence[Run]) -> None:
        self.left_in: dict[tuple[str, str], int] = {}
        for run in runs:
            group = (run.method.family, run.method.name)
            self.left_in[group] = self.left_in.get(group, 0) + 1
        self.spent: dict[tuple[str, str], list[float]] = {}  # group -> [seconds, runs]
        self.times: list[float] = []
        self.warmed: set[tuple[str, str]] = set()

    def warm(self, run: Run) -> None:
        """Import what ``run``'s group needs, once per group, before it is timed."""
        group = (run.method.family, run.method.name)
        if group not in self.warmed:
            self.warmed.add(group)
            warm_up([group], run.plugins)

    def observe(self, run: Run, seconds: float) -> None:
        group = (run.method.family, run.method.name)
        spent = self.spent.setdefault(group, [0.0, 0])
        spent[0] += seconds
        spent[1] += 1
        self.left_in[group] -= 1
        self.times.append(seconds)

    def seen(self) -> list[float]:
        """Every run time measured, in order."""
        return self.times

    def of(self, run: Run) -> float:
        """Estimated seconds of ``run``: its group's mean, else :meth:`_typical`."""
        spent = self.spent.get((run.method.family, run.method.name))
        return spent[0] / spent[1] if spent else self._typical()

    def _typical(self) -> float:
        """What a run of a group not seen yet is taken to cost: the fastest group's mean.

        Optimistic on purpose: starting a cluster is the costly mistake (its
        start-up competes with the runs here), and a campaign that opens with
        an exact solve is mostly not exact solves.
        """
        return min((seconds / n for seconds, n in self.spent.values()), default=0.0)

    def settled(self) -> bool:
        """Whether two groups have been measured (or every group, when there is one)."""
        return len(self.spent) >= min(2, len(self.left_in))

    def left(self) -> float:
        """Estimated seconds of the runs not measured yet; 0 before any was measured."""
        if not self.times:
            return 0.0
        typical = self._typical()
        return sum(n * (self.spent[g][0] / self.spent[g][1] if g in self.spent else typical)
                   for g, n in self.left_in.items() if n)

    def total(self) -> float:
        """Seconds of every run measured."""
        return sum(self.times)


def _run_one(run: Run, finished: Callable[[dict[str, Any]], None], report: Progress,
             counts: Counts) -> float:
    """Run ``run`` in this process and return how long it took."""
    counts.running = 1
    report(counts, run.describe())
    start = time.perf_counter()
    finished(execute_run(run))
    seconds = time.perf_counter() - start
    counts.running = 0
    report(counts, None)
    return seconds


def _warm_workers(client: Any, runs: Sequence[Run]) -> None:
    """Have every worker import what the runs need (part of the start-up, not of a run)."""
    if not runs:
        return
    methods = sorted({(run.method.family, run.method.name) for run in runs})
    # A worker that cannot warm up still takes runs, which then report what failed.
    with contextlib.suppress(Exception):
        client.run(warm_up, methods, runs[0].plugins)


def _run_serially(runs: Sequence[Run], finished: Callable[[dict[str, Any]], None],
                  report: Progress, counts: Counts) -> None:
    """Run ``runs`` in this process, one after the other."""
    for run in runs:
        _run_one(run, finished, report, counts)


def _killed_row(run: Run) -> dict[str, Any]:
    """The row of a run that killed its worker process every time it was tried."""
    return failed_row(run, "the run killed its worker process every time it was tried "
                           "(crash or out of memory)", worker="(lost)")


def _error_rows(batch: Sequence[Run], error: Any) -> list[dict[str, Any]] | None:
    """The rows of a batch whose Dask task failed; ``None`` when it killed its worker."""
    from distributed import KilledWorker

    if isinstance(error, KilledWorker):
        return None
    if isinstance(error, OSError):
        raise ClusterError(f"lost the Dask cluster ({last_line(error)}); finished runs are "
                           "stored: run the same command again to resume")
    message = last_line(error) if isinstance(error, BaseException) else str(error)
    return [failed_row(run, message) for run in batch]


def _outcome(future: Any, batch: Sequence[Run], keep_workers: Callable[[], None]
             ) -> list[dict[str, Any]] | None:
    """The rows of a batch whose future is done, or ``None`` when it killed its worker.

    A finished batch's rows still live on the worker that ran it. If that
    worker dies before they are fetched (the next batch on it crashed, say),
    Dask runs the batch again, which needs a worker: the fetch is therefore
    never an unbounded wait. Every :data:`WATCH_EVERY_S` seconds
    ``keep_workers`` is called, which restarts lost workers or gives up with
    :class:`ClusterError` (an unbounded fetch once hung a campaign whose
    workers had all died).
    """
    from concurrent.futures import CancelledError

    lost = ClusterError("lost the Dask cluster (a run was cancelled); finished runs are "
                        "stored: run the same command again to resume")
    if future.status == "cancelled":
        raise lost
    if future.status == "error":  # known to the client already: no wait
        return _error_rows(batch, future.exception())
    while True:
        try:
            return list(future.result(timeout=WATCH_EVERY_S))
        except CancelledError:
            raise lost from None
        except TimeoutError:
            if future.status == "error":  # a TimeoutError raised by the task itself
                return _error_rows(batch, future.exception())
            keep_workers()
        except Exception as exc:
            return _error_rows(batch, exc)


def _run_on(client: Any, runs: Sequence[Run], counts: Counts,
            finished: Callable[[dict[str, Any]], None], report: Progress,
            threads: int, keep_workers: Callable[[], None],
            seen: Sequence[float] = ()) -> None:
    """Submit ``runs`` in batches, in a window, and collect their rows as they finish.

    Batches are sized by :class:`~.batches.BatchSizer` (``seen``: run times
    measured before, by ``auto``). While nothing finishes, ``keep_workers``
    is called every :data:`WATCH_EVERY_S` seconds (it restarts lost
    workers, or gives up).

    **Quarantine.** Dask counts every task processing or queued on a worker
    that dies as a suspect of its death, and gives up on a task after
    ``allowed-failures`` + 1 suspicions: an innocent run queued behind a
    crashing one can be given up on too (it happened under load). The runs
    of a task given up on are therefore run again one by one, each alone on
    the cluster (nothing else in flight): a run that kills its worker there
    (every time Dask tries it) is the culprit for certain, and recorded as
    failed; the others give their rows. Only campaigns with a crashing run
    pay for the quarantine.
    """
    from distributed import wait

    sizer = BatchSizer(threads, seen)
    waiting = deque(runs)
    suspects: deque[Run] = deque()  # runs of tasks Dask gave up on, to run alone
    in_flight: dict[Any, tuple[Run, ...]] = {}
    quarantined: set[Any] = set()  # the future running a suspect alone
    numbers = itertools.count()

    def submit(batch: tuple[Run, ...]) -> Any:
        future = client.submit(execute_batch, batch, pure=False,
                               key=f"runs-{batch[0].key}-{next(numbers)}")
        in_flight[future] = batch
        return future

    def fill() -> None:
        if suspects:  # drain the cluster, then one suspect at a time
            if not in_flight:
                quarantined.add(submit((suspects.popleft(),)))
            return
        while waiting and len(in_flight) < max(1, threads) * WINDOW_PER_THREAD:
            submit(tuple(waiting.popleft() for _ in range(sizer.size(len(waiting)))))

    fill()
    counts.running = min(len(in_flight), threads)
    report(counts, None)
    while in_flight:
        try:
            with client.as_current():  # wait() looks the client up; ours is not the default
                done = wait(list(in_flight), timeout=WATCH_EVERY_S,
                            return_when="FIRST_COMPLETED").done
        except TimeoutError:
            keep_workers()
            continue
        for future in done:
            batch = in_flight.pop(future)
            rows = _outcome(future, batch, keep_workers)
            future.release()
            if rows is None and future in quarantined:
                finished(_killed_row(batch[0]))
            elif rows is None:
                suspects.extend(batch)
            else:
                for row in rows:
                    sizer.observe(row.get("wall_s"))
                    finished(row)
            quarantined.discard(future)
        fill()
        counts.running = min(len(in_flight), threads)
        report(counts, None)
