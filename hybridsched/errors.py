"""Exceptions that the command line turns into one-line messages.

``InputError`` means the user gave something unusable (exit code 2);
``InfeasibleInstanceError`` means the instance itself admits no schedule
(exit code 1), and names the offending items; ``MethodFailedError`` means a
heuristic could not build a schedule, which proves nothing about the instance.

Every layer may import this module: it imports nothing from the package.
"""

from __future__ import annotations


class InputError(ValueError):
    """A file, field, option or name that cannot be used as given.

    The message is a single line naming the file, line or field path.
    """


class ParameterError(InputError):
    """A bad value of a Python function's parameter, named as Python names it.

    The library names the parameter (``seed``, ``n_tasks``); the command line
    prints the flag the user typed instead (``--seed``, ``--tasks``): it maps
    :attr:`parameter` to its flag and prints ``FLAG: reason``.

    Attributes
    ----------
    parameter:
        The parameter's Python name.
    reason:
        What is wrong, without the parameter's name.
    """

    def __init__(self, parameter: str, reason: str):
        super().__init__(f"{parameter}: {reason}")
        self.parameter = parameter
        self.reason = reason

    def __reduce__(self) -> tuple[object, ...]:
        # Exceptions pickle their ``args`` (the message) by default; rebuild from both fields
        # (a campaign's Dask worker sends its errors back pickled).
        return (type(self), (self.parameter, self.reason))


class InfeasibleInstanceError(Exception):
    """The instance has no feasible schedule; ``items`` names the culprits."""

    def __init__(self, message: str, items: list[str] | tuple[str, ...] = ()):
        super().__init__(message)
        self.items = tuple(items)


class MethodFailedError(Exception):
    """A heuristic that could not build a schedule (not a proof of infeasibility)."""


class ClusterError(RuntimeError):
    """The Dask cluster of a campaign could not start or went away (stored rows are kept)."""
