"""Dask clusters for campaigns: started, kept alive, shut down.

:func:`client_for` gives a client on a new :class:`distributed.LocalCluster`
(one single-threaded worker process per core; HiGHS is told to use one thread
as well: :data:`hybridsched.models.solvers.highs.HIGHS_OPTIONS`) or on an existing
scheduler. Worker processes ignore Ctrl-C (the
driver stops them); a worker lost to a crash is restarted
(:class:`WorkerKeeper`); after Ctrl-C the workers are ended at once.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import time
from collections.abc import Iterator
from typing import Any

from hybridsched import interrupt
from hybridsched.errors import ClusterError
from hybridsched.experiments.runner import last_line
from hybridsched.provenance import cores

#: How many times Dask tries again a task (a run, or a batch of runs) that killed its worker.
RETRIES = 1
#: Settings of the cluster this module starts: retry a task that killed its worker once
#: (Dask counts every task "processing" on a dead worker as a suspect, so an innocent
#: one needs the retry), and send a worker one task at a time where Dask can, so that
#: few tasks are suspects of a death.
CLUSTER_CONFIG = {"distributed.scheduler.allowed-failures": RETRIES,
                  "distributed.scheduler.worker-saturation": 1.0,
                  # The statistical profiler samples the running thread every 10 ms for a
                  # dashboard nobody looks at here.
                  "distributed.worker.profile.enabled": False}
#: Where the local cluster's scheduler serves HTTP: any free port, on this machine only.
DASHBOARD = "127.0.0.1:0"
#: Seconds to wait for an existing scheduler to answer.
CONNECT_TIMEOUT_S = 10
#: Seconds a local cluster may stay without any worker before the campaign stops.
NO_WORKER_LIMIT_S = 120.0


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


def _start_local(n: int, stack: contextlib.ExitStack) -> tuple[Any, Any, set[int]]:
    """Start a LocalCluster of ``n`` worker processes and a client on it.

    Returns the cluster, the client and this process's children before the
    cluster (the others are its workers). Until ``stack`` is closed, new
    processes start with SIGINT blocked and Dask's log stays quiet.
    """
    import dask
    from distributed import Client, LocalCluster

    quiet = logging.getLogger("distributed")
    stack.callback(quiet.setLevel, quiet.level)
    quiet.setLevel(logging.CRITICAL)  # worker deaths are reported as rows, not log noise
    stack.enter_context(_workers_ignore_sigint())
    try:
        earlier = _children()
        with dask.config.set(CLUSTER_CONFIG):
            # dashboard_address=None still serves HTTP on port 8787 (and warns on
            # stderr when another cluster holds it): a free loopback port.
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                   dashboard_address=DASHBOARD, silence_logs=logging.CRITICAL)
            client = Client(cluster, set_as_default=False)
    except RuntimeError as exc:
        raise ClusterError(
            f"could not start a local Dask cluster ({last_line(exc)}); from a script, start "
            "campaigns under \"if __name__ == '__main__':\" (workers are new processes that "
            "import it), or run them serially") from None
    return cluster, client, earlier


@contextlib.contextmanager
def client_for(scheduler: str | None, workers: int | None
               ) -> Iterator[tuple[Any, int, str, WorkerKeeper]]:
    """A Dask client, on a new LocalCluster or on ``scheduler``; closed on exit.

    Yields the client, its worker threads, where it runs, and the
    :class:`WorkerKeeper` of the cluster.

    Ctrl-C while the cluster starts is held until it has started (then
    raised), so that a half-started cluster is never left behind.
    """
    from distributed import Client

    cluster, n, earlier = None, 0, set()
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            n = workers or cores()
            try:
                with interrupt.deferred():  # raises on leaving if Ctrl-C came meanwhile
                    cluster, client, earlier = _start_local(n, stack)
            except KeyboardInterrupt:
                if cluster is not None:
                    _shut_down(client, cluster, earlier)
                raise
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
            yield client, threads, where, WorkerKeeper(client, cluster, n)
        except KeyboardInterrupt:
            hurry = True  # the user waits: runs in flight are not worth finishing
            raise
        finally:
            _shut_down(client, cluster, earlier if hurry else None)


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


class WorkerKeeper:
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
