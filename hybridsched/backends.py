"""Exact backends: the names a user may choose (``--backend``) and the check of that choice.

HiGHS (MILP, through Pyomo, PuLP or highspy) is the default and always
installed; OR-Tools CP-SAT is the optional second backend
(``pip install 'hybridsched[cpsat]'``), whose models each family writes from
its problem's definition (:mod:`hybridsched.models`). Every exact method
takes ``backend`` (and ``threads``, CP-SAT's search workers) as options,
checked here before any work starts, without importing either solver.

Every layer may import this module: it imports nothing above ``errors``.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from hybridsched.errors import InputError

#: Backend names and what they are, the default first.
BACKENDS: dict[str, str] = {
    "highs": "HiGHS MILP (default)",
    "cpsat": "OR-Tools CP-SAT (optional extra: pip install 'hybridsched[cpsat]')",
}

DEFAULT_BACKEND = "highs"


def cpsat_installed() -> bool:
    """Whether OR-Tools can be imported (found without importing it)."""
    try:
        return importlib.util.find_spec("ortools") is not None
    except (ImportError, ValueError):
        return False


def check_backend(backend: Any) -> str:
    """Return ``backend`` if it names an available backend, else raise a one-line InputError."""
    if backend not in BACKENDS:
        raise InputError(f"option --backend: must be one of {', '.join(BACKENDS)}, "
                         f"got {backend!r}")
    if backend == "cpsat" and not cpsat_installed():
        raise InputError("option --backend: cpsat needs OR-Tools, which is not installed "
                         "(pip install 'hybridsched[cpsat]')")
    return str(backend)


def check_exact_options(options: dict[str, Any]) -> None:
    """The ``check_options`` of exact methods: ``backend`` and ``threads``."""
    backend = check_backend(options.get("backend", DEFAULT_BACKEND))
    threads = options.get("threads", 1)
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 256:
        raise InputError(f"option --threads: must be an integer from 1 to 256, got {threads!r}")
    if threads != 1 and backend != "cpsat":
        raise InputError("option --threads: applies to --backend cpsat only (HiGHS runs one "
                         "thread per run)")
