"""Shared harness of the solution-file mutation tests (malleable, gang).

A family's test gives valid solution documents and a table of corruption
classes; each class yields corrupted copies of a document. A corrupted file
is caught when reading it raises a one-line :class:`InputError` or the
family's checker reports a violation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from hybridsched.errors import InputError

Doc = dict[str, Any]
Mutation = Callable[[Doc, Any], Iterator[Doc]]


def caught_by(read: Callable[[Doc, Any, str], Any],
              check: Callable[[Any, Any], list[str]]) -> Callable[[Doc, Any], bool]:
    """``caught(doc, instance)``: refused by ``read`` or judged invalid by ``check``."""
    def caught(doc: Doc, instance: Any) -> bool:
        try:
            solution = read(doc, instance, "mutant.json")
        except InputError:
            return True
        return bool(check(instance, solution))
    return caught


def assert_all_caught(documents: Iterable[tuple[str, Any, Doc]],
                      mutations: dict[str, Mutation], caught: Callable[[Doc, Any], bool],
                      at_least: int) -> Counter[str]:
    """Assert every document valid and every corruption of it caught; the counts per class."""
    tried: Counter[str] = Counter()
    missed = []
    for label, instance, doc in documents:
        assert not caught(doc, instance), f"the valid document {label} is refused"
        for name, mutate in mutations.items():
            for mutant in mutate(doc, instance):
                tried[name] += 1
                if not caught(mutant, instance):
                    missed.append(f"{name} ({label})")
    assert not missed, missed
    assert set(tried) == set(mutations), set(mutations) - set(tried)
    assert sum(tried.values()) >= at_least
    return tried
