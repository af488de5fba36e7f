"""A method that writes to standard output in every way a library can, then schedules.

Used by ``tests/cli/test_stdout_documents.py``: run in the test process (loaded
with :func:`runpy.run_path`, the registry restored afterwards), by a driver
script in a subprocess, and as a campaign plugin (``plugins = [...]``), where it
is imported by the driver and by every Dask worker. ``test-noisy`` registers for
``hybrid-deadline`` and delegates to ``cdf``; each kind of noise carries its own
marker, so a test can say which one leaked. Imported as ``tests.cli.noisy_methods``
(the test reads the markers), it registers nothing.
"""

from __future__ import annotations

import ctypes
import logging
import os
import subprocess
import sys

from hybridsched.registry import get_method, register_method

#: Every marker starts with this (no document the program prints contains it).
PREFIX = "hybridsched-test-noise"

#: What each kind of noise writes; the keys name the kinds.
MARKERS = {kind: f"{PREFIX}:{kind}" for kind in (
    "os-write-fd1",      # C-level write to descriptor 1 (as highspy's banner)
    "print",             # print() to whatever sys.stdout is
    "dunder-stdout",     # the interpreter's original stream, buffered and not flushed
    "logging",           # a log handler made on sys.stdout during the run
    "child-process",     # a child inheriting descriptor 1
    "libc-printf",       # C stdio, buffered and not flushed (as a C library's printf)
)}

#: Set to 1 to also print at import time (a plugin imported inside a campaign).
ON_IMPORT = "HYBRIDSCHED_TEST_NOISE_ON_IMPORT"

#: A logger that a driver script may give a handler on ``sys.stdout`` *before* the command
#: line runs (as a library configured at import time); silent otherwise.
EARLY = logging.getLogger("hybridsched-test-noise-early")
EARLY.propagate = False
EARLY_MARKER = f"{PREFIX}:early-logging"


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None)
    except OSError:  # no C library to load this way (Windows)
        return None


def make_noise() -> None:
    """Write each marker to standard output in its own way (no flush where a library forgets)."""
    os.write(1, f"{MARKERS['os-write-fd1']}\n".encode())
    print(MARKERS["print"])
    if sys.__stdout__ is not None:
        sys.__stdout__.write(f"{MARKERS['dunder-stdout']}\n")
    logger = logging.getLogger("hybridsched-test-noise")
    handler = logging.StreamHandler(sys.stdout)
    logger.addHandler(handler)
    try:
        logger.warning(MARKERS["logging"])
    finally:
        logger.removeHandler(handler)
    if EARLY.handlers:
        EARLY.warning(EARLY_MARKER)
    subprocess.run(["echo", MARKERS["child-process"]], check=True)
    libc = _libc()
    if libc is not None:
        libc.printf(f"{MARKERS['libc-printf']}\n".encode())


def noisy(instance, *, seed=0, time_limit=None):
    """Write every kind of noise, then return cdf's schedule."""
    make_noise()
    return get_method("hybrid-deadline", "cdf").func(instance, seed=seed,
                                                       time_limit=time_limit)


# Imported as a module of the test suite (for its markers), it registers nothing: the
# method would stay registered for every later test. Run by path or as a plugin, it does.
if __name__ != "tests.cli.noisy_methods":
    register_method("hybrid-deadline", "test-noisy",
                    description="cdf after writing noise to standard output (test)")(noisy)
    if os.environ.get(ON_IMPORT) == "1":
        print(f"{PREFIX}:import")
