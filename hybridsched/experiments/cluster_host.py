"""A local Dask cluster started in the background, in a process of its own.

The default campaign mode keeps running in process while a cluster starts
beside it (:mod:`~.engine`), so that trying a cluster never makes the
campaign wait. The cluster cannot start in a thread of this process: solver
libraries redirect file descriptors while they run here, and a process
spawned meanwhile inherited a half-redirected table ("Bad file descriptor",
a failed run). It starts instead in a *host* process, spawned between two
runs (when no redirection is active), that starts the
:class:`distributed.LocalCluster`, prints its scheduler's address and keeps
its workers alive (:class:`~.cluster.WorkerKeeper`'s rule) until its
standard input closes. The host and its workers run in a session of their
own: the terminal's Ctrl-C reaches the driver only, which ends them.

Run as ``python -m hybridsched.experiments.cluster_host N`` by
:class:`BackgroundCluster` only.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import subprocess
import sys
import time

#: Seconds between two checks of the host's workers.
KEEP_EVERY_S = 2.0


class BackgroundCluster:
    """A LocalCluster of ``workers`` single-threaded processes, starting in a host process."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.started_at = time.perf_counter()
        self.ready_after_s: float | None = None
        self._address: str | None = None
        # Standard error goes nowhere: the host's failures show as a cluster that never
        # becomes ready, and the campaign simply stays in this process.
        self._process = subprocess.Popen(
            [sys.executable, "-m", "hybridsched.experiments.cluster_host", str(workers)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, text=True)

    def address(self) -> str | None:
        """The scheduler's address once the cluster is up, else ``None`` (never waits)."""
        if self._address is None and self._process.poll() is None:
            ready, _, _ = select.select([self._process.stdout], [], [], 0)
            if ready:
                line = self._process.stdout.readline().strip()
                if line.startswith("tcp://"):
                    self._address = line
                    self.ready_after_s = time.perf_counter() - self.started_at
        return self._address

    def failed(self) -> bool:
        """Whether the host ended without ever giving an address."""
        return self._address is None and self._process.poll() is not None

    def stop(self, *, hurry: bool = False) -> None:
        """End the host and its workers: gracefully (stdin closed), or at once."""
        process = self._process
        if process.poll() is None and not hurry:
            with contextlib.suppress(OSError):
                process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
        if process.poll() is None or hurry:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # the host, its scheduler and workers
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError):
                stream.close()


def _host(workers: int) -> None:
    """Start the cluster, print its address, keep its workers until stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver ends this session
    import dask
    from distributed import Client, LocalCluster

    from hybridsched.experiments.cluster import CLUSTER_CONFIG, DASHBOARD

    with dask.config.set(CLUSTER_CONFIG):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=DASHBOARD, silence_logs=logging.CRITICAL)
        client = Client(cluster, set_as_default=False)
    print(cluster.scheduler_address, flush=True)
    try:
        while not select.select([sys.stdin], [], [], KEEP_EVERY_S)[0]:
            # A worker a run killed is restarted by its nanny; one whose nanny Dask closed
            # under load is opened again here (see WorkerKeeper).
            if len(client.nthreads()) < workers:
                cluster.scale(workers)
        sys.stdin.read()
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=5)
        with contextlib.suppress(Exception):
            cluster.close(timeout=5)


if __name__ == "__main__":
    _host(int(sys.argv[1]))
