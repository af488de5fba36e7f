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
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hybridsched import interrupt
from hybridsched.errors import ClusterError
from hybridsched.experiments.runner import FAILED, execute_run, failed_row, last_line
from hybridsched.experiments.runs import Run
from hybridsched.provenance import cores

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
#: Where the local cluster's scheduler serves HTTP: any free port, on this machine only.
DASHBOARD = "127.0.0.1:0"
#: Seconds to wait for an existing scheduler to answer.
CONNECT_TIMEOUT_S = 10
#: Seconds without a finished run after which the local cluster's workers are checked.
WATCH_EVERY_S = 2.0
#: Seconds a local cluster may stay without any worker before the campaign stops.
NO_WORKER_LIMIT_S = 120.0


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
    with _client(scheduler, workers) as (client, n_workers, where, keeper):
        startup = time.perf_counter() - started
        _run_on(client, runs, counts, finished, report, n_workers, keeper)
    return Execution(where, n_workers, startup, time.perf_counter() - started, counts)


@contextlib.contextmanager
def _workers_ignore_sigint() -> Iterator[None]:
    """Start worker processes with SIGINT blocked: Ctrl-C is the driver's to handle.

    A terminal sends Ctrl-C to every process of the foreground group, workers
    included; a worker that died of it mid-run would print tracebacks and be
    counted as a failed run. The driver instead stops, stores nothing more,
    and shuts the cluster down. Blocking the signal in the thread that spawns
    a process (the mask survives ``fork`` and ``exec``) leaves no window in
    which a starting worker could still be hit, unlike a handler set by the
    worker itself once started.
    """
    import multiprocessing.util as mp_util

    spawn = mp_util.spawnv_passfds

    def spawn_without_sigint(path: Any, args: Any, passfds: Any) -> int:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return spawn(path, args, passfds)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    mp_util.spawnv_passfds = spawn_without_sigint
    try:
        yield
    finally:
        mp_util.spawnv_passfds = spawn


@contextlib.contextmanager
def _client(scheduler: str | None, workers: int | None
            ) -> Iterator[tuple[Any, int, str, _WorkerKeeper]]:
    """A Dask client, on a new LocalCluster or on ``scheduler``; closed on exit.

    Yields the client, its worker threads, where it runs, and the
    :class:`_WorkerKeeper` of the cluster.

    Ctrl-C while the cluster starts is held until it has started (then
    raised), so that a half-started cluster is never left behind.
    """
    import dask
    from distributed import Client, LocalCluster

    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # worker deaths are reported as rows, not log noise
    cluster, n, earlier = None, 0, set()
    try:
        with contextlib.ExitStack() as stack:
            if scheduler is None:
                n = workers or cores()
                stack.enter_context(_workers_ignore_sigint())
                try:
                    earlier = _children()
                    with dask.config.set(CLUSTER_CONFIG), interrupt.deferred():
                        # dashboard_address=None still serves HTTP on port 8787 (and warns
                        # on stderr when another cluster holds it): a free loopback port.
                        cluster = LocalCluster(n_workers=n, threads_per_worker=1,
                                               processes=True, dashboard_address=DASHBOARD,
                                               silence_logs=logging.CRITICAL)
                        client = Client(cluster, set_as_default=False)
                except RuntimeError as exc:
                    raise ClusterError(
                        f"could not start a local Dask cluster ({last_line(exc)}); from a "
                        "script, start campaigns under \"if __name__ == '__main__':\" "
                        "(workers are new processes that import it), or run them "
                        "serially") from None
                where = "local"
            else:
                try:
                    client = Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s",
                                    set_as_default=False)
                except (OSError, TimeoutError, ValueError) as exc:
                    from hybridsched.errors import InputError

                    raise InputError(f"--scheduler {scheduler}: cannot reach a Dask "
                                     f"scheduler ({last_line(exc)})") from None
                where = scheduler
            hurry = False
            try:
                threads = sum(client.nthreads().values()) or 1
                yield client, threads, where, _WorkerKeeper(client, cluster, n)
            except KeyboardInterrupt:
                hurry = True  # the user waits: runs in flight are not worth finishing
                raise
            finally:
                _shut_down(client, cluster, earlier if hurry else None)
    finally:
        quiet.setLevel(level)


