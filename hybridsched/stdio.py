"""The program owns standard output: what libraries write there never reaches the user.

Solver libraries print when they please: highspy 1.16 writes a two-line banner
on file descriptor 1 from C++ as soon as a ``Highs`` object exists, Pyomo logs
to whatever ``sys.stdout`` is, a Dask worker process inherits descriptor 1.
Any of them can start doing so with a new release, so the guard is structural,
not per call site: while the command line runs (:func:`owned_stdout`),

* descriptor 1 points at a *sink* (discarded, or standard error under
  ``--verbose``), so C code and child processes write there;
* the command's own output (documents, tables, lines) goes to
  :func:`program_stdout`, a duplicate of the original descriptor 1;
* its own notes, warnings and errors go to :func:`program_stderr`, a
  duplicate of the original descriptor 2, which a solver's capture of
  descriptor 2 (Pyomo's) cannot swallow;
* while a command's body runs (:func:`quarantined`), ``sys.stdout`` is the
  sink too, so that Python-level prints and log handlers of libraries go there.

Library users (notebooks, scripts) never enter the guard and see everything,
as usual.

This module imports nothing from the package: every layer may write through it.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from typing import Literal, TextIO

#: Where libraries' standard output goes while the program owns it.
LibraryOutput = Literal["discard", "stderr"]


class _DescriptorOne(io.TextIOBase):
    """A text stream that writes to whatever descriptor 1 is *now* (never closed).

    Inside :func:`owned_stdout` that is the sink; outside, the real standard
    output. A library that keeps a reference to it (a log handler made at
    import time) therefore never writes to a closed stream.
    """

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        data = text.encode("utf-8", errors="replace")
        with contextlib.suppress(OSError):  # a closed pipe: library chatter is expendable
            while data:
                data = data[os.write(1, data):]
        return len(text)

    def fileno(self) -> int:
        return 1

    def isatty(self) -> bool:
        return False


_SINK = _DescriptorOne()
_program_out: TextIO | None = None
_program_err: TextIO | None = None
_owned = False


def program_stdout() -> TextIO:
    """The stream for the command's own output (``sys.stdout`` outside the guard)."""
    return _program_out if _program_out is not None else sys.stdout


def program_stderr() -> TextIO:
    """The stream for the command's own messages (``sys.stderr`` outside the guard)."""
    return _program_err if _program_err is not None else sys.stderr


def _fd_of(stream: TextIO | None) -> int | None:
    try:
        return None if stream is None else stream.fileno()
    except (AttributeError, OSError, ValueError):  # StringIO, pytest's capture, closed
        return None


def _duplicate(stream: TextIO, fd: int) -> TextIO:
    """A new text stream on a duplicate of ``fd`` that writes like ``stream`` did."""
    return open(os.dup(fd), "w", encoding=getattr(stream, "encoding", None) or "utf-8",  # noqa: SIM115
                errors=getattr(stream, "errors", None) or "strict",
                buffering=1 if _isatty(fd) else -1, closefd=True)


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _flush(*streams: TextIO) -> None:
    for stream in streams:
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()


def _flush_descriptor_one() -> None:
    """Flush the buffers that hold bytes for descriptor 1 behind the program's back.

    The interpreter's ``sys.__stdout__`` (which a library configured before the
    guard keeps) and C's ``stdout`` (``printf`` in an extension) are otherwise
    flushed at exit, once descriptor 1 is the user's again: after the document.
    """
    if sys.__stdout__ is not None:  # None without a console
        _flush(sys.__stdout__)
    import ctypes  # here: a quick command's start-up does not pay for it

    with contextlib.suppress(AttributeError, OSError, TypeError):  # no C library (Windows)
        ctypes.CDLL(None).fflush(None)


def open_standard_descriptors() -> None:
    """Give a closed descriptor 1 or 2 (``cmd >&-``) to ``/dev/null``, and Python a stream on it.

    Python starts with ``sys.stdout = None`` then; the program's output, like
    the libraries', goes nowhere, as the user asked.
    """
    for fd, name in ((1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_WRONLY)  # the lowest free descriptor: fd
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
        if getattr(sys, name) is None:
            setattr(sys, name, open(fd, "w", encoding="utf-8", closefd=False))  # noqa: SIM115


@contextlib.contextmanager
def owned_stdout(library_output: LibraryOutput = "discard") -> Iterator[None]:
    """Point descriptor 1 at a sink for the duration; the program writes to a duplicate.

    Parameters
    ----------
    library_output:
        ``"discard"`` (``/dev/null``) or ``"stderr"`` (``--verbose``: what
        libraries print goes to standard error, where it cannot break a
        document on standard output).

    ``sys.stdout`` is the program's stream inside the guard (so that help
    texts and the program's prints arrive) except within :func:`quarantined`.
    Streams that are not backed by descriptors 1 and 2 (pytest's capture,
    ``contextlib.redirect_stdout``) are used as they are for the program's
    output; descriptor 1 is redirected all the same.
    """
    global _program_out, _program_err, _owned
    if _owned:  # nested (a command calling the command line): one guard
        yield
        return
    open_standard_descriptors()
    out, err = sys.stdout, sys.stderr
    _flush(out, err)
    _flush_descriptor_one()
    program_out = _duplicate(out, 1) if _fd_of(out) == 1 else out
    program_err = _duplicate(err, 2) if _fd_of(err) == 2 else err
    saved = os.dup(1)
    target = os.dup(2) if library_output == "stderr" else os.open(os.devnull, os.O_WRONLY)
    os.dup2(target, 1)
    os.close(target)
    _program_out, _program_err, _owned = program_out, program_err, True
    sys.stdout = program_out
    try:
        yield
    finally:
        _flush(program_out, program_err)
        sys.stdout = out
        _program_out = _program_err = None
        _owned = False
        _flush_descriptor_one()  # what libraries left in buffers goes to the sink too
        os.dup2(saved, 1)
        os.close(saved)
        for stream, original in ((program_out, out), (program_err, err)):
            if stream is not original:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()


@contextlib.contextmanager
def quarantined() -> Iterator[None]:
    """Send ``sys.stdout`` to the sink while libraries run (their prints, Pyomo's log).

    A no-op outside :func:`owned_stdout`.
    """
    if not _owned:
        yield
        return
    previous = sys.stdout
    _flush(previous)
    sys.stdout = _SINK
    try:
        yield
    finally:
        sys.stdout = previous
