"""Names a package exports from its modules, imported on first use.

A package's ``__init__`` that imported its modules would make importing any one
of them load them all (Python imports the package first): a family's
registration module would then import its checker, numpy and pydantic just to
list method names. Packages export through :func:`lazy_exports` instead.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str], namespace: dict[str, Any]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose name ``n`` lives in ``exports[n]``.

    Use as ``__getattr__, __dir__ = lazy_exports(__name__, {...}, globals())``;
    a name found is kept in ``namespace`` (the package's globals).
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's name
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(exports[name]), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted([*namespace, *exports])

    return __getattr__, __dir__
