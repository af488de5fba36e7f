"""Register methods for one test or module, then put the registry back as it was."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def restored_registry() -> Iterator[None]:
    """Snapshot every family's methods, yield, restore the snapshot.

    Every family is loaded first: a family first loaded inside the block would
    be marked loaded by the catalogue while its built-in methods vanished with
    the restore, and later tests would find only the test's own methods.
    """
    from hybridsched import registry
    from hybridsched.catalogue import family_names

    for family in family_names():
        registry.methods(family)
    saved = {family: dict(found) for family, found in registry._METHODS.items()}
    try:
        yield
    finally:
        registry._METHODS.clear()
        registry._METHODS.update(saved)
