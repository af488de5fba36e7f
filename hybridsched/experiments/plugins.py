"""Plugins: Python files that register extra methods or families in this process.

A campaign names them; the driver imports them before validating the spec
and every worker imports them before its first run, so a method registered
with :func:`hybridsched.registry.register_method` (or a family registered
with :func:`hybridsched.catalogue.register_family`) exists everywhere.

A plugin is bad input, reported as one :class:`~hybridsched.errors.InputError`
naming its file, when it is missing, does not import (any exception, and
also ``sys.exit()``, ``GeneratorExit`` or a ``KeyboardInterrupt`` that no
Ctrl-C caused: a plugin must not end the program), or registers a method
under the name of one that exists already (its runs would share the keys,
and so the stored results, of the method it hides).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import signal
import sys
import traceback
from collections.abc import Sequence

from hybridsched.errors import InputError


def plugin_module_name(path: str) -> str:
    """Module name of the plugin at absolute ``path``: the same in every process."""
    digest = hashlib.sha256(path.encode("utf-8")).hexdigest()[:16]
    return f"hybridsched_plugin_{digest}"


def import_plugins(paths: Sequence[str]) -> None:
    """Import each plugin file once per process (later calls are no-ops).

    Raises
    ------
    InputError
        Naming the file when it is missing, its import raises or exits (with
        the exception's last line), or it registers a method name that is
        taken (refused by the registry; the earlier method stays).
    KeyboardInterrupt
        When Ctrl-C (SIGINT) arrived during the import.
    """
    for given in paths:
        path = os.path.abspath(os.path.expanduser(given))
        name = plugin_module_name(path)
        if name in sys.modules:
            continue
        if not os.path.isfile(path):
            what = "is a folder, not a" if os.path.isdir(path) else "no such"
            raise InputError(f"{path}: {what} plugin file")
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise InputError(f"{path}: cannot be imported as a Python file")
        module = importlib.util.module_from_spec(spec)
        # Registered before running it, as ``import`` does: pickled functions and
        # dataclasses of the plugin must find their module.
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as exc:  # noqa: BLE001 - every way out is the plugin's fault
            del sys.modules[name]
            if isinstance(exc, KeyboardInterrupt) and _from_ctrl_c():
                raise
            raise InputError(_import_failure(path, exc)) from None


def _import_failure(path: str, exc: BaseException) -> str:
    """The one-line message of a plugin whose import raised or exited."""
    lineno = getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) else None
    where = f"{path}:{lineno}" if lineno else path
    if isinstance(exc, SystemExit):
        return (f"{where}: plugin exited while being imported (SystemExit: {exc.code!r}); "
                "a plugin must only define and register methods")
    if isinstance(exc, InputError):  # hybridsched's own refusal (a method name taken)
        return f"{where}: {exc}"
    last = " ".join(traceback.format_exception_only(exc)[-1].split())
    if not isinstance(exc, Exception):
        last += " (a plugin must not stop the program)"
    return f"{where}: plugin failed to import: {last}"


def _from_ctrl_c() -> bool:
    """Whether a ``KeyboardInterrupt`` raised during an import is the user's Ctrl-C.

    Under the command line, the SIGINT handler records every Ctrl-C
    (:mod:`hybridsched.interrupt`): one it did not record, the plugin raised
    itself. Without it (Python's own handler), it is taken as the user's.
    """
    from hybridsched import interrupt

    return interrupt.requested() or signal.getsignal(signal.SIGINT) is signal.default_int_handler

