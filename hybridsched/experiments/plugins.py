"""Plugins: Python files that register extra methods or families in this process.

A campaign names them; the driver imports them before validating the spec
and every worker imports them before its first run, so a method registered
with :func:`hybridsched.registry.register_method` (or a family registered
with :func:`hybridsched.families.register_family`) exists everywhere.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
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
        Naming the file when it is missing or its import raises (with the
        exception's last line).
    """
    for given in paths:
        path = os.path.abspath(os.path.expanduser(given))
        name = plugin_module_name(path)
        if name in sys.modules:
            continue
        if not os.path.isfile(path):
            raise InputError(f"{path}: no such plugin file")
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise InputError(f"{path}: cannot be imported as a Python file")
        module = importlib.util.module_from_spec(spec)
        # Registered before running it, as ``import`` does: pickled functions and
        # dataclasses of the plugin must find their module.
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as exc:
            del sys.modules[name]
            if not isinstance(exc, Exception):
                raise
            where = f"{path}:{exc.lineno}" if isinstance(exc, SyntaxError) else path
            last = traceback.format_exception_only(exc)[-1].strip()
            raise InputError(f"{where}: plugin failed to import: {last}") from None
