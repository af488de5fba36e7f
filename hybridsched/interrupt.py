"""Ctrl-C means stop: one flag for the process, and never a result from an interrupted run.

Solvers do their own thing with SIGINT: highspy (as Pyomo drives it) catches
the ``KeyboardInterrupt``, cancels the solve and returns normally with an
"interrupted" status; a ``KeyboardInterrupt`` raised inside a HiGHS callback
is swallowed by the C++ side. Either way, the run would look like a result.
So the signal is recorded here, once, where no library can lose it:

* :func:`handling_sigint` (entered by the command line) installs the handler:
  it sets the flag and raises ``KeyboardInterrupt`` in pure Python code;
* inside :func:`deferred` (a solver whose callback polls :func:`requested`),
  it only sets the flag, and the solver is stopped cleanly by its callback;
* whoever turns a run into a result (:func:`hybridsched.registry.run_method`,
  the solver drivers, the campaign store) calls :func:`raise_if_requested`
  first, so an interrupted run becomes ``KeyboardInterrupt``, whatever status
  the solver returned.

The command line turns ``KeyboardInterrupt`` into exit code 130.

This module imports nothing from the package: every layer may ask it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

_requested = threading.Event()
_deferred = 0


def requested() -> bool:
    """Whether Ctrl-C (SIGINT) arrived since :func:`handling_sigint` was entered."""
    return _requested.is_set()


def request() -> None:
    """Record an interrupt (what the SIGINT handler does; tests call it directly)."""
    _requested.set()


def raise_if_requested() -> None:
    """Raise ``KeyboardInterrupt`` when an interrupt was recorded."""
    if _requested.is_set():
        raise KeyboardInterrupt


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    already = _requested.is_set()
    _requested.set()
    # Inside a solver that polls the flag, raising would unwind through C++ code that
    # swallows it; a second Ctrl-C raises anyway (the user insists).
    if _deferred == 0 or already:
        raise KeyboardInterrupt


@contextlib.contextmanager
def handling_sigint() -> Iterator[None]:
    """Install the SIGINT handler for the block (main thread only; elsewhere a no-op).

    The flag is cleared on entry and on exit, so that one command's Ctrl-C
    does not leak into the next command run in the same process (tests).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    _requested.clear()
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _requested.clear()


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within the block, SIGINT only sets the flag; on leaving it, raise if it was set.

    For solver calls whose callbacks poll :func:`requested` and stop the
    solver themselves (:mod:`hybridsched.models.highs_callbacks`).
    """
    global _deferred
    _deferred += 1
    try:
        yield
    finally:
        _deferred -= 1
    raise_if_requested()
