"""Where runs execute: in process (serial), on a Dask LocalCluster, or on a Dask cluster.

Dask's ``distributed`` does the scheduling; this module only feeds it runs
and hands back rows. The same runs give the same rows (objectives, statuses)
in every mode: a run is a pure function of its :class:`~.runs.Run`.

* ``serial``: one run after the other in this process (for debugging and
  for a handful of runs, where starting a cluster costs more than it saves).
* ``local``: a :class:`distributed.LocalCluster` with one single-threaded
  worker *process* per core (HiGHS is told to use one thread as well:
  :data:`hybridsched.models.highs.HIGHS_OPTIONS`).
* a scheduler address (``tcp://host:8786``): an existing cluster, started by
  hand with ``dask scheduler`` and ``dask worker``.

A run that kills its worker process is run once more, on a fresh worker;
if that dies too, the run is recorded as failed (Dask's
``distributed.scheduler.allowed-failures`` set to :data:`RETRIES` for the
cluster this module starts; an existing scheduler keeps its own settings,
see the README: start it with :data:`CLUSTER_CONFIG` as environment
variables for the same behaviour). Runs are submitted in a window of a few per worker, so a
campaign of millions of runs never builds a huge task graph.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hybridsched.errors import ClusterError
from hybridsched.experiments.runner import FAILED, execute_run, failed_row, last_line
from hybridsched.experiments.runs import Run

#: How many times a run that killed its worker is tried again.
RETRIES = 1
#: Settings of the cluster this module starts: retry a run that killed its worker once,
#: and send a worker one run at a time, so that a run queued behind one that kills the
#: worker is not counted as a suspect of the death (Dask counts every run "processing"
#: on a dead worker).
CLUSTER_CONFIG = {"distributed.scheduler.allowed-failures": RETRIES,
                  "distributed.scheduler.worker-saturation": 1.0,
                  # The statistical profiler samples the running thread every 10 ms for a
                  # dashboard nobody looks at here.
                  "distributed.worker.profile.enabled": False}
#: Runs kept submitted per worker thread (keeps workers busy between round trips).
WINDOW_PER_THREAD = 8
#: Seconds to wait for an existing scheduler to answer.
CONNECT_TIMEOUT_S = 10


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


Progress = Callable[[Counts, str | None], None]


def default_workers() -> int:
    """Cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


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
        ``"serial"`` or ``"local"``; ignored when ``scheduler`` is given.
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
        for run in runs:
            counts.running = 1
            report(counts, run.describe())
            finished(execute_run(run))
            counts.running = 0
            report(counts, None)
        return Execution("serial", 1, 0.0, time.perf_counter() - started, counts)
    with _client(scheduler, workers) as (client, n_workers, where):
        startup = time.perf_counter() - started
        _run_on(client, runs, counts, finished, report, n_workers)
    return Execution(where, n_workers, startup, time.perf_counter() - started, counts)


@contextlib.contextmanager
def _client(scheduler: str | None, workers: int | None) -> Iterator[tuple[Any, int, str]]:
    """A Dask client, on a new LocalCluster or on ``scheduler``; closed on exit."""
    import dask
    from distributed import Client, LocalCluster

    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # worker deaths are reported as rows, not log noise
    cluster = None
    try:
        if scheduler is None:
            n = workers or default_workers()
            try:
                with dask.config.set(CLUSTER_CONFIG):
                    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                           dashboard_address=None,
                                           silence_logs=logging.CRITICAL)
            except RuntimeError as exc:
                raise ClusterError(
                    f"could not start a local Dask cluster ({last_line(exc)}); from a script, "
                    "start campaigns under \"if __name__ == '__main__':\" (workers are new "
                    "processes that import it), or run them serially") from None
            client = Client(cluster, set_as_default=False)
            where = "local"
        else:
            try:
                client = Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s",
                                set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                from hybridsched.errors import InputError

                raise InputError(f"--scheduler {scheduler}: cannot reach a Dask scheduler "
                                 f"({last_line(exc)})") from None
            where = scheduler
        try:
            threads = sum(client.nthreads().values()) or 1
            yield client, threads, where
        finally:
            with contextlib.suppress(Exception):
                client.close(timeout=5)
    finally:
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=5)
        quiet.setLevel(level)


def _error_row(run: Run, error: Any) -> dict[str, Any]:
    """The row of a run whose Dask task failed (its worker died, or it could not start)."""
    from distributed import KilledWorker

    if isinstance(error, KilledWorker):
        return failed_row(run, "the run killed its worker process every time it was tried "
                               "(crash or out of memory)", worker="(lost)")
    if isinstance(error, OSError):
        raise ClusterError(f"lost the Dask cluster ({last_line(error)}); finished runs are "
                           "stored: run the same command again to resume")
    return failed_row(run, last_line(error) if isinstance(error, BaseException)
                      else str(error))


def _run_on(client: Any, runs: Sequence[Run], counts: Counts,
            finished: Callable[[dict[str, Any]], None], report: Progress,
            threads: int) -> None:
    """Submit ``runs`` in a window and collect their rows as they finish."""
    from concurrent.futures import CancelledError

    from distributed import as_completed

    waiting = iter(runs)
    in_flight: dict[str, Run] = {}
    completed = as_completed(loop=client.loop)

    def submit_next() -> None:
        run = next(waiting, None)
        if run is not None:
            future = client.submit(execute_run, run, key=f"run-{run.key}", pure=False)
            in_flight[future.key] = run
            completed.add(future)

    for _ in range(max(1, threads) * WINDOW_PER_THREAD):
        submit_next()
    counts.running = min(len(in_flight), threads)
    report(counts, None)
    for future in completed:
        run = in_flight.pop(future.key)
        try:
            row = future.result()
        except CancelledError:
            raise ClusterError("lost the Dask cluster (a run was cancelled); finished runs "
                               "are stored: run the same command again to resume") from None
        except Exception as exc:
            row = _error_row(run, exc)
        future.release()
        finished(row)
        submit_next()
        counts.running = min(len(in_flight), threads)
        report(counts, None)
