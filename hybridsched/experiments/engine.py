"""Where runs execute: in process (serial), on a Dask LocalCluster, or on a Dask cluster.

Dask's ``distributed`` does the scheduling; this module only feeds it runs
and hands back rows. The same runs give the same rows (objectives, statuses)
in every mode: a run is a pure function of its :class:`~.runs.Run`.

* ``serial``: one run after the other in this process (for debugging and
  for a handful of runs, where starting a cluster costs more than it saves).
* ``auto`` (the default): serial while the runs left look too short to gain
  from workers, then a LocalCluster for the rest. After each run in process,
  the time the runs left would take serially is estimated (the fastest run so
  far times the runs left until three have run, their median after: the first
  run also pays for imports); once it exceeds :data:`AUTO_CLUSTER_S` the
  cluster is started and takes the rest. A small campaign never waits for a
  cluster, and a large one loses only its first runs' worth of parallelism.
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
import statistics
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hybridsched.errors import ClusterError
from hybridsched.experiments.batches import BatchSizer, execute_batch
from hybridsched.experiments.cluster import client_for
from hybridsched.experiments.runner import FAILED, execute_run, failed_row, last_line, warm_up
from hybridsched.experiments.runs import Run
from hybridsched.provenance import cores

#: Runs kept submitted per worker thread (keeps workers busy between round trips).
WINDOW_PER_THREAD = 8
#: Seconds without a finished run after which the local cluster's workers are checked.
WATCH_EVERY_S = 2.0
#: ``auto`` starts a cluster once the runs left would take longer than this serially.
#: Break-even on 2 cores: a cluster pays its start-up (about 3 s measured, 2 worker
#: processes importing the package) and then runs about 1.8x as fast, so it gains when
#: the serial time left exceeds 3 / (1 - 1/1.8) = 6.75 s; the margin covers noise.
AUTO_CLUSTER_S = 8.0
#: Runs measured before the estimate uses their median rather than the fastest.
AUTO_MEDIAN_AFTER = 3


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
    note = ""
    durations: list[float] = []
    if scheduler is None and mode in ("serial", "auto"):
        n_workers = workers or cores()
        limit = None if mode == "serial" or n_workers < 2 else AUTO_CLUSTER_S
        done, estimate = _run_serially(runs, finished, report, counts, durations, limit=limit)
        if done == len(runs):
            if mode == "auto":
                note = (f"auto: the runs were too short to gain from {n_workers} workers"
                        if n_workers > 1 else "auto: one core")
            return Execution("serial", 1, 0.0, time.perf_counter() - started, counts, note)
        # The cluster is started only now, not beside runs in this process: solver
        # libraries here redirect file descriptors (pyomo's TeeStream) while Dask's start
        # spawns processes, and the two raced ("Bad file descriptor", a failed run).
        note = (f"auto: {done} run{'s' * (done != 1)} in process, then the "
                f"{len(runs) - done} left (estimated {estimate:.0f} s serially) on the cluster")
        runs = runs[done:]
    cluster_from = time.perf_counter()
    with client_for(scheduler, workers) as (client, n_workers, where, keeper):
        _warm_workers(client, runs)
        startup = time.perf_counter() - cluster_from
        # The first run in process also paid for imports: not a typical run time.
        _run_on(client, runs, counts, finished, report, n_workers, keeper,
                seen=durations[1:])
    return Execution(where, n_workers, startup, time.perf_counter() - started, counts, note)


def _warm_workers(client: Any, runs: Sequence[Run]) -> None:
    """Have every worker import what the runs need (part of the start-up, not of a run)."""
    if not runs:
        return
    methods = sorted({(run.method.family, run.method.name) for run in runs})
    # A worker that cannot warm up still takes runs, which then report what failed.
    with contextlib.suppress(Exception):
        client.run(warm_up, methods, runs[0].plugins)


def _run_serially(runs: Sequence[Run], finished: Callable[[dict[str, Any]], None],
                  report: Progress, counts: Counts, durations: list[float], *,
                  limit: float | None = None) -> tuple[int, float]:
    """Run ``runs`` in this process, one after the other, and return how many ran.

    Stops before a run when the runs left would take over ``limit`` seconds
    (estimated from those done; the estimate is returned, 0 when all ran).
    Each run's time is appended to ``durations``.
    """
    for k, run in enumerate(runs):
        if limit is not None and durations:
            typical = (statistics.median(durations) if len(durations) >= AUTO_MEDIAN_AFTER
                       else min(durations))
            estimate = typical * (len(runs) - k)
            if estimate > limit:
                return k, estimate
        counts.running = 1
        report(counts, run.describe())
        start = time.perf_counter()
        finished(execute_run(run))
        durations.append(time.perf_counter() - start)
        counts.running = 0
        report(counts, None)
    return len(runs), 0.0


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
