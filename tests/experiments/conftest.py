"""Fixtures of the campaign tests: spec files and one Dask cluster on loopback for the session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.registry_snapshot import restored_registry

HERE = Path(__file__).resolve().parent
FAULTY = HERE / "faulty_methods.py"
INSTANCES = HERE.parents[1] / "instances"


def write_spec(folder: Path, *, methods: list[str] | None = None, tasks=(6, 9), seeds=3,
               name: str = "test", extra: str = "") -> Path:
    """A small hybrid-deadline campaign spec (generator grid) with the faulty-method plugin."""
    methods = methods or ["cdf", "cdf+ra", "ffd", "exact", "test-raise", "test-timeout"]
    lines = [
        "[campaign]", f'name = "{name}"', "time_limit = 10.0", f'plugins = ["{FAULTY}"]',
        extra, "",
        "[[instances]]", 'generator = "hybrid-deadline"',
        f"seeds = {{ start = 0, stop = {seeds} }}",
        "[instances.options]", f"tasks = {list(tasks)}", "",
    ]
    for method in methods:
        lines += ["[[methods]]", f'name = "{method}"']
        if method == "test-timeout":
            lines.append("time_limit = 0.2")
        lines.append("")
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines))
    return path


@pytest.fixture(scope="module", autouse=True)
def _forget_plugins():
    """Unregister plugin methods after each module (a leaked ``test-crash`` would be run
    by a later ``compare`` of every method, and kill the test process)."""
    modules = set(sys.modules)
    with restored_registry():
        yield
    for name in set(sys.modules) - modules:
        if name.startswith("hybridsched_plugin_"):
            del sys.modules[name]


@pytest.fixture
def scratch_registry():
    """Methods a test registers disappear after it."""
    with restored_registry():
        yield


@pytest.fixture(scope="session")
def dask_scheduler(tmp_path_factory):
    """A real ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1."""
    dask = shutil.which("dask") or None
    if dask is None:
        pytest.skip("the 'dask' command is not installed")
    folder = tmp_path_factory.mktemp("dask")
    scheduler_file = folder / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1",
           "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0",
           "PYTHONPATH": os.pathsep.join([str(HERE.parents[1]), *sys.path])}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env,
             "cwd": folder}
    processes = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                   "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                                  **quiet)]
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists():
            if time.monotonic() > deadline or processes[0].poll() is not None:
                pytest.fail("the dask scheduler did not start")
            time.sleep(0.1)
        processes.append(subprocess.Popen([dask, "worker", "--scheduler-file",
                                           str(scheduler_file), "--nworkers", "2",
                                           "--nthreads", "1", "--no-dashboard"], **quiet))
        from distributed import Client

        with Client(scheduler_file=str(scheduler_file), timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
            address = client.scheduler.address
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                process.kill()
