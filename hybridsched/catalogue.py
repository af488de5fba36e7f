"""The catalogue: which families exist, found through entry points and loaded on first use.

Every family, built-in or not, is a plug-in: a module named by an entry point of
the group ``hybridsched.families`` whose name is the family's. Importing that
module (its *registration* module, ``<family>/methods.py`` for the built-in
ones) declares the family (:func:`declare_family`, or :func:`register_family`
with a ready :class:`~hybridsched.family.Family`) and its methods
(:mod:`hybridsched.registry`). A package that adds methods to an existing
family uses the same group and the family's name::

    [project.entry-points."hybridsched.families"]
    bot-sites = "my_package.methods"

A family's plug-ins are imported the first time the family is asked for, so
``hybridsched methods`` imports registration modules only, and no family costs
anything until it is used. Names of families come from the entry points alone.
A plug-in that fails to import is recorded (:func:`plugin_failures`) and named
in a one-line error when its family or method is asked for; the other families
keep working. Campaign plug-ins (Python files, :mod:`hybridsched.experiments.plugins`)
declare families and methods with the same functions.

This module sits on the ground floor: it imports no family; targets such as
``"hybridsched.gang.family:FAMILY"`` are strings, resolved by :func:`resolve`.
"""

from __future__ import annotations

import functools
import importlib
import traceback
from collections.abc import Callable
from importlib import metadata
from typing import TYPE_CHECKING, Any

from hybridsched.errors import InputError

if TYPE_CHECKING:
    from hybridsched.family import Family

#: The entry-point group through which families and methods are found.
GROUP = "hybridsched.families"

#: Where a target lives: ``"package.module:attribute"`` (dots after the colon
#: walk attributes), or the object itself.
Target = str | Callable[..., Any]

_FAMILIES: dict[str, Family] = {}
_DECLARED: dict[str, str] = {}  # family name -> target of its Family, built on first use
_SCHEMAS: dict[str, str] = {}  # family name -> module holding InstanceDoc and SolutionDoc
_LOADED: set[str] = set()
_FAILURES: dict[str, list[str]] = {}  # family name -> one line per plug-in that failed


def resolve(target: Any) -> Any:
    """The object a ``"module:attribute"`` target names (any other object is returned as is).

    Dots after the colon walk attributes, or keys of a ``dict``
    (``"pkg.adapters:POLICIES.fifo.check_options"``).

    Raises
    ------
    InputError
        When the module does not import or has no such attribute (one line).
    """
    if not isinstance(target, str):
        return target
    module_name, _, attributes = target.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
        for attribute in filter(None, attributes.split(".")):
            found = (found[attribute] if isinstance(found, dict) and attribute in found
                     else getattr(found, attribute))
    except (ImportError, AttributeError) as exc:
        raise InputError(f"cannot load {target!r}: {_last_line(exc)}") from None
    return found


def declare_family(name: str, target: str, *, schema: str | None = None) -> None:
    """Declare family ``name``, its :class:`Family` built from ``target`` when first asked for.

    ``schema`` names the module whose pydantic models ``InstanceDoc`` and
    ``SolutionDoc`` describe the family's files (``hybridsched schema``).
    """
    if name in _FAMILIES or _DECLARED.get(name, target) != target:
        raise InputError(f"family {name!r} is defined twice ({_defined_by(name)} and {target})")
    _DECLARED[name] = target
    if schema is not None:
        _SCHEMAS[name] = schema


def register_family(family: Family) -> Family:
    """Add a ready ``family`` to the catalogue (returned, to use as ``FAMILY = ...``)."""
    _DECLARED.pop(family.name, None)
    _FAMILIES[family.name] = family
    return family


def get_family(name: str) -> Family:
    """The family called ``name``, its plug-ins loaded; else a one-line :class:`InputError`."""
    load_plugins(name)
    if name not in _FAMILIES and name in _DECLARED:
        family = resolve(_DECLARED[name])
        if getattr(family, "name", None) != name:
            raise InputError(f"family {name!r}: {_DECLARED[name]} is not its Family")
        register_family(family)
    if name in _FAMILIES:
        return _FAMILIES[name]
    if _FAILURES.get(name):
        raise InputError(f"family {name!r} is unavailable: {_FAILURES[name][0]}")
    known = ", ".join(family_names()) or "none"
    raise InputError(f"unknown family {name!r} (known: {known})")


def check_family(name: str) -> None:
    """Raise the one-line error of :func:`get_family` for an unknown name, building nothing."""
    load_plugins(name)
    if name not in _FAMILIES and name not in _DECLARED:
        get_family(name)


def schema_model(name: str, *, solution: bool = False) -> Any:
    """The pydantic model of family ``name``'s instance (or solution) files.

    Raises
    ------
    InputError
        For an unknown family, or one that declared no schema (one line).
    """
    check_family(name)
    if name not in _SCHEMAS:
        raise InputError(f"family {name!r} publishes no JSON Schema (its declare_family "
                         "names no schema module)")
    return resolve(f"{_SCHEMAS[name]}:{'SolutionDoc' if solution else 'InstanceDoc'}")


def family_names() -> list[str]:
    """Names of every family: from the entry points, and any declared in this process."""
    return sorted({*_entry_points(), *_FAMILIES, *_DECLARED})


def load_plugins(name: str) -> None:
    """Import every plug-in of family ``name`` once (the built-in one first)."""
    if name in _LOADED:
        return
    _LOADED.add(name)
    for entry in _entry_points().get(name, []):
        try:
            entry.load()
        except KeyboardInterrupt:
            _LOADED.discard(name)
            raise
        except BaseException as exc:  # noqa: BLE001 - a plug-in must not end the program
            _FAILURES.setdefault(name, []).append(
                f"plug-in {entry.value!r}{_distribution(entry)} failed to import: "
                f"{_last_line(exc)}")


def plugin_failures(name: str | None = None) -> list[str]:
    """One line per plug-in (of family ``name``, or of any loaded family) that failed."""
    if name is not None:
        return list(_FAILURES.get(name, []))
    return [line for lines in _FAILURES.values() for line in lines]


@functools.cache
def _entry_points() -> dict[str, list[metadata.EntryPoint]]:
    """The group's entry points by family name, hybridsched's own first."""
    found: dict[str, list[metadata.EntryPoint]] = {}
    for entry in metadata.entry_points(group=GROUP):
        found.setdefault(entry.name, []).append(entry)
    for entries in found.values():
        entries.sort(key=lambda entry: not entry.value.startswith("hybridsched."))
    return found


def _defined_by(name: str) -> str:
    return _DECLARED.get(name) or type(_FAMILIES[name]).__module__


def _distribution(entry: metadata.EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    return f" (package {dist.name})" if dist is not None else ""


def _last_line(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"SystemExit: {exc.code!r}"
    return " ".join(traceback.format_exception_only(exc)[-1].split())