def _children() -> set[int]:
    """Process ids of this process's children (those of a new cluster are the others)."""
    import psutil

    return {child.pid for child in psutil.Process().children(recursive=True)}


def _shut_down(client: Any, cluster: Any, hurry_past: set[int] | None) -> None:
    """Close the client and the cluster; after Ctrl-C, end its worker processes at once.

    A worker busy in a solver cannot stop its run, so a graceful close waits
    for it (seconds). After Ctrl-C, ``hurry_past`` holds the children this
    process had before the cluster started: the others, the cluster's, are
    ended instead, so none outlives the command.
    """
    import psutil

    hurry = hurry_past is not None
    workers = []
    if cluster is not None and hurry:
        workers = [p for p in psutil.Process().children(recursive=True)
                   if p.pid not in hurry_past]
        for process in workers:
            with contextlib.suppress(psutil.Error):
                process.terminate()
    with contextlib.suppress(Exception):
        client.close(timeout=1 if hurry else 5)
    if cluster is not None:
        with contextlib.suppress(Exception):
            cluster.close(timeout=1 if hurry else 5)
    if workers:
        _, alive = psutil.wait_procs(workers, timeout=2)
        for process in alive:
            with contextlib.suppress(psutil.Error):
                process.kill()


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
            threads: int, keep_workers: Callable[[], None]) -> None:
    """Submit ``runs`` in a window and collect their rows as they finish.

    While nothing finishes, ``keep_workers`` is called every
    :data:`WATCH_EVERY_S` seconds (it restarts lost workers, or gives up).
    """
    from concurrent.futures import CancelledError

    from distributed import wait

    waiting = iter(runs)
    in_flight: dict[Any, Run] = {}

    def submit_next() -> None:
        run = next(waiting, None)
        if run is not None:
            future = client.submit(execute_run, run, key=f"run-{run.key}", pure=False)
            in_flight[future] = run

    for _ in range(max(1, threads) * WINDOW_PER_THREAD):
        submit_next()
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
            run = in_flight.pop(future)
            try:
                row = future.result()
            except CancelledError:
                raise ClusterError("lost the Dask cluster (a run was cancelled); finished "
                                   "runs are stored: run the same command again to resume"
                                   ) from None
            except Exception as exc:
                row = _error_row(run, exc)
            future.release()
            finished(row)
            submit_next()
        counts.running = min(len(in_flight), threads)
        report(counts, None)


class _WorkerKeeper:
    """Keeps a local cluster's workers alive while runs wait for them.

    Under load, Dask's ``SpecCluster`` may close the nanny of a worker that
    a run killed before its restarted process registers again (after
    ``distributed.deploy.lost-worker-timeout``); with every nanny closed, the
    remaining runs would wait forever. ``cluster.scale(n)`` makes the
    cluster open the missing workers again; if it has had no worker for
    :data:`NO_WORKER_LIMIT_S` seconds all the same, the campaign stops with
    :class:`ClusterError` (finished rows are kept). An existing scheduler's
    workers are its owner's business: nothing is done for them.
    """

    def __init__(self, client: Any, cluster: Any, n_workers: int) -> None:
        self.client, self.cluster, self.n_workers = client, cluster, n_workers
        self.workerless_since: float | None = None

    def __call__(self) -> None:
        """Check the workers once (called while no run finishes)."""
        if self.cluster is None:
            return
        alive = len(self.client.nthreads())
        if alive < self.n_workers:
            self.cluster.scale(self.n_workers)
        now = time.monotonic()
        if alive:
            self.workerless_since = None
        elif self.workerless_since is None:
            self.workerless_since = now
        elif now - self.workerless_since > NO_WORKER_LIMIT_S:
            raise ClusterError(f"the local Dask cluster lost every worker and could not "
                               f"start new ones in {NO_WORKER_LIMIT_S:.0f} s; finished runs "
                               "are stored: run the same command again to resume")
